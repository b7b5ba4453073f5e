package gallery

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// Editor is the pages' part of a gallery, every module's: add a picture
// (POST, multipart "photo"), delete one (POST …/:photo/delete, after a
// confirmation), move one (POST …/:photo/move, to=first|earlier). The
// module says whose pictures the request changes, where the page is, how
// it shows the gallery, and what follows a change.
type Editor struct {
	Gallery Gallery
	// Keys are the module's words (components.GalleryProps).
	Keys     string
	Uploads  *web.UploadPace
	MaxBytes int64
	// Owner is the owner whose pictures the request changes, or a
	// refusal.
	Owner func(c echo.Context) (string, error)
	// Back is the page that holds the gallery, where a change goes.
	Back func(c echo.Context) string
	// Page shows that page with status and a refusal's words ("" for
	// none).
	Page func(c echo.Context, status int, problem string) error
	// Changed, when set, is told of owner's pictures after a change (the
	// first leads a People card).
	Changed func(ctx context.Context, owner string, rows []Row) error
}

// Props are owner's pictures as the gallery shows them, their small
// sizes at url's addresses, changes posted under action, with a
// refusal's words.
func (e Editor) Props(rows []Row, action string, url func(Row) string, problem string) components.GalleryProps {
	p := components.GalleryProps{Keys: e.Keys, Action: action, Max: e.Gallery.Max, MaxMB: e.MaxBytes >> 20, Error: problem}
	for _, r := range rows {
		p.Items = append(p.Items, components.GalleryItem{ID: r.RowKey, URL: url(r), ActionURL: action + "/" + r.RowKey})
	}
	return p
}

// Add is POST of a picture: a refusal shows the page again with what
// was wrong (the upload's, or Full).
func (e Editor) Add(c echo.Context) error {
	ctx := c.Request().Context()
	owner, err := e.Owner(c)
	if err != nil {
		return err
	}
	data, err := e.Uploads.Read(c, "photo", e.MaxBytes)
	var rows []Row
	if err == nil {
		_, rows, err = e.Gallery.Add(ctx, owner, data)
	}
	if err == nil {
		return e.changed(c, owner, rows, e.Keys+".flash.added")
	}
	if status, message, ok := web.UploadRefusal(err); ok {
		return e.Page(c, status, i18n.T(ctx, message, "mb", e.MaxBytes>>20))
	}
	if errors.Is(err, e.Gallery.Full) {
		return e.Page(c, http.StatusConflict, i18n.T(ctx, e.Keys+".error.full", "max", e.Gallery.Max))
	}
	return err
}

// Delete is POST …/:photo/delete, behind a confirmation, which is asked
// of a picture of the owner's alone.
func (e Editor) Delete(c echo.Context) error {
	ctx := c.Request().Context()
	owner, err := e.Owner(c)
	if err != nil {
		return err
	}
	if !web.Confirmed(c) {
		if _, err := e.Gallery.Get(ctx, owner, c.Param("photo")); err != nil {
			return err
		}
		return web.AskConfirm(c, components.GalleryDeleteProps(ctx, e.Keys, strings.TrimSuffix(c.Request().URL.Path, "/delete")))
	}
	rows, err := e.Gallery.Delete(ctx, owner, c.Param("photo"))
	if err != nil {
		return err
	}
	return e.changed(c, owner, rows, e.Keys+".flash.deleted")
}

// Move is POST …/:photo/move (to=first|earlier).
func (e Editor) Move(c echo.Context) error {
	owner, err := e.Owner(c)
	if err != nil {
		return err
	}
	first, err := web.FormChoice(c, "to", map[string]bool{"first": true, "earlier": false}, e.Keys+".error.move")
	if err != nil {
		return err
	}
	rows, err := e.Gallery.Move(c.Request().Context(), owner, c.Param("photo"), first)
	if err != nil {
		return err
	}
	if rows == nil {
		return web.Redirect(c, e.Back(c))
	}
	return e.changed(c, owner, rows, "")
}

// changed tells Changed of owner's pictures, then goes back with flash
// ("" for none).
func (e Editor) changed(c echo.Context, owner string, rows []Row, flash string) error {
	if e.Changed != nil {
		if err := e.Changed(c.Request().Context(), owner, rows); err != nil {
			return err
		}
	}
	if flash == "" {
		return web.Redirect(c, e.Back(c))
	}
	return web.FlashRedirect(c, flash, e.Back(c))
}

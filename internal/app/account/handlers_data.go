package account

// The "Your data" tab: download the data, delete the account.

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/account"
)

// showData is GET /account/data.
func (h *handlers) showData(c echo.Context) error {
	return renderTab(c, http.StatusOK, "data", views.Data(views.DataProps{DownloadMinutes: int(DownloadEvery / time.Minute)}))
}

// downloadData is POST /account/data/download: the archive, built whole
// in a temporary file first, so an error on the way is an error page and
// never a zip cut short. One download per account per DownloadEvery
// (429); a download that failed does not count.
func (h *handlers) downloadData(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	giveBack, ok := h.svc.downloads.Take(id.MemberKey, h.svc.now())
	if !ok {
		return ErrDownloadPace
	}
	f, err := os.CreateTemp("", "harmony-data-*.zip")
	if err != nil {
		giveBack()
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := h.svc.WriteArchive(ctx, id.MemberKey, id.SessionID, f); err != nil {
		giveBack()
		return web.NewError(http.StatusInternalServerError, i18n.T(ctx, "account.data.error.download"), err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		giveBack()
		return err
	}
	name := "harmony-data-" + h.svc.now().UTC().Format(time.DateOnly) + ".zip"
	hd := c.Response().Header()
	hd.Set(echo.HeaderContentType, "application/zip")
	hd.Set(echo.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	hd.Set(echo.HeaderContentLength, strconv.FormatInt(size, 10))
	hd.Set("Cache-Control", "private, no-store")
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), f)
	return err
}

// showDelete is GET /account/data/delete: what goes, what stays, and the
// word to type.
func (h *handlers) showDelete(c echo.Context) error {
	return h.renderDelete(c, http.StatusOK, "", "", "")
}

// deleteAccount is POST /account/data/delete (field "confirm"): the
// account closes, this browser is signed out and lands on
// /account/deleted; the erasure runs in the background. A confirmation
// that does not match is 422 and the site's last admin 409, nothing
// changed.
func (h *handlers) deleteAccount(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	typed := c.FormValue("confirm")
	done := mail.Message{Subject: i18n.T(ctx, "account.deleted.mail.subject"), Text: i18n.T(ctx, "account.deleted.mail.text")}
	err := h.svc.CloseAccount(ctx, id.MemberKey, typed, done)
	switch {
	case errors.Is(err, ErrConfirmMismatch):
		return h.renderDelete(c, http.StatusUnprocessableEntity, typed, i18n.T(ctx, "account.data.error.confirm"), "")
	case errors.Is(err, ErrLastAdmin):
		return h.renderDelete(c, http.StatusConflict, typed, "", i18n.T(ctx, "account.data.error.last_admin"))
	case err != nil:
		return err
	}
	if err := h.svc.sessions.SignOut(c); err != nil {
		return err
	}
	return web.Redirect(c, "/account/deleted")
}

func (h *handlers) renderDelete(c echo.Context, status int, typed, fieldError, problem string) error {
	ctx := c.Request().Context()
	p, err := h.svc.Profile(ctx, auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	shared, err := h.svc.PreviewForget(ctx, p)
	if err != nil {
		return err
	}
	return web.Render(c, status, web.Page{
		Title: i18n.T(ctx, "account.data.confirm.heading"),
		Content: views.DeleteAccount(views.DeleteProps{
			Word: ConfirmationWord(p), ByEmail: p.Email != "", Typed: typed, Error: fieldError, Problem: problem, Shared: shared,
		}),
	})
}

// showDeleted is GET /account/deleted, public: the account is being
// deleted.
func (h *handlers) showDeleted(c echo.Context) error {
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(c.Request().Context(), "account.deleted.heading"), Content: views.Deleted()})
}

package groups

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// importPage is GET /groups/:id/import: the upload form.
func (h *handlers) importPage(c echo.Context) error {
	_, g := Opened(c)
	return renderImport(c, http.StatusOK, views.ImportProps{GroupName: g.GroupName, GroupURL: groupURL(g.GroupID)})
}

func renderImport(c echo.Context, status int, p views.ImportProps) error {
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "groups.import.heading"), Section: "groups", Content: views.Import(p)})
}

// previewImport is POST /groups/:id/import (multipart): what the file
// holds, and a button to import it. A missing, oversized or unreadable
// file shows the form again with why, and keeps nothing.
func (h *handlers) previewImport(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	p := views.ImportProps{GroupName: g.GroupName, GroupURL: groupURL(g.GroupID)}
	data, err := h.svc.uploads.Read(c, "file", MaxImportBytes)
	if status, key, ok := web.UploadRefusal(err); ok {
		p.Error = i18n.T(ctx, key, "mb", MaxImportBytes>>20)
		return renderImport(c, status, p)
	}
	if err != nil {
		return err
	}
	preview, err := h.svc.PreviewImport(ctx, m, data)
	if err == ErrNotCalendar {
		p.Error = i18n.T(ctx, "groups.import.error.parse")
		return renderImport(c, http.StatusBadRequest, p)
	}
	if err != nil {
		return err
	}
	zone := h.svc.Zone(ctx, auth.From(c))
	p.Token = preview.Token
	for _, it := range preview.Items {
		row := views.ImportRow{Title: it.Doc.Title, When: whenText(ctx, it.Doc.Start, it.Doc.End, it.Doc.AllDay, zone), Status: "new", Repeats: it.Doc.Repeat != "", Canceled: it.Doc.Status == AppointmentCanceled}
		switch {
		case it.Problem != "":
			row.Status, row.Problem = "skip", it.Problem
			if it.Doc.Start.IsZero() {
				row.When = ""
			}
		case it.Existing != "":
			row.Status = "update"
			p.Updates++
		default:
			p.New++
		}
		p.Rows = append(p.Rows, row)
	}
	return renderImport(c, http.StatusOK, p)
}

// importFile is POST /groups/:id/import/:token: imports the previewed
// file.
func (h *handlers) importFile(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	if _, _, err := h.svc.ImportFile(ctx, m, auth.From(c), c.Param("token")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.import.flash.done", groupURL(g.GroupID))
}

package prompts

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/prompts"
)

// adminTagsURL is the tag catalog's admin page.
const adminTagsURL = "/admin/tags"

func adminTagURL(tag string) string { return adminTagsURL + "/" + url.PathEscape(tag) }

// adminTags is GET /admin/tags.
func (h *handlers) adminTags(c echo.Context) error {
	return h.renderTags(c, http.StatusOK, views.TagsAdminProps{}, nil)
}

// renderTags shows every tag, active or not, in order. failed, when set,
// is a row whose rename was refused: it shows what was sent.
func (h *handlers) renderTags(c echo.Context, status int, p views.TagsAdminProps, failed *views.TagAdminRow) error {
	ctx := c.Request().Context()
	tags, err := h.svc.AllTags(ctx)
	if err != nil {
		return err
	}
	for i, t := range tags {
		row := views.TagAdminRow{
			Tag: t.Tag, English: t.DisplayName, Russian: t.DisplayNameR, Active: t.IsActive,
			Position: i + 1, Count: t.PromptCount,
			UpdateURL: adminTagURL(t.Tag), MoveURL: adminTagURL(t.Tag) + "/move",
			First: i == 0, Last: i == len(tags)-1,
		}
		if failed != nil && failed.Tag == t.Tag {
			row.English, row.Russian, row.Active = failed.English, failed.Russian, failed.Active
			row.Errors = failed.Errors
		}
		p.Rows = append(p.Rows, row)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "admin.tags.heading"), Section: "admin", Content: views.TagsAdmin(p)})
}

// addTag is POST /admin/tags (tag, english, russian).
func (h *handlers) addTag(c echo.Context) error {
	add := views.AddTagForm{Tag: c.FormValue("tag"), English: c.FormValue("english"), Russian: c.FormValue("russian")}
	err := h.svc.AddTag(c.Request().Context(), add.Tag, add.English, add.Russian)
	return web.AnswerForm(c, err, "admin.tags.flash.added", adminTagsURL, func(status int, fe formrule.FieldErrors) error {
		add.Errors = fe
		return h.renderTags(c, status, views.TagsAdminProps{Add: add}, nil)
	}, web.Refusal{Err: ErrTagExists, Field: "tag"})
}

// updateTag is POST /admin/tags/:tag (english, russian, active): rename,
// retire or bring back a tag.
func (h *handlers) updateTag(c echo.Context) error {
	row := views.TagAdminRow{Tag: c.Param("tag"), English: c.FormValue("english"), Russian: c.FormValue("russian"), Active: c.FormValue("active") == "true"}
	err := h.svc.UpdateTag(c.Request().Context(), row.Tag, row.English, row.Russian, row.Active)
	return web.AnswerForm(c, err, "admin.tags.flash.updated", adminTagsURL+"#tag-"+url.PathEscape(row.Tag), func(status int, fe formrule.FieldErrors) error {
		row.Errors = fe
		return h.renderTags(c, status, views.TagsAdminProps{}, &row)
	})
}

// moveDeltas are the move form's directions.
var moveDeltas = map[string]int{"up": -1, "down": 1}

// moveTag is POST /admin/tags/:tag/move (direction=up|down).
func (h *handlers) moveTag(c echo.Context) error {
	ctx := c.Request().Context()
	delta, err := web.FormChoice(c, "direction", moveDeltas, "admin.tags.error.direction")
	if err != nil {
		return err
	}
	tag := c.Param("tag")
	if err := h.svc.MoveTag(ctx, tag, delta); err != nil {
		return err
	}
	return web.FlashRedirect(c, "admin.tags.flash.moved", adminTagsURL+"#tag-"+url.PathEscape(tag))
}

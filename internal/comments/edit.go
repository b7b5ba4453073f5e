package comments

import (
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// On is what the kit's pages of a comment (Editing, Replying) take of
// the module: its threads, the navigation the page of its own marks,
// which comment the request names (or a refusal: what it is on is
// gone), and the comment as the module's list shows it to the
// request's viewer.
type On struct {
	Thread  Thread
	Section string
	Of      func(c echo.Context) (Target, error)
	Item    func(c echo.Context, r Row) templ.Component
}

// Editing is a comment's edit, every module's: its author opens the form
// (with htmx in the comment's place in the list, without JavaScript on a
// page of its own) and saves; htmx then gets the comment as it now
// reads, a plain form the page at it (its anchor, Anchor). A refused
// text comes back in the form, 422. The module says which comment the
// request names, and how it looks.
type Editing struct {
	On
	// Wrap puts the edit form in the list item the module's list has,
	// in place of comment r's.
	Wrap func(r Row, form templ.Component) templ.Component
}

// Target is a comment an address names: its thread and RowKey, and the
// title and address of the page its thread is on.
type Target struct {
	Thread, RowKey string
	Title, URL     string
}

// Anchor is the id of comment r in its page, every module's.
func Anchor(r Row) string { return "comment-" + r.ID() }

// Show is GET of a comment's edit form: its author's, while it is shown.
func (e Editing) Show(c echo.Context) error {
	t, err := e.Of(c)
	if err != nil {
		return err
	}
	r, err := e.Thread.Get(c.Request().Context(), t.Thread, t.RowKey)
	switch {
	case err != nil:
		return err
	case r.Hidden:
		return e.Thread.Missing
	case r.AuthorKey != auth.From(c).MemberKey:
		return e.Thread.NotYours
	}
	return e.form(c, http.StatusOK, t, r.Body, "")
}

// Save is POST of a comment's edit form (its Field).
func (e Editing) Save(c echo.Context) error {
	t, err := e.Of(c)
	if err != nil {
		return err
	}
	body := c.FormValue(e.Thread.Field)
	r, err := e.Thread.Edit(c.Request().Context(), t.Thread, t.RowKey, auth.From(c), body)
	switch {
	case err == nil && web.HTMXFrom(c).Partial:
		return web.RenderFragment(c, http.StatusOK, e.Item(c, r))
	case err == nil:
		return web.FlashRedirect(c, "comments.flash.edited", t.URL+"#"+Anchor(r))
	}
	return web.AnswerForm(c, err, "", "", func(status int, errs formrule.FieldErrors) error {
		return e.form(c, status, t, strings.ToValidUTF8(body, "\uFFFD"), errs[e.Thread.Field])
	})
}

// form is the edit form of t's comment with body and its error: htmx
// gets the list item, a plain request a page.
func (e Editing) form(c echo.Context, status int, t Target, body, errKey string) error {
	r := Row{PartitionKey: t.Thread, RowKey: t.RowKey}
	item := e.Wrap(r, components.CommentEditForm(components.CommentEditProps{
		ID: r.ID(), Field: e.Thread.Field, Action: c.Request().URL.Path, Back: t.URL + "#" + Anchor(r), Body: body, Error: errKey,
	}))
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, status, item)
	}
	ctx := c.Request().Context()
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "comments.edit_heading"), Section: e.Section, Content: components.CommentEditPage(t.Title, t.URL, item)})
}

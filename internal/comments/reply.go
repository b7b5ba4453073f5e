package comments

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// Replying is a reply to a comment, every module's whose thread takes
// replies (Thread.Replies): "Reply" opens the form, with htmx under the
// comment (in its ReplySlot), without JavaScript on a page of its own
// below the comment quoted. A reply written answers as the module says
// (Done: with htmx its list again, else the page at the reply); a
// refused text comes back in the form, 422, in its place.
type Replying struct {
	// On is the module's comments; its Item quotes the comment above
	// the form on the page of its own.
	On
	// Post writes the request's reply with body to t's comment: the
	// module's Thread.Reply, with its own checks and notices.
	Post func(c echo.Context, t Target, body string) (Row, error)
	// Done answers a reply written.
	Done func(c echo.Context, t Target, reply Row) error
}

// ReplySlot is the id of the place under comment r where htmx opens its
// reply form.
func ReplySlot(r Row) string { return "reply-" + r.ID() }

// Show is GET of a comment's reply form, while the comment is shown.
func (e Replying) Show(c echo.Context) error {
	t, r, err := e.comment(c)
	if err != nil {
		return err
	}
	return e.form(c, http.StatusOK, t, r, "", "")
}

// Save is POST of a comment's reply form (its Field).
func (e Replying) Save(c echo.Context) error {
	t, r, err := e.comment(c)
	if err != nil {
		return err
	}
	body := c.FormValue(e.Thread.Field)
	reply, err := e.Post(c, t, body)
	if err == nil {
		return e.Done(c, t, reply)
	}
	return web.AnswerForm(c, err, "", "", func(status int, errs formrule.FieldErrors) error {
		return e.form(c, status, t, r, strings.ToValidUTF8(body, "\uFFFD"), errs[e.Thread.Field])
	})
}

// comment is the comment the request names, which replies answer (a
// reply's own comment for a reply), if shown.
func (e Replying) comment(c echo.Context) (Target, Row, error) {
	t, err := e.Of(c)
	if err != nil {
		return Target{}, Row{}, err
	}
	if !e.Thread.Replies {
		return Target{}, Row{}, e.Thread.Missing
	}
	if parent, ok := parentOf(t.RowKey); ok {
		t.RowKey = parent
	}
	r, err := e.Thread.Get(c.Request().Context(), t.Thread, t.RowKey)
	if err == nil && !r.Shown() {
		err = e.Thread.Missing
	}
	return t, r, err
}

// form is the reply form to comment r of t with body and its error:
// htmx gets the form for the comment's slot, a plain request a page.
func (e Replying) form(c echo.Context, status int, t Target, r Row, body, errKey string) error {
	props := components.CommentReplyProps{
		ID: r.ID(), Field: e.Thread.Field, Action: c.Request().URL.Path, Back: t.URL + "#" + Anchor(r),
		To: r.Author(c.Request().Context()), Body: body, Error: errKey,
	}
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, status, components.CommentReplyForm(props))
	}
	props.Plain = true
	form := components.CommentReplyForm(props)
	ctx := c.Request().Context()
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "comments.reply_heading"), Section: e.Section, Content: components.CommentReplyPage(t.Title, t.URL, e.Item(c, r), form)})
}

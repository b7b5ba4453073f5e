package moderation

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// Page is a module's report page, every module's: Of says what the
// request reports (the Report without its reason) and how the page
// reads beyond it (Form), or refuses; Show and File do the rest, the
// page quoting the report's author and excerpt. Section marks the
// navigation.
type Page struct {
	Section string
	Queue   Queue
	Of      func(c echo.Context) (Report, Form, error)
}

// Form is how a report page reads beyond the report it files: its
// heading (an i18n key), the way back and its words (Back "" is the
// report's Link), and where the form posts.
type Form struct {
	Heading, Back, BackLabel, Action string
}

// open is the request's report and its page.
func (p Page) open(c echo.Context) (Report, components.ReportProps, error) {
	r, f, err := p.Of(c)
	if err != nil {
		return Report{}, components.ReportProps{}, err
	}
	if f.Back == "" {
		f.Back = r.Link
	}
	return r, components.ReportProps{
		Heading: i18n.T(c.Request().Context(), f.Heading), Back: f.Back, BackLabel: f.BackLabel,
		Author: r.AuthorName, Excerpt: r.Excerpt, Action: f.Action,
	}, nil
}

// Show is GET of the report page.
func (p Page) Show(c echo.Context) error {
	_, props, err := p.open(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, props)
}

// File is POST of the report page: the report, with the reason and note
// the member chose, goes to the queue. A refusal shows the form again
// with what was typed: 422 for a missing reason or a bad note, 409 for a
// target reported already or one's own, 429 past the day's reports.
// Filed, the member goes back with a word of thanks.
func (p Page) File(c echo.Context) error {
	r, props, err := p.open(c)
	if err != nil {
		return err
	}
	r.Reason, r.Note = c.FormValue("reason"), c.FormValue("note")
	err = p.Queue.Report(c.Request().Context(), r)
	return web.AnswerForm(c, err, "moderation.flash.reported", props.Back, func(status int, errs formrule.FieldErrors) error {
		props.Reason, props.Note, props.Errors = r.Reason, r.Note, errs
		return p.render(c, status, props)
	}, refusals...)
}

var refusals = []web.Refusal{
	{Err: ErrAlreadyReported, Field: "reason"},
	{Err: ErrOwn, Field: "reason"},
	{Err: ErrTooMany, Field: "reason"},
}

func (p Page) render(c echo.Context, status int, props components.ReportProps) error {
	props.Reasons = Reasons
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "moderation.title"), Section: p.Section, Content: components.ReportPage(props)})
}

package moderation

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// The report page is every module's: the module says what is reported
// (the Report without its reason) and how the page reads (the props'
// heading, back link and quote); ShowForm and File do the rest.

// ShowForm is GET of a report page.
func ShowForm(c echo.Context, section string, p components.ReportProps) error {
	return render(c, http.StatusOK, section, p)
}

// File is POST of a report page: r, with the reason and note the member
// chose, goes to q. A refusal shows the form again with what was typed:
// 422 for a missing reason or a bad note, 409 for a target reported
// already or one's own, 429 past the day's reports. Filed, the member
// goes back with a word of thanks.
func File(c echo.Context, q Queue, section string, r Report, p components.ReportProps) error {
	r.Reason, r.Note = c.FormValue("reason"), c.FormValue("note")
	err := q.Report(c.Request().Context(), r)
	return web.AnswerForm(c, err, "moderation.flash.reported", p.Back, func(status int, errs formrule.FieldErrors) error {
		p.Reason, p.Note, p.Errors = r.Reason, r.Note, errs
		return render(c, status, section, p)
	}, refusals...)
}

var refusals = []web.Refusal{
	{Err: ErrAlreadyReported, Field: "reason"},
	{Err: ErrOwn, Field: "reason"},
	{Err: ErrTooMany, Field: "reason"},
}

func render(c echo.Context, status int, section string, p components.ReportProps) error {
	p.Reasons = Reasons
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "moderation.title"), Section: section, Content: components.ReportPage(p)})
}

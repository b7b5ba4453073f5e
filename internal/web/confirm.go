package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/csrf"
	"github.com/harmony/harmony/views/components"
)

// Confirmed reports whether a destructive POST carries the person's
// confirmation (the field components.Confirm sends). When it does not,
// the handler answers with AskConfirm and does nothing:
//
//	if !web.Confirmed(c) {
//		return web.AskConfirm(c, views.SomethingConfirm(…))
//	}
func Confirmed(c echo.Context) bool { return c.FormValue(components.ConfirmField) == "yes" }

// AskConfirm renders a page asking before the action: the question, a
// form that posts the same fields again with the confirmation, and a
// way back. An htmx request (a list row's action) gets the question in
// place of the row instead.
func AskConfirm(c echo.Context, p components.ConfirmProps) error {
	p.Action = c.Request().URL.RequestURI()
	form, err := c.FormParams()
	if err != nil {
		return BadRequest(i18n.T(c.Request().Context(), "error.400.body"), err)
	}
	kept := map[string]bool{csrf.Field: true, components.ConfirmField: true}
	for _, f := range p.Keep {
		kept[f[0]] = true
	}
	if p.Choice != nil {
		kept[p.Choice.Name] = true
	}
	for name, values := range form {
		if kept[name] {
			continue
		}
		for _, v := range values {
			p.Keep = append(p.Keep, [2]string{name, v})
		}
	}
	slices.SortFunc(p.Keep, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	if HTMXFrom(c).Partial {
		// A row's action posted by htmx: ask in place of the row.
		p.HxTarget = "closest li"
		return RenderFragment(c, http.StatusOK, components.ConfirmRow(p, sameSiteBack(c)))
	}
	return Render(c, http.StatusOK, Page{
		Title:   p.Label,
		Content: components.ConfirmPage(p, sameSiteBack(c)),
	})
}

// sameSiteBack is where "Go back" leads: the page the form was on when
// the Referer is this site's, else home. The path goes through
// LocalPath: a Referer of "https://us//evil.example/" must not become a
// link to another site.
func sameSiteBack(c echo.Context) string {
	ref, err := url.Parse(c.Request().Referer())
	if err != nil || ref.Host != c.Request().Host {
		return "/"
	}
	return LocalPath(ref.RequestURI())
}

package taxonomy

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// Admin is a list's admin page, behind auth.RequireAdmin: GET URL shows
// every term, POST URL adds one (slug, english, russian), and POST
// URL/:slug renames an added one, retires it or brings it back
// (english, russian, active). A refusal shows the page again with what
// was typed and why (422; a slug taken, 409), and writes nothing.
type Admin struct {
	List *List
	URL  string
	// Keys, TestID and Term are the page's words and test ids
	// (components.TaxonomyProps).
	Keys, TestID, Term string
}

// Routes registers the page.
func (a Admin) Routes(e *echo.Echo) {
	e.GET(a.URL, a.show, auth.RequireAdmin)
	e.POST(a.URL, a.add, auth.RequireAdmin)
	e.POST(a.URL+"/:slug", a.update, auth.RequireAdmin)
}

func (a Admin) show(c echo.Context) error {
	return a.render(c, http.StatusOK, components.TaxonomyProps{}, nil)
}

func (a Admin) add(c echo.Context) error {
	add := map[string]string{"slug": c.FormValue("slug"), "english": c.FormValue("english"), "russian": c.FormValue("russian")}
	err := a.List.Add(c.Request().Context(), add["slug"], add["english"], add["russian"])
	return web.AnswerForm(c, err, a.Keys+".flash.added", a.URL, func(status int, fe formrule.FieldErrors) error {
		return a.render(c, status, components.TaxonomyProps{Add: add, AddErrors: fe}, nil)
	}, web.Refusal{Err: a.List.Exists, Field: "slug"})
}

func (a Admin) update(c echo.Context) error {
	it := components.TaxonomyItem{Slug: c.Param("slug"), Form: components.TaxonomyForm{English: c.FormValue("english"), Russian: c.FormValue("russian"), Active: c.FormValue("active") == "true"}}
	err := a.List.Update(c.Request().Context(), it.Slug, it.Form.English, it.Form.Russian, it.Form.Active)
	return web.AnswerForm(c, err, a.Keys+".flash.updated", a.URL, func(status int, fe formrule.FieldErrors) error {
		it.Form.Errors = fe
		return a.render(c, status, components.TaxonomyProps{}, &it)
	})
}

// render shows every term; failed, when set, is an added one whose
// rename was refused, shown as sent.
func (a Admin) render(c echo.Context, status int, p components.TaxonomyProps, failed *components.TaxonomyItem) error {
	ctx := c.Request().Context()
	all, err := a.List.All(ctx)
	if err != nil {
		return err
	}
	p.Keys, p.TestID, p.Term, p.Action = a.Keys, a.TestID, a.Term, a.URL
	for _, t := range all {
		it := components.TaxonomyItem{Slug: t.Slug, Label: t.Label(ctx), BuiltIn: t.BuiltIn, Active: t.Active,
			UpdateURL: a.URL + "/" + url.PathEscape(t.Slug), Form: components.TaxonomyForm{English: t.English, Russian: t.Russian, Active: t.Active}}
		if failed != nil && failed.Slug == t.Slug {
			it.Form = failed.Form
		}
		p.Items = append(p.Items, it)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, a.Keys+".heading"), Section: "admin", Content: components.TaxonomyAdmin(p)})
}

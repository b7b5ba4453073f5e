package events

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// adminCategoriesURL is the admins' page of event categories.
const adminCategoriesURL = "/admin/event-categories"

// adminCategories is GET /admin/event-categories.
func (s *Service) adminCategories(c echo.Context) error {
	return s.renderCategories(c, http.StatusOK, views.CategoriesProps{}, nil)
}

// renderCategories shows every category; failed, when set, is a managed
// one whose rename was refused, shown as sent.
func (s *Service) renderCategories(c echo.Context, status int, p views.CategoriesProps, failed *views.CategoryItem) error {
	ctx := c.Request().Context()
	all, err := s.catalog.AllCategories(ctx)
	if err != nil {
		return err
	}
	for _, cat := range all {
		it := views.CategoryItem{Slug: cat.Slug, Label: cat.Label(ctx), BuiltIn: cat.BuiltIn, Active: cat.Active,
			UpdateURL: adminCategoriesURL + "/" + url.PathEscape(cat.Slug), Form: views.CategoryForm{English: cat.English, Russian: cat.Russian, Active: cat.Active}}
		if failed != nil && failed.Slug == cat.Slug {
			it.Form = failed.Form
		}
		p.Items = append(p.Items, it)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "events.categories.heading"), Section: "admin", Content: views.CategoriesAdmin(p)})
}

// addCategory is POST /admin/event-categories (slug, english, russian).
func (s *Service) addCategory(c echo.Context) error {
	add := map[string]string{"slug": c.FormValue("slug"), "english": c.FormValue("english"), "russian": c.FormValue("russian")}
	err := s.catalog.AddCategory(c.Request().Context(), add["slug"], add["english"], add["russian"])
	return web.AnswerForm(c, err, "events.categories.flash.added", adminCategoriesURL, func(status int, fe FieldErrors) error {
		return s.renderCategories(c, status, views.CategoriesProps{Add: add, AddErrors: fe}, nil)
	}, web.Refusal{Err: ErrCategoryExists, Field: "slug"})
}

// updateCategory is POST /admin/event-categories/:slug (english,
// russian, active): rename, retire or bring back a category.
func (s *Service) updateCategory(c echo.Context) error {
	it := views.CategoryItem{Slug: c.Param("slug"), Form: views.CategoryForm{English: c.FormValue("english"), Russian: c.FormValue("russian"), Active: c.FormValue("active") == "true"}}
	err := s.catalog.UpdateCategory(c.Request().Context(), it.Slug, it.Form.English, it.Form.Russian, it.Form.Active)
	return web.AnswerForm(c, err, "events.categories.flash.updated", adminCategoriesURL, func(status int, fe FieldErrors) error {
		it.Form.Errors = fe
		return s.renderCategories(c, status, views.CategoriesProps{}, &it)
	})
}

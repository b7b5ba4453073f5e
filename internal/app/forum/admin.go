package forum

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// Sections as admins manage them on /admin/forum: add one, rename,
// describe (each in English and, optionally, Russian), order, name its moderators (by email), archive it.

const adminURL = "/admin/forum"

func (s *Service) adminSections(c echo.Context) error {
	return s.renderSections(c, http.StatusOK, nil, nil, nil)
}

// renderSections is the admin page; add refills the add form, and
// failed is a refused change to a section (what was typed, and its
// errors).
func (s *Service) renderSections(c echo.Context, status int, add map[string]string, addErrs map[string]string, failed *views.SectionAdmin) error {
	ctx := c.Request().Context()
	sections, err := s.Sections(ctx, true)
	if err != nil {
		return err
	}
	p := views.SectionsAdminProps{Add: add, AddErrors: addErrs}
	for _, r := range sections {
		it := views.SectionAdmin{
			Slug: r.RowKey, Label: r.Label(ctx), About: r.About(ctx), Archived: r.Archived, Topics: r.Topics,
			UpdateURL: adminURL + "/" + url.PathEscape(r.RowKey),
			Form: views.SectionForm{
				Name: r.Name, Description: r.Description, RussianName: r.RussianName, RussianDescription: r.RussianDescription,
				Order: strconv.Itoa(r.Order), Moderators: r.ModeratorEmails, Archived: r.Archived,
			},
		}
		if failed != nil && failed.Slug == r.RowKey {
			it.Form = failed.Form
		}
		p.Sections = append(p.Sections, it)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "forum.admin.heading"), Section: "admin", Content: views.SectionsAdmin(p)})
}

func sectionInput(c echo.Context) SectionInput {
	return SectionInput{
		Slug: c.FormValue("slug"), Name: c.FormValue("name"), Description: c.FormValue("description"), Order: c.FormValue("order"),
		RussianName: c.FormValue("russian_name"), RussianDescription: c.FormValue("russian_description"),
		Moderators: c.FormValue("moderators"), Archived: c.FormValue("archived") == "true",
	}
}

// createSection is POST /admin/forum.
func (s *Service) createSection(c echo.Context) error {
	ctx := c.Request().Context()
	in := sectionInput(c)
	add := map[string]string{
		"slug": in.Slug, "name": in.Name, "description": in.Description, "russian_name": in.RussianName, "russian_description": in.RussianDescription,
		"order": in.Order, "moderators": in.Moderators,
	}
	_, err := s.CreateSection(ctx, in)
	return web.AnswerForm(c, err, "forum.flash.section_created", adminURL, func(status int, fe FormErrors) error {
		return s.renderSections(c, status, add, formErrors(ctx, fe), nil)
	}, web.Refusal{Err: ErrSectionExists, Field: "slug"})
}

// updateSection is POST /admin/forum/:slug.
func (s *Service) updateSection(c echo.Context) error {
	ctx := c.Request().Context()
	in := sectionInput(c)
	_, err := s.UpdateSection(ctx, c.Param("slug"), in)
	return web.AnswerForm(c, err, "forum.flash.section_saved", adminURL, func(status int, fe FormErrors) error {
		failed := views.SectionAdmin{Slug: c.Param("slug"), Form: views.SectionForm{
			Name: in.Name, Description: in.Description, RussianName: in.RussianName, RussianDescription: in.RussianDescription,
			Order: in.Order, Moderators: in.Moderators, Archived: in.Archived, Errors: formErrors(ctx, fe),
		}}
		return s.renderSections(c, status, nil, nil, &failed)
	})
}

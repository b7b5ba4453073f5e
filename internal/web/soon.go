package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/views/soon"
)

// comingSoon serves the placeholder page of a module not built yet.
func (s *Server) comingSoon(slug string) echo.HandlerFunc {
	return func(c echo.Context) error {
		return Render(c, http.StatusOK, Page{
			Title:   i18n.T(c.Request().Context(), "module."+slug+".name"),
			Section: slug,
			Content: soon.Page(soon.Props{Slug: slug}),
		})
	}
}

package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/views/home"
)

// home is the logged-out marketing page.
func (s *Server) home(c echo.Context) error {
	return Render(c, http.StatusOK, Page{
		Content: home.Page(home.Props{Modules: s.moduleCards()}),
	})
}

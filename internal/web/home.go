package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/views/home"
)

// HomeProvider is a module that serves the home page to the people it has
// something for (the groups dashboard for signed-in people). It calls
// marketing for everyone else, so visitors keep the marketing page.
type HomeProvider interface {
	Home(c echo.Context, marketing echo.HandlerFunc) error
}

// home is GET /: a module's page for the people it serves, otherwise the
// marketing page.
func (s *Server) home(c echo.Context) error {
	if s.homePage != nil {
		return s.homePage.Home(c, s.marketing)
	}
	return s.marketing(c)
}

// marketing is the logged-out marketing page.
func (s *Server) marketing(c echo.Context) error {
	return Render(c, http.StatusOK, Page{
		Content: home.Page(home.Props{Modules: s.moduleCards()}),
	})
}

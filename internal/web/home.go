package web

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/views/home"
)

// HomeProvider is a module that serves the home page to the people it has
// something for (the groups dashboard for signed-in people). It calls
// marketing for everyone else, so visitors keep the marketing page.
type HomeProvider interface {
	Home(c echo.Context, marketing echo.HandlerFunc) error
}

// HomeCarder is a module with a card for a signed-in person's home page,
// beside the home module's own content (events: their next events). A nil
// card shows nothing.
type HomeCarder interface {
	HomeCard(c echo.Context) (templ.Component, error)
}

const homeCardsKey = "web.homeCards"

// HomeCards are the other modules' cards for the home page, in module
// order; the home module calls it while serving "/" (elsewhere it is
// empty).
func HomeCards(c echo.Context) ([]templ.Component, error) {
	carders, _ := c.Get(homeCardsKey).([]HomeCarder)
	var out []templ.Component
	for _, h := range carders {
		card, err := h.HomeCard(c)
		if err != nil {
			return nil, err
		}
		if card != nil {
			out = append(out, card)
		}
	}
	return out, nil
}

// home is GET /: a module's page for the people it serves, otherwise the
// marketing page.
func (s *Server) home(c echo.Context) error {
	c.Set(homeCardsKey, s.homeCards)
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

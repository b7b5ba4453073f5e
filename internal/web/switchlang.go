package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
)

// switchLanguage handles the footer's language form: it remembers the
// choice in the lang cookie for a year, saves it as the signed-in
// person's setting (which would otherwise beat the cookie), and returns
// to the page the visitor came from, never to another site.
func (s *Server) switchLanguage(c echo.Context) error {
	lang, ok := i18n.ParseLang(c.FormValue("lang"))
	if !ok {
		return BadRequest(i18n.T(c.Request().Context(), "error.bad_language"),
			fmt.Errorf("unsupported language %q", c.FormValue("lang")))
	}
	c.SetCookie(&http.Cookie{
		Name:     langCookie,
		Value:    string(lang),
		Path:     "/",
		MaxAge:   365 * 24 * 60 * 60,
		HttpOnly: true,
		Secure:   s.cfg.Secure(),
		SameSite: http.SameSiteLaxMode,
	})
	if s.saveLanguage != nil {
		if err := s.saveLanguage(c, lang); err != nil {
			return err
		}
	}
	return Redirect(c, LocalPath(c.FormValue("next")))
}

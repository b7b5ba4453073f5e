package web

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
)

// langCookie remembers a visitor's explicit choice from the footer switch.
const langCookie = "lang"

// chooseLanguage puts the request's language into its context: the user's
// setting, then the lang cookie, then Accept-Language, then English.
func (s *Server) chooseLanguage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		var user, cookie string
		if s.userLanguage != nil {
			if l, ok := s.userLanguage(c); ok {
				user = string(l)
			}
		}
		if ck, err := c.Cookie(langCookie); err == nil {
			cookie = ck.Value
		}
		req := c.Request()
		lang := s.catalog.Resolve(user, cookie, req.Header.Get("Accept-Language"))
		c.SetRequest(req.WithContext(i18n.WithLocalizer(req.Context(), s.catalog.For(lang))))
		return next(c)
	}
}

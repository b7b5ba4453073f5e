package web

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows only our own scripts and styles: no inline
// script, no style attributes, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: blob:; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

// setSecureHeaders sets the browser security headers on every response.
// HSTS is sent only over https; over http it would be ignored at best.
// The API's answers are a person's own data (or, for health, live): no
// cache keeps them unless a handler says otherwise.
func (s *Server) setSecureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	secure := s.cfg.Secure()
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if secure {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if strings.HasPrefix(c.Request().URL.Path, "/api/") {
			h.Set("Cache-Control", "private, no-store")
		}
		return next(c)
	}
}

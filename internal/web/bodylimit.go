package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// limitBody refuses bodies over BODY_LIMIT: at once when Content-Length
// says so, else when reading passes the limit (http.MaxBytesError → 413).
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	limit := s.cfg.BodyLimit
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > limit {
			return WithCode(http.StatusRequestEntityTooLarge,
				fmt.Errorf("body of %d bytes exceeds the %d-byte limit", req.ContentLength, limit))
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		}
		return next(c)
	}
}

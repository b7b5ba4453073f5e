package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// BodyLimiter is a Module whose routes take bodies larger than BODY_LIMIT,
// such as photo uploads.
type BodyLimiter interface {
	// BodyLimits maps a route path, as registered ("/account/photo"), to
	// its body limit in bytes.
	BodyLimits() map[string]int64
}

// routeBodyLimits collects the modules' own limits.
func routeBodyLimits(modules []Module) map[string]int64 {
	limits := map[string]int64{}
	for _, m := range modules {
		if bl, ok := m.(BodyLimiter); ok {
			for path, n := range bl.BodyLimits() {
				limits[path] = n
			}
		}
	}
	return limits
}

// limitBody refuses bodies over BODY_LIMIT, or the route's own limit: at
// once when Content-Length says so, else when reading passes the limit
// (http.MaxBytesError → 413). Echo has routed the request by now, so
// c.Path() is the route's pattern.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit := s.cfg.BodyLimit
		if n, ok := s.bodyLimits[c.Path()]; ok {
			limit = n
		}
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

package web

import (
	"compress/gzip"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/harmony/harmony/static"
)

// compress gzips dynamic responses (HTML, JSON) of at least 1 KiB. It skips
// static files, which are gzipped once at start-up, media under /media/,
// which is compressed already, and event streams, which must flush each
// event as it happens.
func compress() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{
		// Level 1 compresses HTML nearly as well as the default and costs
		// a fraction of the CPU: at the default level gzip was a third of
		// a catalog page's CPU under load (docs/PERFORMANCE.md).
		Level:     gzip.BestSpeed,
		MinLength: 1024,
		Skipper: func(c echo.Context) bool {
			req := c.Request()
			return strings.HasPrefix(req.URL.Path, static.Prefix) ||
				strings.HasPrefix(req.URL.Path, "/media/") ||
				strings.Contains(req.Header.Get("Accept"), "text/event-stream")
		},
	})
}

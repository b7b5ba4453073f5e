package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/static"
)

// serveStatic serves a content-hashed asset. An unhashed or stale name is a
// 404: the hash is the version, and an immutable cache must never be handed
// a different file under a name it already holds.
func (s *Server) serveStatic(c echo.Context) error {
	asset, ok := s.assets.Lookup(c.Param("*"))
	if !ok {
		return NotFound(fmt.Errorf("no static asset %q", c.Param("*")))
	}
	asset.ServeHTTP(c.Response(), c.Request())
	return nil
}

// favicon points browsers and crawlers that ask for /favicon.ico at the
// current SVG icon. 302, not 301: the target's name changes with its hash.
func (s *Server) favicon(c echo.Context) error {
	return c.Redirect(http.StatusFound, static.Path("img/logo.svg"))
}

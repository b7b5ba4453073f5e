package web

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
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

// manifest is GET /manifest.webmanifest: what a phone needs to add
// Harmony to its home screen as an app, with icons at their hashed
// names. Its own address is stable, as browsers expect.
func (s *Server) manifest(c echo.Context) error {
	ctx := c.Request().Context()
	icon := func(name, sizes, purpose string) map[string]string {
		return map[string]string{"src": static.Path("img/" + name), "sizes": sizes, "type": "image/png", "purpose": purpose}
	}
	m := map[string]any{
		"name":             "Harmony",
		"short_name":       "Harmony",
		"description":      i18n.T(ctx, "site.tagline"),
		"lang":             string(i18n.LangOf(ctx)),
		"start_url":        "/",
		"scope":            "/",
		"display":          "standalone",
		"background_color": "#ffffff",
		"theme_color":      "#4c3fd6",
		"icons": []map[string]string{
			icon("icon-192.png", "192x192", "any"),
			icon("icon-512.png", "512x512", "any"),
			icon("icon-maskable-512.png", "512x512", "maskable"),
		},
	}
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	variesByLanguage(c.Response().Header())
	return c.Blob(http.StatusOK, "application/manifest+json", body)
}

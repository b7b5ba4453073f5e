package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// ServeImage answers with an uploaded image stored under a name unique
// to its upload: a browser that was shown it may keep it a year, a
// shared cache an hour, so that when it stops being shown (an event
// taken down, a card taken out of People, a photo removed) no proxy
// serves it on for longer.
func ServeImage(c echo.Context, data []byte) error {
	return serveImage(c, data, "public, max-age=31536000, s-maxage=3600, immutable")
}

// ServePrivateImage is ServeImage for an image only some people may see
// (a chat's picture, an unpublished event's): the browser may keep it a
// year, a shared cache may not.
func ServePrivateImage(c echo.Context, data []byte) error {
	return serveImage(c, data, "private, max-age=31536000, immutable")
}

func serveImage(c echo.Context, data []byte, cacheControl string) error {
	hdr := c.Response().Header()
	hdr.Set("Cache-Control", cacheControl)
	hdr.Set("X-Content-Type-Options", "nosniff")
	return c.Blob(http.StatusOK, "image/jpeg", data)
}

// ServeCalendarFeed answers a calendar app's subscription with an
// RFC 5545 calendar: private (the URL holds a secret), fresh for five
// minutes.
func ServeCalendarFeed(c echo.Context, body []byte) error {
	hdr := c.Response().Header()
	hdr.Set("Cache-Control", "private, max-age=300")
	hdr.Set("X-Content-Type-Options", "nosniff")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", body)
}

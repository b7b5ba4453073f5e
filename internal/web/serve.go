package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// ServeImage answers with an uploaded image stored under a name unique
// to its upload, so it may be cached for a year.
func ServeImage(c echo.Context, data []byte) error {
	hdr := c.Response().Header()
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
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

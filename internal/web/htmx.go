package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// HTMX is what an htmx request says about itself, parsed once per request.
type HTMX struct {
	// Request is true for any request htmx made (HX-Request: true).
	Request bool
	// Partial is true when htmx will swap the response into part of the
	// page (HX-Request-Type: partial): answer with a fragment. History
	// restores and body-targeted requests ask for "full".
	Partial        bool
	Boosted        bool
	HistoryRestore bool
	// Target and Source identify elements as htmx 4 sends them, "tag#id".
	Target     string
	Source     string
	CurrentURL string
}

const htmxKey = "web.htmx"

// parseHTMX reads the HX-* headers once and marks every response as varying
// on them, so no cache serves a fragment for a page or the reverse.
func parseHTMX(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Request().Header
		hx := HTMX{Request: h.Get("HX-Request") == "true"}
		if hx.Request {
			hx.Partial = h.Get("HX-Request-Type") == "partial"
			hx.Boosted = h.Get("HX-Boosted") == "true"
			hx.HistoryRestore = h.Get("HX-History-Restore-Request") == "true"
			hx.Target = h.Get("HX-Target")
			hx.Source = h.Get("HX-Source")
			hx.CurrentURL = h.Get("HX-Current-URL")
		}
		c.Set(htmxKey, hx)
		c.Response().Header().Add("Vary", "HX-Request, HX-Request-Type")
		return next(c)
	}
}

// HTMXFrom returns the request's htmx headers.
func HTMXFrom(c echo.Context) HTMX {
	hx, _ := c.Get(htmxKey).(HTMX)
	return hx
}

// LiveParam marks a page's fetch of itself on a change it follows (the
// live updates: a calendar, the inbox): the answer is the part of the
// page that changed.
const LiveParam = "live"

// LiveRefresh reports whether the request is a page fetching itself on a
// change: an htmx request with LiveParam (htmx asks for a "full" page
// when it selects its part from the answer, hx-select).
func LiveRefresh(c echo.Context) bool {
	return c.QueryParam(LiveParam) != "" && HTMXFrom(c).Request
}

// Redirect sends the browser to target after a successful action: an
// HX-Redirect header for htmx requests (a 3xx would be followed by fetch
// and swapped in), 303 See Other otherwise (POST-redirect-GET).
func Redirect(c echo.Context, target string) error {
	if HTMXFrom(c).Request {
		c.Response().Header().Set("HX-Redirect", target)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// Retarget has htmx swap the response into target (a CSS selector) by
// swap instead of what the request named: a form that shows its own
// errors in place (hx-target="this") and, once it worked, the list it
// changed.
func Retarget(c echo.Context, target, swap string) {
	h := c.Response().Header()
	h.Set("HX-Retarget", target)
	h.Set("HX-Reswap", swap)
}

// NextOr is where a form asks to go back to, its "next" field kept on
// this site (LocalPath), or fallback when it names none.
func NextOr(c echo.Context, fallback string) string {
	if next := c.FormValue("next"); next != "" {
		return LocalPath(next)
	}
	return fallback
}

// LocalPath returns next if it is a path on this site, else "/". Use it on
// every user-supplied return address, so a redirect never leaves the site:
// it refuses absolute and scheme-relative URLs, backslash tricks ("/\evil")
// and control characters that browsers strip ("/\t/evil").
func LocalPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, `/\`) {
		return "/"
	}
	// What is left starts with one slash and a path character, so it has no
	// scheme or host however a browser parses it.
	for _, r := range next {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return "/"
		}
	}
	return next
}

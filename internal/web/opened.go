package web

import (
	"net/http"
	"strings"
)

// Opened says whether a GET is the person opening the page, so that it
// may mark what it shows read (a notice followed, a chat's or a topic's
// read marker): not a browser's prefetch or prerender (Sec-Purpose, or
// Purpose in older browsers), nor another site's request (Sec-Fetch-Site
// cross-site). A link in an email, typed or bookmarked comes as "none",
// and opens.
func Opened(r *http.Request) bool {
	if strings.Contains(r.Header.Get("Sec-Purpose"), "prefetch") || r.Header.Get("Purpose") == "prefetch" {
		return false
	}
	return r.Header.Get("Sec-Fetch-Site") != "cross-site"
}

package web

import (
	"net/http/httptest"
	"testing"
)

// A prefetch, a prerender or another site's request does not open a
// page; a person's own navigation, from here, an email or the address
// bar, does.
func TestOpened(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		header, value string
		want          bool
	}{
		{"", "", true},
		{"Sec-Fetch-Site", "same-origin", true},
		{"Sec-Fetch-Site", "none", true},
		{"Sec-Fetch-Site", "same-site", true},
		{"Sec-Fetch-Site", "cross-site", false},
		{"Sec-Purpose", "prefetch", false},
		{"Sec-Purpose", "prefetch;prerender", false},
		{"Purpose", "prefetch", false},
	} {
		r := httptest.NewRequest("GET", "/inbox/x", nil)
		if c.header != "" {
			r.Header.Set(c.header, c.value)
		}
		if got := Opened(r); got != c.want {
			t.Errorf("%s: %s: %v, want %v", c.header, c.value, got, c.want)
		}
	}
}

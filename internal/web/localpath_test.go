package web_test

import (
	"testing"

	"github.com/harmony/harmony/internal/web"
)

func TestLocalPath(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"/":                        "/",
		"/events?page=2":           "/events?page=2",
		"/forum/t/42#reply":        "/forum/t/42#reply",
		"":                         "/",
		"events":                   "/",
		"https://evil.example/":    "/",
		"//evil.example":           "/",
		`/\evil.example`:           "/",
		"/\t/evil.example":         "/",
		"/\n/evil.example":         "/",
		"javascript:alert(1)":      "/",
		"/%2F%2Fevil.example":      "/%2F%2Fevil.example", // stays a path on this site
		"http:/evil.example":       "/",
		"/ok/../still-on-the-site": "/ok/../still-on-the-site",
	}
	for in, want := range tests {
		if got := web.LocalPath(in); got != want {
			t.Errorf("LocalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

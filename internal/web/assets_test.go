package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// Every asset the layout references is served, hashed and immutable.
func TestLayoutAssets(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	doc := s.client.Get("/").Doc(t)
	var urls []string
	doc.Find(`link[href], script[src]`).Each(func(_ int, el *goquery.Selection) {
		if v, ok := el.Attr("href"); ok {
			urls = append(urls, v)
		}
		if v, ok := el.Attr("src"); ok {
			urls = append(urls, v)
		}
	})
	if len(urls) < 3 {
		t.Fatalf("layout references %v; want stylesheet, script and icon", urls)
	}
	hashed := regexp.MustCompile(`^/static/.+\.[0-9a-f]{12}\.[a-z]+$`)
	wantType := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	for _, u := range urls {
		if !hashed.MatchString(u) {
			t.Errorf("%s is not a content-hashed URL", u)
			continue
		}
		res := s.client.Get(u)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", u, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", u, got)
		}
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: nosniff missing", u)
		}
		ext := u[strings.LastIndex(u, "."):]
		if got := res.Header.Get("Content-Type"); got != wantType[ext] {
			t.Errorf("GET %s: Content-Type %q, want %q", u, got, wantType[ext])
		}
		if res.Header.Get("Set-Cookie") != "" {
			t.Errorf("GET %s sets a cookie on a cacheable asset", u)
		}
	}
}

func TestStaleOrUnhashedAssetIsNotFound(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	css, _ := s.client.Get("/").Doc(t).Find(`link[rel="stylesheet"]`).Attr("href")
	stale := regexp.MustCompile(`\.[0-9a-f]{12}\.css$`).ReplaceAllString(css, ".000000000000.css")
	for _, u := range []string{stale, "/static/css/app.css", "/static/nope.js"} {
		if res := s.client.Get(u); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", u, res.StatusCode)
		}
	}
}

func TestAssetsGzippedOnce(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	js, _ := s.client.Get("/").Doc(t).Find(`script[src]`).Attr("src")
	res := s.client.Get(js, "Accept-Encoding", "gzip")
	vary := strings.Join(res.Header.Values("Vary"), ", ")
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(vary, "Accept-Encoding") {
		t.Errorf("Content-Encoding %q Vary %q", res.Header.Get("Content-Encoding"), vary)
	}
	plain := s.client.Get(js)
	if plain.Header.Get("Content-Encoding") != "" || !strings.Contains(plain.Body, "htmx") {
		t.Error("client without gzip did not get the plain file")
	}
}

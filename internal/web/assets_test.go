package web_test

import (
	"encoding/json"
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
	// The manifest keeps one address (TestWebManifest); what it and the
	// page name are hashed.
	doc.Find(`link[href]:not([rel="manifest"]), script[src]`).Each(func(_ int, el *goquery.Selection) {
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
	wantType := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
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

// TestWebManifest: the page links the manifest, which names the app,
// opens it standalone at /, and lists icons that are served as PNGs.
func TestWebManifest(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	href, _ := s.client.Get("/").Doc(t).Find(`link[rel="manifest"]`).Attr("href")
	res := s.client.Get(href)
	var m struct {
		Name, ShortName, StartURL, Display string
		Icons                              []struct{ Src, Sizes, Type, Purpose string }
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("GET %q: %d %s", href, res.StatusCode, res.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal([]byte(strings.NewReplacer(`"short_name"`, `"shortName"`, `"start_url"`, `"startURL"`).Replace(res.Body)), &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "Harmony" || m.StartURL != "/" || m.Display != "standalone" || len(m.Icons) < 2 {
		t.Fatalf("manifest %+v", m)
	}
	// It is in the visitor's language, so a cache keeps one per language.
	if v := strings.Join(res.Header.Values("Vary"), ", "); !strings.Contains(v, "Accept-Language") {
		t.Errorf("the manifest varies with %q", v)
	}
	sizes := map[string]bool{}
	for _, ic := range m.Icons {
		if img := s.client.Get(ic.Src); img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/png" {
			t.Errorf("icon %s: %d %s", ic.Src, img.StatusCode, img.Header.Get("Content-Type"))
		}
		sizes[ic.Sizes] = true
	}
	if !sizes["192x192"] || !sizes["512x512"] {
		t.Errorf("icon sizes %v, want 192 and 512", sizes)
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

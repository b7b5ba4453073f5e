package static

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func newTestAssets(t *testing.T, files map[string]string) *Assets {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(body)}
	}
	a, err := New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPathIsContentHashed(t *testing.T) {
	css := strings.Repeat("body { color: red; }\n", 100)
	a := newTestAssets(t, map[string]string{"css/app.css": css, "js/htmx.min.js": "var htmx;"})
	b := newTestAssets(t, map[string]string{"css/app.css": css + "/* changed */", "js/htmx.min.js": "var htmx;"})

	pattern := regexp.MustCompile(`^/static/css/app\.[0-9a-f]{12}\.css$`)
	if p := a.Path("css/app.css"); !pattern.MatchString(p) {
		t.Errorf("Path = %q", p)
	}
	if !regexp.MustCompile(`^/static/js/htmx\.min\.[0-9a-f]{12}\.js$`).MatchString(a.Path("js/htmx.min.js")) {
		t.Errorf("hash must go before the last extension: %q", a.Path("js/htmx.min.js"))
	}
	if a.Path("css/app.css") == b.Path("css/app.css") {
		t.Error("changed content kept its name")
	}
	if a.Path("js/htmx.min.js") != b.Path("js/htmx.min.js") {
		t.Error("unchanged content changed its name")
	}
	if got := a.Path("css/missing.css"); got != "/static/css/missing.css" {
		t.Errorf("unknown name: %q", got)
	}
}

func TestLookupOnlyByCurrentHash(t *testing.T) {
	a := newTestAssets(t, map[string]string{"css/app.css": "body{}"})
	current := strings.TrimPrefix(a.Path("css/app.css"), Prefix)
	if _, ok := a.Lookup(current); !ok {
		t.Errorf("current name %q not found", current)
	}
	for _, name := range []string{"css/app.css", "css/app.000000000000.css", "css/app." + strings.Repeat("f", 12) + ".css"} {
		if _, ok := a.Lookup(name); ok {
			t.Errorf("Lookup(%q) found a file", name)
		}
	}
}

func TestServeHeadersAndGzip(t *testing.T) {
	css := strings.Repeat(".a { color: red; }\n", 200)
	a := newTestAssets(t, map[string]string{"css/app.css": css, "img/photo.png": "\x89PNG fake"})
	asset, _ := a.Lookup(strings.TrimPrefix(a.Path("css/app.css"), Prefix))

	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, asset.URL, nil)
	req.Header.Set("Accept-Encoding", "br, gzip")
	asset.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Type") != "text/css; charset=utf-8" {
		t.Fatalf("headers %v", rec.Header())
	}
	if rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
	}
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := io.ReadAll(zr); string(body) != css {
		t.Error("gzipped body differs from the file")
	}

	// Revalidation by ETag answers 304.
	again := httptest.NewRecorder()
	req = httptest.NewRequest(http.MethodGet, asset.URL, nil)
	req.Header.Set("If-None-Match", `"`+asset.hash+`"`)
	asset.ServeHTTP(again, req)
	if again.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d", again.Code)
	}

	png, _ := a.Lookup(strings.TrimPrefix(a.Path("img/photo.png"), Prefix))
	rec = httptest.NewRecorder()
	req = httptest.NewRequest(http.MethodGet, png.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	png.ServeHTTP(rec, req)
	if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("png: encoding %q type %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Type"))
	}
}

func TestEmbeddedHasTheLayoutAssets(t *testing.T) {
	for _, name := range []string{"css/app.css", "js/htmx.min.js", "img/logo.svg"} {
		if _, ok := Embedded().Lookup(strings.TrimPrefix(Path(name), Prefix)); !ok {
			t.Errorf("%s is not embedded", name)
		}
	}
	for _, name := range Embedded().Names() {
		if strings.HasSuffix(name, ".go") {
			t.Errorf("Go source %s is served", name)
		}
	}
}

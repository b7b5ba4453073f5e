package web_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// listModule is a module with one cursor-paged list, as every real list will
// be: it reads the cursor with web.ReadCursor and echoes the bucket back.
type listModule struct{ cursors *storage.Cursors }

func (listModule) Slug() string { return "blog" }

func (m listModule) Routes(e *echo.Echo) {
	e.GET("/blog", func(c echo.Context) error {
		query := "blog/list?tag=" + c.QueryParam("tag")
		cur, err := web.ReadCursor(c, m.cursors, query)
		if err != nil {
			return err
		}
		if cur == nil {
			return c.String(http.StatusOK, "first page; next="+m.cursors.Encode(query, storage.Cursor{Bucket: "202611"}))
		}
		return c.String(http.StatusOK, "bucket "+cur.Bucket)
	})
}

func TestTamperedOrForeignCursorGets400Page(t *testing.T) {
	t.Parallel()
	cursors, err := storage.NewCursors(bytes.Repeat([]byte("c"), 32))
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, nil, func(d *web.Deps) { d.Modules = []web.Module{listModule{cursors}} })

	first := s.client.Get("/blog?tag=go")
	if first.StatusCode != http.StatusOK {
		t.Fatalf("first page: %d", first.StatusCode)
	}
	_, token, _ := strings.Cut(first.Body, "next=")
	if res := s.client.Get("/blog?tag=go&cursor=" + url.QueryEscape(token)); res.StatusCode != http.StatusOK || res.Body != "bucket 202611" {
		t.Fatalf("a genuine cursor failed: %d %q", res.StatusCode, res.Body)
	}

	tampered := []byte(token)
	tampered[len(tampered)/2] ^= 0x01
	cases := map[string]string{
		"tampered":     "/blog?tag=go&cursor=" + url.QueryEscape(string(tampered)),
		"other filter": "/blog?tag=ai&cursor=" + url.QueryEscape(token),
		"garbage":      "/blog?tag=go&cursor=%00%FF'<script>",
		"truncated":    "/blog?tag=go&cursor=" + url.QueryEscape(token[:10]),
		"huge":         "/blog?tag=go&cursor=" + strings.Repeat("A", 6000),
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			res := s.client.Get(path)
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", res.StatusCode)
			}
			doc := res.Doc(t)
			if doc.Find(`[data-testid="error-page"][data-status="400"]`).Length() != 1 || doc.Find("[data-testid=site-nav]").Length() != 1 {
				t.Fatalf("want a 400 page in the layout, got:\n%s", res.Body)
			}
			if strings.Contains(res.Body, "signature") || strings.Contains(res.Body, "storage:") {
				t.Errorf("internal detail leaked:\n%s", res.Body)
			}
		})
	}

	frag := s.client.Get(cases["tampered"], "HX-Request", "true", "HX-Request-Type", "partial")
	if frag.StatusCode != http.StatusBadRequest || strings.Contains(strings.ToLower(frag.Body), "<html") ||
		frag.Doc(t).Find(`[data-testid="error-fragment"][data-status="400"]`).Length() != 1 {
		t.Fatalf("htmx request: want a 400 fragment, got %d:\n%s", frag.StatusCode, frag.Body)
	}
}

func TestNextURL(t *testing.T) {
	t.Parallel()
	if got := web.NextURL("/groups", ""); got != "" {
		t.Errorf("last page: %q", got)
	}
	if got := web.NextURL("/groups/G1/members", "a+b/c="); got != "/groups/G1/members?cursor=a%2Bb%2Fc%3D" {
		t.Errorf("next: %q", got)
	}
}

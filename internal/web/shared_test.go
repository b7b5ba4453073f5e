package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/csrf"
	"github.com/harmony/harmony/internal/web/viewer"
	"github.com/harmony/harmony/internal/web/webtest"
)

// sharedServer is a server with one shared page, /shared, that counts its
// renders and shows the token it was rendered with, and a token-guarded
// POST /probe that changes nothing but succeeds.
func sharedServer(t *testing.T, clock *webtest.Clock) (*testServer, *atomic.Int64) {
	t.Helper()
	s := newServer(t, nil, func(d *web.Deps) {
		d.Now = clock.Now
		// X-Test-Person: Anna signs the request in, as the identity
		// middleware would.
		d.Middleware = append(d.Middleware, func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				if name := c.Request().Header.Get("X-Test-Person"); name != "" {
					req := c.Request()
					c.SetRequest(req.WithContext(viewer.With(req.Context(), viewer.Viewer{SignedIn: true, Name: name})))
				}
				return next(c)
			}
		})
	})
	var renders atomic.Int64
	s.Echo().GET("/shared", func(c echo.Context) error {
		n := renders.Add(1)
		content := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
			_, err := fmt.Fprintf(w, `<p data-testid="render">%d</p><p data-testid="token">%s</p><p data-testid="hello">%s</p>%s`,
				n, csrf.Token(ctx), i18n.T(ctx, "layout.skip"), strings.Repeat("<p>filler</p>", 200))
			return err
		})
		return web.Render(c, http.StatusOK, web.Page{Title: "Shared", Content: content})
	}, web.Shared)
	s.Echo().POST("/probe", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	s.Echo().GET("/test/saved", func(c echo.Context) error {
		return web.FlashRedirect(c, "account.flash.settings_saved", "/shared")
	})
	return s, &renders
}

func renderOf(t *testing.T, res *webtest.Response) string {
	t.Helper()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	return res.Doc(t).Find(`[data-testid="render"]`).Text()
}

// A visitor without a session gets the page rendered once for everyone in
// their language, with no cookie and no token, compressed once.
func TestSharedPageIsRenderedOnceForAnonymousVisitors(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, renders := sharedServer(t, clock)

	first := s.client.Get("/shared")
	if renderOf(t, first) != "1" {
		t.Fatal("first visit did not render")
	}
	if len(first.Cookies()) != 0 {
		t.Errorf("a shared page set cookies: %v", first.Cookies())
	}
	doc := first.Doc(t)
	if doc.Find(`[data-testid="token"]`).Text() != "" {
		t.Error("a shared page carries a CSRF token")
	}
	if _, ok := doc.Find("body").Attr("hx-headers:inherited"); ok {
		t.Error("a shared page's body carries hx-headers with no token in them")
	}
	if cc := first.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control %q, want no-cache (no per-visitor content)", cc)
	}

	// Another visitor, gzip accepted as browsers do: the same page, from
	// memory, compressed.
	other := webtest.NewClient(t, s.Handler())
	res := other.Get("/shared", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(strings.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain, []byte(first.Body)) {
		t.Error("the second visitor's page differs from the first's")
	}
	if renders.Load() != 1 {
		t.Errorf("%d renders for two anonymous visits, want 1", renders.Load())
	}

	// Russian is its own page.
	ru := other.Get("/shared", "Accept-Language", "ru")
	if renderOf(t, ru) != "2" || ru.Header.Get("Content-Language") != "ru" {
		t.Errorf("Russian visit: render %s, Content-Language %q; want a new render in ru",
			renderOf(t, ru), ru.Header.Get("Content-Language"))
	}
	if got := renderOf(t, other.Get("/shared", "Accept-Language", "ru")); got != "2" {
		t.Errorf("second Russian visit rendered again (render %s)", got)
	}

	// Expiry: rendered again after the lifetime.
	clock.Advance(11 * time.Second)
	if got := renderOf(t, other.Get("/shared")); got != "3" {
		t.Errorf("after the lifetime: render %s, want 3", got)
	}
}

// A visitor who is not signed in gets the shared page even with a
// session cookie, unless a message waits in their session; a signed-in
// person gets their own page with their token; htmx requests are rendered
// each time, never from memory.
func TestWhoGetsTheSharedPage(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, renders := sharedServer(t, clock)
	kept := s.client.Get("/shared")
	renderOf(t, kept)

	withSession := webtest.NewClient(t, s.Handler())
	withSession.CSRFToken("/") // a session cookie with a token
	if res := withSession.Get("/shared"); res.Body != kept.Body || len(res.Cookies()) != 0 {
		t.Errorf("a visitor with a session but not signed in: render %s, cookies %v; want the shared page",
			renderOf(t, res), res.Cookies())
	}

	// A message waiting: their own page, which shows it; then shared again.
	if res := withSession.Get("/test/saved"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("flash: %d", res.StatusCode)
	}
	res := withSession.Get("/shared")
	if renderOf(t, res) != "2" || res.Doc(t).Find(`[data-testid="flash"]`).Length() != 1 {
		t.Errorf("with a message waiting: render %s, flash shown %d times; want its own page with the message",
			renderOf(t, res), res.Doc(t).Find(`[data-testid="flash"]`).Length())
	}
	if res := withSession.Get("/shared"); res.Body != kept.Body {
		t.Errorf("after the message: render %s, want the shared page", renderOf(t, res))
	}

	anna := webtest.NewClient(t, s.Handler())
	anna.CSRFToken("/")
	res = anna.Get("/shared", "X-Test-Person", "Anna")
	if renderOf(t, res) != "3" {
		t.Errorf("a signed-in person got the shared page")
	}
	annasToken := res.Doc(t).Find(`[data-testid="token"]`).Text()
	if cc := res.Header.Get("Cache-Control"); cc != "private, no-cache" {
		t.Errorf("Cache-Control %q for a page with a token", cc)
	}

	hx := s.client.Get("/shared", "HX-Request", "true", "HX-Request-Type", "partial")
	if renderOf(t, hx) != "4" || len(hx.Cookies()) != 0 {
		t.Errorf("htmx request: render %s, cookies %v; want a fresh render and no cookie", renderOf(t, hx), hx.Cookies())
	}
	if renderOf(t, s.client.Get("/shared")) != "1" {
		t.Error("the htmx fragment or a personal page replaced the kept page")
	}
	if renders.Load() != 4 {
		t.Errorf("%d renders, want 4", renders.Load())
	}
	// The token on Anna's page was hers (a post forgets the kept page, so
	// it comes last).
	if res := anna.PostForm("/probe", url.Values{csrf.Field: {annasToken}}); res.StatusCode != http.StatusNoContent {
		t.Errorf("a signed-in person got token %q, not theirs: %d", annasToken, res.StatusCode)
	}
}

// A successful change on this instance forgets every shared page; a
// refused one, or a language switch, does not.
func TestSharedPagesAreForgottenOnWrites(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, _ := sharedServer(t, clock)
	renderOf(t, s.client.Get("/shared"))

	writer := webtest.NewClient(t, s.Handler())
	if res := writer.PostForm("/probe", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("post without a token: status %d, want 403", res.StatusCode)
	}
	if got := renderOf(t, s.client.Get("/shared")); got != "1" {
		t.Errorf("a refused post forgot the shared page (render %s)", got)
	}
	// Nor does a visitor's language switch, which changes no page anyone
	// else sees (and needs no token, so anyone could send it in a loop).
	if res := writer.PostForm("/lang", url.Values{"lang": {"ru"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("language switch: status %d", res.StatusCode)
	}
	if got := renderOf(t, s.client.Get("/shared")); got != "1" {
		t.Errorf("a language switch forgot the shared page (render %s)", got)
	}
	if res := writer.PostForm("/probe", writer.WithCSRF("/", url.Values{})); res.StatusCode != http.StatusNoContent {
		t.Fatalf("post with a token: status %d", res.StatusCode)
	}
	if got := renderOf(t, s.client.Get("/shared")); got != "2" {
		t.Errorf("after a change the old page was served (render %s)", got)
	}
}

// The language switch on a shared page works without a token.
func TestLanguageSwitchFromASharedPage(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, _ := sharedServer(t, clock)
	doc := s.client.Get("/shared").Doc(t)
	form := url.Values{}
	doc.Find(`form[data-testid="lang-switch"] input`).Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		value, _ := in.Attr("value")
		form.Set(name, value)
	})
	form.Set("lang", "ru")
	form.Set("next", "/shared")
	res := s.client.PostForm("/lang", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch from a shared page: status %d, want 303", res.StatusCode)
	}
	ru := s.client.Get("/shared")
	if got, _ := ru.Doc(t).Find("html").Attr("lang"); got != "ru" {
		t.Errorf("after switching, <html lang=%q>", got)
	}
}

// Many visitors at once while someone writes: every answer is a whole
// page, and what is served after the last write was rendered after it.
func TestSharedPagesUnderConcurrentReadsAndWrites(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	s, renders := sharedServer(t, clock)
	writer := webtest.NewClient(t, s.Handler())
	form := writer.WithCSRF("/", url.Values{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := webtest.NewClient(t, s.Handler())
			for range 40 {
				res := c.Get("/shared", "Accept-Encoding", "gzip")
				if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") == "gzip" && !strings.HasPrefix(res.Body, "\x1f\x8b") {
					t.Errorf("a visitor got %d, encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
					return
				}
			}
		})
	}
	// A render counts itself when it starts: one numbered up to
	// startedBefore began before the last write forgot the kept pages, so
	// it must not be what is served after it.
	var startedBefore int64
	for i := range 20 {
		if i == 19 {
			startedBefore = renders.Load()
		}
		if res := writer.PostForm("/probe", form); res.StatusCode != http.StatusNoContent {
			t.Errorf("write: %d", res.StatusCode)
		}
	}
	wg.Wait()
	last := renderOf(t, s.client.Get("/shared"))
	if n, _ := strconv.ParseInt(last, 10, 64); n <= startedBefore {
		t.Errorf("after the last write the page served is render %s, which began before it (%d had)", last, startedBefore)
	}
	// Nothing written since: the next visitor gets the same page.
	if again := renderOf(t, s.client.Get("/shared")); again != last {
		t.Errorf("with no write in between, render %s then %s", last, again)
	}
}

package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var navModules = []string{"groups", "prompts", "events", "forum", "chat", "people", "store", "blog"}

func TestHomePage(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	res := s.client.Get("/")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("content type %q", ct)
	}
	doc := res.Doc(t)
	if doc.Find(`[data-testid="home-hero"] h1`).Length() != 1 {
		t.Error("no hero heading")
	}
	if got, _ := doc.Find("html").Attr("lang"); got != "en" {
		t.Errorf(`<html lang=%q>, want "en"`, got)
	}
	if doc.Find(`main#main`).Length() != 1 || doc.Find(`a.skip-link[href="#main"]`).Length() != 1 {
		t.Error("missing <main id=main> or its skip link")
	}
	for _, slug := range navModules {
		link := doc.Find(`[data-testid="site-nav"] a[data-testid="nav-` + slug + `"]`)
		if href, _ := link.Attr("href"); href != "/"+slug {
			t.Errorf("nav link to %s: href %q", slug, href)
		}
		card := doc.Find(`[data-testid="module-card-` + slug + `"]`)
		if card.Length() != 1 {
			t.Errorf("no module card for %s", slug)
			continue
		}
		if card.Find(`[data-testid="soon-badge"]`).Length() != 1 {
			t.Errorf("card %s lacks its coming-soon badge", slug)
		}
	}
	if doc.Find(`[data-testid="site-nav"] [aria-current]`).Length() != 0 {
		t.Error("no module is current on the home page")
	}

	form := doc.Find(`form[data-testid="lang-switch"]`)
	if action, _ := form.Attr("action"); action != "/lang" {
		t.Errorf("lang switch action %q", action)
	}
	if method, _ := form.Attr("method"); method != "post" {
		t.Errorf("lang switch method %q", method)
	}
	token, _ := form.Find(`input[name="_csrf"]`).Attr("value")
	if token == "" {
		t.Fatal("lang switch has no CSRF field")
	}
	if cur, _ := form.Find(`button[value="en"]`).Attr("aria-current"); cur != "true" {
		t.Error("English is not marked current")
	}
	if _, ok := form.Find(`button[value="ru"]`).Attr("aria-current"); ok {
		t.Error("Russian is marked current")
	}
	var headers map[string]string
	raw, _ := doc.Find("body").Attr("hx-headers:inherited")
	if err := json.Unmarshal([]byte(raw), &headers); err != nil || headers["X-CSRF-Token"] == "" || headers["X-CSRF-Token"] == token {
		t.Errorf("body hx-headers:inherited = %q, want another mask of the form's token %q", raw, token)
	}
	// Both masks are the session's token.
	for _, sent := range []string{token, headers["X-CSRF-Token"]} {
		if res := s.client.PostForm("/lang", url.Values{"lang": {"en"}}, "X-CSRF-Token", sent); res.StatusCode != http.StatusSeeOther {
			t.Errorf("the page's token %q: %d", sent, res.StatusCode)
		}
	}
}

// Every link in the navigation and on the home page leads to a real page.
func TestNoBrokenLinks(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	doc := s.client.Get("/").Doc(t)
	seen := map[string]bool{"/admin": true}
	doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href, _ := a.Attr("href")
		if strings.HasPrefix(href, "/") {
			seen[strings.SplitN(href, "#", 2)[0]] = true
		}
	})
	// The header's sign-in link is the identity module's, which this bare
	// server lacks; cmd/web's TestNoBrokenLinksInTheApp follows it.
	delete(seen, "/signin")
	for href := range seen {
		if res := s.client.Get(href); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", href, res.StatusCode)
		}
	}
}

func TestComingSoonPages(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, slug := range append(navModules, "admin") {
		t.Run(slug, func(t *testing.T) {
			res := s.client.Get("/" + slug)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			doc := res.Doc(t)
			if doc.Find(`[data-testid="coming-soon"] h1`).Length() != 1 || doc.Find(`[data-testid="soon-badge"]`).Length() == 0 {
				t.Error("no coming-soon heading and badge")
			}
			if doc.Find("[data-testid=site-nav]").Length() != 1 {
				t.Error("coming-soon page is not in the layout")
			}
			current := doc.Find(`[data-testid="site-nav"] [aria-current="page"]`)
			if slug == "admin" {
				if current.Length() != 0 {
					t.Error("admin is not in the nav, so nothing should be current")
				}
			} else if id, _ := current.Attr("data-testid"); current.Length() != 1 || id != "nav-"+slug {
				t.Errorf("current nav item %q, want nav-%s", id, slug)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	res := s.client.Get("/api/health")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("content type %q", ct)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
		t.Fatal(err)
	}
	if len(body) != 3 || body["ok"] != true || body["version"] != "v9.9.9-test" {
		t.Errorf("body %v", body)
	}
	ts, _ := body["time"].(string)
	if got, err := time.Parse(time.RFC3339, ts); err != nil || !got.Equal(fixedNow) {
		t.Errorf("time %q, want %s in RFC 3339", ts, fixedNow.Format(time.RFC3339))
	}
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	if len(res.Cookies()) != 0 {
		t.Error("health check set a cookie")
	}
}

func TestFavicon(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	res := s.client.Get("/favicon.ico")
	if res.StatusCode != http.StatusFound {
		t.Fatalf("status %d", res.StatusCode)
	}
	icon := s.client.Get(res.Header.Get("Location"))
	if icon.StatusCode != http.StatusOK || icon.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("icon: status %d type %q", icon.StatusCode, icon.Header.Get("Content-Type"))
	}
}

func TestHeadIsServedByGetRoutes(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, path := range []string{"/", "/api/health", "/groups"} {
		res := s.client.Do(webtest.NewRequest(t, http.MethodHead, path, nil))
		if res.StatusCode != http.StatusOK || res.Body != "" || res.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s: status %d, %d body bytes, type %q", path, res.StatusCode, len(res.Body), res.Header.Get("Content-Type"))
		}
	}
	if res := s.client.Do(webtest.NewRequest(t, http.MethodHead, "/nope", nil)); res.StatusCode != http.StatusNotFound || res.Body != "" {
		t.Errorf("HEAD /nope: status %d, %d body bytes", res.StatusCode, len(res.Body))
	}
}

// groupsModule stands in for a built module: it serves its own section.
type groupsModule struct{}

func (groupsModule) Slug() string { return "groups" }

func (groupsModule) Routes(e *echo.Echo) {
	e.GET("/groups", func(c echo.Context) error {
		return web.Render(c, http.StatusOK, web.Page{
			Title:    "Groups",
			Section:  "groups",
			Content:  templ.Raw(`<h1 data-testid="groups-list">Your groups</h1>`),
			Fragment: templ.Raw(`<ul data-testid="groups-rows"></ul>`),
		})
	})
}

func TestBuiltModuleReplacesComingSoon(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil, func(d *web.Deps) { d.Modules = []web.Module{groupsModule{}} })
	home := s.client.Get("/").Doc(t)
	if home.Find(`[data-testid="module-card-groups"] [data-testid="soon-badge"]`).Length() != 0 {
		t.Error("a built module still shows its coming-soon badge")
	}
	if home.Find(`[data-testid="module-card-forum"] [data-testid="soon-badge"]`).Length() != 1 {
		t.Error("an unbuilt module lost its badge")
	}

	page := s.client.Get("/groups").Doc(t)
	if page.Find(`main [data-testid="groups-list"]`).Length() != 1 || page.Find(`[data-testid="coming-soon"]`).Length() != 0 {
		t.Error("/groups is not served by the module, in the layout")
	}
	if cur, _ := page.Find(`[data-testid="nav-groups"]`).Attr("aria-current"); cur != "page" {
		t.Error("groups is not current in the nav")
	}

	partial := s.client.Get("/groups", "HX-Request", "true", "HX-Request-Type", "partial")
	if strings.TrimSpace(partial.Body) != `<ul data-testid="groups-rows"></ul>` {
		t.Errorf("htmx partial got %q, want only the fragment", partial.Body)
	}
}

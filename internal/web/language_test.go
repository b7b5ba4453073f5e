package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/viewer"
	"github.com/harmony/harmony/internal/web/webtest"
)

func TestLanguageResolution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		headers []string
		want    string
	}{
		{"default", nil, "en"},
		{"accept-language russian", []string{"Accept-Language", "ru-RU,ru;q=0.9,en;q=0.5"}, "ru"},
		{"accept-language unsupported", []string{"Accept-Language", "de-DE,fr;q=0.8"}, "en"},
		{"cookie russian", []string{"Cookie", "lang=ru"}, "ru"},
		{"cookie beats accept-language", []string{"Cookie", "lang=en", "Accept-Language", "ru"}, "en"},
		{"bad cookie ignored", []string{"Cookie", "lang=xx", "Accept-Language", "ru"}, "ru"},
	}
	s := newServer(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.client.Do(webtest.NewRequest(t, http.MethodGet, "/", nil, tt.headers...))
			doc := res.Doc(t)
			if got, _ := doc.Find("html").Attr("lang"); got != tt.want {
				t.Errorf("<html lang=%q>, want %q", got, tt.want)
			}
			if got := res.Header.Get("Content-Language"); got != tt.want {
				t.Errorf("Content-Language %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRussianHomePage(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	doc := s.client.Get("/", "Accept-Language", "ru").Doc(t)
	checks := map[string]string{
		`[data-testid="home-hero"] h1`:          "Общий дом для вашего сообщества",
		`[data-testid="nav-groups"]`:            "Группы",
		`[data-testid="nav-people"]`:            "Люди",
		`a.skip-link`:                           "Перейти к основному содержимому",
		`[data-testid="home-modules"] .eyebrow`: "8 разделов",
	}
	for sel, want := range checks {
		if got := strings.TrimSpace(doc.Find(sel).First().Text()); got != want {
			t.Errorf("%s: %q, want %q", sel, got, want)
		}
	}
	if got := doc.Find(`[data-testid="module-card-chat"] [data-testid="soon-badge"]`).Text(); got != "Скоро" {
		t.Errorf("badge %q", got)
	}
	if cur, _ := doc.Find(`[data-testid="lang-ru"]`).Attr("aria-current"); cur != "true" {
		t.Error("Русский is not marked current")
	}
}

func TestUserSettingBeatsCookie(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil, func(d *web.Deps) {
		d.UserLanguage = func(echo.Context) (i18n.Lang, bool) { return i18n.RU, true }
	})
	doc := s.client.Get("/", "Cookie", "lang=en", "Accept-Language", "en").Doc(t)
	if got, _ := doc.Find("html").Attr("lang"); got != "ru" {
		t.Errorf("<html lang=%q>, want the user's setting ru", got)
	}
}

// The language switch needs no token from a visitor who is not signed in
// (shared pages carry none), but does from a signed-in person, whose
// switch is saved to their profile.
func TestSwitchLanguageNeedsCSRFWhenSignedIn(t *testing.T) {
	t.Parallel()
	anon := newServer(t, nil)
	res := anon.client.PostForm("/lang", url.Values{"lang": {"ru"}, "next": {"/"}})
	if res.StatusCode != http.StatusSeeOther || anon.client.Cookie("lang") == nil {
		t.Errorf("anonymous switch without a token: status %d, lang cookie %v; want 303 and the cookie",
			res.StatusCode, anon.client.Cookie("lang"))
	}

	signedIn := newServer(t, nil, func(d *web.Deps) {
		d.Middleware = append(d.Middleware, func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				req := c.Request()
				c.SetRequest(req.WithContext(viewer.With(req.Context(), viewer.Viewer{SignedIn: true, Name: "Anna"})))
				return next(c)
			}
		})
	})
	signedIn.client.Get("/") // a session with a token exists; the post still lacks it
	res = signedIn.client.PostForm("/lang", url.Values{"lang": {"ru"}, "next": {"/"}})
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("signed-in switch without a token: status %d, want 403", res.StatusCode)
	}
	if res.Doc(t).Find(`[data-testid="error-page"][data-status="403"]`).Length() != 1 {
		t.Error("no 403 error page")
	}
	if signedIn.client.Cookie("lang") != nil {
		t.Error("lang cookie set despite the refused request")
	}
	form := signedIn.client.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/"}})
	if res := signedIn.client.PostForm("/lang", form); res.StatusCode != http.StatusSeeOther {
		t.Errorf("signed-in switch with the token: status %d, want 303", res.StatusCode)
	}
}

func TestSwitchLanguage(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	form := s.client.WithCSRF("/events", url.Values{"lang": {"ru"}, "next": {"/events?page=2"}})
	res := s.client.PostForm("/lang", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); loc != "/events?page=2" {
		t.Errorf("Location %q", loc)
	}
	var set *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "lang" {
			set = ck
		}
	}
	if set == nil || set.Value != "ru" || set.MaxAge != 365*24*3600 || set.Path != "/" || !set.HttpOnly || set.SameSite != http.SameSiteLaxMode {
		t.Fatalf("lang cookie %+v", set)
	}
	doc := s.client.Get("/events").Doc(t)
	if got, _ := doc.Find("html").Attr("lang"); got != "ru" {
		t.Errorf("after switching, <html lang=%q>", got)
	}
}

func TestSwitchLanguageStaysOnSite(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, next := range []string{
		"https://evil.example/",
		"//evil.example/path",
		`/\evil.example`,
		"/\t/evil.example",
		"javascript:alert(1)",
		"evil.example",
		"",
	} {
		form := s.client.WithCSRF("/", url.Values{"lang": {"en"}, "next": {next}})
		res := s.client.PostForm("/lang", form)
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/" {
			t.Errorf("next=%q: status %d Location %q, want 303 to /", next, res.StatusCode, loc)
		}
	}
}

func TestSwitchLanguageForHTMX(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	token := s.client.CSRFToken("/")
	res := s.client.PostForm("/lang", url.Values{"lang": {"ru"}, "next": {"/forum"}},
		"HX-Request", "true", "HX-Request-Type", "partial", "X-CSRF-Token", token)
	if res.StatusCode != http.StatusNoContent || res.Header.Get("HX-Redirect") != "/forum" {
		t.Errorf("status %d HX-Redirect %q, want 204 to /forum", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
}

func TestSwitchLanguageRefusesUnknown(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	res := s.client.PostForm("/lang", s.client.WithCSRF("/", url.Values{"lang": {"de"}}))
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", res.StatusCode)
	}
}

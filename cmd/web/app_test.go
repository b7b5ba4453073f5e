package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

// newTestApp builds the whole app as serve does, on the embedded store in
// a temp dir.
func newTestApp(t *testing.T, env map[string]string) *web.Server {
	t.Helper()
	a, _ := newTestAppOnStore(t, env)
	return a.Server
}

// newTestAppOnStore is newTestApp that also returns the app and its store.
func newTestAppOnStore(t testing.TB, env map[string]string) (*app, *storage.Store) {
	t.Helper()
	a, store, _ := newTestAppOnBackend(t, env)
	return a, store
}

// newTestAppOnBackend also returns the backend under the store, for tests
// that write what the store's front refuses (rows of older versions).
func newTestAppOnBackend(t testing.TB, env map[string]string) (*app, *storage.Store, storage.Backend) {
	t.Helper()
	return newTestAppAt(t, env, nil)
}

// newTestAppAt is newTestAppOnBackend on the clock now (nil: time.Now).
func newTestAppAt(t testing.TB, env map[string]string, now func() time.Time) (*app, *storage.Store, storage.Backend) {
	t.Helper()
	settings := map[string]string{
		"SESSION_KEYS": strings.Repeat("11", 32),
		"CURSOR_KEY":   strings.Repeat("22", 32),
		"DATA_DIR":     t.TempDir(),
	}
	for k, v := range env {
		settings[k] = v
	}
	cfg, err := config.Load(nil, func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	b, err := embedded.Open(cfg.DataDir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(b, storage.Options{})
	t.Cleanup(func() { store.Close() })
	srv, err := newServer(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), store, now)
	if err != nil {
		t.Fatal(err)
	}
	srv.Jobs.Start(context.Background())
	t.Cleanup(srv.Jobs.Stop)
	return srv, store, b
}

// signIn signs c in by email code, reading the code from the development
// mailbox page as a developer would.
func signIn(t *testing.T, c *webtest.Client, email string) {
	t.Helper()
	res := c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {email}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("request code: %d", res.StatusCode)
	}
	// Mail goes out through the task queue, which the running app drains
	// at once; the developer refreshes the page until it is there.
	code := ""
	for deadline := time.Now().Add(5 * time.Second); len(code) != 6 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c.Get("/dev/mailbox").Doc(t).Find(`[data-testid="mailbox-item"]`).EachWithBreak(func(_ int, item *goquery.Selection) bool {
			if item.Find(`[data-testid="mailbox-to"]`).Text() == email {
				code = item.Find(`[data-testid="mailbox-code"]`).Text()
				return false
			}
			return true
		})
	}
	if len(code) != 6 {
		t.Fatalf("no code in the development mailbox: %q", code)
	}
	res = c.PostForm("/signin/code/verify", c.WithCSRF("/signin/code", url.Values{"code": {code}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enter code: %d", res.StatusCode)
	}
}

// TestUnsafeRoutesNeedCSRF runs the CSRF route matrix over the router serve
// builds, every module's routes included.
func TestUnsafeRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, nil)
	paths := map[string]bool{}
	for _, r := range srv.Echo().Routes() {
		paths[r.Method+" "+r.Path] = true
	}
	for _, want := range []string{"POST /signin/code", "POST /signin/code/verify", "POST /signout", "POST /account/profile", "POST /admin/users/:member/disable",
		"POST /prompts", "POST /prompts/:id/vote", "POST /admin/tags", "POST /admin/rebuild/:subject",
		"POST /admin/tasks/:task/retry", "POST /admin/tasks/:task/discard"} {
		if !paths[want] {
			t.Errorf("the app has no route %s", want)
		}
	}
	webtest.AssertUnsafeRoutesNeedCSRF(t, srv.Echo())
}

// TestAdminRoutesRefuseNonAdmins walks every /admin route: visitors are
// sent to sign in, signed-in people who are not admins get 403.
func TestAdminRoutesRefuseNonAdmins(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, map[string]string{"ADMIN_EMAILS": "boss@example.org"})
	anon := webtest.NewClient(t, srv.Handler())
	user := webtest.NewClient(t, srv.Handler())
	signIn(t, user, "anna@example.org")
	checked := 0
	for _, r := range srv.Echo().Routes() {
		if r.Path != "/admin" && !strings.HasPrefix(r.Path, "/admin/") {
			continue
		}
		path := strings.NewReplacer(":member", "auth:x", ":id", "x").Replace(r.Path)
		for _, tc := range []struct {
			who    string
			c      *webtest.Client
			status int
		}{{"visitor", anon, 0}, {"non-admin", user, http.StatusForbidden}} {
			var res *webtest.Response
			switch r.Method {
			case http.MethodGet:
				res = tc.c.Get(path)
			case http.MethodPost:
				res = tc.c.PostForm(path, tc.c.WithCSRF("/", url.Values{"reason": {"probe"}}))
			default:
				continue
			}
			want := tc.status
			if want == 0 { // visitors: GET goes to sign in, POST is 401
				want = http.StatusSeeOther
				if r.Method != http.MethodGet {
					want = http.StatusUnauthorized
				}
			}
			if res.StatusCode != want {
				t.Errorf("%s %s as %s: %d, want %d", r.Method, r.Path, tc.who, res.StatusCode, want)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no /admin routes: the matrix checked nothing")
	}
	boss := webtest.NewClient(t, srv.Handler())
	signIn(t, boss, "boss@example.org")
	if res := boss.Get("/admin"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /admin as ADMIN_EMAILS admin: %d", res.StatusCode)
	}
}

// TestSignInThroughTheWholeApp checks the wiring: the account module makes
// the profile, the header shows it, and sign-out ends the session.
func TestSignInThroughTheWholeApp(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, nil)
	c := webtest.NewClient(t, srv.Handler())
	signIn(t, c, "anna@example.org")
	doc := c.Get("/").Doc(t)
	if name := strings.TrimSpace(doc.Find(`[data-testid="user-menu"] [data-testid="user-name"]`).Text()); name == "" {
		t.Error("the header shows no signed-in user")
	}
	if res := c.Get("/account"); res.StatusCode != http.StatusOK {
		t.Errorf("GET /account signed in: %d", res.StatusCode)
	}
	if res := c.PostForm("/signout", c.WithCSRF("/", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.StatusCode)
	}
	if res := c.Get("/account"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /account after sign-out: %d", res.StatusCode)
	}
}

func TestDevMailboxAbsentInProductionApp(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, map[string]string{"ENV": "production", "BASE_URL": "https://harmony.example", "SMTP_URL": "smtp://127.0.0.1:1"})
	if res := webtest.NewClient(t, srv.Handler()).Get("/dev/mailbox"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /dev/mailbox in production: %d", res.StatusCode)
	}
}

// TestNoBrokenLinksInTheApp follows every same-site link on the home page,
// for a visitor and for a signed-in person.
func TestNoBrokenLinksInTheApp(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, nil)
	visitor := webtest.NewClient(t, srv.Handler())
	member := webtest.NewClient(t, srv.Handler())
	signIn(t, member, "anna@example.org")
	for name, c := range map[string]*webtest.Client{"visitor": visitor, "member": member} {
		seen := map[string]bool{}
		c.Get("/").Doc(t).Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href, _ := a.Attr("href")
			if strings.HasPrefix(href, "/") {
				seen[strings.SplitN(href, "#", 2)[0]] = true
			}
		})
		if !seen["/signin"] && name == "visitor" {
			t.Error("the visitor's header has no sign-in link")
		}
		for href := range seen {
			if res := c.Get(href); res.StatusCode != http.StatusOK {
				t.Errorf("%s: GET %s: status %d", name, href, res.StatusCode)
			}
		}
	}
}

// TestPromptTagsSeedTheCatalog: PROMPT_TAGS is the tag list a first start
// puts in the prompt catalog's chips.
func TestPromptTagsSeedTheCatalog(t *testing.T) {
	t.Parallel()
	srv := newTestApp(t, map[string]string{"PROMPT_TAGS": "baking=Baking/Выпечка, chess=Chess/Шахматы"})
	doc := webtest.NewClient(t, srv.Handler()).Get("/prompts").Doc(t)
	var chips []string
	doc.Find(`[data-testid="tag-chip"]`).Each(func(_ int, s *goquery.Selection) {
		chips = append(chips, strings.Fields(s.Text())[0])
	})
	if strings.Join(chips, " ") != "Baking Chess" {
		t.Errorf("chips %v, want the PROMPT_TAGS list", chips)
	}
}

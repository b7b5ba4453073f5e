package auth

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var (
	testSessionKey = strings.Repeat("11", 32)
	testCursorKey  = strings.Repeat("22", 32)
	startTime      = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)
)

// fakeProfiles stands in for the account module (auth.Profiles): every
// member starts enabled, named after the email's local part.
type fakeProfiles struct {
	mu     sync.Mutex
	states map[string]ProfileState
	// then is a member's state from the call after the next one on: a
	// change an admin makes just after a sign-in read the profile.
	then map[string]ProfileState
}

func (p *fakeProfiles) OnSignIn(_ context.Context, memberKey, email, name string) (ProfileState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.states[memberKey]; ok {
		if next, ok := p.then[memberKey]; ok {
			p.states[memberKey] = next
			delete(p.then, memberKey)
		}
		return st, nil
	}
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	st := ProfileState{DisplayName: name, Enabled: true}
	p.states[memberKey] = st
	return st, nil
}

func (p *fakeProfiles) set(memberKey string, st ProfileState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.states[memberKey] = st
}

// upgradeLog records guest upgrades.
type upgradeLog struct {
	mu  sync.Mutex
	got []string
}

func (u *upgradeLog) UpgradeGuest(_ context.Context, guestKey, memberKey string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got = append(u.got, guestKey+" -> "+memberKey)
	return nil
}

type harness struct {
	t        *testing.T
	cfg      *config.Config
	store    *storage.Store
	svc      *Service
	clock    *webtest.Clock
	profiles *fakeProfiles
	mailbox  *mail.DevMailbox
	handler  http.Handler
	echo     *echo.Echo
}

// harnessOptions adjust a harness before it is built.
type harnessOptions struct {
	env   map[string]string
	store *storage.Store // shared with another harness (key rotation)
	clock *webtest.Clock
	// noMail builds the service without a sender (production without SMTP).
	noMail bool
}

func openStore(t *testing.T) *storage.Store {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return storage.New(b, storage.Options{})
}

// newHarness builds the auth service and a web server around it, on the
// embedded store in a temp dir, with a test module whose routes exercise
// the guards, guests and CompleteSignIn.
func newHarness(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	settings := map[string]string{
		"SESSION_KEYS": testSessionKey,
		"CURSOR_KEY":   testCursorKey,
		"DATA_DIR":     t.TempDir(),
	}
	for k, v := range opts.env {
		settings[k] = v
	}
	cfg, err := config.Load(nil, func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, cfg: cfg, store: opts.store, clock: opts.clock, profiles: &fakeProfiles{states: map[string]ProfileState{}, then: map[string]ProfileState{}}}
	if h.store == nil {
		h.store = openStore(t)
	}
	if h.clock == nil {
		h.clock = webtest.NewClock(startTime)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var sender mail.Sender
	if !opts.noMail {
		h.mailbox = mail.NewDevMailbox(log, 100)
		sender = h.mailbox
	}
	h.svc, err = New(h.store, cfg, h.profiles, sender, log, h.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.store.Provision(context.Background(), h.svc.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{
		Config:       cfg,
		Logger:       log,
		UserLanguage: h.svc.UserLanguage,
		Middleware:   []echo.MiddlewareFunc{h.svc.Middleware()},
		Modules:      []web.Module{h.svc, testModule{h.svc}},
		Now:          h.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.handler, h.echo = srv.Handler(), srv.Echo()
	return h
}

// testModule has the routes a real module would put behind the guards.
type testModule struct{ s *Service }

func (testModule) Slug() string { return "test" }

func (m testModule) Routes(e *echo.Echo) {
	e.GET("/whoami", whoami, RequireMember)
	e.GET("/account-only", ok, RequireAccount)
	e.GET("/admin-only", ok, RequireAdmin)
	e.POST("/join", func(c echo.Context) error {
		id, err := m.s.SignInGuest(c, c.FormValue("name"))
		if err != nil {
			return err
		}
		return c.String(http.StatusOK, id.MemberKey)
	})
	// A stand-in for the OIDC callback: what it hands CompleteSignIn.
	e.POST("/test/verified", func(c echo.Context) error {
		return m.s.CompleteSignIn(c, VerifiedIdentity{
			Method:        c.FormValue("method"),
			Subject:       c.FormValue("sub"),
			Email:         c.FormValue("email"),
			EmailVerified: c.FormValue("verified") == "true",
			Name:          c.FormValue("name"),
		}, c.FormValue("next"))
	})
}

func whoami(c echo.Context) error {
	id := From(c)
	return c.String(http.StatusOK, fmt.Sprintf("%s guest=%v admin=%v name=%s email=%s sid=%s", id.MemberKey, id.Guest, id.Admin, id.DisplayName, id.Email, id.SessionID))
}

func ok(c echo.Context) error { return c.String(http.StatusOK, "ok") }

func (h *harness) client() *webtest.Client { return webtest.NewClient(h.t, h.handler) }

// requestCode posts the email form as a browser would.
func (h *harness) requestCode(c *webtest.Client, email string, headers ...string) *webtest.Response {
	h.t.Helper()
	return c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {email}}), headers...)
}

var codeInMail = regexp.MustCompile(`\b\d{6}\b`)

// lastCode is the code in the newest mail to email.
func (h *harness) lastCode(email string) string {
	h.t.Helper()
	email = strings.ToLower(email)
	for _, m := range h.mailbox.Recent() {
		if m.To == email {
			return codeInMail.FindString(m.Subject)
		}
	}
	h.t.Fatalf("no mail to %s", email)
	return ""
}

func (h *harness) mailCount(email string) int {
	n := 0
	for _, m := range h.mailbox.Recent() {
		if m.To == email {
			n++
		}
	}
	return n
}

// enterCode posts the code form.
func (h *harness) enterCode(c *webtest.Client, code string) *webtest.Response {
	h.t.Helper()
	return c.PostForm("/signin/code/verify", c.WithCSRF("/signin/code", url.Values{"code": {code}}))
}

// signIn signs c in by email code and returns the member key.
func (h *harness) signIn(c *webtest.Client, email string) string {
	h.t.Helper()
	if res := h.requestCode(c, email); res.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("request code: %d %s", res.StatusCode, res.Body)
	}
	res := h.enterCode(c, h.lastCode(email))
	if res.StatusCode != http.StatusSeeOther {
		h.t.Fatalf("enter code: %d %s", res.StatusCode, res.Body)
	}
	return h.memberOf(c)
}

// memberOf is who c is signed in as, or "" when anonymous.
func (h *harness) memberOf(c *webtest.Client) string {
	h.t.Helper()
	res := c.Get("/whoami")
	if res.StatusCode != http.StatusOK {
		return ""
	}
	key, _, _ := strings.Cut(res.Body, " ")
	return key
}

// sessionOf is the id of the session c's cookie names, or "".
func (h *harness) sessionOf(c *webtest.Client) string {
	h.t.Helper()
	_, sid, _ := strings.Cut(c.Get("/whoami").Body, " sid=")
	return sid
}

// sessionCookie is c's session cookie as a thief would copy it.
func sessionCookie(t *testing.T, c *webtest.Client) *http.Cookie {
	t.Helper()
	for _, name := range []string{"harmony_session", "__Host-harmony_session"} {
		if ck := c.Cookie(name); ck != nil {
			return &http.Cookie{Name: ck.Name, Value: ck.Value}
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// replay sends GET path with only the given cookie, as a second browser
// holding a stolen copy would.
func replay(t *testing.T, c *webtest.Client, ck *http.Cookie, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(ck)
	hc := &http.Client{Transport: c.HTTP.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// sessionRows is the member's rows in Sessions.
func (h *harness) sessionRows(memberKey string) []*sessionRow {
	h.t.Helper()
	rows, err := h.svc.memberSessions(context.Background(), memberKey)
	if err != nil {
		h.t.Fatal(err)
	}
	return rows
}

// Package accounttest builds the real identity stack for tests of the
// account and admin modules: the embedded store in a temp dir, the auth
// service with a development mailbox, the account module, any extra
// modules, and the web server around them. People sign in the way a
// browser does, by email code.
package accounttest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

// Start is the test clock's first instant.
var Start = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

// Clock is the test server's controllable time.
type Clock = webtest.Clock

// Options adjust the app.
type Options struct {
	// Env overrides configuration variables (ADMIN_EMAILS, ...).
	Env map[string]string
	// Modules are further modules, built on the same core the way the
	// app builds them (platform.Build): their tables, jobs and hooks are
	// wired as in production.
	Modules []platform.Factory
	// Wrap, if set, wraps the store's backend: a test's way to make
	// chosen writes fail.
	Wrap func(storage.Backend) storage.Backend
}

// App is a running test server with its services.
type App struct {
	t        testing.TB
	Config   *config.Config
	Store    *storage.Store
	Auth     *auth.Service
	Accounts *account.Service
	Cursors  *storage.Cursors
	Mailbox  *mail.DevMailbox
	Tasks    *tasks.Queue
	Metrics  *metrics.Daily
	Clock    *Clock
	Echo     *echo.Echo
	Handler  http.Handler
}

// New builds and provisions the app.
func New(t testing.TB, opts Options) *App {
	t.Helper()
	settings := map[string]string{
		"SESSION_KEYS": strings.Repeat("11", 32),
		"CURSOR_KEY":   strings.Repeat("22", 32),
		"DATA_DIR":     t.TempDir(),
	}
	for k, v := range opts.Env {
		settings[k] = v
	}
	cfg, err := config.Load(nil, func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	backend, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	var b storage.Backend = backend
	if opts.Wrap != nil {
		b = opts.Wrap(b)
	}
	a := &App{t: t, Config: cfg, Store: storage.New(b, storage.Options{}), Clock: webtest.NewClock(Start)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a.Mailbox = mail.NewDevMailbox(log, 1000)
	whoami := func(*platform.Core) (web.Module, error) { return whoamiModule{}, nil }
	built, err := platform.Build(context.Background(), cfg, a.Store, log,
		platform.Options{Now: a.Clock.Now, Mailer: a.Mailbox}, append([]platform.Factory{whoami}, opts.Modules...)...)
	if err != nil {
		t.Fatal(err)
	}
	a.Auth, a.Accounts, a.Cursors, a.Metrics = built.Core.Auth, built.Core.Accounts, built.Core.Cursors, built.Core.Metrics
	a.Tasks = built.Core.Tasks
	srv := built.Server
	a.Echo, a.Handler = srv.Echo(), srv.Handler()
	return a
}

// whoamiModule tells a test who a client is signed in as.
type whoamiModule struct{}

func (whoamiModule) Slug() string { return "test-whoami" }

func (whoamiModule) Routes(e *echo.Echo) {
	e.GET("/test/whoami", func(c echo.Context) error {
		id := auth.From(c)
		if id == nil {
			return c.String(http.StatusOK, "")
		}
		return c.String(http.StatusOK, id.MemberKey)
	})
}

// Mail runs the due tasks (mail goes out through the queue) and returns
// what the development mailbox received, newest first.
func (a *App) Mail() []mail.Delivered {
	a.t.Helper()
	if _, err := a.Tasks.RunDue(context.Background()); err != nil {
		a.t.Fatalf("running the queued tasks: %v", err)
	}
	return a.Mailbox.Recent()
}

// Inbox runs the due tasks (notices are delivered through the queue) and
// returns the items on c's inbox page, newest first.
func (a *App) Inbox(c *webtest.Client) *goquery.Selection {
	a.t.Helper()
	if _, err := a.Tasks.RunDue(context.Background()); err != nil {
		a.t.Fatalf("running the queued tasks: %v", err)
	}
	return c.Get("/inbox").Doc(a.t).Find(`[data-testid="inbox-item"]`)
}

// Client is a new browser on the app.
func (a *App) Client() *webtest.Client { return webtest.NewClient(a.t, a.Handler) }

// People signs in a new client for each email, in order: the cast of a
// test ("org@example.com", "ann@example.com", …).
func (a *App) People(emails ...string) []*webtest.Client {
	out := make([]*webtest.Client, len(emails))
	for i, email := range emails {
		out[i] = a.Client()
		a.SignIn(out[i], email)
	}
	return out
}

var codeInSubject = regexp.MustCompile(`\b\d{6}\b`)

// SignIn signs c in by email code, as a person would, and returns the
// account's memberKey.
func (a *App) SignIn(c *webtest.Client, email string) string {
	a.t.Helper()
	res := c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {email}}))
	if res.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("sign in %s: asking for a code: %d", email, res.StatusCode)
	}
	code := ""
	for _, m := range a.Mail() {
		if m.To == email {
			code = codeInSubject.FindString(m.Subject)
			break
		}
	}
	if code == "" {
		a.t.Fatalf("sign in %s: no code mailed", email)
	}
	res = c.PostForm("/signin/code/verify", c.WithCSRF("/signin/code", url.Values{"code": {code}}))
	if res.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("sign in %s: entering the code: %d", email, res.StatusCode)
	}
	key := a.Who(c)
	if key == "" {
		a.t.Fatalf("sign in %s: not signed in after the code", email)
	}
	return key
}

// Who is the memberKey c is signed in as, "" when anonymous.
func (a *App) Who(c *webtest.Client) string {
	a.t.Helper()
	return c.Get("/test/whoami").Body
}

// TrySignIn is SignIn for an account that may be refused: it reports the
// final response of entering the code.
func (a *App) TrySignIn(c *webtest.Client, email string) *webtest.Response {
	a.t.Helper()
	c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {email}}))
	code := ""
	for _, m := range a.Mail() {
		if m.To == email {
			code = codeInSubject.FindString(m.Subject)
			break
		}
	}
	return c.PostForm("/signin/code/verify", c.WithCSRF("/signin/code", url.Values{"code": {code}}))
}

package auth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/auth/oidctest"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

const (
	testClientID     = "harmony-test"
	testClientSecret = "harmony-test-secret"
)

// oidcApp is the whole app as cmd/web builds it (auth, the real account
// module, the embedded store in a temp dir) signed in to through an
// in-process provider, driven by a browser-like client.
type oidcApp struct {
	t       *testing.T
	idp     *oidctest.Provider
	browser *webtest.Client
	mailbox *mail.DevMailbox

	// auth, accounts and store are the app's services and store.
	auth     *auth.Service
	accounts *account.Service
	store    *storage.Store

	mu      sync.Mutex
	signIns []signInCall
	logs    strings.Builder
}

// Write collects the app's log, so a test can check why a sign-in was
// refused.
func (a *oidcApp) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.logs.Write(p)
}

// assertLogged checks the app logged why it refused.
func (a *oidcApp) assertLogged(reason string) {
	a.t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if !strings.Contains(a.logs.String(), reason) {
		a.t.Errorf("the log does not say %q:\n%s", reason, a.logs.String())
	}
}

// signInCall is what auth told the account module at a sign-in.
type signInCall struct{ memberKey, email, displayName string }

func newOIDCApp(t *testing.T) *oidcApp {
	t.Helper()
	return newOIDCAppWith(t, nil)
}

// newOIDCAppWith lets the test set the provider up before the app starts.
func newOIDCAppWith(t *testing.T, setup func(*oidctest.Provider)) *oidcApp {
	t.Helper()
	a := &oidcApp{t: t, idp: oidctest.New(t, testClientID, testClientSecret)}
	if setup != nil {
		setup(a.idp)
	}

	// BASE_URL must be the test server's address, known only once it runs:
	// start it on a handler that is filled in below.
	var handler http.Handler
	a.browser = webtest.NewClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
	}))
	env := map[string]string{
		"BASE_URL":           a.browser.URL,
		"DATA_DIR":           t.TempDir(),
		"SESSION_KEYS":       strings.Repeat("ab", 32),
		"CURSOR_KEY":         strings.Repeat("cd", 32),
		"OIDC_ISSUER":        a.idp.URL,
		"OIDC_CLIENT_ID":     testClientID,
		"OIDC_CLIENT_SECRET": testClientSecret,
		"OIDC_NAME":          "Test IdP",
	}
	cfg, err := config.Load(nil, func(name string) (string, bool) { v, ok := env[name]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(a, &slog.HandlerOptions{Level: slog.LevelDebug}))
	backend, err := embedded.Open(cfg.DataDir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(backend, storage.Options{})
	t.Cleanup(func() { store.Close() })

	a.mailbox = mail.NewDevMailbox(log, 10)
	var accounts *account.Service
	profiles := auth.ProfilesFunc(func(ctx context.Context, memberKey, email, displayName string) (auth.ProfileState, error) {
		a.mu.Lock()
		a.signIns = append(a.signIns, signInCall{memberKey, email, displayName})
		a.mu.Unlock()
		return accounts.OnSignIn(ctx, memberKey, email, displayName)
	})
	authService, err := auth.New(store, cfg, profiles, a.mailbox, log, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	accounts = account.New(store, authService, log, time.Now)
	a.auth, a.accounts, a.store = authService, accounts, store
	tables := append(authService.Tables(), accounts.Tables()...)
	if err := store.Provision(context.Background(), tables, accounts.Containers()); err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Deps{
		Config:       cfg,
		Logger:       log,
		UserLanguage: authService.UserLanguage,
		Middleware:   []echo.MiddlewareFunc{authService.Middleware()},
		Modules:      []web.Module{authService, accounts},
	})
	if err != nil {
		t.Fatal(err)
	}
	// whoami shows who the session cookie says the browser is.
	srv.Echo().GET("/test/whoami", func(c echo.Context) error {
		if id := auth.From(c); id != nil {
			return c.String(http.StatusOK, id.MemberKey)
		}
		return c.String(http.StatusUnauthorized, "anonymous")
	})
	handler = srv.Handler()
	return a
}

// authorize starts a sign-in with next and lets the provider answer; it
// returns the callback URL the provider sent the browser to.
func (a *oidcApp) authorize(next string) string {
	a.t.Helper()
	start := a.browser.Get("/auth/oidc/start?next=" + url.QueryEscape(next))
	if start.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("start: status %d, want 303; body %.300s", start.StatusCode, start.Body)
	}
	authz := a.browser.Get(start.Header.Get("Location"))
	if authz.StatusCode != http.StatusFound {
		a.t.Fatalf("provider: status %d, want 302; body %.300s", authz.StatusCode, authz.Body)
	}
	return authz.Header.Get("Location")
}

// signIn runs the whole round trip and returns the callback's response.
func (a *oidcApp) signIn(next string) *webtest.Response {
	a.t.Helper()
	return a.browser.Get(a.authorize(next))
}

// whoami is the browser's memberKey, or "" for an anonymous visitor.
func (a *oidcApp) whoami() string {
	a.t.Helper()
	res := a.browser.Get("/test/whoami")
	if res.StatusCode != http.StatusOK {
		return ""
	}
	return res.Body
}

func (a *oidcApp) lastSignIn() signInCall {
	a.t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.signIns) == 0 {
		a.t.Fatal("nobody signed in")
	}
	return a.signIns[len(a.signIns)-1]
}

// signInWithCode signs the browser in with an emailed code and returns the
// account's memberKey.
func (a *oidcApp) signInWithCode(email string) string {
	a.t.Helper()
	res := a.browser.PostForm("/signin/code", a.browser.WithCSRF("/signin", url.Values{"email": {email}}))
	if res.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("send code: status %d; body %.300s", res.StatusCode, res.Body)
	}
	recent := a.mailbox.Recent()
	if len(recent) == 0 {
		a.t.Fatal("no code was mailed")
	}
	code := regexp.MustCompile(`\b\d{6}\b`).FindString(recent[0].Subject + " " + recent[0].Text)
	res = a.browser.PostForm("/signin/code/verify", a.browser.WithCSRF("/signin/code", url.Values{"code": {code}}))
	if res.StatusCode != http.StatusSeeOther {
		a.t.Fatalf("verify code: status %d; body %.300s", res.StatusCode, res.Body)
	}
	mk := a.whoami()
	if mk == "" {
		a.t.Fatal("not signed in after the code")
	}
	return mk
}

// newBrowser replaces the browser with a fresh one (no cookies) on the
// same server.
func (a *oidcApp) newBrowser() {
	jar, err := cookiejar.New(nil)
	if err != nil {
		a.t.Fatal(err)
	}
	a.browser.HTTP.Jar = jar
}

// assertRefused checks a callback was answered with status on the sign-in
// page, with a message and a way to try again, and signed nobody in.
func (a *oidcApp) assertRefused(res *webtest.Response, status int) {
	a.t.Helper()
	if res.StatusCode != status {
		a.t.Fatalf("status %d, want %d; body %.300s", res.StatusCode, status, res.Body)
	}
	doc := res.Doc(a.t)
	if msg := strings.TrimSpace(doc.Find(`[data-testid="signin-message"]`).Text()); msg == "" {
		a.t.Error("no message on the page")
	}
	if doc.Find(`[data-testid="signin-oidc"]`).Length() == 0 {
		a.t.Error("no way to try again on the page")
	}
	if mk := a.whoami(); mk != "" {
		a.t.Errorf("signed in as %q after a refused callback", mk)
	}
}

// withQuery returns raw with its query parameter name set to value, or
// removed when value is "".
func withQuery(t *testing.T, raw, name, value string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if value == "" {
		q.Del(name)
	} else {
		q.Set(name, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func TestOIDCSignInCreatesAccount(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "ann-123", Email: "Ann@Example.org", EmailVerified: true, Name: "Ann Example"})

	page := a.browser.Get("/signin?next=/account")
	href, _ := page.Doc(t).Find(`[data-testid="signin-oidc"]`).Attr("href")
	if href != "/auth/oidc/start?next=%2Faccount" {
		t.Errorf("sign-in button href %q", href)
	}

	res := a.signIn("/account")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account" {
		t.Fatalf("callback: status %d location %q; body %.300s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	want := auth.AuthMemberKey("ann-123")
	if got := a.whoami(); got != want {
		t.Fatalf("signed in as %q, want %q", got, want)
	}
	if got := a.lastSignIn(); got != (signInCall{want, "ann@example.org", "Ann Example"}) {
		t.Errorf("account module told %+v", got)
	}
	if res := a.browser.Get("/account"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "Ann Example") {
		t.Errorf("account page: status %d, name shown %v", res.StatusCode, strings.Contains(res.Body, "Ann Example"))
	}
	auths := a.idp.AuthorizeRequests()
	if got := auths[0].Get("redirect_uri"); got != a.browser.URL+"/auth/oidc/callback" {
		t.Errorf("redirect_uri %q", got)
	}
	if got := auths[0].Get("scope"); got != "openid email profile" {
		t.Errorf("scope %q", got)
	}
}

func TestOIDCUsesPKCES256(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	authz, tokens := a.idp.AuthorizeRequests(), a.idp.TokenRequests()
	if len(authz) != 1 || len(tokens) != 1 {
		t.Fatalf("%d authorize and %d token requests, want 1 each", len(authz), len(tokens))
	}
	if m := authz[0].Get("code_challenge_method"); m != "S256" {
		t.Errorf("code_challenge_method %q, want S256", m)
	}
	verifier := tokens[0].Get("code_verifier")
	if len(verifier) < 43 {
		t.Fatalf("code_verifier %q is missing or too short", verifier)
	}
	sum := sha256.Sum256([]byte(verifier))
	if got, want := authz[0].Get("code_challenge"), base64.RawURLEncoding.EncodeToString(sum[:]); got != want {
		t.Errorf("code_challenge %q is not S256 of the verifier (%q)", got, want)
	}
	// Each sign-in gets its own verifier.
	a.newBrowser()
	a.signIn("/")
	if again := a.idp.TokenRequests()[1].Get("code_verifier"); again == verifier {
		t.Error("the PKCE verifier was reused")
	}
}

func TestOIDCMissingStateRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	callback := withQuery(t, a.authorize("/"), "state", "")
	a.assertRefused(a.browser.Get(callback), http.StatusBadRequest)
	a.assertLogged("callback without a state")
	if n := len(a.idp.TokenRequests()); n != 0 {
		t.Errorf("the code was exchanged %d times without a state", n)
	}
}

func TestOIDCWrongStateRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	callback := a.authorize("/")
	state := mustQuery(t, callback, "state")
	last := "A"
	if strings.HasSuffix(state, last) {
		last = "B"
	}
	forged := withQuery(t, callback, "state", state[:len(state)-1]+last)
	a.assertRefused(a.browser.Get(forged), http.StatusBadRequest)
	a.assertLogged("state matches no sign-in")

	// Another browser's state is just as wrong: the state is bound to the
	// session that started the sign-in (login CSRF).
	victim := newOIDCAppBrowser(a)
	a.assertRefusedFor(victim, victim.Get(callback), http.StatusBadRequest)
	if n := len(a.idp.TokenRequests()); n != 0 {
		t.Errorf("the code was exchanged %d times with a wrong state", n)
	}
}

func TestOIDCReplayedStateRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)

	// A refused callback uses its state up too: the replay stops at the
	// state, before the provider is asked again.
	a.idp.SetLogin(oidctest.Login{Subject: "r-1", Expired: true})
	refused := a.authorize("/")
	a.assertRefused(a.browser.Get(refused), http.StatusBadRequest)
	a.assertRefused(a.browser.Get(refused), http.StatusBadRequest)
	a.assertLogged("state matches no sign-in")
	if n := len(a.idp.TokenRequests()); n != 1 {
		t.Errorf("the code was exchanged %d times, want once", n)
	}

	a.idp.SetLogin(oidctest.Login{Subject: "r-1"})
	callback := a.authorize("/")
	before := a.browser.HTTP.Jar.Cookies(mustURL(t, a.browser.URL))
	if res := a.browser.Get(callback); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	signedIn := a.whoami()

	// The same browser sends the callback again: its state is gone.
	res := a.browser.Get(callback)
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("replay: status %d, want 400", res.StatusCode)
	}
	if got := a.whoami(); got != signedIn {
		t.Errorf("replay changed the session: %q, was %q", got, signedIn)
	}

	// A copy of the cookie from before the callback still holds the state,
	// but the code has been used: still 400, nobody signed in.
	replayer := newOIDCAppBrowser(a)
	replayer.HTTP.Jar.SetCookies(mustURL(t, a.browser.URL), before)
	a.assertRefusedFor(replayer, replayer.Get(callback), http.StatusBadRequest)
	a.assertLogged("token exchange refused")
}

func TestOIDCNonceMismatchRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "n-1", Nonce: "a-nonce-from-another-sign-in"})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)

	a.assertLogged("nonce does not match")

	a.idp.SetLogin(oidctest.Login{Subject: "n-1", NoNonce: true})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)
}

func TestOIDCWrongAudienceRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "aud-1", Audience: "some-other-client"})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)
	a.assertLogged("expected audience")
}

func TestOIDCWrongIssuerRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "iss-1", Issuer: "https://evil.example"})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)
	a.assertLogged("issued by a different provider")
}

func TestOIDCExpiredTokenRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "exp-1", Expired: true})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)
	a.assertLogged("token is expired")
}

func TestOIDCForeignSigningKeyRejected(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "forged-1", Email: "admin@example.org", EmailVerified: true, ForeignKey: true})
	a.assertRefused(a.signIn("/"), http.StatusBadRequest)
	a.assertLogged("failed to verify signature")
}

func TestOIDCNextOnlyRedirectsOnSite(t *testing.T) {
	t.Parallel()
	tests := []struct{ next, want string }{
		{"/account", "/account"},
		{"/events?page=2", "/events?page=2"},
		{"https://evil.example", "/"},
		{"//evil.example", "/"},
		{`/\evil.example`, "/"},
		{"javascript:alert(1)", "/"},
		{"", "/"},
	}
	a := newOIDCApp(t)
	for _, tt := range tests {
		t.Run(tt.next, func(t *testing.T) {
			a.newBrowser()
			res := a.signIn(tt.next)
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("status %d; body %.300s", res.StatusCode, res.Body)
			}
			if got := res.Header.Get("Location"); got != tt.want {
				t.Errorf("next %q redirected to %q, want %q", tt.next, got, tt.want)
			}
		})
	}
}

func TestOIDCVerifiedEmailLinksToCodeAccount(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	codeAccount := a.signInWithCode("carol@example.org")

	a.newBrowser()
	a.idp.SetLogin(oidctest.Login{Subject: "carol-at-idp", Email: "Carol@Example.org", EmailVerified: true})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	if got := a.whoami(); got != codeAccount {
		t.Errorf("OIDC with the same verified email reached %q, want the code account %q", got, codeAccount)
	}
}

// Once a provider's subject reached an account through its email, it
// keeps reaching that account when the provider reports another email,
// or none it vouches for: a new address is linked to the account, one
// that another account holds is not, and that other account stays out
// of reach.
func TestOIDCSubjectKeepsItsAccountWhenTheEmailChanges(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	carol := a.signInWithCode("carol@example.org")
	a.newBrowser()
	frank := a.signInWithCode("frank@example.org")

	for _, tc := range []struct {
		name, email string
		verified    bool
		wantEmail   string
	}{
		{"the email the account has", "carol@example.org", true, "carol@example.org"},
		{"a new address", "carol.new@example.org", true, "carol.new@example.org"},
		{"an unverified address", "carol@example.org", false, ""},
		{"no address", "", false, ""},
		{"another account's address", "frank@example.org", true, ""},
	} {
		a.newBrowser()
		a.idp.SetLogin(oidctest.Login{Subject: "carol-at-idp", Email: tc.email, EmailVerified: tc.verified})
		if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: callback: status %d; body %.300s", tc.name, res.StatusCode, res.Body)
		}
		if got := a.whoami(); got != carol {
			t.Errorf("%s: signed in as %q, want carol's account %q (frank's is %q)", tc.name, got, carol, frank)
		}
		if call := a.lastSignIn(); call.email != tc.wantEmail {
			t.Errorf("%s: the sign-in gave the account the email %q, want %q", tc.name, call.email, tc.wantEmail)
		}
	}
	// The new address now reaches her account by code too.
	a.newBrowser()
	if got := a.signInWithCode("carol.new@example.org"); got != carol {
		t.Errorf("a code to the address her provider reported reached %q, want %q", got, carol)
	}
}

func TestOIDCUnverifiedEmailDoesNotLink(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	victim := a.signInWithCode("dave@example.org")

	a.newBrowser()
	a.idp.SetLogin(oidctest.Login{Subject: "mallory", Email: "dave@example.org", EmailVerified: false})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	got := a.whoami()
	if got == victim {
		t.Fatal("an unverified email took over the account that owns it")
	}
	if want := auth.AuthMemberKey("mallory"); got != want {
		t.Errorf("signed in as %q, want the subject's own account %q", got, want)
	}
	if call := a.lastSignIn(); call.email != "" {
		t.Errorf("the unverified email %q was given to the account", call.email)
	}
}

// People's pages show memberKeys, and an email account's is "auth:" and a
// ULID. Someone who can choose their subject at the provider names that
// ULID: they get an account of their own, never the other's.
func TestOIDCSubjectCannotNameAnEmailAccount(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	victim := a.signInWithCode("erin@example.org")

	a.newBrowser()
	sub := strings.TrimPrefix(victim, "auth:")
	a.idp.SetLogin(oidctest.Login{Subject: sub})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	got := a.whoami()
	if got == victim {
		t.Fatalf("the subject %q signed in to the email account %q", sub, victim)
	}
	if want := auth.AuthMemberKey(sub); got != want {
		t.Errorf("signed in as %q, want the subject's own account %q", got, want)
	}
}

func TestOIDCSubjectWithSlashIsEscaped(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	sub := "tenant/42+user"
	a.idp.SetLogin(oidctest.Login{Subject: sub})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	got := a.whoami()
	if want := auth.AuthMemberKey(sub); got != want {
		t.Errorf("signed in as %q, want %q", got, want)
	}
	if strings.Contains(strings.TrimPrefix(got, "auth:"), "/") {
		t.Errorf("memberKey %q keeps the '/', which table keys forbid", got)
	}
}

func TestOIDCProviderErrorShowsFriendlyPage(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Error: "access_denied"})
	callback := a.authorize("/account")
	res := a.browser.Get(callback)
	a.assertRefused(res, http.StatusForbidden)
	if strings.Contains(res.Body, "the test said no") {
		t.Error("the provider's error_description was shown")
	}
	// The way back keeps where the person was going.
	href, _ := res.Doc(t).Find(`[data-testid="signin-oidc"]`).Attr("href")
	if href != "/auth/oidc/start?next=%2Faccount" {
		t.Errorf("try-again link %q", href)
	}
	// Other provider errors, even without a state, are a 400 page, not a 500.
	res = a.browser.Get("/auth/oidc/callback?error=server_error&error_description=%3Cscript%3E")
	a.assertRefused(res, http.StatusBadRequest)
	if strings.Contains(res.Body, "<script>") {
		t.Error("the provider's error_description was shown")
	}
}

func TestOIDCProviderDownAtStartStillBoots(t *testing.T) {
	t.Parallel()
	a := newOIDCAppWith(t, func(idp *oidctest.Provider) { idp.SetDiscoveryDown(true) })
	// Email codes work while the provider is away.
	if mk := a.signInWithCode("erin@example.org"); mk == "" {
		t.Fatal("code sign-in failed")
	}
	a.newBrowser()
	res := a.browser.Get("/auth/oidc/start")
	a.assertRefused(res, http.StatusServiceUnavailable)
}

// newOIDCAppBrowser is a second browser, with its own cookies, on a's
// server.
func newOIDCAppBrowser(a *oidcApp) *webtest.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		a.t.Fatal(err)
	}
	b := *a.browser
	b.HTTP = &http.Client{Jar: jar, CheckRedirect: a.browser.HTTP.CheckRedirect}
	return &b
}

// assertRefusedFor is assertRefused for another browser.
func (a *oidcApp) assertRefusedFor(b *webtest.Client, res *webtest.Response, status int) {
	a.t.Helper()
	saved := a.browser
	a.browser = b
	defer func() { a.browser = saved }()
	a.assertRefused(res, status)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func mustQuery(t *testing.T, raw, name string) string {
	t.Helper()
	v := mustURL(t, raw).Query().Get(name)
	if v == "" {
		t.Fatalf("%s has no %s", raw, name)
	}
	return v
}

func TestOIDCClaimsOnlyInUserInfoAreRead(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "ui-1", Email: "Una@Example.org", EmailVerified: true, Name: "Una Info", ClaimsOnlyInUserInfo: true})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	want := signInCall{auth.AuthMemberKey("ui-1"), "una@example.org", "Una Info"}
	if got := a.lastSignIn(); got != want {
		t.Errorf("sign-in got %+v, want %+v (email and name from /userinfo)", got, want)
	}
}

func TestOIDCUserInfoForAnotherSubjectIsIgnored(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "ui-2", Email: "victim@example.org", EmailVerified: true, Name: "Victim",
		ClaimsOnlyInUserInfo: true, UserInfoSubject: "someone-else"})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: status %d; body %.300s", res.StatusCode, res.Body)
	}
	if got := a.lastSignIn(); got.memberKey != auth.AuthMemberKey("ui-2") || got.email != "" {
		t.Errorf("sign-in got %+v: claims for another subject were used", got)
	}
}

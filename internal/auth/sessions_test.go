package auth

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/web/webtest"
)

func TestSignInByCodeCreatesAccountAndSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	c.Get("/")
	member := h.signIn(c, "Anna@Example.org")
	if !strings.HasPrefix(member, "auth:") || len(member) != len("auth:")+26 {
		t.Fatalf("member key %q, want auth:{ulid}", member)
	}
	if got := c.Get("/whoami").Body; !strings.Contains(got, "name=anna email=anna@example.org") {
		t.Errorf("whoami %q", got)
	}
	mk, err := h.svc.accountByEmail(context.Background(), "anna@example.org")
	if err != nil || mk != member {
		t.Errorf("AccountsByEmail → %q, %v", mk, err)
	}
	rows := h.sessionRows(member)
	if len(rows) != 1 || rows[0].Email != "anna@example.org" || len(rows[0].ID) != 32 || rows[0].UserAgent == "" || rows[0].IP != "127.0.0.1" {
		t.Errorf("session rows %+v", rows)
	}
	doc := c.Get("/").Doc(t)
	if doc.Find(`[data-testid="user-menu"]`).Text() == "" || doc.Find(`[data-testid="signout"]`).Length() != 1 || doc.Find(`[data-testid="signin-link"]`).Length() != 0 {
		t.Error("the header does not show the signed-in user")
	}
	// The same email again is the same account.
	if again := h.signIn(h.client(), "anna@example.org"); again != member {
		t.Errorf("second sign-in reached %q, want %q", again, member)
	}
}

func TestAnonymousHeaderOffersSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	doc := h.client().Get("/groups").Doc(t)
	href, _ := doc.Find(`[data-testid="signin-link"]`).Attr("href")
	if href != "/signin?next=%2Fgroups" || doc.Find(`[data-testid="user-menu"]`).Length() != 0 {
		t.Errorf("sign-in link %q", href)
	}
}

func TestSessionCookieCapturedBeforeSignOutIsRejected(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	member := h.signIn(c, "anna@example.org")
	stolen := sessionCookie(t, c)
	if res := replay(t, c, stolen, "/whoami"); res.StatusCode != http.StatusOK {
		t.Fatalf("the copied cookie does not work before sign-out: %d", res.StatusCode)
	}
	res := c.PostForm("/signout", c.WithCSRF("/", nil))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("sign out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if got := res.Header.Get("Clear-Site-Data"); got != `"cache"` {
		t.Errorf("sign-out Clear-Site-Data %q: the browser keeps the account's pages for Back", got)
	}
	if h.memberOf(c) != "" {
		t.Error("still signed in after sign-out")
	}
	res2 := replay(t, c, stolen, "/whoami")
	if res2.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res2.Header.Get("Location"), "/signin") {
		t.Errorf("cookie captured before sign-out: %d %s, want a redirect to sign in", res2.StatusCode, res2.Header.Get("Location"))
	}
	if rows := h.sessionRows(member); len(rows) != 0 {
		t.Errorf("%d session rows left after sign-out", len(rows))
	}
}

func TestSignOutEverywhereEndsOtherSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	laptop, phone, tablet := h.client(), h.client(), h.client()
	member := h.signIn(laptop, "anna@example.org")
	h.signIn(phone, "anna@example.org")
	h.signIn(tablet, "anna@example.org")
	other := h.signIn(h.client(), "boris@example.org")
	stolen := sessionCookie(t, phone)

	ctx := context.Background()
	tabletID := h.sessionOf(tablet)
	infos, err := h.svc.ListSessions(ctx, member, tabletID)
	if err != nil || len(infos) != 3 {
		t.Fatalf("ListSessions: %d, %v", len(infos), err)
	}
	current := 0
	for _, in := range infos {
		if in.Current {
			current++
			if in.ID != tabletID {
				t.Error("the wrong session is marked current")
			}
		}
	}
	if current != 1 {
		t.Errorf("%d sessions marked current", current)
	}

	// Signing out one device ends only that one.
	if err := h.svc.RevokeSession(ctx, member, tabletID); err != nil {
		t.Fatal(err)
	}
	if h.memberOf(tablet) != "" || h.memberOf(laptop) != member {
		t.Error("RevokeSession ended the wrong sessions")
	}
	if err := h.svc.RevokeSession(ctx, member, tabletID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}

	if err := h.svc.RevokeAllSessions(ctx, member); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*webtest.Client{"laptop": laptop, "phone": phone} {
		if h.memberOf(c) != "" {
			t.Errorf("%s still signed in after sign out everywhere", name)
		}
	}
	if res := replay(t, laptop, stolen, "/whoami"); res.StatusCode == http.StatusOK {
		t.Error("a copied cookie works after sign out everywhere")
	}
	if len(h.sessionRows(other)) != 1 {
		t.Error("another member's session ended too")
	}
}

func TestSessionIDRotatesAtSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	// A guest session first: sign-in must replace it, not reuse it.
	res := c.PostForm("/join", c.WithCSRF("/", url.Values{"name": {"Visitor"}}))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("join: %d %s", res.StatusCode, res.Body)
	}
	guest := res.Body
	guestSession := h.sessionOf(c)
	before := sessionCookie(t, c)
	tokenBefore := c.CSRFToken("/")

	member := h.signIn(c, "anna@example.org")
	after := sessionCookie(t, c)
	if after.Value == before.Value {
		t.Error("the cookie did not change at sign-in")
	}
	if id := h.sessionOf(c); id == guestSession || id == "" {
		t.Errorf("session id %q not rotated (was %q)", id, guestSession)
	}
	if len(h.sessionRows(guest)) != 0 {
		t.Error("the pre-sign-in session row is still there")
	}
	if res := replay(t, c, before, "/whoami"); res.StatusCode == http.StatusOK {
		t.Error("the pre-sign-in cookie still works")
	}
	if tokenAfter := c.CSRFToken("/"); tokenAfter == tokenBefore {
		t.Error("the CSRF token did not rotate at sign-in")
	}
	form := url.Values{"_csrf": {tokenBefore}}
	if res := c.PostForm("/signout", form); res.StatusCode != http.StatusForbidden {
		t.Errorf("the pre-sign-in CSRF token still works: %d", res.StatusCode)
	}
	if h.memberOf(c) != member {
		t.Error("not signed in")
	}
}

func TestIdleTimeoutEndsSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{env: map[string]string{"SESSION_IDLE_TIMEOUT": "1h", "SESSION_MAX_AGE": "24h"}})
	c := h.client()
	member := h.signIn(c, "anna@example.org")
	for i := 0; i < 4; i++ { // active for four hours, a request every 50 minutes
		h.clock.Advance(50 * time.Minute)
		if h.memberOf(c) != member {
			t.Fatalf("an active session ended after %d requests", i+1)
		}
	}
	h.clock.Advance(61 * time.Minute)
	if h.memberOf(c) != "" {
		t.Error("the session survived an hour of idleness")
	}
	if len(h.sessionRows(member)) != 0 {
		t.Error("the idle session's row is still there")
	}
}

func TestAbsoluteTimeoutEndsSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{env: map[string]string{"SESSION_IDLE_TIMEOUT": "1h", "SESSION_MAX_AGE": "3h"}})
	c := h.client()
	member := h.signIn(c, "anna@example.org")
	for elapsed := time.Duration(0); elapsed+30*time.Minute < 3*time.Hour; elapsed += 30 * time.Minute {
		h.clock.Advance(30 * time.Minute)
		if h.memberOf(c) != member {
			t.Fatalf("the session ended early, at %v", elapsed+30*time.Minute)
		}
	}
	h.clock.Advance(30 * time.Minute) // three hours after sign-in
	if h.memberOf(c) != "" {
		t.Error("the session outlived SESSION_MAX_AGE while active")
	}
}

func TestLastSeenIsWrittenAtMostEveryFiveMinutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	member := h.signIn(c, "anna@example.org")
	signedInAt := h.clock.Now()
	h.clock.Advance(4 * time.Minute)
	c.Get("/whoami")
	if got := h.sessionRows(member)[0].LastSeenAt; !got.Equal(signedInAt) {
		t.Errorf("LastSeenAt rewritten after 4 minutes: %v", got)
	}
	h.clock.Advance(2 * time.Minute)
	c.Get("/whoami")
	if got := h.sessionRows(member)[0].LastSeenAt; !got.Equal(signedInAt.Add(6 * time.Minute)) {
		t.Errorf("LastSeenAt %v after 6 minutes", got)
	}
}

func TestOneStorageReadPerRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.signIn(c, "anna@example.org")
	res := c.Get("/whoami")
	if got := res.Header.Get("X-Storage-Ops"); !strings.HasPrefix(got, "total=1 reads=1 ") {
		t.Errorf("a signed-in request cost %q, want one point read", got)
	}
}

func TestSessionKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := testSessionKey, strings.Repeat("33", 32)
	store, clk := openStore(t), webtest.NewClock(startTime)
	before := newHarness(t, harnessOptions{store: store, clock: clk, env: map[string]string{"SESSION_KEYS": oldKey}})
	c := before.client()
	member := before.signIn(c, "anna@example.org")
	oldCookie := sessionCookie(t, c)
	// A code sent under the old key, entered after the rotation.
	pending := before.client()
	before.requestCode(pending, "boris@example.org")
	borisCode := before.lastCode("boris@example.org")
	pendingCookie := sessionCookie(t, pending)

	rotated := newHarness(t, harnessOptions{store: store, clock: clk, env: map[string]string{"SESSION_KEYS": newKey + "," + oldKey}})
	c2 := rotated.client()
	if res := replay(t, c2, oldCookie, "/whoami"); res.StatusCode != http.StatusOK {
		t.Fatalf("a cookie signed with the old key is refused while the key is listed: %d", res.StatusCode)
	}
	p2 := rotated.client()
	jarSet(t, p2, pendingCookie)
	if res := rotated.enterCode(p2, borisCode); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a code hashed under the old key fails after rotation: %d", res.StatusCode)
	}
	// A cookie the rotated server writes is signed with the new key.
	fresh := rotated.client()
	rotated.signIn(fresh, "anna@example.org")
	newCookie := sessionCookie(t, fresh)

	retired := newHarness(t, harnessOptions{store: store, clock: clk, env: map[string]string{"SESSION_KEYS": newKey}})
	c3 := retired.client()
	if res := replay(t, c3, oldCookie, "/whoami"); res.StatusCode == http.StatusOK {
		t.Error("a cookie signed with a retired key still works")
	}
	if res := replay(t, c3, newCookie, "/whoami"); res.StatusCode != http.StatusOK {
		t.Errorf("a cookie signed with the new key is refused: %d", res.StatusCode)
	}
	if rows := rotated.sessionRows(member); len(rows) != 2 {
		t.Errorf("%d sessions for the member, want 2", len(rows))
	}
}

// jarSet puts a cookie into c's jar, as if c's browser had it.
func jarSet(t *testing.T, c *webtest.Client, ck *http.Cookie) {
	t.Helper()
	u, _ := url.Parse(c.URL)
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/"}})
}

func TestCookieFlagsHTTPS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{env: map[string]string{"BASE_URL": "https://harmony.example"}})
	c := webtest.NewTLSClient(t, h.handler)
	if res := h.requestCode(c, "anna@example.org"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("request code over https: %d", res.StatusCode)
	}
	res := h.enterCode(c, h.lastCode("anna@example.org"))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enter code over https: %d %s", res.StatusCode, res.Body)
	}
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if strings.Contains(ck.Name, "harmony_session") {
			session = ck
		}
	}
	if session == nil {
		t.Fatal("sign-in set no session cookie")
	}
	if session.Name != "__Host-harmony_session" || !session.Secure || !session.HttpOnly ||
		session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.Domain != "" {
		t.Errorf("session cookie %+v", session)
	}
	if h.memberOf(c) == "" {
		t.Error("not signed in over https")
	}
	plain := newHarness(t, harnessOptions{})
	pc := plain.client()
	plain.signIn(pc, "anna@example.org")
	if ck := pc.Cookie("harmony_session"); ck == nil {
		t.Error("over http the cookie has no __Host- prefix")
	}
}

func TestRequireGuards(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{env: map[string]string{"ADMIN_EMAILS": "boss@example.org"}})
	anon := h.client()
	res := anon.Get("/whoami?x=1")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signin?next=%2Fwhoami%3Fx%3D1" {
		t.Errorf("anonymous GET: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res = anon.Get("/whoami", "HX-Request", "true", "HX-Request-Type", "partial", "HX-Current-URL", anon.URL+"/groups/7")
	if res.Header.Get("HX-Redirect") != "/signin?next=%2Fgroups%2F7" {
		t.Errorf("anonymous htmx: HX-Redirect %q", res.Header.Get("HX-Redirect"))
	}
	if res := anon.Get("/admin-only"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("anonymous admin page: %d", res.StatusCode)
	}

	user := h.client()
	member := h.signIn(user, "anna@example.org")
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusForbidden {
		t.Errorf("non-admin admin page: %d", res.StatusCode)
	}
	boss := h.client()
	h.signIn(boss, "boss@example.org")
	if res := boss.Get("/admin-only"); res.StatusCode != http.StatusOK {
		t.Errorf("ADMIN_EMAILS admin: %d", res.StatusCode)
	}
	if boss.Get("/").Doc(t).Find(`[data-testid="admin-link"]`).Length() != 1 {
		t.Error("the header has no admin link for an admin")
	}
	// The role granted on the admin page reaches open sessions.
	if err := h.svc.RefreshSessions(context.Background(), member, ProfileState{DisplayName: "Anna K", Enabled: true, Admin: true, Language: "ru"}); err != nil {
		t.Fatal(err)
	}
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusOK {
		t.Errorf("granted admin: %d", res.StatusCode)
	}
	page := user.Get("/")
	if !strings.Contains(page.Body, `<html lang="ru"`) || !strings.Contains(page.Doc(t).Find(`[data-testid="user-menu"]`).Text(), "Anna K") {
		t.Error("the language setting or new name did not reach the session")
	}
}

// TestALateRefreshCannotRestoreARevokedRole: a refresh from an older
// profile (a save racing a role change) does not put back the role a
// newer refresh took away; a newer one still applies.
func TestALateRefreshCannotRestoreARevokedRole(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	user := h.client()
	member := h.signIn(user, "anna@example.org")
	ctx := context.Background()
	t1, t2, t3 := startTime.Add(time.Minute), startTime.Add(2*time.Minute), startTime.Add(3*time.Minute)
	refresh := func(admin bool, at time.Time) {
		t.Helper()
		if err := h.svc.RefreshSessions(ctx, member, ProfileState{DisplayName: "Anna", Enabled: true, Admin: admin, ProfileAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	refresh(true, t1)
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusOK {
		t.Fatalf("granted: %d", res.StatusCode)
	}
	refresh(false, t2) // the role is taken away
	refresh(true, t1)  // a profile save from before it lands late
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("after a late refresh: %d, want the role gone", res.StatusCode)
	}
	refresh(true, t3) // granted again, later
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusOK {
		t.Fatalf("granted again: %d", res.StatusCode)
	}
	refresh(false, time.Time{}) // a state with no time is applied
	if res := user.Get("/admin-only"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("after a refresh with no time: %d, want the role gone", res.StatusCode)
	}
}

func TestDisabledAccountCannotSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	member := h.signIn(c, "anna@example.org")
	// Disabling ends open sessions at once...
	disabled := ProfileState{DisplayName: "anna", Enabled: false}
	h.profiles.set(member, disabled)
	if err := h.svc.RefreshSessions(context.Background(), member, disabled); err != nil {
		t.Fatal(err)
	}
	if h.memberOf(c) != "" {
		t.Error("a disabled account's session goes on")
	}
	// ...and sign-in is refused with a clear message.
	h.clock.Advance(2 * time.Minute) // past the send cooldown
	if res := h.requestCode(c, "anna@example.org"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("request code: %d", res.StatusCode)
	}
	res := h.enterCode(c, h.lastCode("anna@example.org"))
	if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "disabled") {
		t.Errorf("disabled sign-in: %d, body lacks the reason", res.StatusCode)
	}
	if h.memberOf(c) != "" || len(h.sessionRows(member)) != 0 {
		t.Error("a disabled account got a session")
	}
}

// TestAChangeDuringSignInReachesItsSession: an admin's disable or role
// change that lands between sign-in's read of the profile and its new
// session (whose revoke or refresh then found no session) reaches the
// session all the same: sign-in asks again once the session is written.
func TestAChangeDuringSignInReachesItsSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	member := h.signIn(h.client(), "anna@example.org")
	// A role given meanwhile is in the new session.
	admin := ProfileState{DisplayName: "anna", Enabled: true, Admin: true}
	h.profiles.mu.Lock()
	h.profiles.then[member] = admin
	h.profiles.mu.Unlock()
	c := h.client()
	h.clock.Advance(2 * time.Minute) // past the send cooldown
	h.signIn(c, "anna@example.org")
	if res := c.Get("/admin-only"); res.StatusCode != http.StatusOK {
		t.Fatalf("the role given during sign-in: %d", res.StatusCode)
	}
	// A disable meanwhile ends the new session before it is used.
	h.profiles.mu.Lock()
	h.profiles.then[member] = ProfileState{DisplayName: "anna", Enabled: false}
	h.profiles.mu.Unlock()
	late := h.client()
	h.clock.Advance(2 * time.Minute)
	h.requestCode(late, "anna@example.org")
	res := h.enterCode(late, h.lastCode("anna@example.org"))
	if res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "disabled") {
		t.Fatalf("sign-in as the account was disabled: %d", res.StatusCode)
	}
	if h.memberOf(late) != "" {
		t.Fatal("the session begun as the account was disabled goes on")
	}
}

func TestNextOnlyRedirectsOnSite(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	for next, want := range map[string]string{
		"/groups/7?tab=events": "/groups/7?tab=events",
		"https://evil.example": "/",
		"//evil.example":       "/",
		`/\evil.example`:       "/",
	} {
		c := h.client()
		res := c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {"anna@example.org"}, "next": {next}}))
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("request code: %d", res.StatusCode)
		}
		h.clock.Advance(2 * time.Minute)
		res = h.enterCode(c, h.lastCode("anna@example.org"))
		if got := res.Header.Get("Location"); got != want {
			t.Errorf("next %q: redirected to %q, want %q", next, got, want)
		}
	}
}

func TestSameVerifiedEmailReachesSameAccount(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	byCode := h.signIn(h.client(), "anna@example.org")
	verified := func(sub, email, isVerified string) string {
		c := h.client()
		res := c.PostForm("/test/verified", c.WithCSRF("/", url.Values{"method": {MethodOIDC}, "sub": {sub}, "email": {email}, "verified": {isVerified}}))
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("CompleteSignIn: %d %s", res.StatusCode, res.Body)
		}
		return h.memberOf(c)
	}
	if got := verified("tenant/123", "Anna@example.org", "true"); got != byCode {
		t.Errorf("OIDC with the verified email reached %q, want %q", got, byCode)
	}
	if got := verified("tenant/456", "anna@example.org", "false"); got != "auth:tenant~2F456" {
		t.Errorf("OIDC with an unverified email reached %q, want its own auth:{sub}", got)
	}
	first := verified("sub-789", "carol@example.org", "true")
	if first != "auth:sub-789" {
		t.Errorf("first OIDC sign-in: %q", first)
	}
	if got := h.signIn(h.client(), "carol@example.org"); got != first {
		t.Errorf("a code for an OIDC account's email reached %q, want %q", got, first)
	}
}

func TestGuestSignInAndUpgrade(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	upgrades := &upgradeLog{}
	h.svc.OnGuestUpgrade(upgrades)
	c := h.client()
	res := c.PostForm("/join", c.WithCSRF("/", url.Values{"name": {"  Visitor  "}}))
	guest := res.Body
	if res.StatusCode != http.StatusOK || !IsGuestKey(guest) || len(strings.TrimPrefix(guest, "guest:")) != 32 {
		t.Fatalf("join: %d %q", res.StatusCode, guest)
	}
	if got, _, _ := strings.Cut(c.Get("/whoami").Body, " sid="); got != guest+" guest=true admin=false name=Visitor email=" {
		t.Errorf("guest whoami %q", got)
	}
	if rows := h.sessionRows(guest); len(rows) != 1 || !rows[0].Guest {
		t.Errorf("guest session rows %+v", rows)
	}
	if res := c.Get("/account-only"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a guest passed RequireAccount: %d", res.StatusCode)
	}
	// Joining again keeps the same guest.
	if again := c.PostForm("/join", c.WithCSRF("/", url.Values{"name": {"Other"}})).Body; again != guest {
		t.Errorf("second join: %q, want %q", again, guest)
	}
	if h.client().PostForm("/join", url.Values{}).StatusCode != http.StatusForbidden {
		t.Error("guest sign-in without a CSRF token")
	}
	guestCookie := sessionCookie(t, c)

	member := h.signIn(c, "anna@example.org")
	if len(upgrades.got) != 1 || upgrades.got[0] != guest+" -> "+member {
		t.Errorf("upgrades %v", upgrades.got)
	}
	if len(h.sessionRows(guest)) != 0 {
		t.Error("the guest session row is still there")
	}
	if res := replay(t, c, guestCookie, "/whoami"); res.StatusCode == http.StatusOK {
		t.Error("the guest cookie still works after the upgrade")
	}
	if res := c.Get("/account-only"); res.StatusCode != http.StatusOK {
		t.Errorf("the upgraded account: %d", res.StatusCode)
	}
}

func TestSessionRowsSurviveUnreadableCookies(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	jarSet(t, c, &http.Cookie{Name: "harmony_session", Value: "forged-value"})
	if res := c.Get("/"); res.StatusCode != http.StatusOK {
		t.Errorf("a forged cookie: %d", res.StatusCode)
	}
	if h.memberOf(c) != "" {
		t.Error("a forged cookie signed in")
	}
}

// Each account that uses the site counts once a UTC day as active, on
// however many devices and pages; a guest does not count.
func TestActivePeopleCountOncePerDay(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	if err := h.store.Provision(context.Background(), []string{metrics.Table}, nil); err != nil {
		t.Fatal(err)
	}
	daily := metrics.NewDaily(h.store, h.clock.Now)
	h.svc.CountWith(daily)
	active := func() int64 {
		days, err := daily.Last(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		return days[0].Get(ActivePeople)
	}
	ann, annPhone, bob := h.client(), h.client(), h.client()
	h.signIn(ann, "ann@example.org")
	h.signIn(annPhone, "ann@example.org") // her second device
	h.signIn(bob, "bob@example.org")
	guest := h.client()
	if res := guest.PostForm("/join", guest.WithCSRF("/", url.Values{"name": {"Gus"}})); res.StatusCode != http.StatusOK {
		t.Fatalf("join as a guest: %d", res.StatusCode)
	}
	for range 3 {
		guest.Get("/whoami")
		ann.Get("/")
		h.clock.Advance(10 * time.Minute) // each past the last-seen interval
	}
	if n := active(); n != 2 {
		t.Fatalf("%d active people today, want 2 (ann and bob)", n)
	}
	// The next day, ann's first request (on either device) counts her.
	h.clock.Advance(24 * time.Hour)
	guest.Get("/whoami")
	ann.Get("/")
	annPhone.Get("/")
	ann.Get("/")
	if n := active(); n != 1 {
		t.Fatalf("%d active people the next day, want 1 (ann)", n)
	}
}

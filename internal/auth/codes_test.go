package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/web/webtest"
)

// wrongCodeFor is a well-formed code that is not right.
func wrongCodeFor(right string) string {
	if right == "000000" {
		return "111111"
	}
	return "000000"
}

func message(t *testing.T, res *webtest.Response) string {
	t.Helper()
	return strings.TrimSpace(res.Doc(t).Find(`[data-testid="signin-message"]`).Text())
}

// Five wrong guesses burn that code, and only that code: there is no
// lockout of the address, so a new code after the cooldown works.
func TestWrongCodesBurnOnlyThatCode(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.requestCode(c, "anna@example.org")
	right := h.lastCode("anna@example.org")
	for left := maxCodeAttempts - 1; left >= 1; left-- {
		res := h.enterCode(c, wrongCodeFor(right))
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(message(t, res), "isn't right") {
			t.Fatalf("wrong code with %d left: %d %q", left, res.StatusCode, message(t, res))
		}
	}
	res := h.enterCode(c, wrongCodeFor(right)) // the fifth
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(message(t, res), "Too many wrong codes") {
		t.Fatalf("fifth wrong code: %d %q", res.StatusCode, message(t, res))
	}
	res = h.enterCode(c, right)
	if res.StatusCode != http.StatusUnprocessableEntity || h.memberOf(c) != "" {
		t.Fatalf("the burnt code: %d, signed in %q", res.StatusCode, h.memberOf(c))
	}
	// Within the cooldown no new code goes out (and the answer does not
	// say so); after it, one does, and it works.
	if res := h.requestCode(c, "anna@example.org"); res.StatusCode != http.StatusSeeOther || h.mailCount("anna@example.org") != 1 {
		t.Errorf("a code within the cooldown: %d, %d mails", res.StatusCode, h.mailCount("anna@example.org"))
	}
	h.clock.Advance(codeCooldown)
	h.signIn(c, "anna@example.org")
	if h.memberOf(c) == "" {
		t.Error("a new code after the cooldown does not work")
	}
}

// An attacker who asks for a code to someone else's address and types
// wrong ones does not keep the owner out: the owner asks for a new code
// and signs in. Service level, then through HTTP from two clients.
// mailContext is a request's context as far as mail needs one: it
// carries English, which the code mails are written in.
func mailContext(t *testing.T) context.Context {
	t.Helper()
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	return i18n.WithLocalizer(t.Context(), cat.For(i18n.EN))
}

func TestAttackersWrongCodesDoNotStopTheOwner(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := mailContext(t)
	if err := h.svc.SendCode(ctx, "anna@example.org"); err != nil {
		t.Fatal(err)
	}
	first := h.lastCode("anna@example.org")
	for i := 0; i < 3*maxCodeAttempts; i++ {
		if err := h.svc.VerifyCode(ctx, "anna@example.org", wrongCodeFor(first)); err == nil {
			t.Fatal("a wrong code was accepted")
		}
	}
	h.clock.Advance(codeCooldown)
	if err := h.svc.SendCode(ctx, "anna@example.org"); err != nil {
		t.Fatal(err)
	}
	if err := h.svc.VerifyCode(ctx, "anna@example.org", h.lastCode("anna@example.org")); err != nil {
		t.Fatalf("the owner's fresh code after an attack: %v", err)
	}

	attacker, owner := h.client(), h.client()
	h.clock.Advance(codeCooldown)
	h.requestCode(attacker, "boris@example.org")
	right := h.lastCode("boris@example.org")
	for i := 0; i < maxCodeAttempts; i++ {
		h.enterCode(attacker, wrongCodeFor(right))
	}
	if h.memberOf(attacker) != "" {
		t.Fatal("the attacker signed in")
	}
	h.clock.Advance(codeCooldown)
	h.signIn(owner, "boris@example.org")
	if h.memberOf(owner) == "" {
		t.Fatal("the owner could not sign in after the attack")
	}
}

// Wrong codes are limited per client IP, across addresses: one machine
// cannot guess its way through many people's codes.
func TestWrongCodesAreLimitedPerIP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	wrong := 0
	for i := 0; wrong < wrongCodeBurst; i++ {
		email := fmt.Sprintf("p%d@example.org", i)
		h.requestCode(c, email)
		right := h.lastCode(email)
		for j := 0; j < maxCodeAttempts && wrong < wrongCodeBurst; j++ {
			if res := h.enterCode(c, wrongCodeFor(right)); res.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("wrong code %d: %d", wrong, res.StatusCode)
			}
			wrong++
		}
	}
	h.requestCode(c, "last@example.org")
	right := h.lastCode("last@example.org")
	if res := h.enterCode(c, right); res.StatusCode != http.StatusTooManyRequests || h.memberOf(c) != "" {
		t.Fatalf("past the wrong-code limit: %d", res.StatusCode)
	}
	// The limit refills.
	h.clock.Advance(wrongCodeEvery)
	if res := h.enterCode(c, right); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after a refill: %d", res.StatusCode)
	}
}

// Wrong codes sent at once count as they are checked: a burst of
// guesses from one client across many addresses gets no more checked
// than the limit allows (each takes its token before the check).
func TestWrongCodesAtOnceAreLimitedPerIP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	const n = wrongCodeBurst + 5
	forms := make([]url.Values, n)
	clients := make([]*webtest.Client, n)
	for i := range n {
		email := fmt.Sprintf("q%d@example.org", i)
		clients[i] = h.client()
		h.requestCode(clients[i], email)
		forms[i] = clients[i].WithCSRF("/signin/code", url.Values{"code": {wrongCodeFor(h.lastCode(email))}})
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = clients[i].PostForm("/signin/code/verify", forms[i]).StatusCode
		}()
	}
	wg.Wait()
	checked := 0
	for _, st := range statuses {
		switch st {
		case http.StatusUnprocessableEntity:
			checked++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("a guess answered %d", st)
		}
	}
	if checked != wrongCodeBurst {
		t.Fatalf("%d of %d guesses at once were checked, want the limit's %d", checked, n, wrongCodeBurst)
	}
}

func TestUsedCodeFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.signIn(c, "anna@example.org")
	used := h.lastCode("anna@example.org")
	// An attacker who saw the code, with the form still pending.
	thief := h.client()
	h.clock.Advance(2 * time.Minute)
	h.requestCode(thief, "anna@example.org") // mails a new code to Anna
	res := h.enterCode(thief, used)
	if res.StatusCode != http.StatusUnprocessableEntity || h.memberOf(thief) != "" {
		t.Errorf("a used code: %d", res.StatusCode)
	}
	// Without any newer code: the used one is simply invalid.
	h2 := newHarness(t, harnessOptions{})
	c2 := h2.client()
	h2.requestCode(c2, "boris@example.org")
	code := h2.lastCode("boris@example.org")
	other := h2.client()
	jarSet(t, other, sessionCookie(t, c2)) // the same pending form in a second tab
	if res := h2.enterCode(c2, code); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first use: %d", res.StatusCode)
	}
	res = h2.enterCode(other, code)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(message(t, res), "no longer valid") {
		t.Errorf("second use: %d %q", res.StatusCode, message(t, res))
	}
}

func TestExpiredCodeFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.requestCode(c, "anna@example.org")
	code := h.lastCode("anna@example.org")
	h.clock.Advance(codeTTL)
	res := h.enterCode(c, code)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(message(t, res), "expired") || h.memberOf(c) != "" {
		t.Errorf("expired code: %d %q", res.StatusCode, message(t, res))
	}
	if codeTTL > 10*time.Minute {
		t.Errorf("codes last %v; document 003 allows at most 10 minutes", codeTTL)
	}
}

// maskedToken is a CSRF token as a page writes it (csrf.Mask).
var maskedToken = regexp.MustCompile(`[A-Za-z0-9_-]{100,}`)

func TestCodeRequestNoEnumeration(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	known := "anna@example.org"
	h.signIn(h.client(), known)
	h.clock.Advance(2 * time.Minute)
	unknown := "nobody@example.org"

	c := h.client()
	c.Get("/signin")
	answer := func(email string) (post *webtest.Response, page string) {
		post = h.requestCode(c, email)
		page = strings.ReplaceAll(c.Get("/signin/code").Body, email, "EMAIL")
		// Each page writes a fresh mask of the CSRF token.
		return post, maskedToken.ReplaceAllString(page, "TOKEN")
	}
	knownPost, knownPage := answer(known)
	unknownPost, unknownPage := answer(unknown)
	if knownPost.StatusCode != unknownPost.StatusCode || knownPost.Header.Get("Location") != unknownPost.Header.Get("Location") ||
		knownPost.Body != unknownPost.Body || len(knownPost.Cookies()) != len(unknownPost.Cookies()) {
		t.Errorf("known: %d %q %q; unknown: %d %q %q", knownPost.StatusCode, knownPost.Header.Get("Location"), knownPost.Body,
			unknownPost.StatusCode, unknownPost.Header.Get("Location"), unknownPost.Body)
	}
	if knownPage != unknownPage {
		t.Error("the code page differs between a known and an unknown email")
	}
	if h.mailCount(known) != 2 || h.mailCount(unknown) != 1 {
		t.Errorf("mails: known %d, unknown %d", h.mailCount(known), h.mailCount(unknown))
	}
}

func TestCodeCooldown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.requestCode(c, "anna@example.org")
	first := h.lastCode("anna@example.org")
	h.clock.Advance(codeCooldown - time.Second)
	if res := h.requestCode(c, "anna@example.org"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("second request: %d", res.StatusCode)
	}
	if n := h.mailCount("anna@example.org"); n != 1 {
		t.Fatalf("%d mails within the cooldown", n)
	}
	h.clock.Advance(time.Second)
	h.requestCode(c, "anna@example.org")
	second := h.lastCode("anna@example.org")
	if h.mailCount("anna@example.org") != 2 {
		t.Fatal("no new code after the cooldown")
	}
	if first != second {
		if res := h.enterCode(c, first); res.StatusCode == http.StatusSeeOther {
			t.Error("the replaced code still works")
		}
	}
	if res := h.enterCode(c, second); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the new code: %d", res.StatusCode)
	}
}

func TestRateLimitUsesRealClientIP(t *testing.T) {
	t.Parallel()
	send := func(h *harness, c *webtest.Client, i int, forwardedFor string) int {
		email := "user" + strings.Repeat("x", i) + "@example.org"
		return h.requestCode(c, email, "X-Forwarded-For", forwardedFor).StatusCode
	}
	t.Run("untrusted peer", func(t *testing.T) {
		h := newHarness(t, harnessOptions{})
		h.svc.sendLimit = ratelimit.New(3, time.Hour)
		c := h.client()
		for i := 0; i < 3; i++ {
			if got := send(h, c, i, "198.51.100."+string(rune('1'+i))); got != http.StatusSeeOther {
				t.Fatalf("send %d: %d", i, got)
			}
		}
		// A forged X-Forwarded-For from a peer that is no trusted proxy
		// does not buy a fresh bucket.
		if got := send(h, c, 4, "203.0.113.99"); got != http.StatusTooManyRequests {
			t.Errorf("spoofed X-Forwarded-For: %d, want 429", got)
		}
		res := h.requestCode(c, "last@example.org")
		if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "Too many attempts") {
			t.Errorf("limited: %d", res.StatusCode)
		}
		if h.mailCount("last@example.org") != 0 {
			t.Error("a limited request sent mail")
		}
	})
	t.Run("trusted proxy", func(t *testing.T) {
		h := newHarness(t, harnessOptions{env: map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32"}})
		h.svc.sendLimit = ratelimit.New(3, time.Hour)
		c := h.client()
		for i := 0; i < 3; i++ {
			if got := send(h, c, i, "198.51.100.7"); got != http.StatusSeeOther {
				t.Fatalf("send %d: %d", i, got)
			}
		}
		if got := send(h, c, 4, "198.51.100.7"); got != http.StatusTooManyRequests {
			t.Errorf("the same client behind the proxy: %d, want 429", got)
		}
		if got := send(h, c, 5, "198.51.100.8"); got != http.StatusSeeOther {
			t.Errorf("another client behind the proxy: %d, want its own bucket", got)
		}
	})
	t.Run("verify", func(t *testing.T) {
		h := newHarness(t, harnessOptions{})
		h.svc.verifyLimit = ratelimit.New(2, time.Hour)
		c := h.client()
		h.requestCode(c, "anna@example.org")
		code := h.lastCode("anna@example.org")
		h.enterCode(c, wrongCodeFor(code))
		h.enterCode(c, wrongCodeFor(code))
		req := c.WithCSRF("/signin/code", url.Values{"code": {code}})
		if res := c.PostForm("/signin/code/verify", req, "X-Forwarded-For", "203.0.113.5"); res.StatusCode != http.StatusTooManyRequests {
			t.Errorf("verify past the limit: %d", res.StatusCode)
		}
	})
}

// TestConfirmEmailRefusesATakenAddress: the code sent to an address that
// belongs to another account proves the mailbox, and then the link is
// refused (ErrEmailTaken); the address stays its account's.
func TestConfirmEmailRefusesATakenAddress(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	bob := h.signIn(h.client(), "bob@example.com")
	h.clock.Advance(2 * codeCooldown)
	ctx := mailContext(t)
	if err := h.svc.SendCode(ctx, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	err := h.svc.ConfirmEmail(ctx, AuthMemberKey("eve"), "bob@example.com", h.lastCode("bob@example.com"))
	if !errors.Is(err, ErrEmailTaken) {
		t.Fatalf("confirming Bob's address for Eve: %v", err)
	}
	if owner, err := h.svc.MemberByEmail(ctx, "bob@example.com"); err != nil || owner != bob {
		t.Fatalf("the address now belongs to %q (%v), want Bob's %q", owner, err, bob)
	}
}

func TestBadEmailIsRefusedWithFieldError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	res := h.requestCode(c, "not an email")
	doc := res.Doc(t)
	if res.StatusCode != http.StatusUnprocessableEntity || doc.Find(`[data-testid="field-error"]`).Length() != 1 {
		t.Errorf("bad email: %d", res.StatusCode)
	}
	if v, _ := doc.Find(`input[name="email"]`).Attr("value"); v != "not an email" {
		t.Errorf("the input is not re-shown: %q", v)
	}
	if len(h.mailbox.Recent()) != 0 {
		t.Error("mail sent for a bad address")
	}
	if res := c.Get("/signin/code"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signin" {
		t.Errorf("code page without a pending email: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
}

func TestCodesAreStoredOnlyAsHashes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.requestCode(h.client(), "anna@example.org")
	code := h.lastCode("anna@example.org")
	row, err := h.svc.getCode(context.Background(), UserKey("anna@example.org"))
	if err != nil {
		t.Fatal(err)
	}
	if len(row.CodeHash) != 32 || bytes.Contains(row.CodeHash, []byte(code)) || strings.Contains(string(row.CodeHash), code) {
		t.Errorf("stored %x for code %s", row.CodeHash, code)
	}
	if !row.ExpiresAt.Equal(startTime.Add(codeTTL)) {
		t.Errorf("expires %v", row.ExpiresAt)
	}
	// The hash is bound to the address.
	if h.svc.codeMatches(UserKey("boris@example.org"), code, row.CodeHash) {
		t.Error("the hash verifies for another address")
	}
}

func TestCodeEmailIsInTheUsersLanguage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	h.requestCode(c, "anna@example.org", "Accept-Language", "ru-RU,ru;q=0.9")
	m := h.mailbox.Recent()[0]
	code := h.lastCode("anna@example.org")
	if m.Subject != "Код для входа в Harmony: "+code || !strings.Contains(m.Text, "Он действует 10 минут") || !strings.Contains(m.HTML, `lang="ru"`) {
		t.Errorf("Russian mail: %q\n%s", m.Subject, m.Text)
	}
}

func TestEmailSignInUnavailableWithoutMail(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{noMail: true, env: map[string]string{"ENV": "production", "BASE_URL": "https://harmony.example", "CURSOR_KEY": testCursorKey}})
	c := h.client()
	doc := c.Get("/signin").Doc(t)
	if doc.Find(`[data-testid="signin-email-form"]`).Length() != 0 || doc.Find(`[data-testid="signin-email-unavailable"]`).Length() != 1 {
		t.Error("the sign-in page offers email codes without a mail server")
	}
	res := c.PostForm("/signin/code", c.WithCSRF("/signin", url.Values{"email": {"anna@example.org"}}))
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("POST /signin/code without mail: %d", res.StatusCode)
	}
}

func TestDevMailboxAbsentInProduction(t *testing.T) {
	t.Parallel()
	dev := newHarness(t, harnessOptions{})
	c := dev.client()
	dev.requestCode(c, "anna@example.org")
	doc := c.Get("/dev/mailbox").Doc(t)
	if got := doc.Find(`[data-testid="mailbox-item"] [data-testid="mailbox-code"]`).Text(); got != dev.lastCode("anna@example.org") {
		t.Errorf("development mailbox shows code %q", got)
	}
	// Production, even with a development mailbox handed in by mistake.
	prod := newHarness(t, harnessOptions{env: map[string]string{"ENV": "production", "BASE_URL": "https://harmony.example"}})
	if res := prod.client().Get("/dev/mailbox"); res.StatusCode != http.StatusNotFound {
		t.Errorf("GET /dev/mailbox in production: %d", res.StatusCode)
	}
	for _, r := range prod.echo.Routes() {
		if strings.HasPrefix(r.Path, "/dev") {
			t.Errorf("production registers %s %s", r.Method, r.Path)
		}
	}
}

func TestSignInPagesRender(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	c := h.client()
	doc := c.Get("/signin?next=/groups").Doc(t)
	form := doc.Find(`form[data-testid="signin-email-form"]`)
	if form.Find(`input[name="email"]`).Length() != 1 || form.Find(`[data-testid="signin-send"]`).Length() != 1 {
		t.Error("the sign-in page lacks the email form")
	}
	if next, _ := form.Find(`input[name="next"]`).Attr("value"); next != "/groups" {
		t.Errorf("next %q", next)
	}
	if doc.Find(`[data-testid="signin-oidc"]`).Length() != 0 {
		t.Error("an OIDC button without OIDC_ISSUER")
	}
	h.requestCode(c, "anna@example.org")
	page := c.Get("/signin/code").Doc(t)
	for _, id := range []string{"signin-code", "signin-verify", "signin-message"} {
		if page.Find(`[data-testid="`+id+`"]`).Length() != 1 {
			t.Errorf("the code page lacks %s", id)
		}
	}
	if name, _ := page.Find(`[data-testid="signin-code"]`).Attr("name"); name != "code" {
		t.Errorf("code input name %q", name)
	}
	// Signed in, /signin moves on.
	h.enterCode(c, h.lastCode("anna@example.org"))
	if res := c.Get("/signin?next=/groups"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups" {
		t.Errorf("signed in GET /signin: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	ru := h.client().Get("/signin", "Accept-Language", "ru")
	if !strings.Contains(ru.Body, "Вход в Harmony") {
		t.Error("the sign-in page is not translated")
	}
}

// Nobody can have a person mailed a code a minute all day: after three
// sends in a row the cooldown doubles up to maxCooldown, so a day of
// asking as fast as the cooldowns allow mails about 150 codes, not 1,440.
// The owner still gets a new code within maxCooldown, and an hour of quiet
// or a sign-in starts again at one minute.
func TestRepeatedCodesWaitLonger(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	ctx := mailContext(t)
	const who = "anna@example.org"
	// send asks for a code and says whether one went out (the mailbox
	// keeps only the newest mails, so it compares the newest).
	newest := func() mail.Delivered {
		if recent := h.mailbox.Recent(); len(recent) > 0 {
			return recent[0]
		}
		return mail.Delivered{}
	}
	send := func() int {
		t.Helper()
		before := newest()
		if err := h.svc.SendCode(ctx, who); err != nil {
			t.Fatal(err)
		}
		if newest() == before {
			return 0
		}
		return 1
	}
	// waitFor asks every 30 seconds until a code goes out, and says how
	// long that took.
	waitFor := func() time.Duration {
		t.Helper()
		var waited time.Duration
		for send() == 0 {
			if waited > maxCooldown {
				t.Fatalf("no code after %v", waited)
			}
			h.clock.Advance(30 * time.Second)
			waited += 30 * time.Second
		}
		return waited
	}
	if send() != 1 {
		t.Fatal("the first code did not go out")
	}
	var waits []time.Duration
	for range 7 {
		waits = append(waits, waitFor())
	}
	want := []time.Duration{time.Minute, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 10 * time.Minute, 10 * time.Minute}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Fatalf("waits between codes: %v, want %v", waits, want)
	}
	// A whole day of asking every 30 seconds.
	sent := 8
	for elapsed := time.Duration(0); elapsed < 24*time.Hour; elapsed += 30 * time.Second {
		h.clock.Advance(30 * time.Second)
		sent += send()
	}
	t.Logf("%d codes mailed in a day of asking every 30 seconds", sent)
	if sent > 160 {
		t.Errorf("%d codes mailed to one address in about a day", sent)
	}
	// The newest code works, and signing in with it starts a new run.
	if err := h.svc.VerifyCode(ctx, who, h.lastCode(who)); err != nil {
		t.Fatalf("the newest code: %v", err)
	}
	if send() != 1 || waitFor() != time.Minute {
		t.Error("after a sign-in the cooldown is not back to a minute")
	}
	// So does an hour without a send.
	for range 5 {
		waitFor()
	}
	h.clock.Advance(runGap)
	if send() != 1 || waitFor() != time.Minute {
		t.Error("after an hour of quiet the cooldown is not back to a minute")
	}
}

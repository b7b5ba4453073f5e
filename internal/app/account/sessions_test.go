package account_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestSessionsPageRevokeAndSignOutEverywhere(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	laptop, phone, tablet := a.Client(), a.Client(), a.Client()
	const email = "devices@example.com"
	key := a.SignIn(laptop, email)
	a.SignIn(phone, email)
	a.SignIn(tablet, email)

	doc := laptop.Get("/account/sessions").Doc(t)
	rows := doc.Find(testID("session-row"))
	if rows.Length() != 3 {
		t.Fatalf("%d sessions listed, want 3", rows.Length())
	}
	if cur := doc.Find(testID("session-row") + `[data-current="true"]`); cur.Length() != 1 || rows.First().AttrOr("data-current", "") != "true" {
		t.Fatal("the current session is not marked first")
	}
	// End another device's session from the laptop.
	other := doc.Find(testID("session-row") + `[data-current="false"] form`).First()
	action, _ := other.Attr("action")
	res := laptop.PostForm(action, laptop.WithCSRF("/account/sessions", url.Values{}))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/sessions" {
		t.Fatalf("revoke: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	stillIn := 0
	for _, c := range []string{a.Who(phone), a.Who(tablet)} {
		if c == key {
			stillIn++
		}
	}
	if stillIn != 1 {
		t.Errorf("%d of the other two devices still signed in, want 1", stillIn)
	}
	if a.Who(laptop) != key {
		t.Fatal("revoking another device signed this one out")
	}
	if n := laptop.Get("/account/sessions").Doc(t).Find(testID("session-row")).Length(); n != 2 {
		t.Errorf("%d sessions after revoking one, want 2", n)
	}

	// Sign out everywhere, this device included.
	res = laptop.PostForm("/account/sessions/revoke-all", laptop.WithCSRF("/account/sessions", url.Values{}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke all: %d", res.StatusCode)
	}
	for name, c := range map[string]string{"laptop": a.Who(laptop), "phone": a.Who(phone), "tablet": a.Who(tablet)} {
		if c != "" {
			t.Errorf("%s still signed in", name)
		}
	}
}

func TestRevokingTheCurrentSessionSignsOut(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	a.SignIn(c, "self@example.com")
	doc := c.Get("/account/sessions").Doc(t)
	action, _ := doc.Find(testID("session-row") + `[data-current="true"] form`).Attr("action")
	if !strings.HasSuffix(action, "/revoke") {
		t.Fatalf("form action %q", action)
	}
	res := c.PostForm(action, c.WithCSRF("/account/sessions", url.Values{}))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Errorf("revoke current: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if a.Who(c) != "" {
		t.Error("still signed in")
	}
}

// One member cannot end another member's session by its id.
func TestRevokeIsScopedToTheMember(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	victim, attacker := a.Client(), a.Client()
	victimKey := a.SignIn(victim, "victim@example.com")
	a.SignIn(attacker, "attacker@example.com")
	action, _ := victim.Get("/account/sessions").Doc(t).Find(testID("session-row") + " form").Attr("action")
	attacker.PostForm(action, attacker.WithCSRF("/account/sessions", url.Values{}))
	if a.Who(victim) != victimKey {
		t.Error("another member ended the victim's session")
	}
}

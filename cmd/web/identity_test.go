package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/auth/oidctest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// An account whose provider sends no verified email (every Entra ID
// account, or email_verified false) has no email to key its groups by. It
// once listed every group on the site and created groups that answered
// 404. Now it gets a key derived from its memberKey, sees only its own
// groups, and reaches invitations to an address once it verifies it in
// account settings.
func TestAccountWithoutVerifiedEmailUsesGroupsFully(t *testing.T) {
	t.Parallel()
	idp := oidctest.New(t, "harmony-test", "harmony-test-secret")
	var handler http.Handler
	eve := webtest.NewClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	srv := newTestApp(t, map[string]string{
		"BASE_URL":           eve.URL,
		"OIDC_ISSUER":        idp.URL,
		"OIDC_CLIENT_ID":     "harmony-test",
		"OIDC_CLIENT_SECRET": "harmony-test-secret",
	})
	handler = srv.Handler()
	bob := webtest.NewClient(t, handler)

	signIn(t, bob, "bob@example.com")
	bobsSecret := createGroupAs(t, bob, "Bob's secret")
	bobsClub := createGroupAs(t, bob, "Bob's club")

	// An unverified address counts as none; the subject has every odd
	// character a provider may send.
	idp.SetLogin(oidctest.Login{Subject: "tenant/eve+1=%#?\\|", Email: "eve@example.com", EmailVerified: false, Name: "Eve"})
	start := eve.Get("/auth/oidc/start?next=/groups")
	authz := eve.Get(start.Header.Get("Location"))
	if cb := eve.Get(authz.Header.Get("Location")); cb.StatusCode != http.StatusSeeOther {
		t.Fatalf("OIDC callback: %d %.300s", cb.StatusCode, cb.Body)
	}

	for _, path := range []string{"/", "/groups"} {
		if got := groupsListed(t, eve, path); len(got) != 0 {
			t.Fatalf("%s lists groups that are not Eve's: %v", path, got)
		}
	}
	if got := apiGroups(t, eve); len(got) != 0 {
		t.Fatalf("/api/me/groups lists groups that are not Eve's: %v", got)
	}

	family := createGroupAs(t, eve, "Eve's family")
	if res := eve.Get("/groups/" + family); res.StatusCode != http.StatusOK {
		t.Fatalf("Eve's new group answers %d", res.StatusCode)
	}
	if res := eve.Get("/groups/" + bobsSecret); res.StatusCode == http.StatusOK {
		t.Fatal("Eve opens Bob's group")
	}
	if res := eve.PostForm("/groups/"+family+"/invites", eve.WithCSRF("/groups/"+family, url.Values{"email": {"carol@example.com"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Eve invites: %d %.300s", res.StatusCode, res.Body)
	}
	if got := groupsListed(t, eve, "/groups"); !slices.Equal(got, []string{family}) {
		t.Fatalf("Eve's groups = %v, want only %s", got, family)
	}
	if got := apiGroups(t, eve); !slices.Equal(got, []string{family}) {
		t.Fatalf("/api/me/groups = %v, want only %s", got, family)
	}

	// Bob invites Eve's address; it reaches her once she verifies it.
	if res := bob.PostForm("/groups/"+bobsClub+"/invites", bob.WithCSRF("/groups/"+bobsClub, url.Values{"email": {"eve@example.com"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob invites Eve: %d", res.StatusCode)
	}
	if got := groupsListed(t, eve, "/groups"); slices.Contains(got, bobsClub) {
		t.Fatal("the invitation reached an unverified address")
	}
	settings := eve.Get("/account/settings").Doc(t)
	if settings.Find(`[data-testid="settings-email-add"]`).Length() != 1 {
		t.Fatal("settings offer no way to add an email address")
	}
	for _, bad := range []string{"", "not an address", "eve\u202e@example.com"} {
		res := eve.PostForm("/account/email", eve.WithCSRF("/account/email", url.Values{"email": {bad}}))
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`[data-testid="field-error"]`).Length() != 1 {
			t.Fatalf("address %q: %d, want 422 with a field error", bad, res.StatusCode)
		}
	}
	if res := eve.PostForm("/account/email/code", eve.WithCSRF("/account/email", url.Values{"code": {"123456"}})); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/email" {
		t.Fatalf("a code with no address pending: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// Bob's address gets the same answer as any other: whether it has an
	// account is for its mailbox to learn.
	if res := eve.PostForm("/account/email", eve.WithCSRF("/account/email", url.Values{"email": {"bob@example.com"}})); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/email/code" {
		t.Fatalf("claiming Bob's address: %d %q, want the code form", res.StatusCode, res.Header.Get("Location"))
	}
	if res := eve.PostForm("/account/email", eve.WithCSRF("/account/email", url.Values{"email": {"eve@example.com"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send link code: %d %.300s", res.StatusCode, res.Body)
	}
	// The mail goes through the task queue: wait for the one to Eve.
	code := ""
	for deadline := time.Now().Add(5 * time.Second); code == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		eve.Get("/dev/mailbox").Doc(t).Find(`[data-testid="mailbox-item"]`).EachWithBreak(func(_ int, item *goquery.Selection) bool {
			if item.Find(`[data-testid="mailbox-to"]`).Text() == "eve@example.com" {
				code = item.Find(`[data-testid="mailbox-code"]`).Text()
				return false
			}
			return true
		})
	}
	if res := eve.PostForm("/account/email/code", eve.WithCSRF("/account/email/code", url.Values{"code": {"000000"}})); res.StatusCode != http.StatusUnprocessableEntity || code == "000000" {
		t.Fatalf("a wrong code: %d", res.StatusCode)
	}
	if res := eve.PostForm("/account/email/code", eve.WithCSRF("/account/email/code", url.Values{"code": {code}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("verify link code %q: %d %.300s", code, res.StatusCode, res.Body)
	}
	if got := eve.Get("/account/email").Doc(t).Find(`[data-testid="add-email-current"]`).Text(); !strings.Contains(got, "eve@example.com") {
		t.Fatalf("the address page says %q", got)
	}
	got := groupsListed(t, eve, "/groups")
	slices.Sort(got)
	want := []string{family, bobsClub}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("after verifying, Eve's groups = %v, want %v", got, want)
	}
	if res := eve.Get("/groups/" + family); res.StatusCode != http.StatusOK {
		t.Fatalf("Eve's group after verifying answers %d", res.StatusCode)
	}
	if res := eve.PostForm("/groups/"+bobsClub+"/invite/accept", eve.WithCSRF("/groups/"+bobsClub+"/invite", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept Bob's invitation: %d", res.StatusCode)
	}
	if res := eve.Get("/groups/" + bobsClub); res.StatusCode != http.StatusOK {
		t.Fatalf("Bob's club after accepting answers %d", res.StatusCode)
	}
}

var groupLocation = regexp.MustCompile(`^/groups/([0-9A-Z]{26})/settings$`)

// createGroupAs creates a group through the form and returns its id.
func createGroupAs(t *testing.T, c *webtest.Client, name string) string {
	t.Helper()
	res := c.PostForm("/groups", c.WithCSRF("/groups/new", url.Values{"name": {name}}))
	m := groupLocation.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create %q: %d %q %.300s", name, res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	return m[1]
}

// groupsListed is the group ids a page lists as the person's groups.
func groupsListed(t *testing.T, c *webtest.Client, path string) []string {
	t.Helper()
	res := c.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", path, res.StatusCode)
	}
	ids := []string{}
	res.Doc(t).Find(`[data-testid="group-card"]`).Each(func(_ int, s *goquery.Selection) {
		ids = append(ids, s.AttrOr("data-group", ""))
	})
	return ids
}

// apiGroups is the group ids /api/me/groups answers.
func apiGroups(t *testing.T, c *webtest.Client) []string {
	t.Helper()
	res := c.Get("/api/me/groups")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/api/me/groups: %d", res.StatusCode)
	}
	var body struct {
		Groups []struct {
			ID string `json:"groupId"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
		t.Fatalf("/api/me/groups: %v: %s", err, res.Body)
	}
	ids := []string{}
	for _, g := range body.Groups {
		ids = append(ids, g.ID)
	}
	return ids
}

// An OIDC subject may be any printable ASCII up to 255 characters. Each
// such subject signs in, creates a group and a prompt, and every key the
// app wrote is a valid key: under 1 KiB, and without '%', which the real
// Table service decodes twice.
func TestOddOIDCSubjectsSignInAndWriteValidKeys(t *testing.T) {
	t.Parallel()
	var printable []byte
	for c := byte(' '); c <= '~'; c++ {
		printable = append(printable, c)
	}
	for name, subject := range map[string]string{
		"255 slashes":       strings.Repeat("/", 255),
		"mixed":             "a/b+c=d%e#f?g\\h|i%2F~7E Ünïcödé Москва",
		"printable ASCII":   string(printable),
		"255 percent signs": strings.Repeat("%", 255),
	} {
		t.Run(name, func(t *testing.T) {
			idp := oidctest.New(t, "harmony-test", "harmony-test-secret")
			var handler http.Handler
			c := webtest.NewClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
			a, store := newTestAppOnStore(t, map[string]string{
				"BASE_URL":           c.URL,
				"OIDC_ISSUER":        idp.URL,
				"OIDC_CLIENT_ID":     "harmony-test",
				"OIDC_CLIENT_SECRET": "harmony-test-secret",
			})
			handler = a.Handler()
			idp.SetLogin(oidctest.Login{Subject: subject, Email: "odd@example.com", EmailVerified: true, Name: "Odd"})
			start := c.Get("/auth/oidc/start?next=/")
			authz := c.Get(start.Header.Get("Location"))
			if cb := c.Get(authz.Header.Get("Location")); cb.StatusCode != http.StatusSeeOther {
				t.Fatalf("OIDC callback: %d %.300s", cb.StatusCode, cb.Body)
			}
			group := createGroupAs(t, c, "Odd family")
			if res := c.Get("/groups/" + group); res.StatusCode != http.StatusOK {
				t.Fatalf("the group answers %d", res.StatusCode)
			}
			res := c.PostForm("/prompts", c.WithCSRF("/prompts/new", url.Values{
				"title": {"An odd prompt"}, "text": {"Summarise {{text}} in one line."}, "visibility": {"public"}, "tag": {"writing"},
			}))
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("create prompt: %d %.500s", res.StatusCode, res.Body)
			}
			if res := c.Get(res.Header.Get("Location")); res.StatusCode != http.StatusOK {
				t.Fatalf("the prompt answers %d", res.StatusCode)
			}
			if res := c.Get("/prompts/mine"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "An odd prompt") {
				t.Fatalf("My prompts: %d", res.StatusCode)
			}
			rows := 0
			for _, table := range a.Tables {
				err := store.Table(table).QueryAll(t.Context(), storage.Query{Scan: true}, func(e storage.Entity) error {
					rows++
					for _, k := range []string{e.PartitionKey, e.RowKey} {
						if err := storage.ValidateKey(k); err != nil {
							t.Errorf("%s row (%q, %q): %v", table, e.PartitionKey, e.RowKey, err)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			if rows == 0 {
				t.Fatal("no rows read")
			}
		})
	}
}

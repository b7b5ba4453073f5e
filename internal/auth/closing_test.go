package auth_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/auth/oidctest"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/tasks"
)

// An account its owner asked to delete is closed: the provider's
// sign-in is refused with that reason, and none starts.
func TestOIDCRefusesAnAccountBeingDeleted(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	a.idp.SetLogin(oidctest.Login{Subject: "zoe-1", Email: "zoe@example.org", EmailVerified: true, Name: "Zoe"})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first sign-in: %d", res.StatusCode)
	}
	ctx := context.Background()
	q := tasks.New(a.store, slog.New(slog.NewTextHandler(io.Discard, nil)), tasks.Options{})
	if err := a.store.Provision(ctx, q.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.accounts.UseMemberData(account.MemberData{Tasks: q, Auth: a.auth}); err != nil {
		t.Fatal(err)
	}
	if err := a.accounts.CloseAccount(ctx, auth.AuthMemberKey("zoe-1"), "zoe@example.org", mail.Message{}); err != nil {
		t.Fatal(err)
	}
	if a.whoami() != "" {
		t.Error("the closed account's session still signs the browser in")
	}
	a.newBrowser()
	res := a.signIn("/")
	if res.StatusCode != http.StatusForbidden || a.whoami() != "" || !strings.Contains(res.Body, "being deleted") {
		t.Errorf("a sign-in to the closed account: %d, signed in as %q; body %.400s", res.StatusCode, a.whoami(), res.Body)
	}
	a.assertLogged("is being deleted")
}

// Forgetting a member erases auth's rows of them: their sessions, codes
// and the links of their email and of an OIDC subject that reached the
// account by it, so both reach a new account afterwards. A second run
// finds nothing to do.
func TestForgetMemberErasesSignInRows(t *testing.T) {
	t.Parallel()
	a := newOIDCApp(t)
	key := a.signInWithCode("kim@example.org")
	a.newBrowser()
	a.idp.SetLogin(oidctest.Login{Subject: "kim-oidc", Email: "kim@example.org", EmailVerified: true, Name: "Kim"})
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther || a.whoami() != key {
		t.Fatalf("the subject did not reach the email's account: %d %q", res.StatusCode, a.whoami())
	}
	m := memberdatatest.Member(key, "kim@example.org")
	tables := []string{"Sessions", "AccountsByEmail", "OtpCodes"}
	if len(memberdatatest.Traces(t, a.store, m, tables...)) < 3 {
		t.Fatal("the member has too few rows to forget")
	}
	for range 2 {
		if err := a.auth.ForgetMember(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		if left := memberdatatest.Traces(t, a.store, m, tables...); len(left) > 0 {
			t.Errorf("rows left: %v", left)
		}
	}
	if a.whoami() != "" {
		t.Error("a session of the forgotten member still works")
	}
	a.newBrowser()
	if res := a.signIn("/"); res.StatusCode != http.StatusSeeOther || a.whoami() == key || a.whoami() == "" {
		t.Errorf("the subject after the forget: %d, signed in as %q", res.StatusCode, a.whoami())
	}
}

package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/labstack/echo/v4"
)

func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	good := map[string]string{
		"  Anna@Example.COM ":     "anna@example.com",
		"a.b+tag@sub.example.org": "a.b+tag@sub.example.org",
		// Unicode lower-casing would make these "x@ibm.com" and
		// "kate@example.com": other people's addresses.
		"x@\u0130bm.com":        "x@\u0130bm.com",
		"\u212Aate@example.com": "\u212Aate@example.com",
	}
	for in, want := range good {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "anna", "anna@", "Anna <anna@example.com>", "a@b", "a@b.c, d@e.f", "a b@c.d", "ann\u202e@example.com", "ann@exam\u2066ple.com", "ann\u0085@example.com"} {
		if _, err := NormalizeEmail(bad); !errors.Is(err, ErrBadEmail) {
			t.Errorf("NormalizeEmail(%q) accepted", bad)
		}
	}
}

func TestIdentityKeys(t *testing.T) {
	t.Parallel()
	// printf anna@example.com | sha256sum
	if got := UserKey("anna@example.com"); got != "f7d54c22dda5b1780276601cd005909b70543fc4a6ba72d735b4cb9bbb611f01" {
		t.Errorf("UserKey = %q", got)
	}
	k := AuthMemberKey("tenant/user+1")
	if err := storage.ValidateKey(k); err != nil || k != "auth:tenant~2Fuser+1" {
		t.Errorf("AuthMemberKey = %q (%v)", k, err)
	}
	if !IsGuestKey(GuestMemberKey("abc")) || IsGuestKey(k) {
		t.Error("IsGuestKey")
	}
}

// Any printable ASCII subject up to 255 characters gives a memberKey that is
// a valid key, short enough to sit inside composite keys, distinct from every
// other subject's, and recognised by IsAuthMemberKey.
func TestAuthMemberKeyForOddSubjects(t *testing.T) {
	t.Parallel()
	var all []byte
	for c := byte(' '); c <= '~'; c++ {
		all = append(all, c)
	}
	subjects := []string{
		strings.Repeat("/", 255),
		strings.Repeat("/", 254),
		"/+=%#?\\|",
		"a/b+c=d%e#f?g\\h|i Ünïcödé Москва 😀",
		string(all),
		"~h" + strings.Repeat("0", 64),
		"~7E",
		"plain-sub_123",
		strings.Repeat("x", 255),
		"with space",
		"%2F",
		"a%2Fb",
	}
	seen := map[string]string{}
	for _, sub := range subjects {
		k := AuthMemberKey(sub)
		if err := storage.ValidateKey(k); err != nil || strings.Contains(k, "%") || strings.Contains(k, "|") {
			t.Errorf("AuthMemberKey(%q) = %q: %v", sub, k, err)
		}
		if len(k) > 80 {
			t.Errorf("AuthMemberKey(%q) is %d characters", sub, len(k))
		}
		if !IsAuthMemberKey(k) {
			t.Errorf("IsAuthMemberKey(%q) = false", k)
		}
		if other, ok := seen[k]; ok {
			t.Errorf("subjects %q and %q share memberKey %q", sub, other, k)
		}
		seen[k] = sub
	}
	for _, bad := range []string{"", "auth:", "guest:x", "auth:a/b", "auth:a%2Fb", "auth:~h00", "auth:~zz", "auth:a b", "auth:~hABCDEF" + strings.Repeat("0", 58)} {
		if IsAuthMemberKey(bad) {
			t.Errorf("IsAuthMemberKey(%q) = true", bad)
		}
	}
}

// An email account's memberKey is "auth:" and a ULID, and people's pages
// show it; no OIDC subject maps to that form, however it is spelled.
func TestNoSubjectGivesAnEmailAccountsKey(t *testing.T) {
	t.Parallel()
	minted := codeMemberKey()
	if !IsAuthMemberKey(minted) {
		t.Fatalf("IsAuthMemberKey(%q) = false", minted)
	}
	ulidPart := strings.TrimPrefix(minted, authPrefix)
	for _, sub := range []string{ulidPart, "01ARZ3NDEKTSV4RRFFQ69G5FAV", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01arz3ndektsv4rrffq69g5fav"} {
		k := AuthMemberKey(sub)
		if k == authPrefix+sub || !strings.HasPrefix(k, authPrefix+hashedSubject) || !IsAuthMemberKey(k) {
			t.Errorf("AuthMemberKey(%q) = %q, want the hashed form", sub, k)
		}
	}
	// Near misses, which no code account can have, keep the readable form.
	for _, sub := range []string{"ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAV0", "01ARZ3NDEKTSV4RRFFQ69G5FA-"} {
		if k := AuthMemberKey(sub); k != authPrefix+storage.EscapeKey(sub) {
			t.Errorf("AuthMemberKey(%q) = %q, want the readable form", sub, k)
		}
	}
}

// Account is the identity only for an account: a visitor and a guest
// (who came by a join link) have none.
func TestAccountIsNoGuestOrVisitor(t *testing.T) {
	t.Parallel()
	e := echo.New()
	for _, tc := range []struct {
		name string
		id   *Identity
		want bool
	}{
		{"visitor", nil, false},
		{"guest", &Identity{MemberKey: "guest|g1", Guest: true}, false},
		{"account", &Identity{MemberKey: "auth|a1"}, true},
	} {
		c := e.NewContext(httptest.NewRequest(http.MethodGet, "/", nil), httptest.NewRecorder())
		if tc.id != nil {
			setIdentity(c, tc.id)
		}
		if got := tc.id.HasAccount(); got != tc.want {
			t.Errorf("%s: HasAccount() = %v, want %v", tc.name, got, tc.want)
		}
		if got := Account(c); (got != nil) != tc.want || (got != nil && got != tc.id) {
			t.Errorf("%s: Account = %v, want the identity: %v", tc.name, got, tc.want)
		}
	}
}

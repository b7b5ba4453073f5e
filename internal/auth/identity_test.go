package auth

import (
	"errors"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func TestNormalizeEmail(t *testing.T) {
	good := map[string]string{
		"  Anna@Example.COM ":     "anna@example.com",
		"a.b+tag@sub.example.org": "a.b+tag@sub.example.org",
	}
	for in, want := range good {
		if got, err := NormalizeEmail(in); err != nil || got != want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "anna", "anna@", "Anna <anna@example.com>", "a@b", "a@b.c, d@e.f", "a b@c.d"} {
		if _, err := NormalizeEmail(bad); !errors.Is(err, ErrBadEmail) {
			t.Errorf("NormalizeEmail(%q) accepted", bad)
		}
	}
}

func TestIdentityKeys(t *testing.T) {
	// printf anna@example.com | sha256sum
	if got := UserKey("anna@example.com"); got != "f7d54c22dda5b1780276601cd005909b70543fc4a6ba72d735b4cb9bbb611f01" {
		t.Errorf("UserKey = %q", got)
	}
	k := AuthMemberKey("tenant/user+1")
	if err := storage.ValidateKey(k); err != nil || k != "auth:tenant%2Fuser+1" {
		t.Errorf("AuthMemberKey = %q (%v)", k, err)
	}
	if !IsGuestKey(GuestMemberKey("abc")) || IsGuestKey(k) {
		t.Error("IsGuestKey")
	}
}

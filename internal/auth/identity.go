// Package auth owns identity: who a request is acting for. It holds the
// identity keys (userKey, memberKey), server-side sessions, sign-in by email
// one-time code and by OpenID Connect, guests, and the middleware that loads
// the identity and guards routes (RequireMember, RequireAdmin). Its tables
// are Sessions, AccountsByEmail and OtpCodes.
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/mail"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
)

// ErrBadEmail is returned for text that is not one plain email address.
var ErrBadEmail = errors.New("auth: not an email address")

// NormalizeEmail trims and lower-cases an address (document 004) and checks
// that it is a single bare address ("a@b.c", no display name).
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > 254 {
		return "", ErrBadEmail
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return "", ErrBadEmail
	}
	return s, nil
}

// UserKey addresses a person by email, before they have an account:
// hex(sha256(normalized email)). Callers pass a NormalizeEmail result.
func UserKey(normalizedEmail string) string {
	sum := sha256.Sum256([]byte(normalizedEmail))
	return hex.EncodeToString(sum[:])
}

// MemberKey prefixes.
const (
	authPrefix  = "auth:"
	guestPrefix = "guest:"
)

// AuthMemberKey is the memberKey of a signed-in account: "auth:" and the
// OIDC subject (or a ULID for email-code accounts), escaped for keys because
// some providers put '/' or '+' in sub.
func AuthMemberKey(subject string) string { return authPrefix + storage.EscapeKey(subject) }

// GuestMemberKey is the memberKey of a guest who joined by link.
func GuestMemberKey(gsid string) string { return guestPrefix + gsid }

// IsGuestKey reports whether a memberKey belongs to a guest.
func IsGuestKey(memberKey string) bool { return strings.HasPrefix(memberKey, guestPrefix) }

// Identity is who a request acts for. Handlers read it with From.
type Identity struct {
	MemberKey string
	// UserKey and Email are empty for guests.
	UserKey     string
	Email       string
	DisplayName string
	Admin       bool
	Guest       bool
	// SessionID is the server-side session row's id (RowKey in Sessions).
	SessionID string
	// Language is the user's setting ("ru", "en"), empty when unset.
	Language string
}

const identityKey = "harmony.identity"

// From returns the request's identity, or nil for an anonymous visitor.
func From(c echo.Context) *Identity {
	id, _ := c.Get(identityKey).(*Identity)
	return id
}

// setIdentity records the identity on the request; only this package's
// middleware and sign-in code call it.
func setIdentity(c echo.Context, id *Identity) { c.Set(identityKey, id) }

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
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
)

// ErrBadEmail is returned for text that is not one plain email address.
var ErrBadEmail = errors.New("auth: not an email address")

// NormalizeEmail trims and lower-cases an address (document 004) and checks
// that it is a single bare address ("a@b.c", no display name) without
// control or bidi characters. Only ASCII letters are lower-cased:
// Unicode's rules would turn other addresses into someone's (the Kelvin
// sign "K" into "k", "İ" into "i"), which an identity provider that
// verifies such an address would sign into their account.
func NormalizeEmail(s string) (string, error) {
	s = strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, strings.TrimSpace(s))
	if s == "" || len(s) > 254 {
		return "", ErrBadEmail
	}
	// net/mail takes any non-ASCII character; an address shown to group
	// owners must not hold control or bidi characters.
	if _, p := (formrule.Text{Max: 254}).Check(s); p != formrule.OK {
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

// AuthMemberKey is the memberKey of an account that signs in with OpenID
// Connect: "auth:" and the OIDC subject through storage.EscapeKey, because
// some providers put '/' or '+' in sub. A subject may be any printable
// ASCII up to 255 characters, and 255 slashes escape to 765: too long once
// a memberKey is part of a composite key under Azure's 1 KiB. So a subject
// whose escaped form is longer than maxReadableSubject, or that holds a
// space or a character outside printable ASCII, becomes "auth:~h" and the
// hex SHA-256 of the subject (71 characters in all). The two forms never
// meet: an escaped subject has '~' only before two upper-case hex digits.
//
// An account made by an email code is "auth:" and a ULID (codeMemberKey),
// and people's pages show memberKeys. So a subject that is a ULID
// (storage.IsID, any case) takes the hashed form too: whoever controls their subject
// at a provider cannot sign in to someone's email account by naming its
// ULID.
//
// The result is key-safe (no '%', '|' or forbidden character) and goes into
// keys as it is, never escaped again.
func AuthMemberKey(subject string) string {
	if escaped := storage.EscapeKey(subject); len(escaped) <= maxReadableSubject && plainASCII(subject) && !storage.IsID(subject) {
		return authPrefix + escaped
	}
	sum := sha256.Sum256([]byte(subject))
	return authPrefix + hashedSubject + hex.EncodeToString(sum[:])
}

// codeMemberKey mints the memberKey of a new account made by an email
// code: "auth:" and a new ULID, a form AuthMemberKey never gives.
func codeMemberKey() string { return authPrefix + ulid.Make().String() }

// maxReadableSubject is the longest escaped subject kept readable in a
// memberKey; hashedSubject marks the hashed form.
const (
	maxReadableSubject = 64
	hashedSubject      = "~h"
)

// IsAuthMemberKey reports whether k has the shape AuthMemberKey or
// codeMemberKey gives, for checking keys that come back from URLs or blob
// names.
func IsAuthMemberKey(k string) bool {
	rest, ok := strings.CutPrefix(k, authPrefix)
	if !ok || rest == "" || storage.ValidateKey(k) != nil {
		return false
	}
	if h, ok := strings.CutPrefix(rest, hashedSubject); ok {
		_, err := hex.DecodeString(h)
		return err == nil && len(h) == 2*sha256.Size && strings.ToLower(h) == h
	}
	if len(rest) > maxReadableSubject {
		return false
	}
	sub, err := storage.UnescapeKey(rest)
	return err == nil && sub != "" && plainASCII(sub) && storage.EscapeKey(sub) == rest
}

// plainASCII reports whether s is printable ASCII without spaces.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// GuestMemberKey is the memberKey of a guest who joined by link.
func GuestMemberKey(gsid string) string { return guestPrefix + gsid }

// IsGuestKey reports whether a memberKey belongs to a guest.
func IsGuestKey(memberKey string) bool { return strings.HasPrefix(memberKey, guestPrefix) }

// Identity is who a request acts for. Handlers read it with From.
type Identity struct {
	MemberKey string
	// UserKey is the email's userKey, or MemberUserKey for an account
	// without a verified email; it is empty only for guests. Email is ""
	// when there is no verified address.
	UserKey     string
	Email       string
	DisplayName string
	Admin       bool
	// Organizer may create and run events: the granted role, and every
	// admin.
	Organizer bool
	Guest     bool
	// SessionID is the server-side session row's id (RowKey in Sessions).
	SessionID string
	// Language is the user's setting ("ru", "en"), empty when unset.
	Language string
	// Timezone is the profile's IANA zone, "" for none; Location reads it.
	Timezone string
}

// Location is the zone the person reads times in: their profile's, copied
// into the session so that no page pays a profile read for it, else UTC.
func (id *Identity) Location() *time.Location {
	if id == nil {
		return time.UTC
	}
	return Zone(id.Timezone)
}

// Zone is the IANA zone name's location, UTC for "" or an unknown name,
// from a cache: time.LoadLocation reads the zone database on every call.
func Zone(name string) *time.Location {
	if loc, ok := i18n.LoadZone(name); ok {
		return loc
	}
	return time.UTC
}

const identityKey = "harmony.identity"

// From returns the request's identity, or nil for an anonymous visitor.
func From(c echo.Context) *Identity {
	id, _ := c.Get(identityKey).(*Identity)
	return id
}

// Account returns the request's identity when it is an account's: nil
// for a visitor, and for a guest, who came by a join link and has none.
func Account(c echo.Context) *Identity {
	if id := From(c); id.HasAccount() {
		return id
	}
	return nil
}

// IsAdmin says the request is an administrator's (for a page that
// shows admins more; RequireAdmin guards a route).
func IsAdmin(c echo.Context) bool {
	id := Account(c)
	return id != nil && id.Admin
}

// HasAccount says id is an account's: false for a visitor (nil) and a
// guest.
func (id *Identity) HasAccount() bool { return id != nil && !id.Guest }

// setIdentity records the identity on the request; only this package's
// middleware and sign-in code call it.
func setIdentity(c echo.Context, id *Identity) { c.Set(identityKey, id) }

// ProfileURL is the page of a person with an account ("" for a guest,
// who has none): the account module serves it.
func ProfileURL(memberKey string) string {
	if !IsAuthMemberKey(memberKey) {
		return ""
	}
	return "/people/" + url.PathEscape(memberKey)
}

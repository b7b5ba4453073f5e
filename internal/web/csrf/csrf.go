// Package csrf holds the pieces of CSRF protection that views need without
// importing the web package: the token's field and header names, token
// minting and comparison, and the token carried in a render context.
//
// The session's token never goes out as it is. Each time a page writes
// it, it writes a fresh mask of it (Mask): a random pad and the token
// XORed with that pad. Pages are compressed and echo input (a search
// box), so a token that stood the same in every response could be read
// back a character at a time from response sizes by someone who can
// watch the traffic and make the victim's browser load pages (BREACH).
// Masked, no two responses share the token's bytes.
package csrf

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
)

const (
	// Header carries the token on htmx requests (set by hx-headers:inherited
	// on <body>).
	Header = "X-CSRF-Token"
	// Field carries the token in plain form posts.
	Field = "_csrf"
)

// NewToken returns a fresh token: 32 random bytes, base64url.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand: "Read never returns an error")
	return base64.RawURLEncoding.EncodeToString(b)
}

// Mask returns token under a fresh random pad: base64url of the pad and
// the token XORed with it. Every call gives another string; Valid takes
// any of them for token.
func Mask(token string) string {
	if token == "" {
		return ""
	}
	out := make([]byte, 2*len(token))
	pad, masked := out[:len(token)], out[len(token):]
	rand.Read(pad) // never fails
	subtle.XORBytes(masked, pad, []byte(token))
	return base64.RawURLEncoding.EncodeToString(out)
}

// unmask is the token a Mask result carries, or "" when sent is not one.
func unmask(sent string) string {
	b, err := base64.RawURLEncoding.DecodeString(sent)
	if err != nil || len(b) == 0 || len(b)%2 != 0 {
		return ""
	}
	n := len(b) / 2
	token := make([]byte, n)
	subtle.XORBytes(token, b[:n], b[n:])
	return string(token)
}

// Valid reports whether sent is a mask of want (or want itself, as pages
// rendered before masking carry it), in constant time. An empty token
// never matches.
func Valid(sent, want string) bool {
	if sent == "" || want == "" {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(unmask(sent)), []byte(want)) == 1 {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(sent), []byte(want)) == 1
}

type tokenKey struct{}

// WithToken returns ctx carrying the session's token for components to
// render.
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// Token returns a fresh mask of the token in ctx, or "" when it carries
// none: what a page writes into its forms and its htmx header.
func Token(ctx context.Context) string {
	t, _ := ctx.Value(tokenKey{}).(string)
	return Mask(t)
}

// Package csrf holds the pieces of CSRF protection that views need without
// importing the web package: the token's field and header names, token
// minting and comparison, and the token carried in a render context.
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

// Valid reports whether sent matches want, in constant time. An empty token
// never matches.
func Valid(sent, want string) bool {
	if sent == "" || want == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(sent), []byte(want)) == 1
}

type tokenKey struct{}

// WithToken returns ctx carrying the session's token for components to
// render.
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// Token returns the token in ctx, or "".
func Token(ctx context.Context) string {
	t, _ := ctx.Value(tokenKey{}).(string)
	return t
}

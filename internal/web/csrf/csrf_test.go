package csrf

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	token := NewToken()
	tests := []struct {
		name       string
		sent, want string
		ok         bool
	}{
		{"match", token, token, true},
		{"mismatch", NewToken(), token, false},
		{"nothing sent", "", token, false},
		{"no session token", token, "", false},
		{"both empty", "", "", false},
		{"prefix", token[:10], token, false},
	}
	for _, tt := range tests {
		if got := Valid(tt.sent, tt.want); got != tt.ok {
			t.Errorf("%s: Valid = %v", tt.name, got)
		}
	}
}

func TestNewTokenIsRandom(t *testing.T) {
	a, b := NewToken(), NewToken()
	if a == b || len(a) != 43 {
		t.Errorf("tokens %q %q; want distinct 32-byte base64url strings", a, b)
	}
}

func TestTokenInContext(t *testing.T) {
	ctx := WithToken(context.Background(), "abc")
	if !Valid(Token(ctx), "abc") || Token(context.Background()) != "" {
		t.Error("token does not round-trip through the context")
	}
}

// A page never writes the session's token as it is: every write is a
// fresh mask, which Valid takes, and which no other token passes.
func TestMaskedTokens(t *testing.T) {
	token := NewToken()
	ctx := WithToken(context.Background(), token)
	a, b := Token(ctx), Token(ctx)
	if a == b || strings.Contains(a, token) || strings.Contains(b, token) {
		t.Fatalf("two writes of the token: %q, %q (token %q)", a, b, token)
	}
	if !Valid(a, token) || !Valid(b, token) {
		t.Fatal("a masked token is refused")
	}
	if Valid(a, NewToken()) {
		t.Error("a mask of one token passes for another")
	}
	// The raw token, as pages from before masking carry it, still works.
	if !Valid(token, token) {
		t.Error("the raw token is refused")
	}
	// A mask with one byte changed, cut short, or not base64 fails.
	raw, _ := base64.RawURLEncoding.DecodeString(a)
	raw[len(raw)-1] ^= 1
	for _, bad := range []string{base64.RawURLEncoding.EncodeToString(raw), a[:len(a)-2], a[:len(a)/2], "!!" + a[2:], "AAAA"} {
		if Valid(bad, token) {
			t.Errorf("%q passes", bad)
		}
	}
}

// BenchmarkToken is the cost of one written token: a fresh mask.
func BenchmarkToken(b *testing.B) {
	ctx := WithToken(context.Background(), NewToken())
	for b.Loop() {
		_ = Token(ctx)
	}
}

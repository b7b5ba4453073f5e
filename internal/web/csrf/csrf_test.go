package csrf

import (
	"context"
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
	if Token(ctx) != "abc" || Token(context.Background()) != "" {
		t.Error("token does not round-trip through the context")
	}
}

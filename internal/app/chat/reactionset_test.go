package chat

import (
	"strings"
	"testing"
)

func TestReactionSet(t *testing.T) {
	set := parseReactions("")
	if set.String() != "" {
		t.Fatalf("no reactions: %q", set.String())
	}
	for i := range maxReactors {
		if err := set.toggle("👍", "auth:"+strings.Repeat("x", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.toggle("👍", "auth:one-too-many"); err != ErrReactionsFull {
		t.Fatalf("past the bound: %v", err)
	}
	if err := set.toggle("👍", "auth:"); err != nil || len(set["👍"]) != maxReactors-1 {
		t.Fatalf("taking one back at the bound: %v, %d", err, len(set["👍"]))
	}
	back := parseReactions(set.String())
	if len(back["👍"]) != maxReactors-1 {
		t.Fatalf("round trip: %d", len(back["👍"]))
	}
	if got := parseReactions("{damaged"); len(got) != 0 {
		t.Fatalf("a damaged column: %v", got)
	}
}

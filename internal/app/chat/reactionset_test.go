package chat

import (
	"fmt"
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

// All a message's reactions, of every emoji, stay within one table
// property (64 KiB): past maxReactions in all, one more is refused.
func TestReactionsStayWithinAColumn(t *testing.T) {
	set := parseReactions("")
	n := 0
	for _, emoji := range Reactions {
		for i := 0; i < maxReactors && n < maxReactions; i++ {
			key := fmt.Sprintf("auth:~h%064x", n) // the longest member key
			if err := set.toggle(emoji, key); err != nil {
				t.Fatalf("reaction %d: %v", n, err)
			}
			n++
		}
	}
	if n != maxReactions {
		t.Fatalf("filled %d reactions", n)
	}
	if err := set.toggle(Reactions[len(Reactions)-1], "auth:one-more"); err != ErrReactionsFull {
		t.Fatalf("past the total: %v", err)
	}
	if size := len(set.String()); size > 64*1024 {
		t.Errorf("the column holds %d bytes", size)
	}
}

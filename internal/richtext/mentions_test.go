package richtext

import (
	"fmt"
	"strings"
	"testing"
)

// TestMentionedNamesAtMostTwenty: a message naming a crowd tells the
// first MaxMentioned of them, never its author.
func TestMentionedNamesAtMostTwenty(t *testing.T) {
	var people []Named
	var text strings.Builder
	for i := range 30 {
		p := Named{Key: fmt.Sprint("k", i), Name: fmt.Sprintf("Person%02d Smith", i)}
		people = append(people, p)
		fmt.Fprintf(&text, "@%s ", p.Name)
	}
	got := Mentioned(text.String(), "k0", people)
	if len(got) != MaxMentioned || MaxMentioned != 20 || got[0].Key != "k1" || got[19].Key != "k20" {
		t.Fatalf("%d mentioned: %v", len(got), got)
	}
	if got := Mentioned("@Person03 Smith and @person05 smith", "k0", people); len(got) != 2 || got[0].Key != "k3" || got[1].Key != "k5" {
		t.Fatalf("two mentioned: %v", got)
	}
}

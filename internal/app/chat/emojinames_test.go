package chat

import (
	"testing"

	"github.com/harmony/harmony/internal/i18n"
)

// Every emoji a message may be answered with has a name and search
// words in every language, so screen readers never hear a bare key and
// a search can find it.
func TestEveryEmojiHasANameAndWords(t *testing.T) {
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	keys := map[i18n.Lang]map[string]bool{}
	for _, l := range i18n.Supported() {
		keys[l] = map[string]bool{}
		for _, k := range cat.Keys(l) {
			keys[l][k] = true
		}
	}
	if len(emojiNames) != len(allReactions) {
		t.Errorf("%d names for %d emoji", len(emojiNames), len(allReactions))
	}
	for _, e := range allReactions {
		name, ok := emojiNames[e]
		if !ok {
			t.Errorf("%s has no name", e)
			continue
		}
		for _, l := range i18n.Supported() {
			for _, key := range []string{"chat.reaction." + name, "chat.reaction." + name + ".words"} {
				if !keys[l][key] {
					t.Errorf("%s: %s lacks %s", e, l, key)
				}
			}
		}
	}
}

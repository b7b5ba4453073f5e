package richtext

import (
	"strings"
	"unicode"
)

// Named is someone a text may mention: their key and display name.
type Named struct {
	Key  string
	Name string
}

// Mentioned are the people of people whom text names with "@": by their
// full name, or by their first name when no one else among them has it;
// never author. Case does not matter; "@Ann" does not name "Anna".
//
// It returns at most MaxMentioned people: a message naming a crowd tells
// the first of them only.
func Mentioned(text, author string, people []Named) []Named {
	if !strings.Contains(text, "@") {
		return nil
	}
	firsts := map[string]int{}
	for _, p := range people {
		firsts[strings.ToLower(FirstName(p.Name))]++
	}
	text = strings.ToLower(text)
	var out []Named
	for _, p := range people {
		if p.Key == author || p.Name == "" {
			continue
		}
		first := strings.ToLower(FirstName(p.Name))
		if Names(text, strings.ToLower(p.Name)) || firsts[first] == 1 && Names(text, first) {
			out = append(out, p)
			if len(out) == MaxMentioned {
				break
			}
		}
	}
	return out
}

// MaxMentioned bounds the people one message or post tells: each costs
// the module reads (an access check, a block) and may cost an email.
const MaxMentioned = 20

// FirstName is the first word of a name.
func FirstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return f[0]
	}
	return name
}

// Names reports whether text has "@"+name followed by no more of a name
// (a letter or digit); both lower-cased by the caller.
func Names(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "@"+name)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(name)
		if r := []rune(text[end:]); len(r) == 0 || !unicode.IsLetter(r[0]) && !unicode.IsDigit(r[0]) {
			return true
		}
		i = end
	}
}

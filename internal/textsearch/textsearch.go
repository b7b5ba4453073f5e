// Package textsearch is how titles are searched by word and word prefix,
// in any script (Russian included), on a Table Storage index: a title is
// indexed under its tokens (each word, and its 3-, 4- and 5-letter
// prefixes), a query is read from the partition of its most selective
// word's token, and every row is checked against the whole query
// (Score). The prompt catalog and the forum both search this way; each
// keeps its own index table. A text read whole (a chat's messages) is
// searched by its terms instead, and an excerpt marks what was found
// (excerpt.go): the forum's search marks its titles' words so too.
package textsearch

import (
	"slices"
	"strings"
	"unicode"
)

// Words are the folded words of s (letters and digits, any script, in
// lower case and "ё" as "е", as Fold does): a title is indexed, and a
// query matched, so, and "ежик" finds "Ёжик" as "ёжик" finds "Ежик", as
// Russian readers type either.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// Tokens are the index tokens of a title: every word, and the 3-, 4- and
// 5-letter prefixes of longer ones, each once.
func Tokens(title string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, w := range Words(title) {
		rs := []rune(w)
		for n := 3; n <= 5 && n < len(rs); n++ {
			add(string(rs[:n]))
		}
		add(w)
	}
	return out
}

// Word is one word of a query and the token whose partition holds every
// title it matches.
type Word struct {
	Word  string
	Token string
}

// Query splits a query like titles are split and picks each word's
// token: a word of 3–5 letters is itself a prefix token; a longer one is
// found under its 5-letter prefix and checked on the title; a shorter one
// is indexed only as a whole word.
func Query(q string) []Word {
	var out []Word
	for _, w := range Words(q) {
		rs := []rune(w)
		tok := w
		if len(rs) > 5 {
			tok = string(rs[:5])
		}
		if !slices.ContainsFunc(out, func(o Word) bool { return o.Word == w }) {
			out = append(out, Word{Word: w, Token: tok})
		}
	}
	return out
}

// Driver is the query's most selective word (the longest), whose
// token's partition a search reads.
func Driver(q []Word) Word {
	return slices.MaxFunc(q, func(a, b Word) int { return len([]rune(a.Word)) - len([]rune(b.Word)) })
}

// Score scores a title against the query: 0 unless every query word
// matches one of its words (AND); a whole-word match scores 2, a word
// prefix 1 (a word under 3 letters must match whole, as it is indexed).
func Score(title string, q []Word) int {
	tw := Words(title)
	score := 0
	for _, w := range q {
		best := 0
		short := len([]rune(w.Word)) < 3
		for _, t := range tw {
			switch {
			case t == w.Word:
				best = 2
			case !short && strings.HasPrefix(t, w.Word):
				best = max(best, 1)
			}
		}
		if best == 0 {
			return 0
		}
		score += best
	}
	return score
}

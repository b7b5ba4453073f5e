package textsearch

import (
	"slices"
	"strings"
	"unicode"
)

// Searching a text read whole (a chat's messages, as plain text), not
// through an index: a query's terms (Terms) are found anywhere in it,
// case aside and "ё" as "е" (a term matches inside a word: "plan" finds
// "planning"), as Telegram's and Zulip's searches of a chat find them;
// Excerpt marks them. (Titles are searched by word and prefix on an
// index: Tokens, Query, Score.)

// Span is a piece of an excerpt; Match marks one of the words sought.
type Span struct {
	Text  string
	Match bool
}

// foldRune is r as a search compares it.
func foldRune(r rune) rune {
	r = unicode.ToLower(r)
	if r == 'ё' {
		return 'е'
	}
	return r
}

// Fold is s as a search compares it: lower case, "ё" as "е".
func Fold(s string) string { return strings.Map(foldRune, s) }

// Terms are the distinct words of a query, folded, at most max of them.
func Terms(q string, max int) []string {
	var out []string
	for _, w := range strings.Fields(Fold(q)) {
		if len(out) == max {
			break
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Contains reports whether text holds every one of words (Terms), none
// for none.
func Contains(text string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	folded := Fold(text)
	for _, w := range words {
		if !strings.Contains(folded, w) {
			return false
		}
	}
	return true
}

// Excerpt is at most width characters of text from a little before the
// first of words it holds, in spans that mark each word found, with "…"
// where text was cut. Text that holds none of them is its start.
func Excerpt(text string, words []string, width int) []Span {
	runes := []rune(text)
	folded := make([]rune, len(runes))
	for i, r := range runes {
		folded[i] = foldRune(r)
	}
	// marked[i]: rune i is part of a word found.
	marked := make([]bool, len(runes))
	first := -1
	for _, w := range words {
		wr := []rune(w)
		for i := 0; len(wr) > 0 && i+len(wr) <= len(folded); i++ {
			if string(folded[i:i+len(wr)]) == w {
				for j := i; j < i+len(wr); j++ {
					marked[j] = true
				}
				if first < 0 || i < first {
					first = i
				}
			}
		}
	}
	start := 0
	if first > width/3 {
		// The word found a third of the way in, or as far in as the
		// text's end asks, starting at a word.
		start = max(0, min(first-width/3, len(runes)-width))
		for start > 0 && !unicode.IsSpace(runes[start-1]) && start < first {
			start++
		}
	}
	end := min(len(runes), start+width)
	if end < len(runes) {
		// End at a word, unless that loses more than half.
		for e := end; e > start+width/2; e-- {
			if unicode.IsSpace(runes[e]) {
				end = e
				break
			}
		}
	}
	var out []Span
	if start > 0 {
		out = append(out, Span{Text: "…"})
	}
	for i := start; i < end; {
		j := i
		for j < end && marked[j] == marked[i] {
			j++
		}
		out = append(out, Span{Text: string(runes[i:j]), Match: marked[i]})
		i = j
	}
	if end < len(runes) {
		out = append(out, Span{Text: "…"})
	}
	return out
}

package prompts

import (
	"strings"
	"unicode"

	"github.com/harmony/harmony/internal/formrule"
)

// normalizeTitle is the title compared for duplicates: lower-cased
// (Unicode-aware) with runs of spaces collapsed.
func normalizeTitle(title string) string {
	return strings.Join(strings.Fields(strings.ToLower(title)), " ")
}

// titleTokens are the TitleSearchIndex tokens of a title: every word
// (letters and digits, any script) lower-cased, plus its 3–5 character
// prefixes, each once.
func titleTokens(title string) []string {
	words := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, w := range words {
		rs := []rune(w)
		for n := 3; n <= 5 && n < len(rs); n++ {
			add(string(rs[:n]))
		}
		add(w)
	}
	return out
}

// Rules of a prompt's text fields.
var (
	titleRule = formrule.Text{Max: MaxTitleLength, Required: true}
	textRule  = formrule.Text{Max: MaxTextLength, Required: true, Multiline: true}
)

// validate checks in against the limits and the active tags, and returns
// the cleaned input.
func validate(in Input, active map[string]bool) (Input, *InvalidError) {
	var f FieldErrors
	var p formrule.Problem
	if in.Title, p = titleRule.Check(in.Title); p != formrule.OK {
		f.Title = p.Message("prompts.error.title_required", "prompts.error.title_long")
	}
	if in.Text, p = textRule.Check(in.Text); p != formrule.OK {
		f.Text = p.Message("prompts.error.text_required", "prompts.error.text_long")
	}
	var tags []string
	seen := map[string]bool{}
	for _, t := range in.Tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if !active[t] {
			f.Tags = "prompts.error.tag_unknown"
		}
		tags = append(tags, t)
	}
	if len(tags) > MaxTags {
		f.Tags = "prompts.error.tags_many"
	}
	in.Tags = tags
	if in.Visibility != Public && in.Visibility != Private {
		f.Visibility = "prompts.error.visibility"
	}
	if f != (FieldErrors{}) {
		return in, &InvalidError{Fields: f}
	}
	return in, nil
}

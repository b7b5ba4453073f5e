package prompts

import (
	"strings"

	"github.com/harmony/harmony/internal/formrule"
)

// normalizeTitle is the title compared for duplicates: lower-cased
// (Unicode-aware) with runs of spaces collapsed.
func normalizeTitle(title string) string {
	return strings.Join(strings.Fields(strings.ToLower(title)), " ")
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

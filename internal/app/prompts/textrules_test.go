package prompts

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Messages of the shared text rules (internal/formrule), as the pages
// show them in English.
const (
	bidiMessage     = "Remove the invisible text-direction characters"
	controlMessage  = "Remove the invisible control characters"
	encodingMessage = "not valid UTF-8 characters"
)

func TestPromptFormRefusesTextThatMustNotBeStored(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	cases := []struct {
		name, title, text, field, message string
	}{
		{"invalid UTF-8 in the title", "Summary \xff\xfe", "Text", "prompt-title", encodingMessage},
		{"invalid UTF-8 in the text", "Title", "Summarise \xc3\x28 this", "prompt-text", encodingMessage},
		{"NUL in the text", "Title", "Summarise\x00 this", "prompt-text", controlMessage},
		{"escape in the text", "Title", "Summarise \x1b[2J this", "prompt-text", controlMessage},
		{"bell in the text", "Title", "Summarise\a this", "prompt-text", controlMessage},
		{"backspace in the text", "Title", "Summarise\b\b this", "prompt-text", controlMessage},
		{"bidi override in the title", "Invoice \u202efdp.exe", "Text", "prompt-title", bidiMessage},
		{"bidi isolate in the text", "Title", "Say \u2066hello\u2069", "prompt-text", bidiMessage},
		{"right-to-left mark in the title", "Title\u200f", "Text", "prompt-title", bidiMessage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := post(t, ann.c, "/prompts", promptForm(tc.title, tc.text, Public))
			msg := res.Doc(t).Find("#" + tc.field + "-error").Text()
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.message) {
				t.Errorf("%d, %s error %q", res.StatusCode, tc.field, msg)
			}
		})
	}
	if mine, err := a.svc.ListMine(ctx, ann.key, nil); err != nil || len(mine.Prompts) != 0 {
		t.Fatalf("refused input wrote %d prompts (%v)", len(mine.Prompts), err)
	}

	// An edit is held to the same rules, and leaves the prompt alone.
	id := a.createPrompt(t, ann, promptForm("Greeting", "Say hello", Public))
	form := promptForm("Greeting", "Say\x1b[31m hello", Public)
	form.Set("revision", revisionOf(t, ann.c, id))
	res := post(t, ann.c, "/prompts/"+id, form)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Doc(t).Find("#prompt-text-error").Text(), controlMessage) {
		t.Fatalf("edit with an escape: %d", res.StatusCode)
	}
	if p, err := a.svc.Mine(ctx, ann.key, id); err != nil || p.PromptText != "Say hello" {
		t.Fatalf("prompt after a refused edit: %q (%v)", p.PromptText, err)
	}
}

func TestPromptTextKeepsTabsAndLineBreaks(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := a.createPrompt(t, ann, promptForm("Table", "Name:\t{{name}}\r\nAge:\t{{age}}\r\n", Public))
	p, err := a.svc.Mine(ctx, ann.key, id)
	if err != nil || p.PromptText != "Name:\t{{name}}\nAge:\t{{age}}" {
		t.Fatalf("stored text %q (%v)", p.PromptText, err)
	}
}

func TestAdminTagNamesRefuseTextThatMustNotBeStored(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	boss := a.signIn(t, bossEmail)
	cases := []struct {
		name    string
		form    url.Values
		errorID string
		message string
	}{
		{"invalid UTF-8 in the English name", url.Values{"tag": {"poetry"}, "english": {"Po\xffetry"}}, "add-tag-english-error", encodingMessage},
		{"invalid UTF-8 in the Russian name", url.Values{"tag": {"poetry"}, "english": {"Poetry"}, "russian": {"\xd0Поэзия"}}, "add-tag-russian-error", encodingMessage},
		{"bidi override in the English name", url.Values{"tag": {"poetry"}, "english": {"Poetry\u202e"}}, "add-tag-english-error", bidiMessage},
		{"control character in the English name", url.Values{"tag": {"poetry"}, "english": {"Poetry\x00"}}, "add-tag-english-error", controlMessage},
	}
	for _, tc := range cases {
		res := post(t, boss.c, "/admin/tags", tc.form)
		msg := res.Doc(t).Find("#" + tc.errorID).Text()
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: %d, error %q", tc.name, res.StatusCode, msg)
		}
	}
	// Renaming is held to the same rules.
	for name, english := range map[string]string{"invalid UTF-8": "Wri\xc3ting", "bidi": "\u2067Writing"} {
		res := post(t, boss.c, "/admin/tags/writing", url.Values{"english": {english}, "russian": {"Тексты"}, "active": {"true"}})
		msg := res.Doc(t).Find("#tag-error-writing").Text()
		if res.StatusCode != http.StatusUnprocessableEntity || msg == "" {
			t.Errorf("rename with %s: %d, error %q", name, res.StatusCode, msg)
		}
	}
	tags, err := a.svc.AllTags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tags) != len(DefaultTags) {
		t.Errorf("refused tags were added: %d tags", len(tags))
	}
	for _, tag := range tags {
		if tag.Tag == "writing" && tag.DisplayName != "Writing" {
			t.Errorf("refused rename stored %q", tag.DisplayName)
		}
	}
}

package components

import (
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
)

func renderField(t *testing.T, p FieldProps) *goquery.Document {
	t.Helper()
	input := templ.Raw(`<input id="` + p.ID + `" aria-describedby="` + p.DescribedBy() + `">`)
	var b strings.Builder
	ctx := templ.WithChildren(context.Background(), input)
	if err := Field(p).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// The label names the control, and the control's aria-describedby names
// exactly the hint and error shown.
func TestFieldLinksLabelHintAndError(t *testing.T) {
	for _, p := range []FieldProps{
		{ID: "email", Label: "Email"},
		{ID: "email", Label: "Email", Hint: "We send a code."},
		{ID: "email", Label: "Email", Error: "Enter an address."},
		{ID: "email", Label: "Email", Hint: "We send a code.", Error: "Enter an address."},
	} {
		doc := renderField(t, p)
		if f, _ := doc.Find("label").Attr("for"); f != "email" {
			t.Errorf("%+v: label for %q", p, f)
		}
		if doc.Find(".field").HasClass("field-invalid") != (p.Error != "") {
			t.Errorf("%+v: field-invalid is wrong", p)
		}
		var shown []string
		doc.Find(".hint, .field-error").Each(func(_ int, s *goquery.Selection) { shown = append(shown, s.AttrOr("id", "")) })
		if got, _ := doc.Find("input").Attr("aria-describedby"); got != strings.Join(shown, " ") {
			t.Errorf("%+v: aria-describedby %q, shown %v", p, got, shown)
		}
		if (doc.Find(`[data-testid="field-error"]`).Text() == p.Error) != true {
			t.Errorf("%+v: error text %q", p, doc.Find(`[data-testid="field-error"]`).Text())
		}
	}
}

// A TextArea carries what its form asks of it (required, autofocus, a
// class, a test id, htmx's attributes) and stays tied to its label, hint
// and error; a hidden label still names it.
func TestTextAreaCarriesItsForm(t *testing.T) {
	for _, c := range []struct {
		name string
		f    FieldProps
		t    TextAreaProps
		want map[string]string // attribute: value ("" for present, "-" for absent)
	}{
		{"plain", FieldProps{ID: "note", Label: "Note"}, TextAreaProps{Name: "note", Value: "hi", Rows: 4},
			map[string]string{"rows": "4", "maxlength": "-", "required": "-", "autofocus": "-", "class": "-", "aria-describedby": "-", "aria-invalid": "-"}},
		{"asked", FieldProps{ID: "body", Label: "Text", Hint: "Markdown", Error: "Write something."},
			TextAreaProps{Name: "body", Rows: 8, Max: 2000, Required: true, Autofocus: true, Class: "blog-form-body", TestID: "text-input", Attrs: templ.Attributes{"hx-post": "/x"}},
			map[string]string{"maxlength": "2000", "required": "", "autofocus": "", "class": "blog-form-body", "data-testid": "text-input", "hx-post": "/x", "aria-invalid": "true", "aria-describedby": "body-hint body-error"}},
	} {
		var b strings.Builder
		if err := TextArea(c.f, c.t).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		ta := doc.Find("textarea")
		if ta.AttrOr("id", "") != c.f.ID || ta.AttrOr("name", "") != c.t.Name || ta.Text() != c.t.Value {
			t.Errorf("%s: textarea %q", c.name, b.String())
		}
		if doc.Find("label").AttrOr("for", "") != c.f.ID {
			t.Errorf("%s: label does not name the textarea", c.name)
		}
		for attr, want := range c.want {
			got, ok := ta.Attr(attr)
			switch {
			case want == "-" && ok:
				t.Errorf("%s: %s=%q, want none", c.name, attr, got)
			case want != "-" && (!ok || got != want):
				t.Errorf("%s: %s=%q (%v), want %q", c.name, attr, got, ok, want)
			}
		}
	}
	var b strings.Builder
	if err := TextArea(FieldProps{ID: "edit-1", Label: "Edit", HideLabel: true}, TextAreaProps{Name: "body"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<label for="edit-1" class="visually-hidden">Edit</label>`) {
		t.Errorf("hidden label: %s", b.String())
	}
}

// A radio group's legend says what is chosen; the chosen value is
// checked; after a refusal the group points to its error and each
// button is marked invalid; a required group asks once; words people
// wrote are isolated.
func TestChoiceGroup(t *testing.T) {
	render := func(p ChoiceGroupProps) *goquery.Document {
		var b strings.Builder
		if err := ChoiceGroup(p).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	choices := []Box{{Value: "food", Label: "Food"}, {Value: "music", Label: "Music", Hint: "Bring a speaker"}}
	doc := render(ChoiceGroupProps{Field: FieldProps{ID: "answer1", Label: "Bring?"}, Name: "answer1", Choices: choices, Value: "music"})
	if doc.Find("fieldset legend").Text() != "Bring?" || doc.Find("input[type=radio]").Length() != 2 || doc.Find("input[checked]").AttrOr("value", "") != "music" {
		t.Errorf("the group: %s", doc.Text())
	}
	if doc.Find("fieldset").AttrOr("aria-describedby", "") != "" || doc.Find("[aria-invalid]").Length() != 0 || doc.Find("[required]").Length() != 0 || doc.Find(".field-error").Length() != 0 {
		t.Error("a group without an error or a requirement says one")
	}
	if doc.Find("label small.muted").Text() != "Bring a speaker" {
		t.Errorf("the hint: %q", doc.Find("label small").Text())
	}
	doc = render(ChoiceGroupProps{Field: FieldProps{ID: "answer1", Label: "Bring?", Error: "Choose one."}, Name: "answer1", Choices: choices, Required: true, Isolate: true})
	if got := doc.Find("fieldset").AttrOr("aria-describedby", ""); got != "answer1-error" || doc.Find("#answer1-error").Text() != "Choose one." {
		t.Errorf("the error: described by %q", got)
	}
	if doc.Find(`input[aria-invalid="true"]`).Length() != 2 || doc.Find("input[required]").Length() != 1 || doc.Find("input[checked]").Length() != 0 {
		t.Error("the buttons after a refusal")
	}
	if doc.Find("legend bdi").Text() != "Bring?" || doc.Find("label bdi").Length() != 2 {
		t.Error("words people wrote are not isolated")
	}
	if doc.Find("#answer1-0").AttrOr("value", "") != "food" || doc.Find("#answer1-1").AttrOr("value", "") != "music" {
		t.Error("the buttons are not named after the group, for an error summary's link")
	}
	// A radio button may send "" (nobody); a hint goes under the legend.
	doc = render(ChoiceGroupProps{Field: FieldProps{ID: "who", Label: "Who?", Hint: "One of them."}, Name: "who", Choices: []Box{{Value: "", Label: "Nobody"}, {Value: "k1", Label: "Ann"}}, Autofocus: true, ListClass: "grid"})
	if v, ok := doc.Find("#who-0").Attr("value"); !ok || v != "" || doc.Find("#who-0[checked]").Length() != 1 {
		t.Errorf("nobody sends %q", v)
	}
	if doc.Find("fieldset").AttrOr("aria-describedby", "") != "who-hint" || doc.Find("legend + #who-hint").Text() != "One of them." {
		t.Error("the hint")
	}
	if doc.Find("#who-0[autofocus]").Length() != 1 || doc.Find("[autofocus]").Length() != 1 || doc.Find("div.grid > label > input").Length() != 2 {
		t.Error("the focus or the list's box")
	}

	// Checkboxes: each ticked on its own, a box without a value sends "on"
	// and one with a name of its own is a setting of its own.
	boxes := []Box{{Value: "a", Label: "A", Checked: true}, {Value: "b", Label: "B"}, {Name: "alone", Label: "Alone", Checked: true}}
	doc = render(ChoiceGroupProps{Field: FieldProps{ID: "tags", Label: "Tags"}, Name: "tag", Choices: boxes, Multiple: true})
	if doc.Find("input[type=checkbox]").Length() != 3 || doc.Find("input[checked]").Length() != 2 || doc.Find(`input[name="tag"]`).Length() != 2 {
		t.Errorf("the boxes: %d ticked", doc.Find("input[checked]").Length())
	}
	if v := doc.Find(`input[name="alone"]`).AttrOr("value", ""); v != "on" {
		t.Errorf("a box without a value sends %q", v)
	}
	// A box's own test id, else the group's for each box: one attribute,
	// and no stray words in the tag.
	var raw strings.Builder
	tagged := ChoiceGroupProps{Field: FieldProps{ID: "t", Label: "T"}, Name: "t", ChoiceTestID: "any", Choices: []Box{{Value: "a", Label: "A", TestID: "own"}, {Value: "b", Label: "B"}}}
	if err := ChoiceGroup(tagged).Render(context.Background(), &raw); err != nil {
		t.Fatal(err)
	}
	if html := raw.String(); strings.Count(html, "data-testid=") != 2 || !strings.Contains(html, `data-testid="own"`) || !strings.Contains(html, `data-testid="any"`) || strings.Contains(html, " else") {
		t.Errorf("the boxes' test ids: %s", html)
	}
	// Without a legend the group is a plain box and its boxes point to its
	// hint and error.
	doc = render(ChoiceGroupProps{Field: FieldProps{ID: "ok", Hint: "Asks first.", Error: "Not now."}, Multiple: true, Choices: []Box{{Name: "ok", Label: "Approve"}}})
	if doc.Find("fieldset, legend").Length() != 0 || doc.Find("#ok-0").AttrOr("aria-describedby", "") != "ok-hint ok-error" || doc.Find(`#ok-0[aria-invalid="true"]`).Length() != 1 {
		t.Errorf("a group without a legend: %s", doc.Find("input").AttrOr("aria-describedby", ""))
	}
}

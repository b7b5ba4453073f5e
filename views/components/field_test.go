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

package prompts

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// isolated reports whether text sits alone in an element that isolates
// it from the interface text around it: a <bdi>, or an element with
// dir="auto".
func isolated(doc *goquery.Document, text string) bool {
	found := false
	doc.Find("bdi, [dir=auto]").Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Text()) == text {
			found = true
		}
	})
	return found
}

func TestCatalogIsolatesUserText(t *testing.T) {
	card := Card{
		ID: "P1", Title: "سلام 123", Href: "/prompts/P1", Date: "2030-05-17", Datetime: "2030-05-17T00:00:00Z",
		Tags: []TagLabel{{Tag: "poetry", Name: "שירה"}}, EditURL: "/prompts/P1/edit",
	}
	chip := TagChip{Tag: "poetry", Name: "שירה", Count: 3, Href: "/prompts?tag=poetry"}
	var b bytes.Buffer
	p := CatalogProps{Cards: []Card{card}, Chips: []TagChip{chip}, First: true}
	if err := Results(p).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatal(err)
	}
	if !isolated(doc, card.Title) {
		t.Errorf("the prompt title is not isolated: %s", html)
	}
	if n := doc.Find(`[data-testid="prompt-card"] .tag[dir=auto]`).Length(); n != 1 {
		t.Errorf("%d isolated tags on the card, want 1", n)
	}
	if n := doc.Find(`[data-testid="tag-chip"] [dir=auto]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Text() == chip.Name
	}).Length(); n != 1 {
		t.Error("the tag chip's name is not isolated")
	}
}

package chat_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestSearchingThePicker: the picker's box finds emoji by the start of
// any word of their names and search words, in English or Russian, case
// (and ё) aside, on the picker's page without JavaScript; each choice is
// named in the reader's language; a word that matches nothing says so;
// an emoji a search found answers the message like any other.
func TestSearchingThePicker(t *testing.T) {
	t.Parallel()
	ann, bob, picker := aPicker(t)
	room := "/chat/room-general"

	for _, c := range []struct {
		lang, q string
		want    []string
	}{
		{"en", "heart", []string{"❤️", "😍"}},
		{"en", "Thumbs UP", []string{"👍"}},
		{"en", "part", []string{"🎉", "🥳", "💃", "🕺", "🎈"}},
		{"en", "coff", []string{"☕"}},
		{"ru", "сердце", []string{"❤️"}},
		{"ru", "КОФЕ", []string{"☕"}},
		{"ru", "слезы", []string{"😂", "😭"}}, // слёзы, typed without ё
		{"ru", "coffee", []string{"☕"}},     // English names on a Russian page
		{"en", "ракета", []string{"🚀"}},     // and Russian ones on an English page
		{"en", "🚀", []string{"🚀"}},
	} {
		res := ann.Get(picker+"?q="+url.QueryEscape(c.q), "Accept-Language", c.lang)
		doc := res.Doc(t)
		if got := choices(doc.Selection); res.StatusCode != http.StatusOK || !slices.Equal(got, c.want) {
			t.Errorf("%s %q: %d, found %v, want %v", c.lang, c.q, res.StatusCode, got, c.want)
		}
		search := doc.Find(testID("chat-react-search"))
		if search.AttrOr("method", "") != "get" || search.AttrOr("action", "") != picker || search.Find(`input[name="q"]`).AttrOr("value", "") != c.q {
			t.Errorf("%s %q: the page's search form %q %q", c.lang, c.q, search.AttrOr("action", ""), search.Find(`input[name="q"]`).AttrOr("value", ""))
		}
	}

	// The choices are named in the reader's language, for screen readers
	// and as a pointer's title.
	for lang, want := range map[string]string{"en": "Coffee", "ru": "Кофе"} {
		cup := ann.Get(picker+"?q=coffee", "Accept-Language", lang).Doc(t).Find(`button[value="☕"]`)
		if cup.AttrOr("aria-label", "") != want || cup.AttrOr("title", "") != want {
			t.Errorf("%s: the cup is named %q, titled %q", lang, cup.AttrOr("aria-label", ""), cup.AttrOr("title", ""))
		}
	}

	for lang, want := range map[string]string{"en": "No emoji match “zebra”.", "ru": "Нет эмодзи по запросу «zebra»."} {
		res := ann.Get(picker+"?q=zebra", "Accept-Language", lang)
		doc := res.Doc(t)
		if none := doc.Find(testID("chat-react-none")).Text(); res.StatusCode != http.StatusOK || !strings.Contains(none, want) || len(choices(doc.Selection)) != 0 {
			t.Errorf("%s: a word matching nothing: %d %q", lang, res.StatusCode, none)
		}
	}

	found := ann.Get(picker + "?q=rock").Doc(t).Find(testID("chat-react-picker"))
	rocket := found.Find(`button[value="🚀"]`)
	if found.AttrOr("method", "") != "post" || found.AttrOr("action", "") != picker || rocket.AttrOr("name", "") != "emoji" {
		t.Fatalf("the search's rocket: form %q %q, button %q", found.AttrOr("method", ""), found.AttrOr("action", ""), rocket.AttrOr("name", ""))
	}
	if res := post(ann, picker, url.Values{"emoji": {rocket.AttrOr("value", "")}}); res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "#m-2") {
		t.Fatalf("reacting with the rocket found: %d", res.StatusCode)
	}
	pill := bob.Get(room).Doc(t).Find("#m-2 " + testID("chat-reaction") + `[data-emoji="🚀"]`)
	if pill.AttrOr("aria-label", "") != "Rocket: 1 person" {
		t.Errorf("bob sees the rocket as %q", pill.AttrOr("aria-label", ""))
	}
}

// TestSearchingThePickerWithHTMX: the picker htmx opens has the search
// box, which asks for the emoji alone as one types (with q, even empty)
// and gets them alone: no page, no box, so the box keeps the focus and
// what was typed; an empty search brings the groups back.
func TestSearchingThePickerWithHTMX(t *testing.T) {
	t.Parallel()
	ann, _, picker := aPicker(t)
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}

	open := ann.Get(picker, hx...).Doc(t)
	search := open.Find(testID("chat-react-search"))
	box := search.Find(`input[name="q"]`)
	if search.AttrOr("hx-get", "") != picker || search.AttrOr("hx-target", "") != "#m-2-emoji" || search.AttrOr("hx-swap", "") != "outerHTML" ||
		!strings.Contains(search.AttrOr("hx-trigger", ""), "delay:") || box.Length() != 1 || box.AttrOr("autofocus", "no") == "no" ||
		open.Find("#m-2-emoji").Length() != 1 || open.Find(`label[for="`+box.AttrOr("id", "")+`"]`).Text() != "Search emoji" {
		t.Fatalf("the picker htmx opens: search %q → %q, box %d", search.AttrOr("hx-get", ""), search.AttrOr("hx-target", ""), box.Length())
	}

	for _, c := range []struct {
		q      string
		groups int
		want   string
	}{{"heart", 1, "❤️"}, {"", 5, "🚀"}} {
		res := ann.Get(picker+"?q="+url.QueryEscape(c.q), hx...)
		doc := res.Doc(t)
		grid := doc.Find("body").Children()
		if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || grid.Length() != 1 || grid.AttrOr("id", "") != "m-2-emoji" ||
			doc.Find("form, input").Length() != 0 || doc.Find(`[role="group"]`).Length() != c.groups || doc.Find(`button[value="`+c.want+`"]`).Length() != 1 {
			t.Errorf("htmx search %q: %d, %d groups: %s", c.q, res.StatusCode, doc.Find(`[role="group"]`).Length(), res.Body)
		}
	}
	res := ann.Get(picker+"?q=zebra", hx...)
	if doc := res.Doc(t); res.StatusCode != http.StatusOK || doc.Find(testID("chat-react-none")).Length() != 1 || doc.Find("input").Length() != 0 {
		t.Errorf("htmx search with no match: %d %s", res.StatusCode, res.Body)
	}
}

// TestABadPickerSearch: a search the form rules refuse (too long, a
// control character, broken UTF-8) is answered with a 400 that says why,
// on the page without JavaScript and in place of the emoji with htmx,
// never a 500, and writes nothing.
func TestABadPickerSearch(t *testing.T) {
	t.Parallel()
	ann, _, picker := aPicker(t)
	for _, c := range []struct{ name, q, want string }{
		{"too long", strings.Repeat("heart ", 10), "Use at most 40 characters."},
		{"a control character", "he\x1bart", "Remove the invisible control characters"},
		{"broken UTF-8", "he\xffart", "not valid UTF-8"},
	} {
		for _, headers := range [][]string{nil, {"HX-Request", "true", "HX-Request-Type", "partial"}} {
			res := ann.Get(picker+"?q="+url.QueryEscape(c.q), headers...)
			doc := res.Doc(t)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Find(testID("chat-react-problem")).Text(), c.want) ||
				len(choices(doc.Selection)) != 0 || res.Writes(t) != 0 {
				t.Errorf("%s (htmx %v): %d %q", c.name, headers != nil, res.StatusCode, doc.Find(testID("chat-react-problem")).Text())
			}
			if headers == nil && doc.Find(testID("chat-react-q")).AttrOr("aria-invalid", "") != "true" {
				t.Errorf("%s: the box is not marked invalid", c.name)
			}
		}
	}
}

// aPicker is ann and bob signed in, bob's message in the general room
// (2, after his joining) and its picker.
func aPicker(t *testing.T) (ann, bob *webtest.Client, picker string) {
	ann, bob = newApp(t).annAndBob()
	post(bob, "/chat/room-general/messages", url.Values{"body": {"coffee first?"}})
	return ann, bob, "/chat/room-general/messages/2/react"
}

// choices are the emoji a picker offers, in order.
func choices(s *goquery.Selection) []string {
	return s.Find(testID("chat-react-choice")).Map(func(_ int, b *goquery.Selection) string { return b.AttrOr("value", "") })
}

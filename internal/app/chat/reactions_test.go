package chat_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestReactions: a reader answers a message with an emoji and takes it
// back by choosing it again; everyone sees the count, and the reader's
// own is pressed; the open pages get the change live; a reaction is no
// message (no unread, no list entry); a deletion takes the reactions
// with it; a reaction outside the choice, to a system line, to a deleted
// or missing message is refused and writes nothing; reactions have their
// own budget, so they never use up a person's messages.
func TestReactions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	post(bob, room+"/messages", url.Values{"body": {"bob here"}}) // 1 joined, 2
	post(ann, room+"/messages", url.Values{"body": {"ann here"}}) // 3 joined, 4
	events, stop := openStream(t, bob, room+"/stream?after=4", "")
	defer stop()
	react := func(c *webtest.Client, seq, emoji string) *webtest.Response {
		return post(c, room+"/messages/"+seq+"/react", url.Values{"emoji": {emoji}})
	}
	pill := func(c *webtest.Client, seq, emoji string) *goquery.Selection {
		return c.Get(room).Doc(t).Find("#m-" + seq + " " + testID("chat-reaction") + `[data-emoji="` + emoji + `"]`)
	}

	res := react(ann, "2", "👍")
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "#m-2") {
		t.Fatalf("react: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if ev := next(t, events, 1)[0]; ev.ID != "5" || !strings.Contains(ev.Data, `hx-swap-oob="outerMorph"`) || !strings.Contains(ev.Data, `id="m-2"`) || !strings.Contains(ev.Data, "👍 1") {
		t.Fatalf("the reaction on the stream: %+v", ev)
	}
	if p := pill(bob, "2", "👍"); !strings.Contains(p.Text(), "1") || p.AttrOr("aria-pressed", "") != "false" {
		t.Fatalf("bob sees %q pressed=%s", p.Text(), p.AttrOr("aria-pressed", ""))
	}
	if p := pill(ann, "2", "👍"); p.AttrOr("aria-pressed", "") != "true" || p.AttrOr("aria-label", "") != "Thumbs up: 1 person" {
		t.Fatalf("ann sees pressed=%s %q", p.AttrOr("aria-pressed", ""), p.AttrOr("aria-label", ""))
	}
	react(bob, "2", "👍")
	if p := pill(ann, "2", "👍"); !strings.Contains(p.Text(), "2") || p.AttrOr("aria-label", "") != "Thumbs up: 2 people" {
		t.Fatalf("after bob's: %q", p.AttrOr("aria-label", ""))
	}
	// htmx swaps the message for itself: ann takes hers back.
	frag := ann.PostForm(room+"/messages/2/react", ann.WithCSRF("/chat", url.Values{"emoji": {"👍"}}), "HX-Request", "true", "HX-Request-Type", "partial")
	doc := frag.Doc(t)
	if frag.StatusCode != http.StatusOK || strings.Contains(frag.Body, "<html") || doc.Find("li#m-2").Length() != 1 ||
		doc.Find(testID("chat-reaction")+`[data-emoji="👍"]`).AttrOr("aria-pressed", "") != "false" || !strings.Contains(doc.Find(testID("chat-reaction")).Text(), "1") {
		t.Fatalf("htmx: %d %s", frag.StatusCode, frag.Body)
	}
	// A reaction is not a message: bob's leave ann nothing unread, and
	// the room lists its two messages.
	general := ann.Get("/chat").Doc(t).Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Find(`a[href="`+room+`"]`).Length() == 1
	})
	if general.Length() != 1 || general.Find(testID("chat-unread")).Length() != 0 {
		t.Errorf("ann's unread after bob's reaction: %d rows, %q", general.Length(), general.Find(testID("chat-unread")).Text())
	}
	if n := bob.Get(room).Doc(t).Find(testID("chat-message")).Length(); n != 2 {
		t.Errorf("the room lists %d messages", n)
	}

	for _, bad := range []struct {
		seq, emoji string
		want       int
	}{{"2", "💩", http.StatusBadRequest}, {"2", "", http.StatusBadRequest}, {"1", "👍", http.StatusNotFound}, {"99", "👍", http.StatusNotFound}, {"x", "👍", http.StatusNotFound}} {
		if res := react(bob, bad.seq, bad.emoji); res.StatusCode != bad.want || res.Writes(t) != 0 {
			t.Errorf("react %s %q: %d (%d writes), want %d", bad.seq, bad.emoji, res.StatusCode, res.Writes(t), bad.want)
		}
	}

	// A deleted message loses its reactions and takes no more.
	react(bob, "4", "😂")
	if res := post(ann, room+"/messages/4/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if n := bob.Get(room).Doc(t).Find("#m-4 " + testID("chat-reaction")).Length(); n != 0 {
		t.Errorf("the deleted message shows %d reactions", n)
	}
	if res := react(bob, "4", "😂"); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a reaction to a deleted message: %d", res.StatusCode)
	}

	// Reactions have a budget of their own.
	a.Clock.Advance(time.Minute)
	var last *webtest.Response
	for range 6 {
		last = react(bob, "2", "🎉")
	}
	if last.StatusCode != http.StatusTooManyRequests || last.Writes(t) != 0 {
		t.Errorf("the sixth reaction in 10 s: %d", last.StatusCode)
	}
	if res := post(bob, room+"/messages", url.Values{"body": {"still talking"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a message after many reactions: %d", res.StatusCode)
	}
}

// TestTheReactionPicker: "More emoji" opens every emoji in groups (with
// htmx under the message's fold, without JavaScript a page of its own
// that comes back to the chat at the message); one of the picker's
// answers the message like the named ones, named in the reader's
// language; an emoji outside them all is refused and writes nothing; a
// visitor and a system line get no picker.
func TestTheReactionPicker(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	post(bob, room+"/messages", url.Values{"body": {"launch day!"}}) // 1 joined, 2
	more := ann.Get(room).Doc(t).Find("#m-2 " + testID("chat-react-more"))
	picker, _ := more.Attr("href")
	if picker != room+"/messages/2/react" || more.AttrOr("hx-get", "") != picker {
		t.Fatalf("the message's More emoji: %q", picker)
	}
	frag := ann.Get(picker, "HX-Request", "true", "HX-Request-Type", "partial")
	doc := frag.Doc(t)
	if frag.StatusCode != http.StatusOK || strings.Contains(frag.Body, "<html") || doc.Find(`[role="group"]`).Length() != 5 ||
		doc.Find(testID("chat-react-picker")).AttrOr("hx-post", "") != picker || doc.Find(`button[value="🚀"]`).Length() != 1 {
		t.Fatalf("the picker with htmx: %d, %d groups", frag.StatusCode, doc.Find(`[role="group"]`).Length())
	}
	page := ann.Get(picker)
	if d := page.Doc(t); page.StatusCode != http.StatusOK || d.Find(testID("chat-picker-page")).Length() != 1 ||
		d.Find(testID("chat-react-picker")).AttrOr("hx-post", "") != "" || d.Find(`a[href="`+room+`#m-2"]`).Length() != 1 {
		t.Fatalf("the picker's page: %d", page.StatusCode)
	}
	if res := post(ann, picker, url.Values{"emoji": {"🚀"}}); res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "#m-2") {
		t.Fatalf("a picker's emoji: %d", res.StatusCode)
	}
	pill := bob.Get(room).Doc(t).Find("#m-2 " + testID("chat-reaction") + `[data-emoji="🚀"]`)
	if !strings.Contains(pill.Text(), "1") || pill.AttrOr("aria-label", "") != "Rocket: 1 person" {
		t.Errorf("bob sees the rocket as %q, %q", pill.Text(), pill.AttrOr("aria-label", ""))
	}
	if res := post(ann, picker, url.Values{"emoji": {"🦖"}}); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("an emoji outside the picker: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := ann.Get(room + "/messages/1/react"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the picker of a system line: %d", res.StatusCode)
	}
	if res := a.Client().Get(picker); res.StatusCode == http.StatusOK {
		t.Errorf("a visitor's picker: %d", res.StatusCode)
	}
}

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

// TestMuting: someone away hears of a private message; once they mute
// the chat they hear of no more, though reading it keeps the mute, and
// their list shows it muted with its count in grey; a mention in a room
// they muted still reaches them; unmuted, messages reach them again.
// Muting twice writes nothing; a chat they may not read is refused and
// writes nothing.
func TestMuting(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	notices := func() int { return a.Inbox(bob).Length() }
	mute := func(path, on string) *webtest.Response { return post(bob, path+"/mute", url.Values{"mute": {on}}) }
	item := func(name string) *goquery.Selection {
		return bob.Get("/chat").Doc(t).Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.TrimSpace(s.Find(".row-title a").Text()) == name
		})
	}

	post(ann, dm+"/messages", url.Values{"body": {"are you there?"}})
	if n := notices(); n != 1 {
		t.Fatalf("before muting: %d notices", n)
	}
	if res := mute(dm, "true"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != dm {
		t.Fatalf("mute: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res := mute(dm, "true"); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 0 {
		t.Errorf("muting again: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if got := bob.Get(dm).Doc(t).Find(testID("chat-mute")).AttrOr("data-level", ""); got != "muted" {
		t.Errorf("the chat's page: level=%q", got)
	}
	// Reading the chat moves bob's marker: the mute stays.
	a.Clock.Advance(time.Hour)
	post(ann, dm+"/messages", url.Values{"body": {"an hour later"}})
	post(ann, dm+"/messages", url.Values{"body": {"hello?"}})
	if n := notices(); n != 1 {
		t.Errorf("muted: %d notices", n)
	}
	it := item("ann")
	if it.AttrOr("data-muted", "") != "true" || it.Find(testID("chat-muted")).Length() != 1 || !it.Find(testID("chat-unread")).HasClass("badge-plain") {
		t.Errorf("the list does not show the chat muted with a grey count: %q", it.Text())
	}
	if item("#general").AttrOr("data-muted", "") != "false" {
		t.Error("another chat shows muted")
	}

	// A mention in a muted room still reaches him.
	room := "/chat/room-general"
	bob.Get(room)
	mute(room, "true")
	a.Clock.Advance(time.Hour)
	post(cat, room+"/messages", url.Values{"body": {"@bob the slides are up"}})
	if items := a.Inbox(bob); items.Length() != 2 || !strings.Contains(items.Text(), "mentioned you") {
		t.Errorf("a mention in a muted room: %d %q", items.Length(), items.Text())
	}

	if res := mute(dm, "false"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unmute: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	post(ann, dm+"/messages", url.Values{"body": {"back?"}})
	if n := notices(); n != 3 {
		t.Errorf("unmuted: %d notices, want 3", n)
	}

	// A private chat of two others is not bob's to mute.
	other := post(ann, "/chat/private", url.Values{"member": {catKey}}).Header.Get("Location")
	if res := mute(other, "true"); res.StatusCode < 400 || res.Writes(t) != 0 {
		t.Errorf("muting someone else's chat: %d, %d writes", res.StatusCode, res.Writes(t))
	}
}

// A mute for a span ends by itself: muted for an hour, the chat's page
// says until when (in the reader's zone), and its messages send no
// notice; an hour on, they do again and the list no longer marks it. A
// span the menu does not offer is refused and writes nothing.
func TestAMuteForAnHourEnds(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	notices := func() int { return a.Inbox(bob).Length() }
	for _, bad := range []string{"2h", "forever", "1h\x00"} {
		if res := post(bob, dm+"/mute", url.Values{"mute": {bad}}); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
			t.Errorf("mute %q: %d, %d writes", bad, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(bob, dm+"/mute", url.Values{"mute": {"1h"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mute for an hour: %d", res.StatusCode)
	}
	menu := bob.Get(dm).Doc(t).Find(testID("chat-mute"))
	if menu.AttrOr("data-level", "") != "muted" || !strings.Contains(menu.Find("summary").Text(), "Muted until") || menu.Find(testID("mute-off")).Length() != 1 {
		t.Errorf("the chat's mute menu: %q", menu.Text())
	}
	post(ann, dm+"/messages", url.Values{"body": {"are you there?"}})
	if n := notices(); n != 0 {
		t.Errorf("within the hour: %d notices", n)
	}
	a.Clock.Advance(61 * time.Minute)
	post(ann, dm+"/messages", url.Values{"body": {"now?"}})
	if n := notices(); n != 1 {
		t.Errorf("after the hour: %d notices", n)
	}
	if muted := bob.Get("/chat").Doc(t).Find(testID("chat-item") + `[data-muted="true"]`).Length(); muted != 0 {
		t.Errorf("the list still marks %d chats muted", muted)
	}
	if got := bob.Get(dm).Doc(t).Find(testID("chat-mute")).AttrOr("data-level", ""); got != "on" {
		t.Errorf("after the hour the menu says %q", got)
	}
}

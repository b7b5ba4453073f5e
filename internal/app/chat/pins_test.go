package chat_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// TestPinnedMessages: in a room an admin pins a message, and everyone
// who opens the room sees it under "Pinned messages" (a quote leading to
// it) and marked, live on an open page; anyone else is refused, and
// nothing is written. Pinning again changes nothing; unpinning takes it
// off. In a private chat either person pins; one pin past ten is
// refused; deleting a pinned message unpins it. What is not a live
// message of the chat cannot be pinned.
func TestPinnedMessages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, org := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(org, "org@example.com")
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"Rules: be **kind**"}})
	rules := seqOf(t, ann, room, "Rules")
	pins := func(path string) []string {
		var out []string
		bob.Get(path).Doc(t).Find(testID("chat-pins") + ":not([hidden]) " + testID("chat-quote")).Each(func(_ int, q *goquery.Selection) {
			out = append(out, q.Find(".chat-quote-text").Text())
		})
		return out
	}

	// Ann is no admin: no "Pin" for her in a room, and her pin is refused.
	if ann.Get(room).Doc(t).Find(testID("chat-pin")).Length() != 0 {
		t.Error("a member is offered to pin in a room")
	}
	if res := post(ann, room+"/messages/"+rules+"/pin", nil); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("a member's pin in a room: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	events, stop := openStream(t, bob, room+"/stream?after="+rules, "")
	defer stop()
	if res := post(org, room+"/messages/"+rules+"/pin", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the admin's pin: %d", res.StatusCode)
	}
	if got := pins(room); strings.Join(got, "|") != "Rules: be kind" {
		t.Fatalf("the pinned messages: %q", got)
	}
	if bob.Get(room).Doc(t).Find("#m-"+rules+" "+testID("chat-pinned")).Length() != 1 {
		t.Error("the pinned message is not marked")
	}
	if ev := next(t, events, 1)[0]; !strings.Contains(ev.Data, `id="chat-pins"`) || !strings.Contains(ev.Data, `hx-swap-oob="true"`) || !strings.Contains(ev.Data, `data-testid="chat-pinned"`) {
		t.Fatalf("the pin on the stream: %+v", ev)
	}
	if ru := bob.Get(room, "Accept-Language", "ru").Doc(t); !strings.Contains(ru.Find(testID("chat-pins")+" summary").Text(), "Закреплённые сообщения (1)") {
		t.Errorf("the Russian list: %q", ru.Find(testID("chat-pins")+" summary").Text())
	}
	if res := post(org, room+"/messages/"+rules+"/pin", nil); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 0 {
		t.Errorf("pinning again: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := post(org, room+"/messages/"+rules+"/unpin", nil); res.StatusCode != http.StatusSeeOther || len(pins(room)) != 0 {
		t.Fatalf("unpin: %d, %q", res.StatusCode, pins(room))
	}
	for _, seq := range []string{"99", "x", "1"} { // 1 is ann's "joined" line
		if res := post(org, room+"/messages/"+seq+"/pin", nil); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("pinning %s: %d", seq, res.StatusCode)
		}
	}

	// A private chat: either person pins; ten at most.
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	var seqs []string
	for i := 1; i <= 11; i++ {
		who := ann
		if i%2 == 0 {
			who = bob
		}
		post(who, dm+"/messages", url.Values{"body": {"note " + strconv.Itoa(i)}})
		seqs = append(seqs, seqOf(t, ann, dm, "note "+strconv.Itoa(i)))
		a.Clock.Advance(2 * time.Second)
	}
	for i, seq := range seqs[:10] {
		who := ann
		if i%2 == 1 {
			who = bob
		}
		if res := post(who, dm+"/messages/"+seq+"/pin", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("pin %d in the private chat: %d", i+1, res.StatusCode)
		}
	}
	if got := pins(dm); len(got) != 10 || got[0] != "note 10" {
		t.Fatalf("ten pinned, the latest first: %q", got)
	}
	if res := post(bob, dm+"/messages/"+seqs[10]+"/pin", nil); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 || !strings.Contains(res.Body, "at most 10 pinned") {
		t.Fatalf("the eleventh pin: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// Deleting a pinned message unpins it.
	if res := post(ann, dm+"/messages/"+seqs[0]+"/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if got := pins(dm); len(got) != 9 || slices.Contains(got, "note 1") {
		t.Fatalf("after deleting a pinned message: %q", got)
	}
	if res := post(bob, dm+"/messages/"+seqs[10]+"/pin", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a pin once there is room: %d", res.StatusCode)
	}
}

// TestExpiredPinsMakeRoom: pinned messages no longer kept (expired) show
// no more, and when the list is full they leave it to make room for a
// new pin, which would otherwise be refused.
func TestExpiredPinsMakeRoom(t *testing.T) {
	t.Parallel()
	a := newApp(t, "MESSAGES_TTL", "1h")
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	for i := 1; i <= 10; i++ {
		post(ann, dm+"/messages", url.Values{"body": {"old " + strconv.Itoa(i)}})
		if res := post(ann, dm+"/messages/"+seqOf(t, ann, dm, "old "+strconv.Itoa(i))+"/pin", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("pin %d: %d", i, res.StatusCode)
		}
		a.Clock.Advance(2 * time.Second)
	}
	post(ann, dm+"/messages", url.Values{"body": {"fresh"}})
	fresh := seqOf(t, ann, dm, "fresh")
	if res := post(ann, dm+"/messages/"+fresh+"/pin", nil); res.StatusCode != http.StatusConflict {
		t.Fatalf("an eleventh pin: %d", res.StatusCode)
	}
	// An hour later the ten are gone; a new message can be pinned.
	a.Clock.Advance(61 * time.Minute)
	post(ann, dm+"/messages", url.Values{"body": {"newer"}})
	if n := ann.Get(dm).Doc(t).Find(testID("chat-pins") + " " + testID("chat-quote")).Length(); n != 0 {
		t.Fatalf("%d pinned messages shown, all expired", n)
	}
	if res := post(ann, dm+"/messages/"+seqOf(t, ann, dm, "newer")+"/pin", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a pin once the old ones expired: %d", res.StatusCode)
	}
	var shown []string
	ann.Get(dm).Doc(t).Find(testID("chat-pins") + " .chat-quote-text").Each(func(_ int, s *goquery.Selection) { shown = append(shown, s.Text()) })
	if strings.Join(shown, "|") != "newer" {
		t.Fatalf("pinned now: %q", shown)
	}
}

package chat_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/live/livetest"
)

// TestTypingShowsToTheOthers: someone writing in a chat's box shows to
// the others reading it ("ann is typing…"), not to themselves; a note
// within TypingEvery of their last publishes nothing; their message
// arriving takes them off at once; a note older than TypingFor is no
// longer shown; two people typing are named both; someone who cannot
// open the chat is refused.
func TestTypingShowsToTheOthers(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	carol := a.Client()
	a.SignIn(carol, "carol@example.com")
	const room = "/chat/room-general"

	published := typingNotes(t, a, "room-general")

	events, _ := openStream(t, bob, room+"/stream", "")
	typing := func(who string) string {
		t.Helper()
		for range 5 {
			ev := livetest.Next(t, events)
			if strings.Contains(ev.Data, `id="chat-typing"`) {
				return ev.Data
			}
		}
		t.Fatalf("%s: no typing line in bob's stream", who)
		return ""
	}
	if res := post(ann, room+"/typing", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("ann types: %d", res.StatusCode)
	}
	if line := typing("ann types"); !strings.Contains(line, "ann is typing…") {
		t.Fatalf("bob sees: %s", line)
	}
	if res := post(ann, room+"/typing", nil); res.StatusCode != http.StatusNoContent || published() != 1 {
		t.Fatalf("a second note at once: %d, %d published", res.StatusCode, published())
	}

	// Her message takes her off.
	if res := post(ann, room+"/messages", map[string][]string{"body": {"Hello"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann sends: %d", res.StatusCode)
	}
	if line := typing("ann sends"); strings.Contains(line, "typing…") {
		t.Fatalf("after her message bob still sees: %s", line)
	}

	// Two at once are named both; a note past TypingFor is not.
	a.Clock.Advance(chat.TypingEvery)
	post(ann, room+"/typing", nil)
	typing("ann again")
	post(carol, room+"/typing", nil)
	if line := typing("carol too"); !strings.Contains(line, "ann and carol are typing…") {
		t.Fatalf("two typing: %s", line)
	}
	a.Clock.Advance(chat.TypingFor + time.Second)
	post(carol, room+"/typing", nil)
	if line := typing("carol later"); !strings.Contains(line, "carol is typing…") || strings.Contains(line, "ann") {
		t.Fatalf("after ann's note aged: %s", line)
	}
	// Bob's own typing shows him nothing.
	post(bob, room+"/typing", nil)
	if line := typing("bob types"); strings.Contains(line, "bob") {
		t.Fatalf("bob sees himself: %s", line)
	}

	if res := a.Client().Get("/chat/nothing/typing"); res.StatusCode == http.StatusNoContent {
		t.Error("a GET of typing answered")
	}
	if res := post(ann, "/chat/dm-nobody/typing", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("typing in a chat that is not hers: %d", res.StatusCode)
	}
}

// TestTypingAndBlocks: in a private chat, someone who blocked the other
// shows them no typing (as they can send them nothing), and does not
// see the typing of whom they blocked.
func TestTypingAndBlocks(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(bob, "/chat/private", url.Values{"member": {annKey}}).Header.Get("Location")
	if !strings.HasPrefix(dm, "/chat/dm-") {
		t.Fatalf("the private chat: %q", dm)
	}
	if res := post(ann, "/chat/block", url.Values{"member": {bobKey}, "name": {"bob"}, "confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("block: %d", res.StatusCode)
	}
	published := typingNotes(t, a, strings.TrimPrefix(dm, "/chat/"))
	if res := post(ann, dm+"/typing", nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("ann types: %d", res.StatusCode)
	}
	if told := published(); told != 0 {
		t.Fatalf("ann, who blocked bob, told him she types (%d notes)", told)
	}
	events, _ := openStream(t, ann, dm+"/stream", "")
	post(bob, dm+"/typing", nil)
	for range 5 {
		ev := livetest.Next(t, events)
		if strings.Contains(ev.Data, `id="chat-typing"`) {
			if strings.Contains(ev.Data, "typing…") {
				t.Fatalf("ann sees whom she blocked typing: %s", ev.Data)
			}
			return
		}
	}
	t.Fatal("no typing line in ann's stream")
}

// typingNotes counts the typing notes published on chatID's topic from
// now on (on this instance: Publish tells its own subscribers at once).
func typingNotes(t *testing.T, a *app, chatID string) func() int {
	t.Helper()
	var mu sync.Mutex
	notes := 0
	sub := a.svc.Live().Subscribe(func(cs []live.Change) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cs {
			if strings.Contains(string(c.Payload), `"typing"`) {
				notes++
			}
		}
	}, "chat|"+chatID)
	t.Cleanup(func() { a.svc.Live().Unsubscribe(sub) })
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return notes
	}
}

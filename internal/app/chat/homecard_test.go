package chat_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// The home page shows a person's four most recent chats, as the chat
// list does: the newest first, with what they have not read and who is
// online; a fifth, older chat waits on /chat. Reading a chat clears its
// badge there; visitors and /groups get no card.
func TestHomeShowsRecentChats(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	card := func(c *webtest.Client, path string) *goquery.Selection {
		t.Helper()
		return c.Get(path).Doc(t).Find(testID("home-chat"))
	}
	shown := func() []string {
		t.Helper()
		var out []string
		card(ann, "/").Find(testID("chat-item")).Each(func(_ int, s *goquery.Selection) {
			out = append(out, strings.TrimSpace(s.Find(".row-title a").Text()+" "+s.Find(testID("chat-unread")).Text()))
		})
		return out
	}
	if got, want := shown(), []string{"#general", "#random"}; !slices.Equal(got, want) {
		t.Fatalf("a new person's card: %q, want the fixed rooms %q", got, want)
	}
	post(ann, "/chat/room-random/messages", url.Values{"body": {"Anyone here?"}})
	for _, name := range []string{"bob", "cat", "dan", "eve"} {
		a.Clock.Advance(time.Minute)
		c := a.Client()
		a.SignIn(c, name+"@example.com")
		res := post(c, "/chat/private", url.Values{"member": {annKey}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s's private chat: %d", name, res.StatusCode)
		}
		if res := post(c, res.Header.Get("Location")+"/messages", url.Values{"body": {"Hi Ann, it's " + name}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s's message: %d", name, res.StatusCode)
		}
		if name == "eve" {
			a.Clock.Advance(time.Minute)
			post(c, "/chat/room-general/messages", url.Values{"body": {"Morning, all"}})
		}
	}
	if got, want := shown(), []string{"#general 1 unread", "eve 1 unread", "dan 1 unread", "cat 1 unread"}; !slices.Equal(got, want) {
		t.Fatalf("ann's card: %q, want %q", got, want)
	}
	ann.Get("/chat/room-general")
	if got := shown(); len(got) != 4 || got[0] != "#general" {
		t.Fatalf("after reading #general: %q", got)
	}
	if n := ann.Get("/chat").Doc(t).Find(testID("chat-item")).Length(); n != 6 {
		t.Errorf("the chat list shows %d chats, want all 6", n)
	}
	if card(ann, "/groups").Length() != 0 || card(a.Client(), "/").Length() != 0 {
		t.Error("/groups or a visitor's home shows the chat card")
	}
	// Beside the page without cards (and the events card's one query):
	// the rooms, ann's list and whom she blocked (3 queries), the six
	// chats' heads (6 reads), and for the four shown, an unread count
	// where a chat has news (3 queries) and a private chat's row and
	// presence (6 reads).
	home, plain := ann.Get("/").StorageOps(t), ann.Get("/groups").StorageOps(t)
	if home["queries"]-plain["queries"] != 1+6 || home["reads"]-plain["reads"] != 12 || home["writes"] != 0 {
		t.Errorf("the card costs %v, the page without it %v", home, plain)
	}
}

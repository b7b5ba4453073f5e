package forum_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestWatching: a reader watches a topic from its page and hears of each
// reply in their inbox, once an hour at most; the author, watching too,
// hears once per reply (their own notice), and nobody hears of their own
// reply; stopping ends it. The reader's state costs the page no query.
// Watching a missing topic is a 404 that writes nothing.
func TestWatching(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	res := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Night trains"}, "body": {"Anyone tried the sleeper?"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")
	watch := func(c *webtest.Client, on string) *webtest.Response {
		return post(c, topic+"/watch", url.Values{"watch": {on}})
	}
	pressed := func(c *webtest.Client) string {
		return c.Get(topic).Doc(t).Find(testID("topic-watch")).AttrOr("aria-pressed", "")
	}
	if got := pressed(ann); got != "false" {
		t.Fatalf("before watching: pressed=%q", got)
	}
	if res := watch(ann, "true"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != topic {
		t.Fatalf("watch: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	page := ann.Get(topic)
	if got := page.Doc(t).Find(testID("topic-watch")).AttrOr("aria-pressed", ""); got != "true" {
		t.Fatalf("after watching: pressed=%q", got)
	}
	if q := page.StorageOps(t)["queries"]; q > 3 { // posts, likes, and the inbox's badge
		t.Errorf("the topic page costs %d queries", q)
	}
	watch(bob, "true") // the author, told of replies anyway
	a.Inbox(ann)       // what came before

	a.Clock.Advance(time.Minute)
	post(cat, topic+"/replies", url.Values{"body": {"Yes, the Caledonian: book a cabin early."}})
	post(ann, topic+"/replies", url.Values{"body": {"Thanks!"}})
	if items := a.Inbox(ann); items.Length() != 1 || !strings.Contains(items.Text(), "replied in “Night trains”") || !strings.Contains(items.Text(), "Caledonian") {
		t.Fatalf("ann's inbox: %d %q", items.Length(), items.Text())
	}
	if items := a.Inbox(bob); items.Length() != 1 || !strings.Contains(items.Text(), "replied to your topic") {
		t.Fatalf("bob, the author, watching too: %d %q", items.Length(), items.Text())
	}
	// Within the hour another reply adds nothing; the next hour's does.
	post(cat, topic+"/replies", url.Values{"body": {"And bring earplugs."}})
	if n := a.Inbox(ann).Length(); n != 1 {
		t.Errorf("a second reply in the hour: %d notices", n)
	}
	if res := watch(ann, "false"); res.StatusCode != http.StatusSeeOther || pressed(ann) != "false" {
		t.Fatalf("stop watching: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	post(cat, topic+"/replies", url.Values{"body": {"One more tip: the lounge car."}})
	if n := a.Inbox(ann).Length(); n != 1 {
		t.Errorf("after she stopped watching: %d notices", n)
	}

	res = post(ann, "/forum/t/01ARZ3NDEKTSV4RRFFQ69G5FAV/watch", url.Values{"watch": {"true"}})
	if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("watching a missing topic: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := a.Client().PostForm(topic+"/watch", url.Values{"watch": {"true"}}); res.StatusCode < 400 {
		t.Errorf("a visitor watches: %d", res.StatusCode)
	}
}

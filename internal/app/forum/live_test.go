package forum_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/live/livetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

// partial are the headers of an htmx request that swaps part of a page.
var partial = []string{"HX-Request", "true", "HX-Request-Type", "partial"}

// TestFollowingATopicLive: a signed-in reader at a topic's last post
// follows it; a reply reaches their stream as a "replies" event, the bar
// then offers the new reply, and its button appends it (marking it read)
// with a bar that offers nothing more. Visitors and bad positions follow
// nothing.
func TestFollowingATopicLive(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	visitor := a.Client()
	res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Live topic"}, "body": {"Opening post"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")

	page := bob.Get(topic).Doc(t)
	stream, _ := page.Find(testID("topic-stream")).Attr("hx-sse:connect")
	if stream != topic+"/stream?after=1" || page.Find(testID("topic-live-show")).Length() != 0 {
		t.Fatalf("bob's page follows %q, with a bar of %q", stream, page.Find(testID("topic-live")).Text())
	}
	if visitor.Get(topic).Doc(t).Find(testID("topic-stream")).Length() != 0 {
		t.Error("a visitor's page opens a stream")
	}
	if status, _, _ := livetest.Open(t, visitor, topic+"/stream?after=1"); status == http.StatusOK {
		t.Error("a visitor opens a topic stream")
	}
	for _, bad := range []string{"?after=0", "?after=x", "?after=2", ""} {
		if status, _, _ := livetest.Open(t, bob, topic+"/stream"+bad); status != http.StatusBadRequest {
			t.Errorf("stream%s: %d", bad, status)
		}
	}

	_, events, stop := livetest.Open(t, bob, stream)
	defer stop()
	select {
	case ev := <-events:
		t.Fatalf("a quiet topic's stream said %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
	a.Clock.Advance(time.Minute)
	if res := post(ann, topic+"/replies", url.Values{"body": {"A reply while Bob reads"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reply: %d", res.StatusCode)
	}
	if ev := livetest.Next(t, events); ev.Name != "replies" || strings.Contains(ev.Data, "Bob reads") {
		t.Fatalf("the reply on bob's stream: %+v", ev)
	}

	// The bar the event asks for offers the reply; in Russian too.
	bar := page.Find(testID("topic-live"))
	barURL, _ := bar.Attr("hx-get")
	got := bob.Get(barURL, partial...)
	show := got.Doc(t).Find(testID("topic-live-show"))
	if got.StatusCode != http.StatusOK || strings.TrimSpace(show.Text()) != "Show 1 new reply" || got.Writes(t) != 0 {
		t.Fatalf("the bar: %d %q", got.StatusCode, got.Body)
	}
	if ru := bob.Get(barURL, append(partial, "Accept-Language", "ru")...).Doc(t); strings.TrimSpace(ru.Find(testID("topic-live-show")).Text()) != "Показать 1 новый ответ" {
		t.Errorf("the bar in Russian: %q", ru.Text())
	}
	if res := visitor.Get(barURL, partial...); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a visitor's bar: %d", res.StatusCode)
	}
	// Its button appends the reply, and the bar anew, out of band.
	showURL, _ := show.Attr("hx-get")
	got = bob.Get(showURL, partial...)
	doc := got.Doc(t)
	if got.StatusCode != http.StatusOK || doc.Find(testID("post")).Length() != 1 || !strings.Contains(doc.Find(testID("post")).Text(), "A reply while Bob reads") {
		t.Fatalf("the appended posts: %d %q", got.StatusCode, got.Body)
	}
	if oob, _ := doc.Find(testID("topic-live")).Attr("hx-swap-oob"); oob != "true" || doc.Find(testID("topic-live-show")).Length() != 0 {
		t.Fatalf("the bar after the reply is shown: %q", got.Body)
	}
	if next, _ := doc.Find(testID("topic-live")).Attr("hx-get"); !strings.HasSuffix(next, "after=2") {
		t.Errorf("the new bar asks from %q", next)
	}
	if d := bob.Get("/forum/talk").Doc(t); d.Find(testID("topic-unread")).Length() != 0 {
		t.Errorf("the appended reply is still unread: %q", d.Find(testID("topic-row")).Text())
	}

	// A stream opened after replies came says so at once.
	_, late, stopLate := livetest.Open(t, bob, topic+"/stream?after=1")
	defer stopLate()
	if ev := livetest.Next(t, late); ev.Name != "replies" {
		t.Fatalf("a late stream: %+v", ev)
	}
}

// TestTopicStreamsAreBounded: one person holds at most eight topic
// streams open; the ninth is 429, and closing one lets the next in.
func TestTopicStreamsAreBounded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Many tabs"}, "body": {"Opening post"}})
	topic := res.Header.Get("Location")
	var stops []func()
	for range 8 {
		if status, _, stop := livetest.Open(t, bob, topic+"/stream?after=1"); status == http.StatusOK {
			stops = append(stops, stop)
		}
	}
	if len(stops) != 8 {
		t.Fatalf("%d of 8 streams opened", len(stops))
	}
	if status, _, _ := livetest.Open(t, bob, topic+"/stream?after=1"); status != http.StatusTooManyRequests {
		t.Fatalf("a ninth stream: %d", status)
	}
	if status, _, _ := livetest.Open(t, ann, topic+"/stream?after=1"); status != http.StatusOK {
		t.Fatalf("ann's stream beside bob's eight: %d", status)
	}
	stops[0]()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status, _, stop := livetest.Open(t, bob, topic+"/stream?after=1")
		stop()
		if status != http.StatusTooManyRequests {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed stream's place is never freed")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFollowingASectionLive: a signed-in reader's first page of a section
// follows it; each topic opened or replied to there that the bar has not
// counted yet sends the bar anew, linking to the section's first page; a
// second reply to a counted topic, or a topic in another section, sends
// nothing. Visitors and later pages follow nothing.
func TestFollowingASectionLive(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	addSection(t, boss, "other", "Other")
	visitor := a.Client()
	a.Clock.Advance(25 * time.Hour) // past a new account's first day and its limits
	res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Older topic"}, "body": {"Opening post"}})
	older := res.Header.Get("Location")

	page := bob.Get("/forum/talk").Doc(t)
	stream, _ := page.Find(testID("section-live")).Attr("hx-sse:connect")
	if stream != "/forum/talk/stream" {
		t.Fatalf("bob's section page follows %q", stream)
	}
	if visitor.Get("/forum/talk").Doc(t).Find(testID("section-live")).Length() != 0 {
		t.Error("a visitor's section page opens a stream")
	}
	if status, _, _ := livetest.Open(t, visitor, stream); status == http.StatusOK {
		t.Error("a visitor opens a section stream")
	}
	if status, _, _ := livetest.Open(t, bob, "/forum/nope/stream"); status != http.StatusNotFound {
		t.Errorf("a section that is not there: %d", status)
	}
	_, events, stop := livetest.Open(t, bob, stream)
	defer stop()
	bar := func() string {
		t.Helper()
		ev := livetest.Next(t, events)
		if ev.Name != "" || !strings.Contains(ev.Data, `href="/forum/talk"`) {
			t.Fatalf("the bar's event: %+v", ev)
		}
		return ev.Data
	}
	a.Clock.Advance(time.Minute)
	mustPost(t, ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"A new topic"}, "body": {"Hello"}})
	if got := bar(); !strings.Contains(got, "Show 1 new or updated topic<") {
		t.Fatalf("after a new topic: %q", got)
	}
	a.Clock.Advance(time.Minute)
	mustPost(t, ann, older+"/replies", url.Values{"body": {"News in an older topic"}})
	if got := bar(); !strings.Contains(got, "Show 2 new or updated topics") {
		t.Fatalf("after a reply: %q", got)
	}
	a.Clock.Advance(time.Minute)
	mustPost(t, ann, older+"/replies", url.Values{"body": {"More news there"}})
	mustPost(t, ann, "/forum/topics", url.Values{"section": {"other"}, "title": {"Elsewhere"}, "body": {"Hello"}})
	a.Clock.Advance(time.Minute)
	mustPost(t, ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"A third topic"}, "body": {"Hello"}})
	if got := bar(); !strings.Contains(got, "Show 3 new or updated topics") {
		t.Fatalf("a counted topic's reply or another section's topic was counted: %q", got)
	}
}

// mustPost posts form to path as c, failing t unless it redirects.
func mustPost(t *testing.T, c *webtest.Client, path string, form url.Values) {
	t.Helper()
	if res := post(c, path, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s: %d", path, res.StatusCode)
	}
}

package forum_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/forum"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestBookmarks: a reader bookmarks posts from the topic page, where
// their bookmarks show at no cost (the page keeps its two queries), and
// finds them in /forum/bookmarks, newest first, each with its topic, its
// author and the start of the post, and a button that takes it away (and
// comes back to the list, never off the site). Bookmarks are the
// reader's own. A missing or hidden post, and one bookmark over the
// topic's bound, are refused and write nothing.
func TestBookmarks(t *testing.T) {
	t.Parallel()
	a := newApp(t, true)
	_, ann, bob := a.talkSection(t, "")
	ctx := context.Background()
	writer := forum.Person{MemberKey: "auth:writer", Name: "Writer", Admin: true}
	topic, err := a.svc.CreateTopic(ctx, writer, "talk", "Trains to Edinburgh", "Which train do you take?")
	if err != nil {
		t.Fatal(err)
	}
	id := topic.PartitionKey
	for i := range 24 {
		if _, err := a.svc.Reply(ctx, writer, id, fmt.Sprint("The 08:00 from King's Cross, reply ", i+2)); err != nil {
			t.Fatal(err)
		}
	}
	u := "/forum/t/" + id
	mark := func(num int, on bool) *http.Response {
		res := post(ann, fmt.Sprintf("%s/posts/%d/bookmark", u, num), url.Values{"bookmark": {fmt.Sprint(on)}})
		return res.Response
	}
	if res := mark(2, true); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != u+"?post=2#p2" {
		t.Fatalf("bookmark: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	a.Clock.Advance(time.Minute)
	mark(3, true)
	page := ann.Get(u)
	if q := page.StorageOps(t)["queries"]; q != 2 {
		t.Errorf("the topic page with bookmarks: %d queries", q)
	}
	buttons := page.Doc(t).Find(testID("post-bookmark"))
	if buttons.Length() < 3 || buttons.Eq(0).AttrOr("aria-pressed", "") != "false" || buttons.Eq(1).AttrOr("aria-pressed", "") != "true" || buttons.Eq(1).Find("svg[fill=currentColor]").Length() != 1 {
		t.Fatalf("the topic's bookmark buttons: %d, %q", buttons.Length(), buttons.Eq(1).Text())
	}

	list := ann.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark"))
	if list.Length() != 2 || !strings.Contains(list.Eq(0).Text(), "reply 3") || !strings.Contains(list.Eq(1).Text(), "reply 2") ||
		!strings.Contains(list.Eq(0).Text(), "Trains to Edinburgh") || !strings.Contains(list.Eq(0).Text(), "Writer") ||
		list.Eq(0).Find("a").AttrOr("href", "") != u+"?post=3#p3" {
		t.Fatalf("the bookmarks: %d %q", list.Length(), list.Text())
	}
	if n := bob.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark")).Length(); n != 0 {
		t.Errorf("bob sees %d of ann's bookmarks", n)
	}
	remove := func(next string) *http.Response {
		form := url.Values{"bookmark": {"false"}, "next": {next}}
		return post(ann, u+"/posts/3/bookmark", form).Response
	}
	if res := remove("/forum/bookmarks"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/forum/bookmarks" {
		t.Fatalf("remove: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if n := ann.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark")).Length(); n != 1 {
		t.Errorf("%d bookmarks after one was removed", n)
	}
	if res := remove("//evil.example/"); res.Header.Get("Location") != "/" {
		t.Errorf("a return address off the site: %s", res.Header.Get("Location"))
	}

	if err := a.svc.Hide(ctx, writer, id, 5, true); err != nil {
		t.Fatal(err)
	}
	for _, num := range []int{99, 5} {
		res := post(ann, fmt.Sprintf("%s/posts/%d/bookmark", u, num), url.Values{"bookmark": {"true"}})
		if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("bookmark post %d: %d (%d writes)", num, res.StatusCode, res.Writes(t))
		}
	}
	for num := 4; num <= 23; num++ {
		if num != 5 {
			mark(num, true)
		}
	}
	res := post(ann, u+"/posts/24/bookmark", url.Values{"bookmark": {"true"}})
	if res.StatusCode != http.StatusConflict || res.Writes(t) != 0 || !strings.Contains(res.Body, "up to 20 posts") {
		t.Errorf("one bookmark over the bound: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if n := ann.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark")).Length(); n != 20 {
		t.Errorf("%d bookmarks, want 20", n)
	}
}

// TestBookmarkReminders: a reader asks to be reminded of a bookmark; the
// list shows when, and when it is due a notice reaches their inbox, once,
// and the reminder goes. A reminder changed or taken off before it was
// due sends nothing at the old time. A choice that is none of the four,
// and a reminder of a post not bookmarked, are refused and write nothing.
func TestBookmarkReminders(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	res := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Night trains"}, "body": {"Anyone tried the sleeper?"}})
	topic := res.Header.Get("Location")
	post(bob, topic+"/replies", url.Values{"body": {"Book the Caledonian early."}})
	post(bob, topic+"/replies", url.Values{"body": {"And bring earplugs."}})
	post(ann, topic+"/posts/2/bookmark", url.Values{"bookmark": {"true"}})
	post(ann, topic+"/posts/3/bookmark", url.Values{"bookmark": {"true"}})
	remind := func(num int, when string) *webtest.Response {
		return post(ann, fmt.Sprintf("%s/posts/%d/remind", topic, num), url.Values{"when": {when}})
	}
	reminded := func() int {
		a.Inbox(ann)
		return strings.Count(ann.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "Reminder: your bookmark in “Night trains”")
	}

	if res := remind(2, "2h"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/forum/bookmarks" {
		t.Fatalf("remind: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	remind(3, "tomorrow")
	remind(3, "none") // taken off before it is due
	list := ann.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark"))
	if list.Find(testID("bookmark-reminder")).Length() != 1 || !strings.Contains(list.Find(testID("bookmark-reminder")).Text(), "Reminder") {
		t.Fatalf("the list shows %d reminders", list.Find(testID("bookmark-reminder")).Length())
	}
	if n := reminded(); n != 0 {
		t.Fatalf("a reminder came before it was due: %d", n)
	}
	a.Clock.Advance(2*time.Hour + time.Minute)
	if n := reminded(); n != 1 {
		t.Fatalf("two hours later: %d reminders", n)
	}
	if got := ann.Get("/forum/bookmarks").Doc(t).Find(testID("bookmark-reminder")).Length(); got != 0 {
		t.Error("a sent reminder still shows")
	}
	a.Clock.Advance(48 * time.Hour)
	if n := reminded(); n != 1 {
		t.Errorf("the reminder taken off was sent: %d reminders", n)
	}
	// Moved from two hours to tomorrow: nothing at two hours.
	remind(2, "2h")
	remind(2, "tomorrow")
	a.Clock.Advance(2*time.Hour + time.Minute)
	if n := reminded(); n != 1 {
		t.Errorf("a moved reminder came at its old time: %d", n)
	}

	if res := remind(2, "someday"); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("remind someday: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := remind(1, "2h"); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("remind of a post not bookmarked: %d, %d writes", res.StatusCode, res.Writes(t))
	}
}

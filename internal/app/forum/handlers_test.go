package forum_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/forum"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

type app struct {
	*accounttest.App
	svc   *forum.Service
	inbox *inbox.Service // nil when the forum is alone
}

// newApp is the forum on a test server, with the inbox unless alone (a
// page's storage budget then counts the forum's calls only: the inbox
// adds its unread count to every page).
func newApp(t *testing.T, alone ...bool) *app {
	return newAppOn(t, nil, alone...)
}

// newAppOn is newApp on a backend wrap wraps (nil: as it is).
func newAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend, alone ...bool) *app {
	a := &app{}
	var in *inbox.Service
	modules := []platform.Factory{a.forum(&in)}
	if len(alone) == 0 {
		modules = withInbox(&in, modules)
	}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: modules, Wrap: wrap})
	a.inbox = in
	return a
}

// forum is the forum module's factory, kept in a.svc, posting its
// notices to *in when the inbox came first.
func (a *app) forum(in **inbox.Service) platform.Factory {
	return func(c *platform.Core) (web.Module, error) {
		a.svc = forum.New(c.Store, c.Cursors, c.Log, c.Now)
		if *in != nil {
			a.svc.UseNotifier(*in)
		}
		a.svc.UseDirectory(c.Auth)
		a.svc.UsePeople(c.Accounts)
		a.svc.UseLive(c.Live, c.Auth)
		if err := a.svc.UseTasks(c.Tasks); err != nil {
			return nil, err
		}
		return a.svc, nil
	}
}

// withInbox puts the inbox module before modules, kept in *in.
func withInbox(in **inbox.Service, modules []platform.Factory) []platform.Factory {
	return append([]platform.Factory{func(c *platform.Core) (web.Module, error) {
		var err error
		*in, err = inbox.FromCore(c)
		return *in, err
	}}, modules...)
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func post(c *webtest.Client, path string, form url.Values) *webtest.Response {
	return c.PostForm(path, c.WithCSRF("/forum", form))
}

// talkSection signs in boss (an admin), ann and bob, and has boss add the
// section "talk" with moderators (emails, comma-separated; "" for none).
func (a *app) talkSection(t *testing.T, moderators string) (boss, ann, bob *webtest.Client) {
	t.Helper()
	boss, ann, bob = a.Client(), a.Client(), a.Client()
	a.SignIn(boss, "boss@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	if res := post(boss, "/admin/forum", url.Values{"slug": {"talk"}, "name": {"Talk"}, "moderators": {moderators}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the section talk: %d", res.StatusCode)
	}
	return boss, ann, bob
}

// addSection has the admin add the section slug.
func addSection(t *testing.T, admin *webtest.Client, slug, name string) {
	t.Helper()
	if res := post(admin, "/admin/forum", url.Values{"slug": {slug}, "name": {name}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the section %s: %d", slug, res.StatusCode)
	}
}

// writes counts a response's writes.
// TestForumFlowAndBadInput: an admin adds a section (a bad or taken slug
// is refused and writes nothing); a member opens a topic (a short title
// and an empty body come back with field errors and the draft, writing
// nothing); another replies with a quote and a mention; the first sees
// "1 new", gets an inbox notice and lands on the first unread post.
func TestForumFlowAndBadInput(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob, visitor := a.Client(), a.Client(), a.Client(), a.Client()
	a.SignIn(boss, "boss@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	if res := post(ann, "/admin/forum", url.Values{"slug": {"x"}, "name": {"X"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member adds a section: %d", res.StatusCode)
	}
	for _, bad := range []url.Values{
		{"slug": {"Bad Slug"}, "name": {"Talk"}},
		{"slug": {"talk"}, "name": {""}},
		{"slug": {"t"}, "name": {"Reserved"}},
		{"slug": {"talk"}, "name": {"Talk"}, "moderators": {"nobody@example.com"}},
	} {
		if res := post(boss, "/admin/forum", bad); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("add %v: %d", bad, res.StatusCode)
		}
	}
	if res := post(boss, "/admin/forum", url.Values{"slug": {"talk"}, "name": {"Talk"}, "moderators": {"ann@example.com"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d", res.StatusCode)
	}
	if res := post(boss, "/admin/forum", url.Values{"slug": {"talk"}, "name": {"Again"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("a taken slug: %d", res.StatusCode)
	}

	// A refused topic keeps the draft and writes nothing.
	res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Hi"}, "body": {"draft text"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Fatalf("a two-letter title: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if doc.Find("#topic-body").Text() != "draft text" || doc.Find("#topic-title-error").Length() != 1 {
		t.Fatalf("the draft or the error is lost: %q", doc.Find("#topic-body").Text())
	}
	if res := post(ann, "/forum/topics", url.Values{"section": {"nope"}, "title": {"Hello"}, "body": {"x"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a section that is not there: %d", res.StatusCode)
	}
	// A preview renders and writes nothing.
	res = post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Hello"}, "body": {"**bold**"}, "preview": {"1"}})
	if res.StatusCode != http.StatusOK || res.Writes(t) != 0 || !strings.Contains(res.Body, "<strong>bold</strong>") {
		t.Fatalf("preview: %d", res.StatusCode)
	}
	// A body past the form's limit is not rendered for a preview (its
	// Markdown would cost seconds): the form says why, the htmx preview
	// too.
	long := strings.Repeat("*a_", 6667) + "**bold**"
	res = post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Hello"}, "body": {long}, "preview": {"1"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || strings.Contains(res.Body, "<strong>bold</strong>") ||
		res.Doc(t).Find("#topic-body-error").Length() != 1 {
		t.Fatalf("a preview of a body too long: %d", res.StatusCode)
	}
	res = post(ann, "/forum/preview", url.Values{"body": {long}})
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(res.Body, "<strong>bold</strong>") || res.Doc(t).Find(`[role="alert"]`).Text() != "Write between 1 and 20,000 characters." {
		t.Fatalf("the htmx preview of a body too long: %d %s", res.StatusCode, res.Body)
	}
	res = post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Hello everyone"}, "body": {"First post"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d %s", res.StatusCode, res.Body)
	}
	topic := res.Header.Get("Location")

	// A visitor reads, and is asked to sign in to reply.
	if d := visitor.Get(topic).Doc(t); d.Find(testID("post")).Length() != 1 || d.Find(testID("sign-in-to-reply")).Length() != 1 {
		t.Fatal("a visitor's topic page")
	}
	// Bob quotes the opening post and mentions Ann.
	quote := bob.Get(topic + "/reply?quote=1").Doc(t).Find("#reply-body").Text()
	if !strings.Contains(quote, "> First post") {
		t.Fatalf("the quote: %q", quote)
	}
	if res := post(bob, topic+"/replies", url.Values{"body": {""}}); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("an empty reply: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Minute)
	res = post(bob, topic+"/replies", url.Values{"body": {quote + "Welcome @ann!"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reply: %d", res.StatusCode)
	}
	if d := ann.Get("/forum/talk").Doc(t); strings.TrimSpace(d.Find(testID("topic-unread")).Text()) != "1 new" {
		t.Fatalf("ann's section row: %q", d.Find(testID("topic-row")).Text())
	}
	home := ann.Get("/forum").Doc(t).Find(testID("forum-section"))
	if home.Find(testID("section-unread")).Length() != 1 || !strings.Contains(home.Text(), "1 topic") || !strings.Contains(home.Text(), "Hello everyone") {
		t.Fatalf("ann's forum home: %q", home.Text())
	}
	if bob.Get("/forum").Doc(t).Find(testID("section-unread")).Length() != 0 {
		t.Error("the section is unread for bob, who wrote last")
	}
	if items := a.Inbox(ann); items.Length() != 1 || !strings.Contains(items.Text(), "Hello everyone") {
		t.Fatalf("ann's inbox: %q", items.Text())
	}
	// More mentions in the hour add no notice (each may be mailed); the
	// next hour's first does.
	mentions := func() int { return a.Inbox(ann).Length() }
	for i := range 3 {
		a.Clock.Advance(time.Minute)
		post(bob, topic+"/replies", url.Values{"body": {fmt.Sprint("@ann ping ", i)}})
	}
	if n := mentions(); n != 1 {
		t.Fatalf("ann has %d notices after three more mentions in the hour", n)
	}
	a.Clock.Advance(time.Hour)
	post(bob, topic+"/replies", url.Values{"body": {"@ann an hour later"}})
	if n := mentions(); n != 2 {
		t.Fatalf("ann has %d notices after a mention an hour later", n)
	}
	// A browser's prefetch of the topic reads nothing; opening it does.
	ann.Get(topic, "Sec-Purpose", "prefetch")
	if d := ann.Get("/forum/talk").Doc(t); d.Find(testID("topic-unread")).Length() != 1 {
		t.Error("a prefetch read the topic")
	}
	d := ann.Get(topic).Doc(t)
	if d.Find(testID("first-unread")).Next().AttrOr("data-num", "") != "2" || d.Find("blockquote").Length() != 1 {
		t.Fatalf("ann does not land on post 2: %q", d.Find(testID("posts")).Text())
	}
	if d := ann.Get("/forum/talk").Doc(t); d.Find(testID("topic-unread")).Length() != 0 {
		t.Error("still unread after reading")
	}

	// Bad positions, cursors and ids.
	for path, want := range map[string]int{
		topic + "?post=abc":                           http.StatusBadRequest,
		topic + "?post=999":                           http.StatusBadRequest,
		"/forum/talk?cursor=broken":                   http.StatusBadRequest,
		"/forum/t/not-an-id":                          http.StatusNotFound,
		"/forum/nope":                                 http.StatusNotFound,
		topic + "/posts/9/history":                    http.StatusNotFound,
		"/forum/search?q=" + strings.Repeat("a", 201): http.StatusBadRequest,
	} {
		if res := ann.Get(path); res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	if res := visitor.PostForm(topic+"/replies", visitor.WithCSRF("/", url.Values{"body": {"hi"}})); res.StatusCode != http.StatusUnauthorized || res.Writes(t) != 0 {
		t.Errorf("a visitor replies: %d", res.StatusCode)
	}
	// Search finds it by a word's start, in any case, and marks it.
	if d := bob.Get("/forum/search?q=EVERY").Doc(t); d.Find(testID("topic-row")).Length() != 1 || d.Find(testID("topic-row")+" mark").Text() != "every" {
		t.Error("search by a word's start, marked")
	}
	// The feed lists it.
	for _, feed := range []string{"/forum/feed.xml", "/forum/talk/feed.xml"} {
		if res := visitor.Get(feed); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "<title>Hello everyone</title>") {
			t.Errorf("feed %s: %d %s", feed, res.StatusCode, res.Body)
		} else if v := strings.Join(res.Header.Values("Vary"), ", "); !strings.Contains(v, "Accept-Language") {
			t.Errorf("feed %s is in the reader's language but varies with %q", feed, v)
		}
	}
	if res := visitor.Get("/forum/nope/feed.xml"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the feed of a section that is not there: %d", res.StatusCode)
	}
}

// TestModerationOverHTTP: a section's moderator pins and locks; a member
// then sees no reply form and gets 403 replying; slow mode answers 429
// with the wait; a member's moderation is refused.
func TestModerationOverHTTP(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "ann@example.com")
	topic := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Slow down"}, "body": {"x"}}).Header.Get("Location")
	if res := post(bob, topic+"/lock", url.Values{"locked": {"true"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("a member locks: %d", res.StatusCode)
	}
	until := a.Clock.Now().Add(72 * time.Hour).Format(time.DateOnly)
	for path, form := range map[string]url.Values{
		"/pin":  {"pinned": {"true"}, "until": {until}},
		"/lock": {"locked": {"true"}},
	} {
		if res := post(ann, topic+path, form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("moderator %s: %d", path, res.StatusCode)
		}
	}
	d := bob.Get(topic).Doc(t)
	if d.Find(testID("reply-form")).Length() != 0 || d.Find(testID("topic-locked")).Length() != 1 || d.Find(testID("pinned-badge")).Length() != 1 {
		t.Fatal("a locked, pinned topic as a member sees it")
	}
	if res := post(bob, topic+"/replies", url.Values{"body": {"let me in"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("reply to a locked topic: %d", res.StatusCode)
	}
	if d := bob.Get("/forum/talk").Doc(t); d.Find(testID("topic-row")+`[data-pinned="true"]`).Length() != 1 {
		t.Error("the pin is not on the section page")
	}
	a.Clock.Advance(96 * time.Hour)
	if d := bob.Get("/forum/talk").Doc(t); d.Find(testID("topic-row")+`[data-pinned="true"]`).Length() != 0 {
		t.Error("the pin outlived its day")
	}
	post(ann, topic+"/lock", url.Values{"locked": {"false"}})
	for _, bad := range []string{"-1", "abc", "100000"} {
		if res := post(ann, topic+"/slow", url.Values{"seconds": {bad}}); res.StatusCode != http.StatusBadRequest {
			t.Errorf("slow mode %q: %d", bad, res.StatusCode)
		}
	}
	post(ann, topic+"/slow", url.Values{"seconds": {"120"}})
	post(bob, topic+"/replies", url.Values{"body": {"one"}})
	res := post(bob, topic+"/replies", url.Values{"body": {"two"}})
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "120" || !strings.Contains(res.Doc(t).Find("#reply-body-error").Text(), "120 seconds") {
		t.Fatalf("slow mode: %d %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	if res.Doc(t).Find("#reply-body").Text() != "two" {
		t.Error("the refused reply's text is lost")
	}
}

// TestVisitorsShareReadingPages: people without a session share one
// rendering of the forum's home, a section and a topic (a second look
// costs no storage call); a reply and a lock show at once.
func TestVisitorsShareReadingPages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, _, bob := a.talkSection(t, "")
	topic := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Shared pages"}, "body": {"first post"}}).Header.Get("Location")
	for _, path := range []string{"/forum", "/forum/talk", topic, "/forum/search?q=shared"} {
		first := a.Client().Get(path)
		second := a.Client().Get(path)
		if first.StatusCode != http.StatusOK || second.Body != first.Body || second.StorageOps(t)["total"] != 0 {
			t.Errorf("%s: %d, the second visitor's look cost %s", path, first.StatusCode, second.Header.Get("X-Storage-Ops"))
		}
	}
	// Shared answers vary with what picks their language. One that tells
	// a visitor to drop a session that has gone (signed out elsewhere)
	// is theirs alone: no shared cache may keep it.
	if v := a.Client().Get("/forum").Header.Values("Vary"); !strings.Contains(strings.Join(v, ","), "Accept-Language") {
		t.Errorf("a shared page varies with %q", v)
	}
	gone, stale := a.Client(), a.Client()
	a.SignIn(gone, "gone@example.com")
	u, _ := url.Parse(gone.URL)
	stale.HTTP.Jar.SetCookies(u, gone.HTTP.Jar.Cookies(u))
	post(gone, "/signout", nil)
	if res := stale.Get("/forum"); len(res.Cookies()) == 0 || res.Header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("a shared page with a gone session: cookies %v, Cache-Control %q", res.Cookies(), res.Header.Get("Cache-Control"))
	}
	post(bob, topic+"/replies", url.Values{"body": {"second post"}})
	post(boss, topic+"/lock", url.Values{"locked": {"true"}})
	d := a.Client().Get(topic).Doc(t)
	if !strings.Contains(d.Find(testID("post")).Text(), "second post") || d.Find(testID("topic-locked")).Length() != 1 {
		t.Error("a visitor does not see the reply and the lock at once")
	}
}

// TestPageBudgets: a topic page costs two queries (its posts and their
// likes) at its start, deep in it and at the first unread post; a
// section page two (the pins and moved topics, and the page) first and
// deep, whatever their size.
func TestPageBudgets(t *testing.T) {
	t.Parallel()
	a := newApp(t, true)
	boss, ann := a.Client(), a.Client()
	a.SignIn(boss, "boss@example.com")
	annKey := a.SignIn(ann, "ann@example.com")
	post(boss, "/admin/forum", url.Values{"slug": {"talk"}, "name": {"Talk"}})
	ctx := context.Background()
	// An admin, whom the forum's pace does not hold.
	writer := forum.Person{MemberKey: "auth:writer", Name: "Writer", Admin: true}
	big, err := a.svc.CreateTopic(ctx, writer, "talk", "Long thread", "start")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		if _, err := a.svc.Reply(ctx, writer, big.PartitionKey, fmt.Sprint("reply ", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 80 {
		if _, err := a.svc.CreateTopic(ctx, writer, "talk", fmt.Sprintf("Topic %03d", i), "x"); err != nil {
			t.Fatal(err)
		}
	}
	u := "/forum/t/" + big.PartitionKey
	queries := func(path string) int64 {
		t.Helper()
		res := ann.Get(path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return res.StorageOps(t)["queries"]
	}
	if q := queries(u); q != 2 {
		t.Errorf("a topic's first page: %d queries", q)
	}
	if q := queries(u + "?post=400"); q != 2 {
		t.Errorf("deep in a topic: %d queries", q)
	}
	if err := a.svc.MarkUnread(ctx, annKey, big.PartitionKey, 250); err != nil {
		t.Fatal(err)
	}
	if q := queries(u); q != 2 {
		t.Errorf("at the first unread post: %d queries", q)
	}
	first := ann.Get("/forum/talk")
	if q := first.StorageOps(t)["queries"]; q != 2 {
		t.Errorf("a section's first page: %d queries", q)
	}
	next := first.Doc(t).Find(testID("load-more")).AttrOr("href", "")
	for range 2 {
		res := ann.Get(next)
		if q := res.StorageOps(t)["queries"]; q != 2 {
			t.Errorf("a deeper section page: %d queries", q)
		}
		next = res.Doc(t).Find(testID("load-more")).AttrOr("href", "")
	}
}

// TestNewcomerLimits: on its first day an account opens at most 3 topics
// and posts at most 2 links to other sites a post, however written (429
// and 422, nothing written); a day later the limits are gone.
func TestNewcomerLimits(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, _ := a.talkSection(t, "")
	open := func(title, body string) *webtest.Response {
		return post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {title}, "body": {body}})
	}
	// However the links are written: bare, protocol-relative, spelt out.
	for _, body := range []string{"https://a.example https://b.example https://c.example", "www.a.example [b](//b.example) [c](HTTPS://c.example)"} {
		res := open("Links galore", body)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "at most 2 links") || res.Writes(t) != 0 {
			t.Fatalf("three links on day one (%s): %d", body, res.StatusCode)
		}
	}
	res := open("Topic number 0", "www.a.example https://b.example [see](/forum)")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("two links to other sites and one within: %d", res.StatusCode)
	}
	mine := res.Header.Get("Location")
	for i := 1; i < 3; i++ {
		res := open(fmt.Sprint("Topic number ", i), "hello")
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("topic %d: %d", i, res.StatusCode)
		}
	}
	if res := open("One too many", "hello"); res.StatusCode != http.StatusTooManyRequests || res.Doc(t).Find("#topic-body").Text() != "hello" {
		t.Fatalf("a fourth topic on day one: %d", res.StatusCode)
	}
	// Editing the links in afterwards is held to the same limit.
	res = post(ann, mine+"/posts/1/edit", url.Values{"title": {"Topic number 0"}, "body": {"https://a.example https://b.example https://c.example"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "at most 2 links") || res.Writes(t) != 0 {
		t.Fatalf("three links edited in on day one: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	a.Clock.Advance(25 * time.Hour)
	if res := open("Day two", "https://a.example https://b.example https://c.example"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("day two: %d", res.StatusCode)
	}
	// The admin is not held.
	for i := range 4 {
		if res := post(boss, "/forum/topics", url.Values{"section": {"talk"}, "title": {fmt.Sprint("Admin topic ", i)}, "body": {"x"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("admin topic %d: %d", i, res.StatusCode)
		}
	}
}

// TestPace: past their first day, everyone but admins keeps a pace of
// 20 topics a day and 60 replies an hour, so nobody floods a section or
// the inboxes their posts notify: past it, a 429 whose form keeps the
// draft and says why, with nothing written, until the next window. One
// address gets 30 previews at once, then one every 2 seconds.
func TestPace(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	a.Clock.Advance(25 * time.Hour)
	open := func(c *webtest.Client, title string) *webtest.Response {
		return post(c, "/forum/topics", url.Values{"section": {"talk"}, "title": {title}, "body": {"hello"}})
	}
	var topic string
	for i := range 20 {
		res := open(ann, fmt.Sprint("Topic number ", i))
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("topic %d: %d", i, res.StatusCode)
		}
		topic = res.Header.Get("Location")
	}
	res := open(ann, "One too many")
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 || !strings.Contains(res.Body, "posted a lot") || res.Doc(t).Find("#topic-body").Text() != "hello" {
		t.Fatalf("a 21st topic in a day: %d", res.StatusCode)
	}
	if res := open(boss, "The admin's"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the admin is held: %d", res.StatusCode)
	}
	// A section's moderators are held everywhere but in their sections.
	if res := post(boss, "/admin/forum", url.Values{"slug": {"news"}, "name": {"News"}, "moderators": {"ann@example.com"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the section news: %d", res.StatusCode)
	}
	if res := post(ann, "/forum/topics", url.Values{"section": {"news"}, "title": {"News of the day"}, "body": {"hello"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a moderator's topic in her section: %d", res.StatusCode)
	}
	if res := open(ann, "Still one too many"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("a moderator's topic elsewhere: %d", res.StatusCode)
	}
	for i := range 60 {
		if res := post(bob, topic+"/replies", url.Values{"body": {fmt.Sprint("reply ", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("reply %d: %d", i, res.StatusCode)
		}
	}
	res = post(bob, topic+"/replies", url.Values{"body": {"one more"}})
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 || !strings.Contains(res.Body, "posted a lot") || res.Doc(t).Find("#reply-body").Text() != "one more" {
		t.Fatalf("a 61st reply in an hour: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	if res := post(bob, topic+"/replies", url.Values{"body": {"an hour later"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a reply the next hour: %d", res.StatusCode)
	}
	if res := open(ann, "The next day's"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("ann's topics an hour later: %d", res.StatusCode)
	}
	a.Clock.Advance(24 * time.Hour)
	if res := open(ann, "The next day's"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a topic the next day: %d", res.StatusCode)
	}
	preview := func() *webtest.Response { return post(bob, "/forum/preview", url.Values{"body": {"**bold**"}}) }
	for i := range 30 {
		if res := preview(); res.StatusCode != http.StatusOK {
			t.Fatalf("preview %d: %d", i, res.StatusCode)
		}
	}
	if res := preview(); res.StatusCode != http.StatusTooManyRequests || strings.Contains(res.Body, "<strong>") || !strings.Contains(res.Body, "Too many previews") {
		t.Fatalf("a 31st preview at once: %d %s", res.StatusCode, res.Body)
	}
	a.Clock.Advance(2 * time.Second)
	if res := preview(); res.StatusCode != http.StatusOK {
		t.Fatalf("a preview 2 s later: %d", res.StatusCode)
	}
}

// TestPostActionsOverHTTP: a like (once per person, shown pressed); an
// edit marked "edited" with both versions on the history page; a hidden
// post folded for members and shown, marked, to staff; "unread from
// here" back in the section's count; a pin dismissed for one reader.
func TestPostActionsOverHTTP(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Actions"}, "body": {"version one"}}).Header.Get("Location")
	post(bob, topic+"/replies", url.Values{"body": {"a rude reply"}})
	post(bob, topic+"/replies", url.Values{"body": {"a kind reply"}})
	// Two replies in one hour: one notice to the topic's author.
	if items := a.Inbox(ann); items.Length() != 1 || !strings.Contains(items.Text(), "replied to your topic") {
		t.Fatalf("ann's inbox after two replies: %d %q", items.Length(), items.Text())
	}
	for range 2 {
		post(bob, topic+"/posts/1/like", url.Values{"like": {"true"}})
	}
	// A like is what others think: the author has no button, and a
	// like sent anyway is refused and counts nothing.
	if res := post(ann, topic+"/posts/1/like", url.Values{"like": {"true"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("ann likes her own post: %d", res.StatusCode)
	}
	if own := ann.Get(topic + "?post=1").Doc(t).Find(testID("post") + `[data-num="1"]`); own.Find(testID("post-like")).Length() != 0 || own.Find(testID("post-likes")).Text() != "1 like" {
		t.Fatalf("ann's own post: a like button %d, likes %q", own.Find(testID("post-like")).Length(), own.Find(testID("post-likes")).Text())
	}
	first := bob.Get(topic + "?post=1").Doc(t).Find(testID("post") + `[data-num="1"]`)
	if first.Find(testID("post-likes")).Text() != "1" || first.Find(testID("post-like")).AttrOr("aria-pressed", "") != "true" {
		t.Fatalf("the like: %q", first.Find(testID("post-like")).Text())
	}
	if res := post(bob, topic+"/posts/1/edit", url.Values{"title": {"Actions"}, "body": {"not mine"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("bob edits ann's post: %d", res.StatusCode)
	}
	post(ann, topic+"/posts/1/edit", url.Values{"title": {"Actions"}, "body": {"version two"}})
	if bob.Get(topic+"?post=1").Doc(t).Find(testID("post-edited")).Length() != 1 {
		t.Error("no edited mark")
	}
	versions := bob.Get(topic + "/posts/1/history").Doc(t).Find(testID("version"))
	if versions.Length() != 2 || !strings.Contains(versions.First().Text(), "version two") || !strings.Contains(versions.Last().Text(), "version one") {
		t.Fatalf("history: %q", versions.Text())
	}
	if res := post(ann, topic+"/posts/2/hide", url.Values{"hidden": {"true"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member hides: %d", res.StatusCode)
	}
	post(boss, topic+"/posts/2/hide", url.Values{"hidden": {"true"}})
	member := ann.Get(topic + "?post=2").Doc(t).Find(testID("post") + `[data-num="2"]`)
	if strings.Contains(member.Text(), "rude") || member.Find(testID("post-hidden")).Length() != 1 {
		t.Fatalf("a member sees the hidden post: %q", member.Text())
	}
	if staff := boss.Get(topic + "?post=2").Doc(t).Find(testID("post") + `[data-num="2"]`); !strings.Contains(staff.Text(), "rude") {
		t.Error("staff do not see the hidden post")
	}
	// A like of a hidden post is refused, and writes nothing, not even
	// the footprint of someone new to the topic.
	dan := a.Client()
	a.SignIn(dan, "dan@example.com")
	if res := post(dan, topic+"/posts/2/like", url.Values{"like": {"true"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Fatalf("dan likes the hidden post: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// What a moderator froze stays as they found it: a hidden post, and
	// every post of a locked topic (its title too), for their authors.
	editable := func(c *webtest.Client, num string) int {
		return c.Get(topic + "?post=" + num).Doc(t).Find(testID("post") + `[data-num="` + num + `"]`).Find(testID("post-edit")).Length()
	}
	if res := post(bob, topic+"/posts/2/edit", url.Values{"body": {"rude, reworded"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 || !strings.Contains(res.Body, "hid this post") {
		t.Fatalf("bob edits his hidden post: %d", res.StatusCode)
	}
	if editable(bob, "2") != 0 || editable(bob, "3") != 1 {
		t.Error("bob's edit buttons: one on his hidden post, or none on his other")
	}
	// Ann read everything; unread from post 3 gives one new (2 is hidden).
	ann.Get(topic + "?post=3")
	res := post(ann, topic+"/posts/3/unread", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unread from here: %d", res.StatusCode)
	}
	if d := ann.Get("/forum/talk").Doc(t); strings.TrimSpace(d.Find(testID("topic-unread")).Text()) != "1 new" {
		t.Fatalf("after unread from 3: %q", d.Find(testID("topic-row")).Text())
	}
	post(boss, topic+"/pin", url.Values{"pinned": {"true"}})
	post(bob, topic+"/dismiss", nil)
	if d := bob.Get("/forum/talk").Doc(t); d.Find(testID("topic-row")+`[data-pinned="true"]`).Length() != 0 {
		t.Error("the dismissed pin is still pinned for bob")
	}
	if d := ann.Get("/forum/talk").Doc(t); d.Find(testID("topic-row")+`[data-pinned="true"]`).Length() != 1 {
		t.Error("bob's dismissal unpinned it for ann")
	}
	post(boss, topic+"/lock", url.Values{"locked": {"true"}})
	if res := post(ann, topic+"/posts/1/edit", url.Values{"title": {"Renamed while locked"}, "body": {"version three"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("ann edits in a locked topic: %d", res.StatusCode)
	}
	if res := ann.Get(topic + "/posts/1/edit"); res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "locked") {
		t.Fatalf("ann's edit page in a locked topic: %d", res.StatusCode)
	}
	if editable(ann, "1") != 0 {
		t.Error("ann has an edit button in a locked topic")
	}
	bossPost := post(boss, topic+"/replies", url.Values{"body": {"Locked: see the rules."}}).Header.Get("Location")
	if !strings.HasSuffix(bossPost, "post=4#p4") {
		t.Fatalf("the moderator's reply went to %q", bossPost)
	}
	if res := post(boss, topic+"/posts/4/edit", url.Values{"body": {"Locked for now: see the rules."}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a moderator edits their post in the locked topic: %d", res.StatusCode)
	}
}

// TestArchivedSection: archiving a section closes it and its topics: its
// page and topics are 404, and they leave the lists, the search and the
// feed.
func TestArchivedSection(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Closing soon"}, "body": {"x"}}).Header.Get("Location")
	if n := bob.Get("/forum/new").Doc(t).Find(testID("topic-row")).Length(); n != 1 {
		t.Fatalf("before: %d new", n)
	}
	if res := post(boss, "/admin/forum/talk", url.Values{"name": {"Talk"}, "archived": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("archive: %d", res.StatusCode)
	}
	for _, path := range []string{"/forum/talk", topic, "/forum/talk/feed.xml", topic + "/posts/1/history", topic + "/reply?quote=1"} {
		if res := bob.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	if n := bob.Get("/forum/new").Doc(t).Find(testID("topic-row")).Length(); n != 0 {
		t.Errorf("after: %d new", n)
	}
	if n := bob.Get("/forum/search?q=closing").Doc(t).Find(testID("topic-row")).Length(); n != 0 {
		t.Errorf("search finds %d", n)
	}
	if strings.Contains(bob.Get("/forum/feed.xml").Body, "Closing soon") {
		t.Error("the forum's feed lists it")
	}
	if res := post(ann, topic+"/replies", url.Values{"body": {"hello?"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a reply: %d", res.StatusCode)
	}
}

// TestMarkASectionRead: marking one section read clears its topics from
// the reader's unread lists and its marker on the forum's home, leaves
// the other sections as they were, costs one write, and a later reply
// there is new again. An unknown section writes nothing.
func TestMarkASectionRead(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	addSection(t, boss, "music", "Music")
	talk := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"About talking"}, "body": {"x"}}).Header.Get("Location")
	post(bob, "/forum/topics", url.Values{"section": {"music"}, "title": {"About music"}, "body": {"x"}})
	newTopics := func() []string {
		t.Helper()
		var out []string
		ann.Get("/forum/new").Doc(t).Find(testID("topic-row") + " .row-title a").Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
		return out
	}
	if got := newTopics(); len(got) != 2 {
		t.Fatalf("before: new %q", got)
	}
	if ann.Get("/forum").Doc(t).Find(testID("section-unread")).Length() != 2 {
		t.Fatal("before: not both sections unread on the home page")
	}
	if ann.Get("/forum/talk").Doc(t).Find(testID("mark-section-read")).Length() != 1 {
		t.Fatal("the section page offers no way to mark it read")
	}
	res := post(ann, "/forum/talk/read-all", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/forum/talk" || res.Writes(t) != 1 {
		t.Fatalf("mark talk read: %d → %q, %d writes", res.StatusCode, res.Header.Get("Location"), res.Writes(t))
	}
	if got := newTopics(); len(got) != 1 || got[0] != "About music" {
		t.Errorf("after: new %q", got)
	}
	home := ann.Get("/forum").Doc(t)
	if marks := home.Find(testID("section-unread")); marks.Length() != 1 || !strings.Contains(marks.Closest(testID("forum-section")).Text(), "Music") {
		t.Errorf("after: the home page marks %d sections unread", marks.Length())
	}
	// A reply after it is new in talk again: one post.
	a.Clock.Advance(time.Minute)
	post(bob, talk+"/replies", url.Values{"body": {"one more"}})
	if got := ann.Get("/forum/talk").Doc(t).Find(testID("topic-unread")).Text(); !strings.Contains(got, "1") {
		t.Errorf("a reply after marking the section read: %q", got)
	}
	// Another person's reading is their own.
	if n := boss.Get("/forum/new").Doc(t).Find(testID("topic-row")).Length(); n != 2 {
		t.Errorf("boss's new topics: %d", n)
	}
	for _, path := range []string{"/forum/nosuch/read-all", "/forum/Bad%20Slug/read-all"} {
		if res := post(ann, path, nil); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("POST %s: %d, %d writes", path, res.StatusCode, res.Writes(t))
		}
	}
}

// TestAHiddenReplyCountsOnce: a reply hidden and then deleted by its
// author stops counting once, so the topic's author still cannot delete
// a topic that has someone else's visible reply.
func TestAHiddenReplyCountsOnce(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Count me"}, "body": {"x"}}).Header.Get("Location")
	id := strings.TrimPrefix(topic, "/forum/t/")
	post(bob, topic+"/replies", url.Values{"body": {"a real answer"}})
	post(ann, topic+"/replies", url.Values{"body": {"spam"}})
	if res := post(boss, topic+"/posts/3/hide", url.Values{"hidden": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("hide: %d", res.StatusCode)
	}
	if res := post(ann, topic+"/posts/3/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the hidden reply: %d", res.StatusCode)
	}
	if h, err := a.svc.Head(context.Background(), id); err != nil || h.Replies != 1 {
		t.Fatalf("replies after hiding and deleting one: %d, %v", h.Replies, err)
	}
	if res := post(ann, topic+"/posts/1/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Fatalf("the author deletes a topic with bob's reply: %d", res.StatusCode)
	}
	// Nor is she asked first, nor is bob of her post.
	for _, ask := range []struct {
		c    *webtest.Client
		path string
		want int
	}{{ann, topic + "/posts/1/delete", http.StatusConflict}, {bob, topic + "/posts/1/delete", http.StatusForbidden}} {
		if res := post(ask.c, ask.path, nil); res.StatusCode != ask.want || res.Doc(t).Find(testID("confirm-page")).Length() != 0 {
			t.Errorf("asked first: %s: %d, want %d", ask.path, res.StatusCode, ask.want)
		}
	}
	if res := bob.Get(topic); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "a real answer") {
		t.Fatalf("bob's reply: %d", res.StatusCode)
	}
}

// TestTheHomePageFollowsTheLastTopic: the forum's home names each
// section's most recently active topic; deleting it, moving it away or
// renaming it shows the next one, or the new title, never a stale one.
func TestTheHomePageFollowsTheLastTopic(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, _ := a.talkSection(t, "")
	addSection(t, boss, "music", "Music")
	older := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"The older topic"}, "body": {"x"}}).Header.Get("Location")
	a.Clock.Advance(time.Minute)
	newer := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"A private matter"}, "body": {"x"}}).Header.Get("Location")
	last := func() string {
		t.Helper()
		var out string
		boss.Get("/forum").Doc(t).Find(testID("forum-section")).Each(func(_ int, s *goquery.Selection) {
			if strings.Contains(s.Find(".row-title").Text(), "Talk") {
				out = strings.TrimSpace(s.Find(`a[href^="/forum/t/"]`).Text())
			}
		})
		return out
	}
	if got := last(); got != "A private matter" {
		t.Fatalf("before: %q", got)
	}
	if res := post(ann, newer+"/posts/1/edit", url.Values{"title": {"A renamed matter"}, "body": {"x"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename: %d", res.StatusCode)
	}
	if got := last(); got != "A renamed matter" {
		t.Errorf("after a rename: %q", got)
	}
	if res := post(boss, newer+"/posts/1/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if got := last(); got != "The older topic" {
		t.Errorf("after deleting the last topic: %q", got)
	}
	if res := post(boss, older+"/move", url.Values{"section": {"music"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("move: %d", res.StatusCode)
	}
	if got := last(); got != "" {
		t.Errorf("after moving the only topic away: %q", got)
	}
}

// New topics and replies are counted for the admin metrics page; a
// refused reply is not.
func TestTopicsAndRepliesAreCounted(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Counted topic"}, "body": {"x"}}).Header.Get("Location")
	post(bob, topic+"/replies", url.Values{"body": {"one"}})
	post(ann, topic+"/replies", url.Values{"body": {"two"}})
	if res := post(bob, topic+"/replies", url.Values{"body": {""}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("an empty reply: %d", res.StatusCode)
	}
	days, err := a.Metrics.Last(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := days[0]; d.Get(forum.NewTopics) != 1 || d.Get(forum.NewReplies) != 2 {
		t.Fatalf("counted %v, want 1 topic and 2 replies", d.Counts)
	}
}

// TestHistoryPagesAndEditLimit: a post's history shows ten earlier
// versions a page, newest first, with a link to older ones (a page number
// that is not one is a 400); a person may edit 30 times an hour, and the
// next edit comes back with the draft and why, writing nothing.
func TestHistoryPagesAndEditLimit(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Versions"}, "body": {"v0"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	topic, _, _ := strings.Cut(res.Header.Get("Location"), "?")
	for i := 1; i <= 25; i++ {
		if res := post(ann, topic+"/posts/1/edit", url.Values{"title": {"Versions"}, "body": {fmt.Sprint("v", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit %d: %d", i, res.StatusCode)
		}
	}
	history := topic + "/posts/1/history"
	var pages [][]string
	for next := history; next != ""; {
		doc := bob.Get(next).Doc(t)
		var texts []string
		doc.Find(testID("version")).Each(func(_ int, v *goquery.Selection) {
			texts = append(texts, strings.TrimSpace(v.Find(".rich-text").Text()))
		})
		pages = append(pages, texts)
		if newer := doc.Find(testID("history-newer")).Length(); newer != min(len(pages)-1, 1) {
			t.Fatalf("page %d has %d links to newer versions", len(pages), newer)
		}
		next = doc.Find(testID("history-older")).AttrOr("href", "")
		if len(pages) > 5 {
			t.Fatal("the older links do not end")
		}
	}
	want := [][]string{
		{"v25", "v24", "v23", "v22", "v21", "v20", "v19", "v18", "v17", "v16", "v15"},
		{"v14", "v13", "v12", "v11", "v10", "v9", "v8", "v7", "v6", "v5"},
		{"v4", "v3", "v2", "v1", "v0"},
	}
	if fmt.Sprint(pages) != fmt.Sprint(want) {
		t.Fatalf("history pages %v", pages)
	}
	for _, bad := range []string{"x", "0", "1", "26", "-3"} {
		if res := bob.Get(history + "?before=" + bad); res.StatusCode != http.StatusBadRequest {
			t.Errorf("?before=%s: %d", bad, res.StatusCode)
		}
	}
	for i := 26; i <= 30; i++ {
		if res := post(ann, topic+"/posts/1/edit", url.Values{"title": {"Versions"}, "body": {fmt.Sprint("v", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit %d: %d", i, res.StatusCode)
		}
	}
	res = post(ann, topic+"/posts/1/edit", url.Values{"title": {"Versions"}, "body": {"v31"}})
	if res.StatusCode != http.StatusTooManyRequests || res.StorageOps(t)["txs"] != 0 {
		t.Fatalf("the 31st edit in an hour: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	doc := res.Doc(t)
	if doc.Find("#edit-body").Text() != "v31" || !strings.Contains(doc.Find(testID("field-error")).Text(), "edited a lot") {
		t.Fatalf("the refused edit's form: %q / %q", doc.Find("#edit-body").Text(), doc.Find(testID("field-error")).Text())
	}
	a.Clock.Advance(time.Hour)
	if res := post(ann, topic+"/posts/1/edit", url.Values{"title": {"Versions"}, "body": {"v31"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an edit an hour later: %d", res.StatusCode)
	}
}

// TestAFirstVisitOpensAtTheTop: someone who never read a topic sees it
// from its opening post, with no "earlier posts" link, even when they
// replied to it without opening it (as the demo's people do: their own
// post moved their marker); someone who read up to post 3 lands at the
// first unread post, with the earlier posts a link away.
func TestAFirstVisitOpensAtTheTop(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	res := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Who is going to the jazz night?"}, "body": {"The question"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")
	reply := func(c *webtest.Client, body string) {
		t.Helper()
		a.Clock.Advance(time.Minute)
		if res := post(c, topic+"/replies", url.Values{"body": {body}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("reply %q: %d", body, res.StatusCode)
		}
	}
	reply(boss, "Me!")
	reply(ann, "Count me in.") // post 3; ann never opened the topic
	if d := cat.Get(topic).Doc(t); d.Find(testID("post")).Length() != 3 {
		t.Fatal("cat reads posts 1 to 3")
	}
	reply(bob, "See you there")
	reply(boss, "Table near the stage")

	d := ann.Get(topic).Doc(t)
	if d.Find(testID("post")).First().AttrOr("data-num", "") != "1" || d.Find(testID("older-posts")).Length() != 0 {
		t.Fatalf("ann's first visit does not start at post 1: %q", d.Find(testID("posts")).Text())
	}
	if d.Find(testID("first-unread")).Length() != 0 {
		t.Error("ann's first visit jumps to a first unread post")
	}

	d = cat.Get(topic).Doc(t)
	if d.Find(testID("first-unread")).Next().AttrOr("data-num", "") != "4" {
		t.Fatalf("cat does not land on post 4: %q", d.Find(testID("posts")).Text())
	}
	older := d.Find(testID("older-posts")).AttrOr("href", "")
	if older == "" {
		t.Fatal("cat has no link to the earlier posts")
	}
	if d := cat.Get(older).Doc(t); d.Find(testID("post")).First().AttrOr("data-num", "") != "1" {
		t.Fatalf("the earlier posts: %q", d.Find(testID("posts")).Text())
	}
}

// TestModeratorsAreMarked: a section's moderator's posts carry a
// "Moderator" badge in that section, as Discourse's shield does; a
// member's do not, nor the moderator's in a section they do not
// moderate.
func TestModeratorsAreMarked(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "ann@example.com")
	addSection(t, boss, "other", "Other")
	marked := func(section string) []string {
		t.Helper()
		topic := post(bob, "/forum/topics", url.Values{"section": {section}, "title": {"Where is the meetup"}, "body": {"Anyone know?"}}).Header.Get("Location")
		if res := post(ann, topic+"/replies", url.Values{"body": {"At the library."}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("ann replies in %s: %d", section, res.StatusCode)
		}
		var out []string
		bob.Get(topic).Doc(t).Find(testID("post")).Each(func(_ int, s *goquery.Selection) {
			out = append(out, fmt.Sprintf("%s %d", strings.TrimSpace(s.Find(".forum-author").Text()), s.Find(testID("post-moderator")).Length()))
		})
		return out
	}
	if got := marked("talk"); strings.Join(got, ",") != "bob 0,ann 1" {
		t.Errorf("in her section: %q", got)
	}
	if got := marked("other"); strings.Join(got, ",") != "bob 0,ann 0" {
		t.Errorf("in another section: %q", got)
	}
}

package forum_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

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
		return post(c, topic+"/watch", url.Values{"level": {map[string]string{"true": "watching", "false": "normal"}[on]}})
	}
	level := func(c *webtest.Client) string {
		return c.Get(topic).Doc(t).Find(testID("topic-level")).AttrOr("data-level", "")
	}
	if got := level(ann); got != "normal" {
		t.Fatalf("before watching: %q", got)
	}
	if res := watch(ann, "true"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != topic {
		t.Fatalf("watch: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	page := ann.Get(topic)
	d := page.Doc(t)
	if got := d.Find(testID("topic-level")).AttrOr("data-level", ""); got != "watching" || d.Find(testID("level-watching")).AttrOr("aria-pressed", "") != "true" {
		t.Fatalf("after watching: %q", got)
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
	if res := watch(ann, "false"); res.StatusCode != http.StatusSeeOther || level(ann) != "normal" {
		t.Fatalf("stop watching: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	post(cat, topic+"/replies", url.Values{"body": {"One more tip: the lounge car."}})
	if n := a.Inbox(ann).Length(); n != 1 {
		t.Errorf("after she stopped watching: %d notices", n)
	}

	res = post(ann, "/forum/t/01ARZ3NDEKTSV4RRFFQ69G5FAV/watch", url.Values{"level": {"watching"}})
	if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("watching a missing topic: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := a.Client().PostForm(topic+"/watch", url.Values{"level": {"watching"}}); res.StatusCode < 400 {
		t.Errorf("a visitor watches: %d", res.StatusCode)
	}
}

// TestMuting: the author mutes their topic from its page; a reply, and a
// reply that mentions them, then tell them nothing, the topic is not
// unread for them, leaves their home page's forum card (the next topic
// takes its place, with what they read of it), and shows in the section
// marked muted. Muting stops watching; "mark all read" keeps the
// mute; back at normal, replies reach them again. A level that is none
// of the three, and a missing topic, are refused and write nothing.
func TestMuting(t *testing.T) {
	t.Parallel()
	a := newHomeApp(t, true)
	_, ann, bob := a.talkSection(t, "")
	var older []string
	for _, title := range []string{"Ferries", "Buses", "Trams"} {
		res := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {title}, "body": {"Tips?"}})
		older = append(older, res.Header.Get("Location"))
		a.Clock.Advance(time.Minute)
	}
	bob.Get(older[0]) // read: no "New" badge when it reaches the card
	res := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Night trains"}, "body": {"Anyone tried the sleeper?"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	topic := res.Header.Get("Location")
	level := func(l string) *webtest.Response { return post(bob, topic+"/watch", url.Values{"level": {l}}) }
	shows := func(path string) bool {
		return strings.Contains(bob.Get(path).Doc(t).Find(testID("home-forum")+","+testID("topic-list")).Text(), "Night trains")
	}
	// Before muting a reply tells the author, and the topic is unread.
	post(ann, topic+"/replies", url.Values{"body": {"Yes, book early."}})
	if n := a.Inbox(bob).Length(); n != 1 {
		t.Fatalf("before muting, the author has %d notices", n)
	}
	if !shows("/") || !shows("/forum/unread") {
		t.Fatal("before muting, the topic is not on the home page or unread")
	}

	level("watching")
	if res := level("muted"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != topic {
		t.Fatalf("mute: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	page := bob.Get(topic).Doc(t)
	if page.Find(testID("topic-level")).AttrOr("data-level", "") != "muted" || page.Find(testID("level-muted")).AttrOr("aria-pressed", "") != "true" {
		t.Fatal("the topic page does not show it muted")
	}
	a.Clock.Advance(2 * time.Hour)
	post(ann, topic+"/replies", url.Values{"body": {"And a cabin."}})
	a.Clock.Advance(2 * time.Hour)
	post(ann, topic+"/replies", url.Values{"body": {"@bob did you go?"}})
	if n := a.Inbox(bob).Length(); n != 1 {
		t.Errorf("muted, the author got %d notices (a reply, a mention or a watched reply went through)", n)
	}
	if shows("/") || shows("/forum/unread") || shows("/forum/new") {
		t.Error("a muted topic is still on the home page's card or in unread")
	}
	card := bob.Get("/").Doc(t).Find(testID("home-forum"))
	if got := card.Find(testID("topic-row")).Length(); got != 3 || !strings.Contains(card.Text(), "Ferries") {
		t.Errorf("the card shows %d topics, not the next three: %q", got, card.Text())
	}
	if ferries := card.Find(testID("topic-row")).Last(); !strings.Contains(ferries.Text(), "Ferries") || ferries.Find(testID("topic-new")).Length() != 0 {
		t.Errorf("the topic that took the muted one's place lost what bob read of it: %q", ferries.Text())
	}
	row := bob.Get("/forum/talk").Doc(t).Find(testID("topic-row")).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "Night trains")
	})
	if row.Find(testID("topic-muted")).Length() != 1 || row.Find(testID("topic-unread")+","+testID("topic-new")).Length() != 0 {
		t.Error("the section's list does not show the topic muted and read")
	}
	if got := ann.Get("/forum/talk").Doc(t).Find(testID("topic-muted")).Length(); got != 0 {
		t.Errorf("bob's mute shows on ann's list: %d", got)
	}

	post(bob, "/forum/read-all", nil)
	if bob.Get(topic).Doc(t).Find(testID("topic-level")).AttrOr("data-level", "") != "muted" {
		t.Error("mark all read took the mute away")
	}
	if res := level("normal"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unmute: %d", res.StatusCode)
	}
	a.Clock.Advance(2 * time.Hour)
	post(ann, topic+"/replies", url.Values{"body": {"Back from the trip."}})
	// The reply tells him again: his unread notice of ann's first reply
	// becomes this one's (the inbox gathers replies to a topic).
	if items := a.Inbox(bob); items.Length() != 1 || !strings.Contains(items.Text(), "Back from the trip.") || !shows("/") {
		t.Errorf("back at normal: %d notices (%q), on the home page %v", items.Length(), items.Text(), shows("/"))
	}

	if res := level("loud"); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("level loud: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	res = post(bob, "/forum/t/01ARZ3NDEKTSV4RRFFQ69G5FAV/watch", url.Values{"level": {"muted"}})
	if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("muting a missing topic: %d, %d writes", res.StatusCode, res.Writes(t))
	}
}

// TestSectionLevels: a reader watches a section from its page's bell
// menu and hears of each new topic in it, not of their own nor of
// replies; others hear nothing; back at normal it ends. Knowing the level
// costs the section's page a point read, no query. A muted section's
// topics tell the reader nothing (but a topic they watch), are never
// unread and leave their home page; the forum's home marks it. A level
// none of the three and a missing section are refused and write
// nothing; a visitor cannot set one.
func TestSectionLevels(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	_, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	set := func(c *webtest.Client, level string) *webtest.Response {
		return post(c, "/forum/talk/watch", url.Values{"level": {level}})
	}
	told := func(c *webtest.Client) int {
		return strings.Count(a.Inbox(c).Text(), "opened “")
	}
	level := func(c *webtest.Client) string {
		return c.Get("/forum/talk").Doc(t).Find(testID("section-level")).AttrOr("data-level", "")
	}
	if got := level(ann); got != "normal" {
		t.Fatalf("before watching: %q", got)
	}
	if res := set(ann, "watching"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/forum/talk" {
		t.Fatalf("watch: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	page := ann.Get("/forum/talk")
	if page.Doc(t).Find(testID("section-level")).AttrOr("data-level", "") != "watching" {
		t.Fatal("the section's page does not show it watched")
	}
	if q := page.StorageOps(t)["queries"]; q != 2 { // the listing's pins and topics; the watcher is a point read
		t.Errorf("the section's page costs %d queries", q)
	}
	set(bob, "watching")
	topic := post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Night trains"}, "body": {"Anyone tried the sleeper?"}}).Header.Get("Location")
	post(cat, topic+"/replies", url.Values{"body": {"Yes, twice."}})
	if n := told(ann); n != 1 || !strings.Contains(a.Inbox(ann).Text(), "bob opened “Night trains” in Talk") {
		t.Errorf("ann, watching: %d notices: %q", n, a.Inbox(ann).Text())
	}
	if told(bob) != 0 || told(cat) != 0 {
		t.Errorf("the author or someone not watching was told: bob %d, cat %d", told(bob), told(cat))
	}
	if res := set(ann, "normal"); res.StatusCode != http.StatusSeeOther || level(ann) != "normal" {
		t.Fatalf("back to normal: %d", res.StatusCode)
	}
	post(bob, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Day trains"}, "body": {"And in daylight?"}})
	if n := told(ann); n != 1 {
		t.Errorf("after she stopped watching: %d notices", n)
	}

	// Bob mutes the section: a reply to his topic tells him nothing, it
	// is not unread, not on his home page; the forum's home marks it. A
	// topic he watches still tells him.
	replies := func() int { return strings.Count(a.Inbox(bob).Text(), "replied") }
	before := replies()
	if res := set(bob, "muted"); res.StatusCode != http.StatusSeeOther || level(bob) != "muted" {
		t.Fatalf("mute: %d", res.StatusCode)
	}
	a.Clock.Advance(2 * time.Hour)
	post(cat, topic+"/replies", url.Values{"body": {"Book early."}})
	if n := replies(); n != before {
		t.Errorf("a muted section's reply told its author: %d notices, was %d", n, before)
	}
	if strings.Contains(bob.Get("/forum/unread").Doc(t).Find(testID("topic-list")).Text(), "Night trains") {
		t.Error("a muted section's topic is unread")
	}
	if bob.Get("/forum").Doc(t).Find(testID("section-muted")).Length() != 1 {
		t.Error("the forum's home does not mark the muted section")
	}
	post(bob, topic+"/watch", url.Values{"level": {"watching"}})
	a.Clock.Advance(2 * time.Hour)
	post(cat, topic+"/replies", url.Values{"body": {"And a cabin."}})
	if !strings.Contains(a.Inbox(bob).Text(), "replied in “Night trains”") {
		t.Error("a topic he watches in a muted section did not tell him")
	}

	if res := set(ann, "loud"); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("level loud: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := post(ann, "/forum/nowhere/watch", url.Values{"level": {"watching"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("watching a missing section: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := a.Client().PostForm("/forum/talk/watch", url.Values{"level": {"watching"}}); res.StatusCode < 400 {
		t.Errorf("a visitor watches: %d", res.StatusCode)
	}
}

// A new topic's notice names its section in each watcher's language, in
// the inbox and in the email: a Russian reader reads the section's
// Russian name, an English one its English name.
func TestANewTopicNamesTheSectionInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	boss, ann, bob := a.talkSection(t, "")
	music := url.Values{"slug": {"music"}, "name": {"Music"}, "russian_name": {"Музыка"}}
	if res := post(boss, "/admin/forum", music); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add music: %d", res.StatusCode)
	}
	if res := ann.PostForm("/lang", ann.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/forum"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann picks Russian: %d", res.StatusCode)
	}
	for _, c := range []*webtest.Client{ann, bob} {
		if res := post(c, "/forum/music/watch", url.Values{"level": {"watching"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("watch music: %d", res.StatusCode)
		}
	}
	post(boss, "/forum/topics", url.Values{"section": {"music"}, "title": {"Albums of the year"}, "body": {"Mine?"}})
	if got := a.Inbox(ann).Text(); !strings.Contains(got, "в разделе «Музыка»") || strings.Contains(got, "Music") {
		t.Errorf("ann, reading Russian: %q", got)
	}
	if got := a.Inbox(bob).Text(); !strings.Contains(got, "in Music") || strings.Contains(got, "Музыка") {
		t.Errorf("bob, reading English: %q", got)
	}
	subjects := map[string]string{}
	for _, m := range a.Mail() {
		if !strings.Contains(m.Subject, "code") {
			subjects[m.To] = m.Subject
		}
	}
	if got := subjects["ann@example.com"]; got != "Новая тема в разделе «Музыка»: Albums of the year" {
		t.Errorf("ann's email: %q", got)
	}
	if got := subjects["bob@example.com"]; got != "New topic in Music: Albums of the year" {
		t.Errorf("bob's email: %q", got)
	}
}

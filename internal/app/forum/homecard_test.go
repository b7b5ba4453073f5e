package forum_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

// newHomeApp is the forum beside the groups module, whose home page
// shows the forum's card; inboxToo adds the inbox, for notices.
func newHomeApp(t *testing.T, inboxToo ...bool) *app {
	a := &app{}
	var in *inbox.Service
	modules := []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			return groups.New(c.Store, c.Accounts, c.Cursors, c.Config.BaseURL.String(), c.Log, c.Now), nil
		},
		a.forum(&in),
	}
	if len(inboxToo) > 0 && inboxToo[0] {
		modules = withInbox(&in, modules)
	}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: modules})
	return a
}

// The home page shows the forum's three most recently active topics
// beside a person's groups, each marked with what they have not read,
// and leaves out an archived section's; visitors and /groups get no such
// card. It costs two queries and the person's read markers.
func TestHomeShowsTheForum(t *testing.T) {
	t.Parallel()
	a := newHomeApp(t)
	boss, ann, bob := a.talkSection(t, "")
	anon := a.Client()
	card := func(c *webtest.Client, path string) *goquery.Selection {
		return c.Get(path).Doc(t).Find(testID("home-forum"))
	}
	if empty := card(bob, "/"); empty.Find(testID("home-forum-empty")).Length() != 1 || empty.Find(testID("home-forum-new")).AttrOr("href", "") != "/forum/compose" {
		t.Fatal("an empty forum's card does not say so, or offer to start a topic")
	}
	addSection(t, boss, "old", "Old")
	post(boss, "/forum/topics", url.Values{"section": {"old"}, "title": {"In an old section"}, "body": {"x"}})
	var paths []string
	for _, title := range []string{"First", "Second", "Third", "Fourth"} {
		a.Clock.Advance(time.Minute)
		res := post(boss, "/forum/topics", url.Values{"section": {"talk"}, "title": {title}, "body": {"x"}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("open %s: %d", title, res.StatusCode)
		}
		paths = append(paths, res.Header.Get("Location"))
	}
	a.Clock.Advance(time.Minute)
	post(boss, "/forum/topics", url.Values{"section": {"old"}, "title": {"Newest, in the old section"}, "body": {"x"}})
	if res := post(boss, "/admin/forum/old", url.Values{"name": {"Old"}, "archived": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("archive: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Minute)
	if res := post(ann, paths[1]+"/replies", url.Values{"body": {"A reply to the second"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reply: %d", res.StatusCode)
	}
	shown := func(c *webtest.Client) []string {
		t.Helper()
		var out []string
		card(c, "/").Find(testID("topic-row")).Each(func(_ int, s *goquery.Selection) {
			mark := strings.TrimSpace(s.Find(".badge-unread").Text())
			out = append(out, strings.TrimSpace(s.Find(".row-title a").Text())+" "+mark)
		})
		return out
	}
	if got, want := shown(bob), []string{"Second New", "Fourth New", "Third New"}; !slices.Equal(got, want) {
		t.Fatalf("bob's card: %q, want %q", got, want)
	}
	bob.Get(paths[1])
	a.Clock.Advance(time.Minute)
	post(ann, paths[1]+"/replies", url.Values{"body": {"Another reply"}})
	if got, want := shown(bob), []string{"Second 1 new", "Fourth New", "Third New"}; !slices.Equal(got, want) {
		t.Fatalf("after reading the second and a new reply: %q, want %q", got, want)
	}
	// One query of the sections, one of the activity index and four point
	// reads of bob's markers (the three topics and "mark all read"),
	// beside the page without the card.
	home, plain := bob.Get("/").StorageOps(t), bob.Get("/groups").StorageOps(t)
	if home["queries"]-plain["queries"] != 2 || home["total"]-plain["total"] != 6 || home["writes"] != 0 {
		t.Errorf("the card costs %v, the page without it %v", home, plain)
	}
	if card(bob, "/groups").Length() != 0 || card(anon, "/").Length() != 0 {
		t.Error("/groups or a visitor's home shows the forum card")
	}
}

// TestSectionsInTheReadersLanguage: a section with a Russian name and
// description shows them on Russian pages (the forum's home, the
// section, a topic, the new topic form, a search, the home page's
// card, the section's feed) and the English ones on English pages; a
// section without them shows the English ones on both. Bad input in the
// Russian fields is refused with 422, keeps what was typed and writes
// nothing; emptied, the English name shows again.
func TestSectionsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	a := newHomeApp(t)
	boss, ann, bob := a.talkSection(t, "")
	visitor := a.Client()
	music := url.Values{"slug": {"music"}, "name": {"Music"}, "description": {"Songs we like"}, "russian_name": {"Музыка"}, "russian_description": {"Песни, которые нам нравятся"}}
	if res := post(boss, "/admin/forum", music); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add music: %d", res.StatusCode)
	}
	topic := post(bob, "/forum/topics", url.Values{"section": {"music"}, "title": {"Albums of the year"}, "body": {"Mine?"}}).Header.Get("Location")
	if res := ann.PostForm("/lang", ann.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/forum"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann picks Russian: %d", res.StatusCode)
	}
	text := func(c *webtest.Client, path, sel string, headers ...string) string {
		t.Helper()
		res := c.Get(path, headers...)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return res.Doc(t).Find(sel).Text()
	}
	sectionRow := testID("forum-section") + `:has(a[href="/forum/music"])`
	cases := []struct {
		who            string
		c              *webtest.Client
		headers        []string
		name, desc     string
		notName, other string
	}{
		{"ann, in Russian", ann, nil, "Музыка", "Песни, которые нам нравятся", "Music", "Talk"},
		{"a visitor asking for Russian", visitor, []string{"Accept-Language", "ru"}, "Музыка", "Песни, которые нам нравятся", "Music", "Talk"},
		{"bob, in English", bob, nil, "Music", "Songs we like", "Музыка", "Talk"},
	}
	for _, tc := range cases {
		home := text(tc.c, "/forum", testID("forum-sections"), tc.headers...)
		row := text(tc.c, "/forum", sectionRow, tc.headers...)
		if !strings.Contains(row, tc.name) || !strings.Contains(row, tc.desc) || strings.Contains(home, tc.notName) || !strings.Contains(home, tc.other) {
			t.Errorf("%s: the forum's home: %q", tc.who, home)
		}
		if got := text(tc.c, "/forum/music", "#section-heading", tc.headers...); strings.TrimSpace(got) != tc.name {
			t.Errorf("%s: the section's heading: %q", tc.who, got)
		}
		if got := text(tc.c, "/forum/music", testID("forum-section-page"), tc.headers...); !strings.Contains(got, tc.desc) {
			t.Errorf("%s: the section's page lacks its description: %q", tc.who, got)
		}
		if got := text(tc.c, topic, ".eyebrow", tc.headers...); !strings.Contains(got, tc.name) {
			t.Errorf("%s: the topic's section: %q", tc.who, got)
		}
		if got := text(tc.c, "/forum/music/feed.xml", "channel > title", tc.headers...); got != tc.name {
			t.Errorf("%s: the feed's title: %q", tc.who, got)
		}
		if tc.c == visitor {
			continue
		}
		if got := text(tc.c, "/forum/compose", `select[name="section"] option[value="music"]`); got != tc.name {
			t.Errorf("%s: the new topic form offers %q", tc.who, got)
		}
		if got := text(tc.c, "/forum/search?q=albums", testID("topic-row")); !strings.Contains(got, tc.name) {
			t.Errorf("%s: a search: %q", tc.who, got)
		}
		if got := text(tc.c, "/", testID("home-forum")); !strings.Contains(got, tc.name) || strings.Contains(got, tc.notName) {
			t.Errorf("%s: the home page's card: %q", tc.who, got)
		}
	}

	// Bad Russian input, adding and saving: 422, what was typed, nothing
	// written.
	long := func(n int) string { return strings.Repeat("я", n) }
	for _, bad := range []struct{ field, value, id string }{
		{"russian_name", long(61), "russian-name"},
		{"russian_name", "Музыка\nи песни", "russian-name"},
		{"russian_name", "Муз\u202eыка", "russian-name"},
		{"russian_description", long(301), "russian-description"},
		{"russian_description", "Песни\x00", "russian-description"},
	} {
		add := url.Values{"slug": {"songs"}, "name": {"Songs"}, bad.field: {bad.value}}
		res := post(boss, "/admin/forum", add)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("add with %s %q: %d, %d writes", bad.field, bad.value, res.StatusCode, res.Writes(t))
			continue
		}
		if d := res.Doc(t); d.Find("#section-"+bad.id+"-error").Length() != 1 || d.Find("#section-name").AttrOr("value", "") != "Songs" {
			t.Errorf("add with %s %q: no error by the field, or the form is lost", bad.field, bad.value)
		}
		save := url.Values{"name": {"Songs and more"}, "russian_name": {"Музыка"}, "order": {"7"}, bad.field: {bad.value}}
		res = post(boss, "/admin/forum/music", save)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("save with %s %q: %d, %d writes", bad.field, bad.value, res.StatusCode, res.Writes(t))
			continue
		}
		// The refused section's form is the one open, with the reason by
		// the field and what was typed; its row still names it as saved.
		d := res.Doc(t)
		row := d.Find(`[data-section="music"]`)
		if row.Find("details[open]").Length() != 1 || d.Find("details[open]").Length() != 1 || row.Find(".field-error").Length() != 1 {
			t.Errorf("save with %s %q: the section's form is not open with its reason", bad.field, bad.value)
		}
		if row.Find("#name-music").AttrOr("value", "") != "Songs and more" || row.Find("#order-music").AttrOr("value", "") != "7" {
			t.Errorf("save with %s %q: the form lost what was typed", bad.field, bad.value)
		}
		if got := row.Find(".row-title").Text(); strings.Contains(got, "Songs and more") {
			t.Errorf("save with %s %q: the row's head shows the refused name", bad.field, bad.value)
		}
	}
	if got := text(ann, "/forum/music", "#section-heading"); strings.TrimSpace(got) != "Музыка" {
		t.Errorf("after refused saves: %q", got)
	}
	// Emptied, the Russian name gives way to the English one.
	if res := post(boss, "/admin/forum/music", url.Values{"name": {"Music"}, "description": {"Songs we like"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save without Russian: %d", res.StatusCode)
	}
	if got := text(ann, "/forum/music", "#section-heading"); strings.TrimSpace(got) != "Music" {
		t.Errorf("without a Russian name, a Russian page shows %q", got)
	}
}

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
	"github.com/harmony/harmony/internal/app/forum"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

// The home page shows the forum's three most recently active topics
// beside a person's groups, each marked with what they have not read,
// and leaves out an archived section's; visitors and /groups get no such
// card. It costs two queries and the person's read markers.
func TestHomeShowsTheForum(t *testing.T) {
	t.Parallel()
	a := &app{}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			return groups.New(c.Store, c.Accounts, c.Cursors, c.Config.BaseURL.String(), c.Log, c.Now), nil
		},
		func(c *platform.Core) (web.Module, error) {
			a.svc = forum.New(c.Store, c.Cursors, c.Log, c.Now)
			a.svc.UseDirectory(c.Auth)
			a.svc.UsePeople(c.Accounts)
			return a.svc, nil
		},
	}})
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

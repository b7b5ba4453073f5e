package people_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/app/people"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

type app struct {
	*accounttest.App
	svc  *people.Service
	chat *chat.Service
}

// newApp is People on a test server with the inbox (its notices) and
// the chat (its blocks and private chats), wired as cmd/web wires them.
func newApp(t *testing.T) *app {
	t.Helper()
	return newWrappedApp(t, nil)
}

// newWrappedApp is newApp on a store whose backend wrap wraps (a test's
// failing writes).
func newWrappedApp(t *testing.T, wrap func(storage.Backend) storage.Backend) *app {
	t.Helper()
	a := &app{}
	var in *inbox.Service
	modules := []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			var err error
			in, err = inbox.FromCore(c)
			return in, err
		},
		// The admin section, whose moderation queue the platform hands
		// People (boss@example.com is an admin).
		func(c *platform.Core) (web.Module, error) {
			svc := admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			svc.UseNotifier(in, c.Config.AdminEmails)
			return svc, nil
		},
		func(c *platform.Core) (web.Module, error) {
			a.chat = chat.New(c.Store, c.Log, c.Now, chat.Options{})
			a.chat.UsePeople(c.Accounts)
			in.UseBlocks(a.chat)
			return a.chat, nil
		},
		func(c *platform.Core) (web.Module, error) {
			a.svc = people.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			a.svc.UseBlocks(a.chat)
			a.svc.UseNotifier(in)
			a.svc.UseMessaging("/chat/private")
			c.Accounts.UsePersonExtra(a.svc)
			return a.svc, nil
		},
	}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: modules, Wrap: wrap})
	return a
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func post(c *webtest.Client, path string, form url.Values) *webtest.Response {
	return c.PostForm(path, c.WithCSRF("/people", form))
}

// member is someone signed in, with their key.
type member struct {
	*webtest.Client
	key, name string
}

// profile gives m a profile: gender and birth date ("" for none), as
// the profile form saves them. The test clock's day is 2030-05-17.
func (a *app) profile(t *testing.T, m member, gender, born string) {
	t.Helper()
	form := url.Values{"displayName": {m.name}, "gender": {gender}, "birthDate": {born}, "location": {"Москва"}, "bio": {m.name + " plays the cello."}}
	if res := m.PostForm("/account/profile", m.WithCSRF("/account", form)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("%s's profile: %d %.300s", m.name, res.StatusCode, res.Body)
	}
}

// join signs email in, gives them a profile and shows them in People.
func (a *app) join(t *testing.T, email, name, gender, born string) member {
	t.Helper()
	m := a.newMember(t, email, name)
	a.profile(t, m, gender, born)
	if res := post(m.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("%s shows in People: %d %.300s", name, res.StatusCode, res.Body)
	}
	return m
}

func (a *app) newMember(t *testing.T, email, name string) member {
	t.Helper()
	c := a.Client()
	return member{Client: c, key: a.SignIn(c, email), name: name}
}

// shown are the names in m's Discover at path.
func shown(t *testing.T, m member, path string) []string {
	t.Helper()
	res := m.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	var names []string
	res.Doc(t).Find(testID("person-tile-link")).Each(func(_ int, s *goquery.Selection) { names = append(names, s.Text()) })
	return names
}

// TestDiscoverShowsWhoChoseToBeFound: Discover lists the members who
// chose "Show me in People", as the viewer's filter narrows them, and
// never the viewer; showing oneself needs an adult's birth date and a
// profile others may see, and a refusal changes nothing.
func TestDiscoverShowsWhoChoseToBeFound(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10") // 30
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")   // 40
	a.join(t, "cat@example.com", "Cat", "female", "2008-01-01")        // 22
	dan := a.newMember(t, "dan@example.com", "Dan")                    // not in People
	a.profile(t, dan, "male", "1995-01-01")

	if got := shown(t, ann, "/people"); strings.Join(got, ",") != "Bob,Cat" && strings.Join(got, ",") != "Cat,Bob" {
		t.Errorf("Ann's Discover: %q, want Bob and Cat (not herself, not Dan)", got)
	}
	if got := shown(t, ann, "/people?show=men"); strings.Join(got, ",") != "Bob" {
		t.Errorf("men: %q", got)
	}
	if got := shown(t, ann, "/people?min=18&max=25"); strings.Join(got, ",") != "Cat" {
		t.Errorf("18 to 25: %q", got)
	}
	if got := shown(t, ann, "/people?min=40&max=40"); strings.Join(got, ",") != "Bob" {
		t.Errorf("exactly 40: %q", got)
	}
	// Preferences are the filter a visit starts with.
	if res := ann.PostForm("/account/preferences", ann.WithCSRF("/account/preferences", url.Values{"ageRangeMin": {"18"}, "ageRangeMax": {"30"}, "maxDistanceKm": {"100"}, "showMe": {"women"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("preferences: %d %.300s", res.StatusCode, res.Body)
	}
	if got := shown(t, ann, "/people"); strings.Join(got, ",") != "Cat" {
		t.Errorf("with her preferences (women, 18 to 30): %q", got)
	}
	for _, q := range []string{"min=abc", "min=10", "max=200", "min=40&max=30", "show=cats", "min=1e3"} {
		res := ann.Get("/people?" + q)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "whole numbers from 18 to 99") {
			t.Errorf("?%s: %d, or no word of what is allowed", q, res.StatusCode)
		}
	}

	// Dan is not shown: his page offers to show him. Without a birth
	// date he is refused, and nothing changes.
	doc := dan.Get("/people").Doc(t)
	if doc.Find(testID("people-show-me")).Length() != 1 {
		t.Error("Dan is not offered to show himself")
	}
	a.profile(t, dan, "male", "")
	if d := dan.Get("/people").Doc(t); d.Find(testID("people-join-age")).Length() != 1 || d.Find(testID("people-show-me")).Length() != 0 {
		t.Error("without a birth date Dan is offered to show himself, or not told why not")
	}
	if res := post(dan.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("showing without a birth date: %d", res.StatusCode)
	}
	a.profile(t, dan, "male", "2015-01-01") // 15
	if res := post(dan.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("showing a 15-year-old: %d", res.StatusCode)
	}
	if got := shown(t, bob, "/people"); len(got) != 2 {
		t.Errorf("a refused Dan shows in Bob's Discover: %q", got)
	}
	for _, on := range []string{"", "maybe"} {
		if res := post(dan.Client, "/people/me", url.Values{"on": {on}}); res.StatusCode != http.StatusBadRequest {
			t.Errorf("on=%q: %d", on, res.StatusCode)
		}
	}

	// A profile kept to oneself leaves People, and cannot join it.
	if res := bob.PostForm("/account/settings", bob.WithCSRF("/account/settings", url.Values{"profileVisibility": {"private"}, "language": {"en"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	if got := shown(t, ann, "/people?show=everyone&min=18&max=99"); strings.Join(got, ",") != "Cat" {
		t.Errorf("Bob made his profile private, and Discover still shows him: %q", got)
	}
	if res := post(bob.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("a private profile joins People: %d", res.StatusCode)
	}
	// Hiding oneself takes one out.
	if res := post(ann.Client, "/people/me", url.Values{"on": {"false"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("hide me: %d", res.StatusCode)
	}
	cat := a.newMember(t, "cat@example.com", "Cat")
	if got := shown(t, cat, "/people?show=everyone&min=18&max=99"); len(got) != 0 {
		t.Errorf("Ann hid herself, and Cat still sees %q", got)
	}
	// A visitor is told what People is, and asked to sign in.
	if doc := a.Client().Get("/people").Doc(t); doc.Find(testID("people-signin")).Length() != 1 || doc.Find(testID("person-tile")).Length() != 0 {
		t.Error("a visitor's People page")
	}
}

// like posts from's like of to with comment.
func like(from, to member, comment string) *webtest.Response {
	return post(from.Client, auth.ProfileURL(to.key)+"/like", url.Values{"comment": {comment}, "next": {"/people"}})
}

// TestLikeLikeBackMatchUnmatch: a like (with its comment) reaches the
// liked person's inbox and "Likes you"; a like returned is a match for
// both, who find each other under Matches with "Message"; an unmatch
// ends it for both, for good.
func TestLikeLikeBackMatchUnmatch(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")

	if res := like(ann, bob, "Loved your cello!"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/people" {
		t.Fatalf("Ann likes Bob: %d → %q", res.StatusCode, res.Header.Get("Location"))
	}
	if items := a.Inbox(bob.Client); items.Length() != 1 || !strings.Contains(items.Text(), "Ann likes you: “Loved your cello!”") {
		t.Errorf("Bob's inbox: %q", items.Text())
	}
	doc := bob.Get("/people/likes").Doc(t)
	row := doc.Find(testID("likes-you")).Find(testID("people-row"))
	if row.Length() != 1 || row.AttrOr("data-member", "") != ann.key || row.Find(testID("like-comment")).Text() != "Loved your cello!" {
		t.Fatalf("Bob's Likes you: %q", row.Text())
	}
	if doc.Find(testID("tab-likes")).Text() != "Likes (1)" {
		t.Errorf("the Likes tab: %q", doc.Find(testID("tab-likes")).Text())
	}
	if sent := ann.Get("/people/likes").Doc(t).Find(testID("likes-sent")).Find(testID("people-row")); sent.Length() != 1 || sent.AttrOr("data-member", "") != bob.key {
		t.Errorf("Ann's You liked: %q", sent.Text())
	}
	// A second like of the same person changes nothing, tells nobody; a
	// form that names no page to return to returns to the person's.
	if res := post(ann.Client, auth.ProfileURL(bob.key)+"/like", url.Values{"comment": {"again"}}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != auth.ProfileURL(bob.key) {
		t.Errorf("liking again: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}
	if items := a.Inbox(bob.Client); items.Length() != 1 {
		t.Errorf("a second like told Bob again: %d notices", items.Length())
	}

	// Bob likes her back: a match, both told, both listed.
	res := like(bob, ann, "")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob likes Ann back: %d", res.StatusCode)
	}
	for _, m := range []struct {
		me, other member
	}{{ann, bob}, {bob, ann}} {
		if items := a.Inbox(m.me.Client); !strings.Contains(items.Text(), "You and "+m.other.name+" match") {
			t.Errorf("%s's notices: %q", m.me.name, items.Text())
		}
		d := m.me.Get("/people/matches").Doc(t)
		rows := d.Find(testID("matches")).Find(testID("people-row"))
		if rows.Length() != 1 || rows.AttrOr("data-member", "") != m.other.key {
			t.Errorf("%s's matches: %q", m.me.name, rows.Text())
		}
		if v := rows.Find(testID("match-message")).Closest("form").Find(`input[name="member"]`).AttrOr("value", ""); v != m.other.key {
			t.Errorf("%s's Message posts %q", m.me.name, v)
		}
		if l := m.me.Get("/people/likes").Doc(t).Find(testID("people-row")); l.Length() != 0 {
			t.Errorf("%s's likes still list a match: %q", m.me.name, l.Text())
		}
		if b := m.me.Get(auth.ProfileURL(m.other.key)).Doc(t).Find(testID("people-person")).Find(testID("badge-match")); b.Length() != 1 {
			t.Errorf("%s's page for %s does not say they matched", m.me.name, m.other.name)
		}
	}
	// Taking back a like after the match is refused: unmatch instead.
	if res := post(ann.Client, auth.ProfileURL(bob.key)+"/unlike", nil); res.StatusCode != http.StatusConflict {
		t.Errorf("unliking a match: %d", res.StatusCode)
	}

	// Unmatching asks first, then ends it for both; nobody is asked to
	// end a match there is not.
	for _, other := range []string{"auth:nobody", ann.key + "x"} {
		if res := post(bob.Client, auth.ProfileURL(other)+"/unmatch", nil); res.StatusCode < 400 || res.Doc(t).Find(testID("unmatch-confirm")).Length() != 0 {
			t.Errorf("asked to unmatch %s: %d", other, res.StatusCode)
		}
	}
	if res := post(bob.Client, auth.ProfileURL(ann.key)+"/unmatch", nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("unmatch-confirm")).Length() != 1 {
		t.Fatalf("an unconfirmed unmatch: %d", res.StatusCode)
	}
	if a.matchesOf(t, ann) != 1 {
		t.Fatal("an unconfirmed unmatch ended the match")
	}
	if res := post(bob.Client, auth.ProfileURL(ann.key)+"/unmatch", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unmatch: %d", res.StatusCode)
	}
	if a.matchesOf(t, ann) != 0 || a.matchesOf(t, bob) != 0 {
		t.Error("the match is still listed after the unmatch")
	}
	for _, m := range []struct{ from, to member }{{ann, bob}, {bob, ann}} {
		if res := like(m.from, m.to, ""); res.StatusCode != http.StatusConflict {
			t.Errorf("%s likes %s again after the unmatch: %d", m.from.name, m.to.name, res.StatusCode)
		}
		if got := shown(t, m.from, "/people"); len(got) != 0 {
			t.Errorf("%s's Discover after the unmatch: %q", m.from.name, got)
		}
	}
	if res := post(ann.Client, auth.ProfileURL(bob.key)+"/unmatch", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("unmatching twice: %d", res.StatusCode)
	}
}

// matchesOf counts m's matches page's rows.
func (a *app) matchesOf(t *testing.T, m member) int {
	t.Helper()
	return m.Get("/people/matches").Doc(t).Find(testID("people-row")).Length()
}

// TestAnAnonymousLikeNamesNobodyUntilTheyMatch: with anonymous likes on,
// the liked person learns that someone likes them, not who, anywhere;
// liking them back makes the match, which names both.
func TestAnAnonymousLikeNamesNobodyUntilTheyMatch(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	if res := ann.PostForm("/account/settings", ann.WithCSRF("/account/settings", url.Values{"profileVisibility": {"members"}, "anonymousLikes": {"on"}, "language": {"en"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	if res := like(ann, bob, "secret"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("like: %d", res.StatusCode)
	}
	items := a.Inbox(bob.Client)
	if items.Length() != 1 || !strings.Contains(items.Text(), "Someone likes you") || strings.Contains(items.Text(), "Ann") || strings.Contains(items.Text(), "secret") {
		t.Errorf("Bob's inbox: %q", items.Text())
	}
	doc := bob.Get("/people/likes").Doc(t)
	if doc.Find(testID("tab-likes")).Text() != "Likes (1)" {
		t.Errorf("the Likes tab does not count the anonymous like: %q", doc.Find(testID("tab-likes")).Text())
	}
	if doc.Find(testID("people-anonymous")).Length() != 1 || doc.Find(testID("likes-you")).Length() != 0 || strings.Contains(doc.Text(), "Ann") {
		t.Errorf("Bob's likes page names the anonymous liker, or does not count her: %q", doc.Find("main").Text())
	}
	for _, path := range []string{"/people", auth.ProfileURL(ann.key)} {
		if d := bob.Get(path).Doc(t); d.Find(testID("badge-likes-you")).Length() != 0 || d.Find(testID("like-comment")).Length() != 0 {
			t.Errorf("%s shows Bob that Ann likes him", path)
		}
	}
	if res := like(bob, ann, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob likes Ann: %d", res.StatusCode)
	}
	if a.matchesOf(t, bob) != 1 || !strings.Contains(a.Inbox(bob.Client).Text(), "You and Ann match") {
		t.Error("liking the anonymous liker back made no match, or did not name her")
	}
}

// TestBlockedPeopleStayOutOfTheBlockersWay: whom someone blocked is not
// in their Discover or likes, cannot match them and tells them nothing;
// the blocked person is not told, and the blocker cannot like them.
func TestBlockedPeopleStayOutOfTheBlockersWay(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	if res := like(bob, ann, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob likes Ann: %d", res.StatusCode)
	}
	a.Inbox(ann.Client)
	if res := ann.PostForm("/chat/block", ann.WithCSRF("/chat", url.Values{"member": {bob.key}, "name": {"Bob"}, "confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ann blocks Bob: %d", res.StatusCode)
	}
	if got := shown(t, ann, "/people"); len(got) != 0 {
		t.Errorf("Ann's Discover shows whom she blocked: %q", got)
	}
	if l := ann.Get("/people/likes").Doc(t).Find(testID("people-row")); l.Length() != 0 {
		t.Errorf("Ann's likes list whom she blocked: %q", l.Text())
	}
	if res := like(ann, bob, ""); res.StatusCode != http.StatusConflict {
		t.Errorf("Ann likes whom she blocked: %d", res.StatusCode)
	}
	// Bob is not told, and his like of her stands as it was.
	if got := shown(t, bob, "/people"); strings.Join(got, ",") != "Ann" {
		t.Errorf("Bob's Discover: %q", got)
	}
	cat := a.join(t, "cat@example.com", "Cat", "female", "2001-01-10")
	if res := like(bob, cat, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob likes Cat: %d", res.StatusCode)
	}
	// Ann unblocks him, and likes him: only now do they match.
	if res := ann.PostForm("/chat/unblock", ann.WithCSRF("/chat", url.Values{"member": {bob.key}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unblock: %d", res.StatusCode)
	}
	if res := like(ann, bob, ""); res.StatusCode != http.StatusSeeOther || a.matchesOf(t, ann) != 1 {
		t.Errorf("after the unblock: %d, %d matches", res.StatusCode, a.matchesOf(t, ann))
	}

	// A like returned to someone who blocked the liker since makes no
	// match, and tells the blocker nothing; the liker is not told.
	dan := a.join(t, "dan@example.com", "Dan", "male", "1999-01-10")
	if res := like(cat, dan, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatal(res.StatusCode)
	}
	if res := cat.PostForm("/chat/block", cat.WithCSRF("/chat", url.Values{"member": {dan.key}, "name": {"Dan"}, "confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Cat blocks Dan: %d", res.StatusCode)
	}
	before := a.Inbox(cat.Client).Length()
	if res := like(dan, cat, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Dan likes Cat: %d", res.StatusCode)
	}
	if a.matchesOf(t, cat) != 0 || a.matchesOf(t, dan) != 0 {
		t.Error("a like returned to a blocker made a match")
	}
	if after := a.Inbox(cat.Client).Length(); after != before {
		t.Errorf("the blocker was told: %d notices, were %d", after, before)
	}

	// A person's page offers the block too; it returns to the page, and
	// they leave the blocker's Discover.
	eve := a.join(t, "eve@example.com", "Eve", "female", "2001-01-10")
	page := auth.ProfileURL(eve.key)
	form := ann.Get(page).Doc(t).Find(testID("people-person") + " " + testID("chat-block-confirm")).Closest("form")
	if form.Length() != 1 {
		t.Fatal("no block on a person's page")
	}
	values := url.Values{}
	form.Find("input[type=hidden]").Each(func(_ int, s *goquery.Selection) { values.Set(s.AttrOr("name", ""), s.AttrOr("value", "")) })
	if res := ann.PostForm(form.AttrOr("action", ""), values); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Errorf("blocking from her page: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}
	if got := shown(t, ann, "/people"); slices.Contains(got, "Eve") {
		t.Errorf("Ann's Discover shows whom she blocked from a page: %q", got)
	}
}

// TestLikesAtOnceMatch: two people liking each other at the same moment
// match, whichever lands first; over many pairs none is missed.
func TestLikesAtOnceMatch(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const pairs = 12
	keys := make([][2]string, pairs)
	for i := range pairs {
		for j := range 2 {
			m := a.join(t, fmt.Sprintf("p%d-%d@example.com", i, j), fmt.Sprintf("P%d-%d", i, j), "female", "1990-01-01")
			keys[i][j] = m.key
		}
	}
	var wg sync.WaitGroup
	for _, k := range keys {
		for j := range 2 {
			wg.Go(func() {
				if _, err := a.svc.Like(ctx, k[j], k[1-j], ""); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	for i, k := range keys {
		for j := range 2 {
			st, err := a.svc.StandingOf(ctx, k[j])
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := st.Matches[k[1-j]]; !ok || !m.Active {
				t.Errorf("pair %d: side %d has no match", i, j)
			}
		}
	}
}

// TestRebuildFinishesWhatACrashLeft: the rebuild writes a like's missing
// received row, a mutual like's missing match rows (both, or the one
// side missing), ends the other side of a half-ended match and deletes
// its likes, deletes a received row without its like, and then finds
// nothing more to do.
func TestRebuildFinishesWhatACrashLeft(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "2001-01-10")
	dan := a.join(t, "dan@example.com", "Dan", "male", "1999-01-10")
	likes, matches := a.Store.Table(people.LikesTable), a.Store.Table(people.MatchesTable)
	at := accounttest.Start
	write := func(tab *storage.Table, row any) {
		t.Helper()
		e, err := storage.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Upsert(ctx, e, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	// Ann and Bob like each other; the likes stopped before anything else.
	write(likes, people.LikeRow{PartitionKey: ann.key, RowKey: bob.key, CreatedAt: at, Comment: "hi"})
	write(likes, people.LikeRow{PartitionKey: bob.key, RowKey: ann.key, CreatedAt: at.Add(1)})
	// Cat and Dan matched, and Cat's unmatch ended her side only.
	ended := at.Add(2)
	write(likes, people.LikeRow{PartitionKey: cat.key, RowKey: dan.key, CreatedAt: at})
	write(likes, people.LikeRow{PartitionKey: dan.key, RowKey: cat.key, CreatedAt: at})
	write(matches, people.MatchRow{PartitionKey: cat.key, RowKey: dan.key, CreatedAt: at, EndedAt: &ended, EndedBy: cat.key})
	write(matches, people.MatchRow{PartitionKey: dan.key, RowKey: cat.key, CreatedAt: at, Active: true})
	// A received row whose like was taken back.
	write(likes, people.LikeRow{PartitionKey: cat.key + "|received", RowKey: bob.key, CreatedAt: at})

	if a.matchesOf(t, ann) != 0 || a.matchesOf(t, dan) != 1 {
		t.Fatal("the set-up is not half written")
	}
	r, err := a.svc.RebuildPeople(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r.Likes != 4 || r.Received != 2 || r.Matches != 3 || r.Unliked != 2 || r.Removed != 1 {
		t.Errorf("report: %+v", r)
	}
	if a.matchesOf(t, ann) != 1 || a.matchesOf(t, bob) != 1 {
		t.Error("Ann and Bob do not match after the rebuild")
	}
	if a.matchesOf(t, dan) != 0 || a.matchesOf(t, cat) != 0 {
		t.Error("the half-ended match still stands")
	}
	if res := like(dan, cat, ""); res.StatusCode != http.StatusConflict {
		t.Errorf("Dan likes Cat after the ended match: %d", res.StatusCode)
	}
	if c := bob.Get("/people/likes").Doc(t).Find(testID("people-row")); c.Length() != 0 {
		t.Errorf("Bob's likes: %q", c.Text())
	}
	if l := cat.Get("/people/likes").Doc(t).Find(testID("likes-you")).Find(testID("people-row")); l.Length() != 0 {
		t.Errorf("Cat's Likes you keeps a like taken back: %q", l.Text())
	}
	if r, err := a.svc.RebuildPeople(ctx); err != nil || r.Received+r.Matches+r.Unliked+r.Removed != 0 {
		t.Errorf("a second rebuild: %+v %v", r, err)
	}
}

// TestLikesRefuseBadInput: a like of oneself, of nobody, of someone not
// in People, by someone not in People, or with a comment that is not
// one line of at most 200 characters is refused with its status, and
// writes nothing; past LikesPerDay a like is refused with 429.
func TestLikesRefuseBadInput(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	dan := a.newMember(t, "dan@example.com", "Dan")
	cases := []struct {
		who    member
		path   string
		form   url.Values
		status int
	}{
		{ann, auth.ProfileURL(ann.key) + "/like", nil, http.StatusNotFound},
		{ann, "/people/auth:nobody/like", nil, http.StatusNotFound},
		{ann, "/people/not-a-key/like", nil, http.StatusNotFound},
		{ann, "/people/guest:abc/like", nil, http.StatusNotFound},
		{ann, auth.ProfileURL(dan.key) + "/like", nil, http.StatusNotFound},
		{dan, auth.ProfileURL(ann.key) + "/like", nil, http.StatusConflict},
		{ann, auth.ProfileURL(bob.key) + "/like", url.Values{"comment": {strings.Repeat("a", 201)}}, http.StatusBadRequest},
		{ann, auth.ProfileURL(bob.key) + "/like", url.Values{"comment": {"two\nlines"}}, http.StatusBadRequest},
		{ann, auth.ProfileURL(bob.key) + "/like", url.Values{"comment": {"bell\x07"}}, http.StatusBadRequest},
		{ann, auth.ProfileURL(bob.key) + "/unmatch", url.Values{"confirm": {"yes"}}, http.StatusNotFound},
	}
	for _, c := range cases {
		res := post(c.who.Client, c.path, c.form)
		if res.StatusCode != c.status {
			t.Errorf("%s POST %s %v: %d, want %d", c.who.name, c.path, c.form, res.StatusCode, c.status)
		}
		if strings.Contains(res.Body, "goroutine") || strings.Contains(res.Body, ".go:") {
			t.Errorf("%s: the answer shows a stack trace", c.path)
		}
	}
	rows, err := storage.All[people.LikeRow](ctx, a.Store.Table(people.LikesTable), storage.Query{Scan: true})
	if err != nil || len(rows) != 0 {
		t.Errorf("refused likes wrote %d rows (%v)", len(rows), err)
	}
	if res := a.Client().Get("/people/likes"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor's likes page: %d", res.StatusCode)
	}

	// The daily quota: LikesPerDay likes, then 429.
	for i := range people.LikesPerDay {
		key, err := a.Auth.EnsureAccount(ctx, fmt.Sprintf("q%d@example.com", i), fmt.Sprintf("Q%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if errs, err := a.Accounts.UpdateProfile(ctx, key, account.ProfileInput{DisplayName: fmt.Sprintf("Q%d", i), BirthDate: "1990-01-01"}); err != nil || len(errs) > 0 {
			t.Fatal(err, errs)
		}
		if _, err := a.Accounts.SetInPeople(ctx, key, true); err != nil {
			t.Fatal(err)
		}
		if _, err := a.svc.Like(ctx, ann.key, key, ""); err != nil {
			t.Fatalf("like %d: %v", i+1, err)
		}
	}
	if res := like(ann, bob, ""); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("like %d: %d", people.LikesPerDay+1, res.StatusCode)
	}
	a.Clock.Advance(24 * time.Hour)
	if res := like(ann, bob, ""); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the next day: %d", res.StatusCode)
	}
}

// TestDiscoverBeginsElsewhereEachDay: Discover does not show the people
// in the order they signed up, the same to everyone every day: a
// viewer's list begins at a place of their own each day, wraps around to
// show everyone once, and another viewer's begins elsewhere.
func TestDiscoverBeginsElsewhereEachDay(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	dan := a.join(t, "dan@example.com", "Dan", "male", "1995-03-02")
	var everyone []string
	for i := range 10 {
		name := fmt.Sprintf("P%d", i)
		a.join(t, fmt.Sprintf("p%d@example.com", i), name, "male", "1990-01-01")
		everyone = append(everyone, name)
	}
	// Each day's page is in an order of its own: in four weeks, at least
	// six of the eleven lead it one day (five or fewer, about one run in
	// ten million; TestDiscoverLeadsFairly measures how often each).
	const days = 28
	firsts, apart := map[string]bool{}, 0
	for day := range days {
		got := shown(t, ann, "/people")
		mine := slices.DeleteFunc(slices.Clone(got), func(n string) bool { return n == "Dan" })
		sorted := slices.Sorted(slices.Values(mine))
		if !slices.Equal(sorted, everyone) || len(got) != len(everyone)+1 {
			t.Fatalf("day %d: %v, want each of %v and Dan once", day, got, everyone)
		}
		firsts[got[0]] = true
		theirs := slices.DeleteFunc(shown(t, dan, "/people"), func(n string) bool { return n == "Ann" })
		if !slices.Equal(theirs, mine) {
			apart++
		}
		a.Clock.Advance(24 * time.Hour)
	}
	if len(firsts) < 6 {
		t.Errorf("four weeks of Discover began with %v alone", firsts)
	}
	if apart < days/2 {
		t.Errorf("Ann and Dan saw People in one order on %d days of %d", days-apart, days)
	}
}

// TestDiscoverLeadsFairly: each person in People leads the first page
// of Discover about as often as any other, over 330 viewers' days. In
// the People rows' key order from each day's start, whoever follows a
// wide gap between two keys would lead it more often: eleven keys at
// random leave gaps from a sliver to a quarter of the key space. The
// test holds the leads to a chi-squared bound (10 degrees of freedom)
// that even leads pass all but about twice in a million runs, and that
// leads in proportion to the gaps exceed but for keys spread far more
// evenly than chance spreads them (the statistic is then about 250).
func TestDiscoverLeadsFairly(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	const many, draws = 11, 330
	for i := range many {
		a.join(t, fmt.Sprintf("p%d@example.com", i), fmt.Sprintf("P%d", i), "male", "1990-01-01")
	}
	leads := map[string]int{}
	for i := range draws {
		got, err := a.svc.Discover(t.Context(), fmt.Sprintf("auth:viewer%d", i), people.Filter{}, people.Standing{Skipped: map[string]time.Time{}}, nil)
		if err != nil || len(got.People) != many {
			t.Fatalf("viewer %d: %d people, %v", i, len(got.People), err)
		}
		leads[got.People[0].DisplayName]++
	}
	want := float64(draws) / many
	chi := 0.0
	for i := range many {
		d := float64(leads[fmt.Sprintf("P%d", i)]) - want
		chi += d * d / want
	}
	if chi > 45 {
		t.Errorf("leads %v: chi-squared %.1f, over 45", leads, chi)
	}
}

// TestDiscoverReadsNoRowPerPerson: a page of Discover costs the same
// calls for three people as for nine (the directory walk and the
// viewer's four partitions, no read per person), and a likes page one
// point read per person it lists.
func TestDiscoverReadsNoRowPerPerson(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	var others []member
	cost := func(path string) map[string]int64 {
		t.Helper()
		res := ann.Get(path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		return res.StorageOps(t)
	}
	var few, many map[string]int64
	for i := range 8 {
		m := a.join(t, fmt.Sprintf("p%d@example.com", i), fmt.Sprintf("P%d", i), "male", "1990-01-01")
		others = append(others, m)
		like(m, ann, "")
		if i == 1 {
			few = cost("/people")
		}
	}
	many = cost("/people")
	// Eight queries: the viewer's four partitions, their skips, the two
	// the walk of Discover's ring reads (from the viewer's start of the
	// day, then from the beginning), and the session's.
	if few["total"] != many["total"] || many["queries"] > 8 {
		t.Errorf("Discover: %v with two others, %v with eight", few, many)
	}
	likes := cost("/people/likes")
	if likes["queries"] != 4 || likes["reads"] > int64(len(others))+2 {
		t.Errorf("the likes page of %d likes: %v", len(others), likes)
	}
}

// TestReportingACardTakesItOutOfPeople: a member reports someone's
// People card from their page; the report quotes the card as it was;
// an admin's take-down takes them out of People (their match stands),
// and they cannot show themselves again until an admin allows it on the
// users page. Oneself, and someone not in People, have no report page.
func TestReportingACardTakesItOutOfPeople(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "2001-01-10")
	boss := a.newMember(t, "boss@example.com", "Boss")
	like(cat, ann, "")
	like(ann, cat, "")
	page := auth.ProfileURL(ann.key)
	link := bob.Get(page).Doc(t).Find(testID("person-report")).AttrOr("href", "")
	if link != page+"/report" {
		t.Fatalf("Bob's report link on Ann's page: %q", link)
	}
	form := bob.Get(link)
	if form.StatusCode != http.StatusOK || !strings.Contains(form.Doc(t).Find(testID("report-excerpt")).Text(), "Ann plays the cello.") {
		t.Fatalf("the report page: %d", form.StatusCode)
	}
	for _, c := range []struct {
		who  member
		path string
	}{{ann, page + "/report"}, {bob, auth.ProfileURL(boss.key) + "/report"}, {bob, "/people/not-a-key/report"}} {
		if res := c.who.Get(c.path); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s GET %s: %d", c.who.name, c.path, res.StatusCode)
		}
	}
	if res := bob.PostForm(link, bob.WithCSRF(link, url.Values{"reason": {"spam"}, "note": {"A fake."}})); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Fatalf("Bob reports: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}
	row := boss.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if row.Length() != 1 || !strings.Contains(row.Text(), "People card") || !strings.Contains(row.Text(), "Ann plays the cello.") {
		t.Fatalf("the queue: %q", row.Text())
	}
	id, _ := row.Attr("data-report")
	if res := boss.PostForm("/admin/reports/"+id+"/take-down", boss.WithCSRF("/admin/reports", url.Values{"note": {"Fake profile"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take down: %d", res.StatusCode)
	}
	if got := shown(t, bob, "/people"); strings.Join(got, ",") != "Cat" {
		t.Errorf("after the take-down Bob's Discover: %q", got)
	}
	if res := like(bob, ann, ""); res.StatusCode != http.StatusNotFound {
		t.Errorf("liking a card taken down: %d", res.StatusCode)
	}
	if a.matchesOf(t, cat) != 1 {
		t.Error("the take-down ended Ann's match")
	}

	// Ann cannot simply show herself again: her page says why, offers
	// no button, and the form is refused with nothing changed.
	mine := ann.Get("/people").Doc(t)
	if mine.Find(testID("people-join-barred")).Length() != 1 || mine.Find(testID("people-show-me")).Length() != 0 {
		t.Errorf("Ann's People page after the take-down: barred %d, show-me %d", mine.Find(testID("people-join-barred")).Length(), mine.Find(testID("people-show-me")).Length())
	}
	if res := post(ann.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusForbidden || !strings.Contains(string(res.Body), "only an admin") {
		t.Errorf("Ann shows herself again: %d", res.StatusCode)
	}
	if got := shown(t, bob, "/people"); strings.Join(got, ",") != "Cat" {
		t.Errorf("after Ann's refused try Bob's Discover: %q", got)
	}

	// The admins see it on the users page and may allow her back; she
	// then chooses to show herself, as at first.
	annRow := func() *goquery.Selection {
		return boss.Get("/admin/users").Doc(t).Find(testID("admin-user-row") + `[data-member="` + ann.key + `"]`)
	}
	if r := annRow(); r.Find(testID("people-barred-badge")).Length() != 1 || r.Find(testID("admin-allow-people")).Length() != 1 {
		t.Fatalf("Ann's row on the users page: %q", r.Text())
	}
	if r := boss.Get("/admin/users").Doc(t).Find(testID("admin-user-row") + `[data-member="` + bob.key + `"]`); r.Find(testID("admin-allow-people")).Length() != 0 {
		t.Error("Bob's row offers to allow him in People")
	}
	allow := "/admin/users/" + ann.key + "/allow-people"
	if res := bob.PostForm(allow, bob.WithCSRF("/people", nil)); res.StatusCode != http.StatusForbidden {
		t.Errorf("Bob allows Ann back: %d", res.StatusCode)
	}
	if res := boss.PostForm(allow, boss.WithCSRF("/admin/users", url.Values{"next": {"/admin/users"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the admin allows Ann back: %d %.300s", res.StatusCode, res.Body)
	}
	if r := annRow(); r.Find(testID("people-barred-badge")).Length() != 0 {
		t.Error("Ann's row still says she is out of People")
	}
	if got := shown(t, bob, "/people"); strings.Join(got, ",") != "Cat" {
		t.Errorf("allowing Ann back showed her without her choice: %q", got)
	}
	if ann.Get("/people").Doc(t).Find(testID("people-show-me")).Length() != 1 {
		t.Error("Ann's page offers no way back once allowed")
	}
	if res := post(ann.Client, "/people/me", url.Values{"on": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ann shows herself once allowed: %d", res.StatusCode)
	}
	if got := shown(t, bob, "/people"); strings.Join(got, ",") != "Ann,Cat" && strings.Join(got, ",") != "Cat,Ann" {
		t.Errorf("Bob's Discover once Ann is back: %q", got)
	}
}

// upload posts a photo to m's People photos.
func upload(m member, data []byte) *webtest.Response {
	return m.PostFile(photosPath, m.WithCSRF(photosPath, nil), "photo", "me.jpg", data)
}

const photosPath = "/people/photos"

// photoIDs are the photos on m's photos page, in order.
func photoIDs(t *testing.T, m member) []string {
	t.Helper()
	var ids []string
	m.Get(photosPath).Doc(t).Find(testID("photo-item")).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-photo", "")) })
	return ids
}

// TestPhotosLeadTheCardInTheirOrder: up to six photos, re-encoded
// without their EXIF; the first leads the card in Discover and all show
// on the person's page, in the order their owner sets; a bad file, a
// seventh photo or someone else's photo is refused and changes nothing;
// the rebuild puts a card's first photo back.
func TestPhotosLeadTheCardInTheirOrder(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	tileSrc := func() string {
		t.Helper()
		return bob.Get("/people").Doc(t).Find(testID("person-tile")).Filter(`[data-member="`+ann.key+`"]`).Find("img").AttrOr("src", "")
	}
	if tileSrc() != "" {
		t.Fatal("a card without photos shows one")
	}
	for i := range 3 {
		if res := upload(ann, mediatest.JPEGWithEXIF(t, 800+i, 600, 1)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("photo %d: %d %.300s", i+1, res.StatusCode, res.Body)
		}
	}
	ids := photoIDs(t, ann)
	if len(ids) != 3 {
		t.Fatalf("photos: %v", ids)
	}
	src := tileSrc()
	if !strings.Contains(src, ids[0]) {
		t.Errorf("the tile shows %q, not the first photo %s", src, ids[0])
	}
	res := bob.Get(src)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" || strings.Contains(res.Body, "Exif") {
		t.Errorf("the photo as served: %d %s, EXIF kept: %v", res.StatusCode, res.Header.Get("Content-Type"), strings.Contains(res.Body, "Exif"))
	}
	if cc := res.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Errorf("a People photo may be kept by shared caches: %q", cc)
	}
	// The photos are for members, while she is in People: not for a
	// visitor with the address, nor for Bob once she left; hers still,
	// and Cat's, her match, whose page of her still shows them.
	if res := a.Client().Get(src); res.StatusCode == http.StatusOK {
		t.Error("a visitor is served her photo")
	}
	cat := a.join(t, "cat@example.com", "Cat", "female", "1992-03-01")
	like(cat, ann, "")
	like(ann, cat, "")
	post(ann.Client, "/people/me", url.Values{"on": {"false"}})
	if res := bob.Get(src); res.StatusCode != http.StatusNotFound {
		t.Errorf("her photo once she left People: %d", res.StatusCode)
	}
	if res := ann.Get(src); res.StatusCode != http.StatusOK {
		t.Errorf("her own photo once she left People: %d", res.StatusCode)
	}
	if res := cat.Get(src); res.StatusCode != http.StatusOK || cat.Get(auth.ProfileURL(ann.key)).Doc(t).Find(testID("person-gallery")+" img").Length() != 3 {
		t.Errorf("her photo to her match once she left People: %d", res.StatusCode)
	}
	post(ann.Client, "/people/me", url.Values{"on": {"true"}})
	if g := bob.Get(auth.ProfileURL(ann.key)).Doc(t).Find(testID("person-gallery") + " img"); g.Length() != 3 {
		t.Errorf("her page shows %d photos", g.Length())
	}
	// The third made first: it leads the card.
	if res := ann.PostForm(photosPath+"/"+ids[2]+"/move", ann.WithCSRF(photosPath, url.Values{"to": {"first"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("make first: %d", res.StatusCode)
	}
	if got := photoIDs(t, ann); strings.Join(got, ",") != strings.Join([]string{ids[2], ids[0], ids[1]}, ",") {
		t.Errorf("the order after make first: %v", got)
	}
	if !strings.Contains(tileSrc(), ids[2]) {
		t.Error("the card does not lead with the photo made first")
	}
	if res := ann.PostForm(photosPath+"/"+ids[1]+"/move", ann.WithCSRF(photosPath, url.Values{"to": {"earlier"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("earlier: %d", res.StatusCode)
	}
	if got := photoIDs(t, ann); strings.Join(got, ",") != strings.Join([]string{ids[2], ids[1], ids[0]}, ",") {
		t.Errorf("the order after earlier: %v", got)
	}

	// Refusals change nothing.
	refused := []struct {
		name   string
		res    *webtest.Response
		status int
	}{
		{"not a picture", upload(ann, []byte("plain text, not a picture")), http.StatusBadRequest},
		{"no file", upload(ann, nil), http.StatusBadRequest},
		{"Bob deletes her photo", bob.PostForm(photosPath+"/"+ids[0]+"/delete", bob.WithCSRF(photosPath, url.Values{"confirm": {"yes"}})), http.StatusNotFound},
		{"Bob is asked to delete her photo", bob.PostForm(photosPath+"/"+ids[0]+"/delete", bob.WithCSRF(photosPath, nil)), http.StatusNotFound},
		{"Ann is asked to delete no photo", ann.PostForm(photosPath+"/01ARZ3NDEKTSV4RRFFQ69G5FAV/delete", ann.WithCSRF(photosPath, nil)), http.StatusNotFound},
		{"Bob moves her photo", bob.PostForm(photosPath+"/"+ids[0]+"/move", bob.WithCSRF(photosPath, url.Values{"to": {"first"}})), http.StatusNotFound},
		{"a move nowhere", ann.PostForm(photosPath+"/"+ids[0]+"/move", ann.WithCSRF(photosPath, url.Values{"to": {"up"}})), http.StatusBadRequest},
	}
	for _, r := range refused {
		if r.res.StatusCode != r.status || r.res.Writes(t) != 0 {
			t.Errorf("%s: %d (%d writes), want %d", r.name, r.res.StatusCode, r.res.Writes(t), r.status)
		}
	}
	if got := photoIDs(t, ann); len(got) != 3 {
		t.Errorf("after the refusals: %v", got)
	}
	for _, path := range []string{"/media/people/" + ann.key + "/../x.jpg", "/media/people/not-a-key/" + ids[0] + ".jpg", "/media/people/" + ann.key + "/" + ids[0] + ".png"} {
		if res := bob.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	for i := range 3 {
		if res := upload(ann, mediatest.JPEGWithEXIF(t, 400+i, 300, 1)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("photo %d: %d", i+4, res.StatusCode)
		}
	}
	if res := upload(ann, mediatest.JPEGWithEXIF(t, 500, 300, 1)); res.StatusCode != http.StatusConflict || res.Doc(t).Find(testID("photo-error")).Length() != 1 {
		t.Errorf("a seventh photo: %d", res.StatusCode)
	}
	if got := photoIDs(t, ann); len(got) != people.MaxPhotos {
		t.Errorf("%d photos after a seventh", len(got))
	}

	// Deleting asks first; the first deleted, the next leads the card.
	first := photoIDs(t, ann)[0]
	if res := ann.PostForm(photosPath+"/"+first+"/delete", ann.WithCSRF(photosPath, nil)); res.StatusCode != http.StatusOK || len(photoIDs(t, ann)) != people.MaxPhotos {
		t.Fatalf("an unconfirmed delete: %d", res.StatusCode)
	}
	if res := ann.PostForm(photosPath+"/"+first+"/delete", ann.WithCSRF(photosPath, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	next := photoIDs(t, ann)[0]
	if got := tileSrc(); !strings.Contains(got, next) {
		t.Errorf("after deleting the first, the tile shows %q, not %s", got, next)
	}
	if res := bob.Get("/media/people/" + ann.key + "/" + first + ".jpg"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a deleted photo is still served: %d", res.StatusCode)
	}

	// A card whose first photo was not recorded: the rebuild records it.
	if err := a.Accounts.SetCardPhoto(ctx, ann.key, ""); err != nil {
		t.Fatal(err)
	}
	if tileSrc() != "" {
		t.Fatal("the set-up")
	}
	if r, err := a.svc.RebuildPeople(ctx); err != nil || r.Cards != 1 {
		t.Errorf("rebuild: %+v %v", r, err)
	}
	if !strings.Contains(tileSrc(), next) {
		t.Error("the rebuild did not put the card's photo back")
	}
}

// place shares where m is, as the "Use my location" form sends it.
func place(m member, lat, lon string) *webtest.Response {
	return post(m.Client, "/people/me/place", url.Values{"lat": {lat}, "lon": {lon}})
}

// TestPlacesAreFewADay: someone sets their place at most PlacesPerDay
// times a day, so that nobody finds where a person is by moving about
// and reading their distance; the next is a 429 that says so and keeps
// the place; the next day it is taken.
func TestPlacesAreFewADay(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	if res := place(bob, "51.5074", "-0.1278"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob shares his place: %d", res.StatusCode)
	}
	distance := func() string {
		t.Helper()
		return ann.Get("/people").Doc(t).Find(testID("person-tile")).Text()
	}
	for i := range people.PlacesPerDay {
		if res := place(ann, fmt.Sprintf("51.%d", 50+i), "-0.1278"); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("place %d: %d", i+1, res.StatusCode)
		}
	}
	before := distance()
	res := place(ann, "51.6", "-0.1278")
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 || !strings.Contains(res.Body, "5 times a day") {
		t.Errorf("one place more: %d (%d writes) %.200s", res.StatusCode, res.Writes(t), res.Body)
	}
	if after := distance(); after != before || !strings.Contains(after, "km away") {
		t.Errorf("the refused place moved Ann: %q, then %q", before, after)
	}
	a.Clock.Advance(24 * time.Hour)
	if res := place(ann, "51.6", "-0.1278"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the next day: %d", res.StatusCode)
	}
}

// TestDistancesNarrowDiscover: someone who shares their location sees
// how far people are and keeps Discover within their preferred distance
// (100 km unless they choose), the filter's own distance or anywhere;
// people who shared no location drop out of a distance's Discover; a
// bad point or distance is a 400 that writes nothing; forgetting the
// location ends the distances.
func TestDistancesNarrowDiscover(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "2001-01-10")
	dan := a.join(t, "dan@example.com", "Dan", "male", "1995-05-05")

	page := ann.Get("/people").Doc(t)
	if got := shown(t, ann, "/people"); len(got) != 3 || page.Find(testID("people-place-share")).Length() != 1 || page.Find(testID("people-filter-km")).Length() != 0 {
		t.Fatalf("before sharing a location Ann's Discover: %q", got)
	}
	for _, bad := range [][2]string{{"91", "0"}, {"abc", "0"}, {"51.5", ""}, {"NaN", "NaN"}} {
		if res := place(ann, bad[0], bad[1]); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
			t.Errorf("the point %q: %d (%d writes)", bad, res.StatusCode, res.Writes(t))
		}
	}
	for _, p := range []struct {
		m        member
		lat, lon string
	}{{ann, "51.5074", "-0.1278"}, {bob, "51.4545", "-0.0983"}, {cat, "55.7558", "37.6173"}} {
		if res := place(p.m, p.lat, p.lon); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s shares a location: %d", p.m.name, res.StatusCode)
		}
	}

	// Ann's preference is the default 100 km: Bob, 7 km away, alone.
	doc := ann.Get("/people").Doc(t)
	if got := shown(t, ann, "/people"); strings.Join(got, ",") != "Bob" {
		t.Errorf("within 100 km: %q", got)
	}
	if facts := doc.Find(testID("person-tile")).Text(); !strings.Contains(facts, "7\u00a0km away") {
		t.Errorf("Bob's tile: %q", facts)
	}
	if doc.Find(testID("people-filter-km")).AttrOr("value", "") != "100" || doc.Find(testID("people-place-forget")).Length() != 1 {
		t.Error("the filter does not show the distance, or offers no way to forget the location")
	}
	if got := shown(t, ann, "/people?km=5000"); strings.Join(got, ",") != "Bob,Cat" && strings.Join(got, ",") != "Cat,Bob" {
		t.Errorf("within 5,000 km: %q", got)
	}
	if got := shown(t, ann, "/people?km="); len(got) != 3 {
		t.Errorf("anywhere: %q", got)
	}
	for _, bad := range []string{"0", "abc", "20001", "-5"} {
		if res := ann.Get("/people?km=" + bad); res.StatusCode != http.StatusBadRequest {
			t.Errorf("km=%s: %d", bad, res.StatusCode)
		}
	}
	// Dan has no JavaScript: he chooses his city instead (a city not
	// offered, or none, is a 400 that writes nothing), and Cat in Moscow
	// is then near him.
	if sel := dan.Get("/people").Doc(t).Find(testID("people-city")); sel.Find(`option[value="moscow"]`).Text() != "Moscow" {
		t.Fatalf("the city choice: %q", sel.Text())
	}
	for _, bad := range []url.Values{{"city": {"atlantis"}}, {"city": {""}}, {}} {
		if res := post(dan.Client, "/people/me/place", bad); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
			t.Errorf("the city %v: %d (%d writes)", bad, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(dan.Client, "/people/me/place", url.Values{"city": {"moscow"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Dan chooses Moscow: %d", res.StatusCode)
	}
	if got := shown(t, dan, "/people"); strings.Join(got, ",") != "Cat" {
		t.Errorf("within 100 km of Moscow: %q", got)
	}
	// The likes and matches lists say how far too, as Discover does: Cat,
	// 2,500 km off, likes Ann; Ann sees it, likes her back, and the match
	// says it; once Ann forgets her location, no list says how far.
	if res := like(cat, ann, "Hello from Moscow"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Cat likes Ann: %d", res.StatusCode)
	}
	if card := ann.Get(people.LikesURL).Doc(t).Find(testID("people-row")).Text(); !strings.Contains(card, "Cat") || !strings.Contains(card, "km away") {
		t.Errorf("Ann's likes: %q", card)
	}
	if res := like(ann, cat, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ann likes Cat back: %d", res.StatusCode)
	}
	if card := cat.Get(people.MatchesURL).Doc(t).Find(testID("people-row")).Text(); !strings.Contains(card, "Ann") || !strings.Contains(card, "km away") {
		t.Errorf("Cat's matches: %q", card)
	}
	if res := post(ann.Client, "/people/me/place/forget", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ann forgets her location: %d", res.StatusCode)
	}
	if card := ann.Get(people.MatchesURL).Doc(t).Find(testID("people-row")).Text(); !strings.Contains(card, "Cat") || strings.Contains(card, "km away") {
		t.Errorf("Ann's matches, her location forgotten: %q", card)
	}
	doc = ann.Get("/people").Doc(t)
	if got := shown(t, ann, "/people"); len(got) != 3 || strings.Contains(doc.Text(), "km away") {
		t.Errorf("after forgetting: %q", got)
	}
}

package groups

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/web/webtest"
)

// memberFeedPath is the feed URL p's settings page shows them, as a path
// any client (no session) can ask for.
func memberFeedPath(t *testing.T, p person, groupID string) string {
	t.Helper()
	href, _ := p.c.Get("/groups/" + groupID + "/settings").Doc(t).Find(testID("calendar-url")).Attr("value")
	u, err := url.Parse(href)
	if err != nil || u.Query().Get("member") == "" || u.Query().Get("token") == "" {
		t.Fatalf("%s's feed URL %q", p.id.Email, href)
	}
	return u.RequestURI()
}

// feedTrio is ann's group with bob and carol as members, an appointment
// and the feed on.
func feedTrio(t *testing.T, a *groupsApp) (ann, bob, carol person, groupID string) {
	t.Helper()
	ann, bob, groupID = joinedPair(t, a)
	invite(t, ann, groupID, "carol@example.com")
	carol = a.signIn(t, "carol@example.com")
	if res := post(t, carol.c, "/groups/"+groupID+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", res.StatusCode)
	}
	createAppointment(t, ann, groupID, url.Values{
		"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "notes": {"Bring the card"},
	})
	if res := post(t, ann.c, "/groups/"+groupID+"/calendar/token", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("turn the feed on: %d", res.StatusCode)
	}
	return ann, bob, carol, groupID
}

// feedGet asks for a feed path without a session.
func feedGet(a *groupsApp, path string) *webtest.Response { return a.Client().Get(path) }

// assertFeed checks that path serves the group's calendar.
func assertFeed(t *testing.T, a *groupsApp, who, path string) {
	t.Helper()
	res := feedGet(a, path)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") ||
		!strings.Contains(res.Body, "SUMMARY:Dentist") || !strings.Contains(res.Body, "DESCRIPTION:Bring the card") {
		t.Fatalf("%s's feed: %d %s\n%s", who, res.StatusCode, res.Header.Get("Content-Type"), res.Body)
	}
}

// assertNoFeed checks that path answers the plain 404, names nothing and
// writes nothing.
func assertNoFeed(t *testing.T, a *groupsApp, what, path string) {
	t.Helper()
	res := feedGet(a, path)
	if res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("%s: %d, %s", what, res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	if strings.Contains(res.Body, "Smiths") || strings.Contains(res.Body, "Dentist") {
		t.Errorf("%s: the 404 names the group or an appointment", what)
	}
}

// Each member's feed URL is their own: it names them, its token is not
// the group's key, and it serves the feed without a session for one
// point read more than the group's.
func TestEachMemberHasTheirOwnFeedURL(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, carol, id := feedTrio(t, a)
	g, err := a.svc.group(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, p := range []person{ann, bob, carol} {
		path := memberFeedPath(t, p, id)
		if other, ok := seen[path]; ok {
			t.Fatalf("%s and %s have the same feed URL", p.id.Email, other)
		}
		seen[path] = p.id.Email
		if strings.Contains(path, g.CalendarToken) || strings.Contains(path, p.id.UserKey) {
			t.Fatalf("%s's feed URL %s shows the group's key or their userKey", p.id.Email, path)
		}
		assertFeed(t, a, p.id.Email, path)
	}
	// A feed request is the group's, the member's and their account's
	// point reads, then the appointments: nothing more for the checks.
	res := feedGet(a, memberFeedPath(t, bob, id))
	if ops := res.StorageOps(t); ops["reads"] != 3 || res.Writes(t) != 0 {
		t.Errorf("feed request: %s", res.Header.Get("X-Storage-Ops"))
	}
	// Disabling bob's account ends his feed with his sessions.
	path := memberFeedPath(t, bob, id)
	if _, err := a.Accounts.SetEnabled(t.Context(), bob.id.MemberKey, false); err != nil {
		t.Fatal(err)
	}
	assertNoFeed(t, a, "a disabled account's feed", path)
}

// A member who is removed, or leaves, loses their feed on their next
// poll; everyone else's keeps working.
func TestFeedStopsForMemberWhoIsGone(t *testing.T) {
	t.Parallel()
	for name, gone := range map[string]func(t *testing.T, a *groupsApp, owner, who person, groupID string){
		"removed by an owner": func(t *testing.T, a *groupsApp, owner, who person, groupID string) {
			ref := a.svc.memberRef(groupID, who.id.UserKey)
			if res := post(t, owner.c, "/groups/"+groupID+"/members/"+ref+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("remove: %d", res.StatusCode)
			}
		},
		"left": func(t *testing.T, a *groupsApp, _, who person, groupID string) {
			if res := post(t, who.c, "/groups/"+groupID+"/leave", confirmed); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("leave: %d", res.StatusCode)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newGroupsApp(t)
			ann, bob, carol, id := feedTrio(t, a)
			annFeed, bobFeed, carolFeed := memberFeedPath(t, ann, id), memberFeedPath(t, bob, id), memberFeedPath(t, carol, id)
			assertFeed(t, a, "bob", bobFeed)
			gone(t, a, ann, bob, id)
			assertNoFeed(t, a, "bob's feed after he is gone", bobFeed)
			assertFeed(t, a, "carol", carolFeed)
			assertFeed(t, a, "ann", annFeed)
		})
	}
}

// A member's reference with another member's token, and the other way
// round, opens nothing: the token is bound to the member it names.
func TestFeedTokenIsBoundToItsMember(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	_, bob, carol, id := feedTrio(t, a)
	bobURL, _ := url.Parse(memberFeedPath(t, bob, id))
	carolURL, _ := url.Parse(memberFeedPath(t, carol, id))
	swap := func(ref, token *url.URL) string {
		return "/groups/" + id + "/calendar.ics?" + url.Values{
			"member": {ref.Query().Get("member")}, "token": {token.Query().Get("token")},
		}.Encode()
	}
	assertNoFeed(t, a, "bob's reference with carol's token", swap(bobURL, carolURL))
	assertNoFeed(t, a, "carol's reference with bob's token", swap(carolURL, bobURL))
}

// Regenerating the group's key is the emergency switch: every member's
// URL stops at once, and each gets a new one.
func TestRegenerateInvalidatesEveryFeed(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, carol, id := feedTrio(t, a)
	old := map[string]string{}
	for _, p := range []person{ann, bob, carol} {
		old[p.id.Email] = memberFeedPath(t, p, id)
	}
	if res := post(t, ann.c, "/groups/"+id+"/calendar/token", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("regenerate: %d", res.StatusCode)
	}
	for _, p := range []person{ann, bob, carol} {
		assertNoFeed(t, a, p.id.Email+"'s old feed URL", old[p.id.Email])
		fresh := memberFeedPath(t, p, id)
		if fresh == old[p.id.Email] {
			t.Fatalf("%s's feed URL did not change", p.id.Email)
		}
		assertFeed(t, a, p.id.Email+" (new URL)", fresh)
	}
}

// Anything but a member's own URL is the same 404 and writes nothing: the
// old group-wide URL, a missing, malformed or wrong token, a member who
// is not in the group (unknown, invited, or of another group), and a
// group whose feed is off.
func TestBadFeedRequestsAre404AndWriteNothing(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, _, id := feedTrio(t, a)
	invite(t, ann, id, "ivan@example.com") // invited, not accepted
	other := createGroup(t, bob, "Joneses")
	post(t, bob.c, "/groups/"+other+"/calendar/token", nil)
	off := createGroup(t, ann, "Smiths off") // its feed never turned on

	g, err := a.svc.group(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	og, err := a.svc.group(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	bobKey := bob.id.UserKey
	bobRef := a.svc.memberRef(id, bobKey)
	good := memberFeedToken(g.CalendarToken, bobKey)
	feed := func(groupID string, q url.Values) string { return "/groups/" + groupID + "/calendar.ics?" + q.Encode() }
	member := func(ref, token string) url.Values { return url.Values{"member": {ref}, "token": {token}} }
	unknown := auth.UserKey("nobody@example.com")
	ivan := auth.UserKey("ivan@example.com")
	for _, tc := range []struct{ name, path string }{
		{"no query", "/groups/" + id + "/calendar.ics"},
		{"the old group-wide URL", feed(id, url.Values{"token": {g.CalendarToken}})},
		{"the group's key as a member's token", feed(id, member(bobRef, g.CalendarToken))},
		{"no token", feed(id, url.Values{"member": {bobRef}})},
		{"no member", feed(id, url.Values{"token": {good}})},
		{"empty token", feed(id, member(bobRef, ""))},
		{"short token", feed(id, member(bobRef, good[:63]))},
		{"long token", feed(id, member(bobRef, good+"0"))},
		{"not hex", feed(id, member(bobRef, strings.Repeat("z", 64)))},
		{"upper-case hex", feed(id, member(bobRef, strings.ToUpper(good)))},
		{"wrong token", feed(id, member(bobRef, strings.Repeat("a", 64)))},
		{"raw userKey as member", feed(id, member(bobKey, good))},
		{"mangled reference", feed(id, member(bobRef+"x", good))},
		{"unknown member", feed(id, member(a.svc.memberRef(id, unknown), memberFeedToken(g.CalendarToken, unknown)))},
		{"invited member", feed(id, member(a.svc.memberRef(id, ivan), memberFeedToken(g.CalendarToken, ivan)))},
		{"another group's member URL", feed(id, member(a.svc.memberRef(other, bobKey), memberFeedToken(og.CalendarToken, bobKey)))},
		{"another group's token", feed(id, member(bobRef, memberFeedToken(og.CalendarToken, bobKey)))},
		{"feed off", feed(off, member(a.svc.memberRef(off, ann.id.UserKey), memberFeedToken("", ann.id.UserKey)))},
		{"not a group id", feed("nonsense", member(bobRef, good))},
	} {
		assertNoFeed(t, a, tc.name, tc.path)
	}
	// The same member's right URL opens it: the cases above fail for the
	// reason they name.
	assertFeed(t, a, "bob", feed(id, member(bobRef, good)))
	if res := feedGet(a, feed(other, member(a.svc.memberRef(other, bobKey), memberFeedToken(og.CalendarToken, bobKey)))); res.StatusCode != http.StatusOK {
		t.Fatalf("bob's feed of the other group: %d", res.StatusCode)
	}
}

package groups

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

var sessionPath = regexp.MustCompile(`^/groups/([0-9A-Z]{26})/join-sessions/([0-9a-f]{32})$`)

// openJoin has an owner open a join link through the form and returns
// its session id.
func openJoin(t *testing.T, owner person, groupID string) string {
	t.Helper()
	res := post(t, owner.c, "/groups/"+groupID+"/join-sessions", url.Values{"meta": {"Picnic"}})
	m := sessionPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil || m[1] != groupID {
		t.Fatalf("open join link: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	return m[2]
}

// joinAsGuest has a fresh browser join by link under name, and returns
// it with the guest identity the app made.
func (a *groupsApp) joinAsGuest(t *testing.T, groupID, sessionID, name string) person {
	t.Helper()
	c := a.Client()
	if res := c.Get("/join/" + groupID + "/" + sessionID); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("join-form")).Length() != 1 {
		t.Fatalf("join page: %d", res.StatusCode)
	}
	res := post(t, c, "/join/"+groupID+"/"+sessionID, url.Values{"name": {name}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups/"+groupID {
		t.Fatalf("join as %s: %d %s", name, res.StatusCode, res.Header.Get("Location"))
	}
	key := a.Who(c)
	if !auth.IsGuestKey(key) {
		t.Fatalf("joined as %q, not a guest", key)
	}
	return person{c: c, id: &auth.Identity{MemberKey: key, DisplayName: name, Guest: true}}
}

// guestOf makes a guest of a new group of owner's, called groupName.
func (a *groupsApp) guestOf(t *testing.T, owner person, groupName, name string) person {
	t.Helper()
	id := createGroup(t, owner, groupName)
	return a.joinAsGuest(t, id, openJoin(t, owner, id), name)
}

func TestJoinLinkAsGuest(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	if res := invite(t, olga, groupID, "bob@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("invite: %d", res.StatusCode)
	}
	sid := openJoin(t, olga, groupID)
	pageURL := "/groups/" + groupID + "/join-sessions/" + sid

	page := olga.c.Get(pageURL)
	doc := page.Doc(t)
	if page.StatusCode != http.StatusOK || doc.Find(testID("join-url")).Text() != "http://localhost:8080/join/"+groupID+"/"+sid {
		t.Fatalf("session page: %d %q", page.StatusCode, doc.Find(testID("join-url")).Text())
	}
	qr := doc.Find(testID("join-qr"))
	if d, _ := qr.Find("path").Attr("d"); qr.Length() != 1 || !strings.HasPrefix(d, "M4 4h7") {
		t.Fatalf("QR code: %d, path %.20q", qr.Length(), d)
	}
	if doc.Find(testID("join-session-page")+" [style]").Length() != 0 {
		t.Fatal("inline style on the session page (CSP)")
	}
	if trig, _ := doc.Find(testID("joined-list")).Attr("hx-trigger"); trig != "every 3s" {
		t.Fatalf("joined list polls with %q", trig)
	}
	if doc.Find(testID("joined-refresh")).Length() != 1 || doc.Find(testID("joined-empty")).Length() != 1 {
		t.Fatal("empty list or refresh link missing")
	}

	// A name is required: 1–80 characters.
	anon := a.Client()
	for _, name := range []string{"  ", strings.Repeat("x", 81)} {
		res := post(t, anon, "/join/"+groupID+"/"+sid, url.Values{"name": {name}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(testID("field-error")).Length() != 1 {
			t.Fatalf("join with name %q: %d", name, res.StatusCode)
		}
	}
	if a.Who(anon) != "" {
		t.Fatal("a refused join signed the visitor in")
	}

	gus := a.joinAsGuest(t, groupID, sid, "Gus")
	row, err := a.svc.memberRow(ctx, groupID, gus.id.MemberKey)
	if err != nil {
		t.Fatal(err)
	}
	if row.Status != StatusActive || row.Role != RoleMember || row.JoinedAt == nil || row.JoinedVia != sid ||
		row.UserKey != "" || row.Email != "" || row.DisplayName != "Gus" {
		t.Fatalf("guest's member row %+v", row)
	}
	pk, rk := userGroupKey(gus.id.MemberKey, groupID)
	if _, err := a.svc.userGroups.Get(ctx, pk, rk); err != nil {
		t.Fatalf("guest's UserGroups row (PK = guest memberKey): %v", err)
	}

	// The guest sees the group, on their dashboard too, but no emails.
	if res := gus.c.Get("/groups/" + groupID); res.StatusCode != http.StatusOK {
		t.Fatalf("guest on the group page: %d", res.StatusCode)
	}
	dash := gus.c.Get("/").Doc(t)
	if n := dash.Find(testID("group-card")).Length(); n != 1 {
		t.Fatalf("guest's dashboard: %d cards", n)
	}
	// A group is started from an account: the guest is offered signing in.
	if href, _ := dash.Find(testID("new-group")).Attr("href"); href != "/signin?next=%2Fgroups%2Fnew" {
		t.Errorf("guest's new-group link %q, want sign-in first", href)
	}
	roster := gus.c.Get("/groups/" + groupID + "/members")
	if roster.StatusCode != http.StatusOK || strings.Contains(roster.Body, "@example.com") {
		t.Fatalf("guest's roster: %d, shows an email: %v", roster.StatusCode, strings.Contains(roster.Body, "@example.com"))
	}
	// Opening the link again goes straight to the group.
	if res := gus.c.Get("/join/" + groupID + "/" + sid); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("member opens the link: %d", res.StatusCode)
	}

	// The owner's poll returns the list alone, with the guest in it.
	poll := olga.c.Get(pageURL, "HX-Request", "true", "HX-Request-Type", "partial")
	pd := poll.Doc(t)
	if poll.StatusCode != http.StatusOK || pd.Find(testID("join-session-page")).Length() != 0 ||
		pd.Find(testID("joined-person")).Length() != 1 || !strings.Contains(pd.Find(testID("joined-person")).Text(), "Gus") {
		t.Fatalf("poll: %d %s", poll.StatusCode, poll.Body)
	}

	// A signed-in person joins as themselves; an invitee is admitted.
	bob := a.signIn(t, "bob@example.com")
	if res := post(t, bob.c, "/join/"+groupID+"/"+sid, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob joins: %d", res.StatusCode)
	}
	if row := a.member(t, groupID, "bob@example.com"); row.Status != StatusActive || row.JoinedVia != sid || row.MemberKey != bob.id.MemberKey {
		t.Fatalf("bob's row %+v", row)
	}
	if ug := a.userGroup(t, groupID, "bob@example.com"); ug.Status != StatusActive {
		t.Fatalf("bob's UserGroups row %+v", ug)
	}

	// Closed: the link says so, and nobody joins.
	if res := post(t, olga.c, pageURL+"/close", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("close: %d", res.StatusCode)
	}
	late := a.Client()
	if res := late.Get("/join/" + groupID + "/" + sid); res.StatusCode != http.StatusGone || res.Doc(t).Find(testID("join-closed-page")).Length() != 1 {
		t.Fatalf("closed link: %d", res.StatusCode)
	}
	if res := post(t, late, "/join/"+groupID+"/"+sid, url.Values{"name": {"Late"}}); res.StatusCode != http.StatusGone || a.Who(late) != "" {
		t.Fatalf("join by a closed link: %d", res.StatusCode)
	}
	if d := olga.c.Get(pageURL).Doc(t); d.Find(testID("join-closed")).Length() != 1 || d.Find(testID("join-qr")).Length() != 0 {
		t.Fatal("closed session page still shows the link")
	}

	// Expired: 24 hours later the link stops working by itself.
	sid2 := openJoin(t, olga, groupID)
	a.Clock.Advance(JoinTTL + time.Minute)
	if res := a.Client().Get("/join/" + groupID + "/" + sid2); res.StatusCode != http.StatusGone {
		t.Fatalf("expired link: %d", res.StatusCode)
	}
	// Unknown links are 404s.
	for _, p := range []string{"/join/" + groupID + "/" + strings.Repeat("0", 32), "/join/" + groupID + "/nope", "/join/nope/" + sid} {
		if res := a.Client().Get(p); res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %d", p, res.StatusCode)
		}
	}
}

func TestGuestIsConfinedToTheirGroupAndRemovalIsImmediate(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupA := createGroup(t, olga, "Alpha")
	groupB := createGroup(t, olga, "Bravo")
	gus := a.joinAsGuest(t, groupA, openJoin(t, olga, groupA), "Gus")

	for _, p := range []string{"/groups/" + groupB, "/groups/" + groupB + "/members"} {
		if res := gus.c.Get(p); res.StatusCode != http.StatusNotFound || strings.Contains(res.Body, "Bravo") {
			t.Fatalf("guest of A on %s: %d", p, res.StatusCode)
		}
	}
	if res := gus.c.Get("/groups/" + groupA); res.StatusCode != http.StatusOK {
		t.Fatalf("guest on A: %d", res.StatusCode)
	}
	// The owner removes the guest from the roster.
	if res := post(t, olga.c, "/groups/"+groupA+"/members/"+a.svc.memberRef(groupA, gus.id.MemberKey)+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove guest: %d", res.StatusCode)
	}
	if res := gus.c.Get("/groups/" + groupA); res.StatusCode != http.StatusNotFound {
		t.Fatalf("removed guest's next request: %d", res.StatusCode)
	}
	if n := gus.c.Get("/").Doc(t).Find(testID("group-card")).Length(); n != 0 {
		t.Fatalf("removed guest's dashboard: %d cards", n)
	}
	// A link does not undo a removal.
	sid := openJoin(t, olga, groupA)
	if res := post(t, gus.c, "/join/"+groupA+"/"+sid, nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("removed guest rejoins: %d", res.StatusCode)
	}
}

// TestRemovingALinkGuestOffersToCloseTheLink: a removal holds for the
// account it removed, but a guest could come back by the same link as a
// new guest; so removing someone who came by a link that is still open
// asks whether to close it too (chosen first), and closes it when told.
// Someone who came by invitation is asked nothing of links.
func TestRemovingALinkGuestOffersToCloseTheLink(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	ivan := a.signIn(t, "ivan@example.com")
	group := createGroup(t, olga, "Picnic")
	invite(t, olga, group, "ivan@example.com")
	if res := post(t, ivan.c, "/groups/"+group+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ivan accepts: %d", res.StatusCode)
	}
	sid := openJoin(t, olga, group)
	gus := a.joinAsGuest(t, group, sid, "Gus")
	remove := func(p person) string {
		key := p.id.UserKey // an account's row
		if p.id.Guest {
			key = p.id.MemberKey
		}
		return "/groups/" + group + "/members/" + a.svc.memberRef(group, key) + "/remove"
	}
	step := post(t, olga.c, remove(gus), nil)
	choice := step.Doc(t).Find(`input[type="radio"][name="link"]`)
	if step.StatusCode != http.StatusOK || choice.Length() != 2 || choice.First().AttrOr("value", "") != sid || choice.First().AttrOr("checked", "no") == "no" || !strings.Contains(step.Body, "still open") {
		t.Fatalf("removing the link's guest asks %d, %d choices", step.StatusCode, choice.Length())
	}
	if res := post(t, olga.c, remove(ivan), nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 || res.Doc(t).Find(`input[name="link"]`).Length() != 0 {
		t.Fatalf("removing an invited member: %d, or asks of links", res.StatusCode)
	}
	// The roster's own removal step (what a browser with scripts opens in
	// place) asks the same, of gus's row only.
	roster := olga.c.Get("/groups/" + group + "/members").Doc(t)
	if n := roster.Find(`form[action="` + remove(gus) + `"] input[name="link"][value="` + sid + `"]`).Length(); n != 1 {
		t.Fatalf("the roster's removal of gus asks %d times of the link", n)
	}
	if n := roster.Find(`input[name="link"]`).Length(); n != 2 {
		t.Fatalf("the roster asks of links %d times, want gus's 2 choices", n)
	}
	if res := post(t, olga.c, remove(gus), url.Values{"confirm": {"yes"}, "link": {sid}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove and close: %d", res.StatusCode)
	}
	if res := a.Client().Get("/join/" + group + "/" + sid); res.Doc(t).Find(testID("join-form")).Length() != 0 {
		t.Fatalf("the link still admits people: %d", res.StatusCode)
	}
}

// TestSpinOffFromJoinSession: an owner starts a group for the people who
// joined by a link; each is invited and decides.
func TestSpinOffFromJoinSession(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Conference")
	sid := openJoin(t, olga, groupID)
	gus := a.joinAsGuest(t, groupID, sid, "Gus")
	gwen := a.joinAsGuest(t, groupID, sid, "Gwen")
	bob := a.signIn(t, "bob@example.com")
	if res := post(t, bob.c, "/join/"+groupID+"/"+sid, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob joins: %d", res.StatusCode)
	}
	pageURL := "/groups/" + groupID + "/join-sessions/" + sid
	if n := olga.c.Get(pageURL).Doc(t).Find(testID("joined-person")).Length(); n != 3 {
		t.Fatalf("joined list: %d people", n)
	}
	if res := post(t, olga.c, pageURL+"/spinoff", url.Values{"name": {""}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("spin off without a name: %d", res.StatusCode)
	}
	// Only owners spin off.
	if res := post(t, bob.c, pageURL+"/spinoff", url.Values{"name": {"Bob's"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("member spins off: %d", res.StatusCode)
	}
	res := post(t, olga.c, pageURL+"/spinoff", url.Values{"name": {"Dinner"}})
	m := groupPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil || m[1] == groupID {
		t.Fatalf("spin off: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	newID := m[1]
	if row := a.member(t, newID, "olga@example.com"); row.Role != RoleOwner || row.Status != StatusActive {
		t.Fatalf("spin-off owner %+v", row)
	}
	// Everyone who joined by the link is invited, not added: each
	// decides, a guest as a guest; bob, who has an account, is told.
	for _, p := range []person{gus, gwen, bob} {
		if res := p.c.Get("/groups/" + newID); res.StatusCode != http.StatusNotFound {
			t.Fatalf("%s opens the spin-off before accepting: %d", p.id.DisplayName, res.StatusCode)
		}
		if d := p.c.Get("/groups/" + newID + "/invite").Doc(t); d.Find(`form[action$="/invite/accept"]`).Length() != 1 {
			t.Fatalf("%s has no invitation to the spin-off", p.id.DisplayName)
		}
	}
	if items := a.Inbox(bob.c); items.Length() != 1 || !strings.Contains(items.Text(), "Dinner") {
		t.Fatalf("bob's inbox: %q", items.Text())
	}
	if ug := a.userGroup(t, newID, "bob@example.com"); ug.Status != StatusInvited {
		t.Fatalf("bob's UserGroups row for the spin-off %+v", ug)
	}
	for _, p := range []person{gus, bob} {
		if res := post(t, p.c, "/groups/"+newID+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s accepts: %d", p.id.DisplayName, res.StatusCode)
		}
		if res := p.c.Get("/groups/" + newID); res.StatusCode != http.StatusOK {
			t.Fatalf("%s on the spin-off after accepting: %d", p.id.DisplayName, res.StatusCode)
		}
	}
	if res := post(t, gwen.c, "/groups/"+newID+"/invite/decline", nil); res.StatusCode != http.StatusSeeOther || gwen.c.Get("/groups/"+newID).StatusCode != http.StatusNotFound {
		t.Fatalf("gwen declines: %d", res.StatusCode)
	}
	// Gus's invitation is no one else's: a guest accepting it is refused.
	if res := post(t, gwen.c, "/groups/"+newID+"/invite/accept", nil); res.StatusCode == http.StatusSeeOther {
		t.Fatal("gwen accepts after declining")
	}
	// A link starts one group: asking again leads to it and invites
	// nobody twice.
	again := post(t, olga.c, pageURL+"/spinoff", url.Values{"name": {"Dinner again"}})
	if again.Header.Get("Location") != "/groups/"+newID {
		t.Fatalf("a second spin-off: %d %s", again.StatusCode, again.Header.Get("Location"))
	}
	if items := a.Inbox(bob.c); items.Length() != 1 {
		t.Fatalf("bob's inbox after a second spin-off: %d", items.Length())
	}
	if d := olga.c.Get(pageURL).Doc(t); d.Find(testID("spinoff-form")).Length() != 0 || d.Find(testID("spun-off")+` a[href="/groups/`+newID+`"]`).Length() != 1 {
		t.Fatal("the link's page offers another spin-off instead of the group it started")
	}
}

// TestSpinOffTwiceAtOnce: a double click on "Start the group" makes one
// group, and both requests lead to it.
// slowGroups holds, while armed, every new group row until released: a
// spin-off caught between claiming its link and making its group.
type slowGroups struct {
	storage.Backend
	armed            *atomic.Bool
	holding, release chan struct{}
}

func (s slowGroups) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if strings.HasSuffix(table, groupsTable) && s.armed.CompareAndSwap(true, false) {
		close(s.holding)
		<-s.release
	}
	return s.Backend.Insert(ctx, table, e)
}

// A second spin-off while the first is making its group is sent to that
// group's page, not told there is no group.
func TestSpinOffWhileTheFirstIsMakingItsGroup(t *testing.T) {
	t.Parallel()
	slow := slowGroups{armed: new(atomic.Bool), holding: make(chan struct{}), release: make(chan struct{})}
	a := newGroupsAppOn(t, func(b storage.Backend) storage.Backend { slow.Backend = b; return slow })
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Conference")
	sid := openJoin(t, olga, groupID)
	a.joinAsGuest(t, groupID, sid, "Gus")
	spin := olga.c.WithCSRF("/", url.Values{"name": {"Dinner"}})
	pageURL := "/groups/" + groupID + "/join-sessions/" + sid + "/spinoff"
	slow.armed.Store(true)
	first := make(chan *webtest.Response)
	go func() { first <- olga.c.PostForm(pageURL, spin) }()
	<-slow.holding
	second := olga.c.PostForm(pageURL, spin)
	close(slow.release)
	one := <-first
	if one.StatusCode != http.StatusSeeOther || second.StatusCode != http.StatusSeeOther || second.Header.Get("Location") != one.Header.Get("Location") {
		t.Fatalf("the first spin-off: %d %s; the second, while the first made its group: %d %s",
			one.StatusCode, one.Header.Get("Location"), second.StatusCode, second.Header.Get("Location"))
	}
}

func TestSpinOffTwiceAtOnce(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Conference")
	sid := openJoin(t, olga, groupID)
	a.joinAsGuest(t, groupID, sid, "Gus")
	pageURL := "/groups/" + groupID + "/join-sessions/" + sid
	form := olga.c.WithCSRF("/", url.Values{"name": {"Dinner"}})
	var wg sync.WaitGroup
	where := make([]string, 8)
	for i := range where {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := olga.c.PostForm(pageURL+"/spinoff", form)
			if res.StatusCode != http.StatusSeeOther {
				t.Errorf("spin-off %d: %d", i, res.StatusCode)
			}
			where[i] = res.Header.Get("Location")
		}()
	}
	wg.Wait()
	for _, w := range where[1:] {
		if w != where[0] {
			t.Fatalf("spin-offs at once led to %q", where)
		}
	}
	if n := a.groupsNamed(t, olga, "Dinner"); n != 1 {
		t.Errorf("olga owns %d groups called Dinner, want 1", n)
	}
}

// groupsNamed counts p's groups called name.
func (a *groupsApp) groupsNamed(t *testing.T, p person, name string) int {
	t.Helper()
	page, err := a.svc.MyGroups(ctx, memberRowKey(p.id), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range page.Groups {
		if g.Group.GroupName == name {
			n++
		}
	}
	return n
}

func TestGuestKeepsGroupsWhenSigningIn(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	joined := createGroup(t, olga, "Joined by link")
	invited := createGroup(t, olga, "Invited too")
	gus := a.joinAsGuest(t, joined, openJoin(t, olga, joined), "Gus")
	guestKey := gus.id.MemberKey
	// Gus also has a pending invitation by email, and joins the second
	// group by link as a guest as well.
	if res := invite(t, olga, invited, "gus@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatal("invite")
	}
	if res := post(t, gus.c, "/join/"+invited+"/"+openJoin(t, olga, invited), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("guest joins a second group: %d", res.StatusCode)
	}

	memberKey := a.SignIn(gus.c, "gus@example.com")
	if auth.IsGuestKey(memberKey) {
		t.Fatal("still a guest")
	}
	for _, g := range []string{joined, invited} {
		row := a.member(t, g, "gus@example.com")
		if row.Status != StatusActive || row.MemberKey != memberKey || row.Email != "gus@example.com" {
			t.Fatalf("account's row in %s: %+v", g, row)
		}
		if ug := a.userGroup(t, g, "gus@example.com"); ug.Status != StatusActive {
			t.Fatalf("account's UserGroups row in %s: %+v", g, ug)
		}
		if _, err := a.svc.memberRow(ctx, g, guestKey); err == nil {
			t.Fatalf("guest row left in %s", g)
		}
		if res := gus.c.Get("/groups/" + g); res.StatusCode != http.StatusOK {
			t.Fatalf("signed-in gus on %s: %d", g, res.StatusCode)
		}
	}
	if row := a.member(t, joined, "gus@example.com"); row.JoinedVia == "" {
		t.Fatal("join link forgotten in the upgrade")
	}
	if n, err := a.Store.Table(userGroupsTable).Query(ctx, storage.Query{PartitionKey: guestKey}); err != nil || len(n.Entities) != 0 {
		t.Fatalf("guest's UserGroups partition: %v %d", err, len(n.Entities))
	}
	// A second upgrade (a retry) changes nothing.
	if err := a.svc.UpgradeGuest(ctx, guestKey, memberKey); err != nil {
		t.Fatal(err)
	}
	if row := a.member(t, joined, "gus@example.com"); row.Status != StatusActive {
		t.Fatalf("after a second upgrade %+v", row)
	}
}

// participantRow reads memberKey's AppointmentParticipants row of one
// appointment; ok is false when there is none.
func (a *groupsApp) participantRow(t *testing.T, groupID, appointmentID, memberKey string) (ParticipantRow, bool) {
	t.Helper()
	pk, rk := participantKey(groupID, appointmentID, memberKey)
	e, err := a.svc.participants.Get(ctx, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return ParticipantRow{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var row ParticipantRow
	if err := storage.Unmarshal(e, &row); err != nil {
		t.Fatal(err)
	}
	return row, true
}

func TestGuestKeepsAppointmentsWhenSigningIn(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	gus := a.joinAsGuest(t, groupID, openJoin(t, olga, groupID), "Gus")
	guestKey := gus.id.MemberKey
	// Olga makes the guest responsible for one appointment and a
	// participant of another; the guest creates a third and takes part.
	pickUp := createAppointment(t, olga, groupID, url.Values{"title": {"Pick-up"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"},
		"participant": {olga.id.MemberKey}, "responsible": {guestKey}})
	picnic := createAppointment(t, olga, groupID, url.Values{"title": {"Picnic"}, "start": {"2030-06-02T10:00"}, "end": {"2030-06-02T11:00"},
		"participant": {olga.id.MemberKey, guestKey}})
	own := createAppointment(t, gus, groupID, url.Values{"title": {"Gus's"}, "start": {"2030-06-03T10:00"}, "end": {"2030-06-03T11:00"},
		"participant": {guestKey}})
	// A series too, which the group keeps in a partition of its own:
	// the guest is responsible for the weekly swim.
	swim := createAppointment(t, olga, groupID, url.Values{"title": {"Swim"}, "start": {"2030-06-05T18:00"}, "end": {"2030-06-05T19:00"},
		"participant": {olga.id.MemberKey}, "responsible": {guestKey}, "repeat": {"weekly"}, "repeatWeekday": {"WE"}, "repeatEnds": {"count"}, "repeatCount": {"5"}})
	if _, ok := a.participantRow(t, groupID, pickUp, guestKey); !ok {
		t.Fatal("guest is not a participant before signing in")
	}
	// In a second group the guest took part and was removed: that part
	// is not carried over, and nothing stays under the guest key.
	other := createGroup(t, olga, "Others")
	if res := post(t, gus.c, "/join/"+other+"/"+openJoin(t, olga, other), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("guest joins a second group: %d", res.StatusCode)
	}
	dropped := createAppointment(t, olga, other, url.Values{"title": {"Dropped"}, "start": {"2030-06-04T10:00"}, "end": {"2030-06-04T11:00"},
		"participant": {guestKey}})
	if res := post(t, olga.c, "/groups/"+other+"/members/"+a.svc.memberRef(other, guestKey)+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove guest: %d", res.StatusCode)
	}

	memberKey := a.SignIn(gus.c, "gus@example.com")
	if auth.IsGuestKey(memberKey) {
		t.Fatal("still a guest")
	}
	want := map[string]ParticipantRole{pickUp: RoleResponsible, picnic: RoleParticipant, own: RoleParticipant, swim: RoleResponsible}
	check := func(when string) {
		t.Helper()
		for appt, role := range want {
			if _, ok := a.participantRow(t, groupID, appt, guestKey); ok {
				t.Fatalf("%s: participant row left under the guest key in %s", when, appt)
			}
			row, ok := a.participantRow(t, groupID, appt, memberKey)
			if !ok || row.MemberKey != memberKey || row.Role != role || row.Status != StatusActive {
				t.Fatalf("%s: account's participant row in %s: %v %+v", when, appt, ok, row)
			}
		}
		if row, ok := a.participantRow(t, groupID, pickUp, olga.id.MemberKey); !ok || row.Role != RoleParticipant {
			t.Fatalf("%s: olga's row %v %+v", when, ok, row)
		}
	}
	check("after sign-in")
	dropOut := func(when string) {
		t.Helper()
		if _, ok := a.participantRow(t, other, dropped, guestKey); ok {
			t.Fatalf("%s: removed guest's participant row left", when)
		}
		if _, ok := a.participantRow(t, other, dropped, memberKey); ok {
			t.Fatalf("%s: removed guest's participation carried over", when)
		}
	}
	dropOut("after sign-in")
	// The appointments still name the guest key among their people; the
	// rebuild, which sets participants again from that list after a
	// save that stopped, leaves these as they are.
	if report := a.rebuild(t); !strings.Contains(report, "0 participant lists set again") {
		t.Errorf("rebuild: %s", report)
	}
	check("after the rebuild")
	dropOut("after the rebuild")

	// The account sees itself on the page, responsible, and in the edit
	// form's choice; it may delete the appointment it made as a guest.
	page := gus.c.Get("/groups/" + groupID + "/appointments/" + pickUp).Doc(t)
	if page.Find(`[data-testid="participant"][data-responsible="true"]`).Length() != 1 || page.Find(testID("participant")).Length() != 2 {
		t.Fatalf("detail after sign-in: %d participants", page.Find(testID("participant")).Length())
	}
	edit := gus.c.Get("/groups/" + groupID + "/appointments/" + pickUp + "/edit").Doc(t)
	if v, _ := edit.Find(`input[name="responsible"][checked]`).Attr("value"); v != memberKey {
		t.Fatalf("edit form's responsible %q", v)
	}

	// A retry finds nothing to do; a retry after an upgrade that stopped
	// before the appointments (the guest's rows back, the account's
	// membership written) finishes the job.
	if err := a.svc.UpgradeGuest(ctx, guestKey, memberKey); err != nil {
		t.Fatal(err)
	}
	check("after a retry")
	guestRow := a.member(t, groupID, "gus@example.com")
	guestRow.PartitionKey, guestRow.RowKey, guestRow.ETag = groupID, guestKey, ""
	guestRow.UserKey, guestRow.MemberKey, guestRow.Email = "", "", ""
	if _, err := storage.Upsert(ctx, a.svc.members, guestRow); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.mirror(ctx, guestRow); err != nil {
		t.Fatal(err)
	}
	moved, _ := a.participantRow(t, groupID, picnic, memberKey)
	stale := moved
	stale.RowKey, stale.MemberKey, stale.ETag = "m:"+storage.EscapeKey(guestKey), guestKey, ""
	if _, err := storage.Upsert(ctx, a.svc.participants, stale); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.participants.Delete(ctx, moved.PartitionKey, moved.RowKey, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.UpgradeGuest(ctx, guestKey, memberKey); err != nil {
		t.Fatal(err)
	}
	check("after finishing a half-done upgrade")
	if _, err := a.svc.memberRow(ctx, groupID, guestKey); err == nil {
		t.Fatal("guest member row left")
	}

	if res := post(t, gus.c, "/groups/"+groupID+"/appointments/"+own+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("account deletes the appointment it made as a guest: %d", res.StatusCode)
	}
}

// A guest who came by a public join link does not see the group's private
// calendar feed URL; members with accounts do.
func TestGuestsDoNotSeeThePrivateFeed(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	if res := post(t, ann.c, "/groups/"+id+"/calendar/token", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("turn the feed on: %d", res.StatusCode)
	}
	if ann.c.Get("/groups/"+id+"/settings").Doc(t).Find(testID("calendar-url")).Length() != 1 {
		t.Fatal("the owner does not see the feed URL")
	}
	guest := a.joinAsGuest(t, id, openJoin(t, ann, id), "Grandpa")
	page := guest.c.Get("/groups/" + id + "/settings")
	if page.StatusCode != http.StatusOK {
		t.Fatalf("guest appointments: %d", page.StatusCode)
	}
	if n := page.Doc(t).Find(testID("calendar-feed")).Length(); n != 0 {
		t.Error("a guest sees the calendar feed")
	}
	if strings.Contains(string(page.Body), "calendar.ics") {
		t.Error("the feed URL is in a guest's page")
	}
}

// The group page lists the join links still open, so an owner can get
// back to a link and its QR code; a closed or expired one leaves the list.
func TestTheGroupPageListsOpenJoinLinks(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	session := openJoin(t, ann, id)
	links := ann.c.Get("/groups/" + id + "/settings").Doc(t).Find(testID("open-join-link"))
	if links.Length() != 1 {
		t.Fatalf("%d open links listed, want 1", links.Length())
	}
	if href, _ := links.Find("a").Attr("href"); href != "/groups/"+id+"/join-sessions/"+session || !strings.Contains(links.Text(), "Picnic") {
		t.Errorf("listed link %q, %q", href, links.Text())
	}
	if bob.c.Get("/groups/"+id+"/settings").Doc(t).Find(testID("open-join-links")).Length() != 0 {
		t.Error("a member sees the owners' open links")
	}
	if res := post(t, ann.c, "/groups/"+id+"/join-sessions/"+session+"/close", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("close: %d", res.StatusCode)
	}
	if n := ann.c.Get("/groups/" + id + "/settings").Doc(t).Find(testID("open-join-link")).Length(); n != 0 {
		t.Errorf("%d links listed after closing", n)
	}
	openJoin(t, ann, id)
	a.Clock.Advance(25 * time.Hour)
	if n := ann.c.Get("/groups/" + id + "/settings").Doc(t).Find(testID("open-join-link")).Length(); n != 0 {
		t.Errorf("%d links listed after they expired", n)
	}
}

// TestGuestJoinsFromOneAddressAreLimited: twenty people may join by link
// from one address at once (a family on one network); the next is asked
// to wait, and nothing is written for it; a minute later one more may.
func TestGuestJoinsFromOneAddressAreLimited(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)
	for i := range guestJoinBurst {
		a.joinAsGuest(t, groupID, sid, fmt.Sprint("Guest ", i))
	}
	c := a.Client()
	res := post(t, c, "/join/"+groupID+"/"+sid, url.Values{"name": {"One too many"}})
	if res.StatusCode != http.StatusTooManyRequests || res.StorageOps(t)["writes"]+res.StorageOps(t)["txs"] != 0 ||
		!strings.Contains(res.Doc(t).Find(testID("join-form")).Text(), "try again in a minute") {
		t.Fatalf("a join past the limit: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	a.Clock.Advance(guestJoinEvery)
	a.joinAsGuest(t, groupID, sid, "A minute later")
}

// TestAGuestIsNotMadeAnOwner: owners invite by email and see members'
// addresses, which takes an account: the roster offers a guest no
// "make owner", and the request is refused, writing nothing.
func TestAGuestIsNotMadeAnOwner(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	id := createGroup(t, olga, "Picnic")
	gus := a.joinAsGuest(t, id, openJoin(t, olga, id), "Gus")
	ref := a.svc.memberRef(id, gus.id.MemberKey)
	roster := olga.c.Get("/groups/" + id + "/members").Doc(t)
	if roster.Find(`form[action$="/members/`+ref+`/promote"]`).Length() != 0 {
		t.Error("the roster offers to make a guest an owner")
	}
	res := post(t, olga.c, "/groups/"+id+"/members/"+ref+"/promote", confirmed)
	if res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "owners need an account") || res.Writes(t) != 0 {
		t.Fatalf("make a guest an owner: %d", res.StatusCode)
	}
	if row, err := a.svc.memberRow(ctx, id, gus.id.MemberKey); err != nil || row.Role == RoleOwner {
		t.Fatalf("the guest's row: %+v, %v", row, err)
	}
}

// TestARemovedAccountStaysRemovedThroughAGuestJoin: someone the owner
// removed cannot come back by joining as a guest and then signing in in
// the same browser: the account stays removed, and the guest membership
// goes with the sign-in.
func TestARemovedAccountStaysRemovedThroughAGuestJoin(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, bob.id.UserKey)+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove bob: %d", res.StatusCode)
	}
	guest := a.joinAsGuest(t, id, openJoin(t, ann, id), "Someone")
	a.SignIn(guest.c, "bob@example.com")
	if row := a.member(t, id, "bob@example.com"); row.Status != StatusRemoved {
		t.Fatalf("bob's row after joining as a guest and signing in: %+v", row)
	}
	if res := guest.c.Get("/groups/" + id); res.StatusCode != http.StatusNotFound {
		t.Fatalf("bob opens the group he was removed from: %d", res.StatusCode)
	}
	if _, err := a.svc.memberRow(ctx, id, guest.id.MemberKey); err == nil {
		t.Fatal("the guest's row is left")
	}
}

// TestAnEndedInvitationOrALeaveIsNoRemoval: an invitation that ended
// (cancelled, declined) was never a membership, and someone who left
// chose to: neither keeps them out. They join by a link like anyone, and
// their guest membership, and what they took on in it, carries over when
// they sign in. Only a removal by the owners bars (the test above).
func TestAnEndedInvitationOrALeaveIsNoRemoval(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	// Carol's invitation is cancelled; she comes by the link anyway.
	invite(t, ann, id, "carol@example.com")
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("carol@example.com"))+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel carol's invitation: %d", res.StatusCode)
	}
	link := openJoin(t, ann, id)
	carol := a.joinAsGuest(t, id, link, "Carol")
	a.SignIn(carol.c, "carol@example.com")
	if row := a.member(t, id, "carol@example.com"); row.Status != StatusActive {
		t.Fatalf("carol's row after joining as a guest and signing in: %+v", row)
	}
	if res := carol.c.Get("/groups/" + id); res.StatusCode != http.StatusOK {
		t.Fatalf("carol opens the group: %d", res.StatusCode)
	}
	// Dan declined; he then joins by the link, signed in.
	invite(t, ann, id, "dan@example.com")
	dan := a.signIn(t, "dan@example.com")
	if res := post(t, dan.c, "/groups/"+id+"/invite/decline", nil); res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusOK {
		t.Fatalf("dan declines: %d", res.StatusCode)
	}
	if res := post(t, dan.c, "/join/"+id+"/"+link, url.Values{"name": {"Dan"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dan, who declined, joins by the link: %d", res.StatusCode)
	}
	// Bob leaves, and comes back by the link, a member again.
	if res := post(t, bob.c, "/groups/"+id+"/leave", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob leaves: %d", res.StatusCode)
	}
	if res := post(t, bob.c, "/join/"+id+"/"+link, url.Values{"name": {"Bob"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob, who left, joins by the link: %d", res.StatusCode)
	}
	if row := a.member(t, id, "bob@example.com"); row.Status != StatusActive || row.Role != RoleMember {
		t.Fatalf("bob's row: %+v", row)
	}
}

// stopping is a store that, once armed, refuses every write after the
// first one to the link's table: the process stopping just after a
// spin-off claimed its link.
type stopping struct {
	storage.Backend
	armed, stopped *atomic.Bool
}

func (s stopping) refuse(table string) bool {
	if s.stopped.Load() {
		return true
	}
	if s.armed.Load() && strings.HasSuffix(table, joinSessionsTable) {
		s.stopped.Store(true)
	}
	return false
}

func (s stopping) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if s.refuse(table) {
		return "", storage.ErrTransient
	}
	return s.Backend.Insert(ctx, table, e)
}

func (s stopping) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if s.refuse(table) {
		return "", storage.ErrTransient
	}
	return s.Backend.Update(ctx, table, e, mode, ifMatch)
}

// A spin-off that stopped half way (its link names a group it never
// made) does not hold the link for ever: its page offers the spin-off
// again, and the next one makes the group and invites the people.
func TestASpinOffThatStoppedHalfWayCanBeDoneAgain(t *testing.T) {
	t.Parallel()
	st := stopping{armed: new(atomic.Bool), stopped: new(atomic.Bool)}
	a := newGroupsAppOn(t, func(b storage.Backend) storage.Backend { st.Backend = b; return st })
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Conference")
	sid := openJoin(t, olga, groupID)
	gus := a.joinAsGuest(t, groupID, sid, "Gus")
	pageURL := "/groups/" + groupID + "/join-sessions/" + sid
	st.armed.Store(true)
	if res := post(t, olga.c, pageURL+"/spinoff", url.Values{"name": {"Dinner"}}); res.StatusCode < 500 {
		t.Fatalf("the spin-off that stops: %d", res.StatusCode)
	}
	st.armed.Store(false)
	st.stopped.Store(false)
	om, _, _ := a.svc.Open(ctx, groupID, olga.id, AccessOwner)
	sess, err := a.svc.JoinSession(ctx, om, sid)
	if err != nil || sess.SpunOff == "" {
		t.Fatalf("the link does not name the group it was claimed for: %+v %v", sess, err)
	}
	a.Clock.Advance(spinOffGrace)
	page := olga.c.Get(pageURL).Doc(t)
	if page.Find(`form[action="`+pageURL+`/spinoff"]`).Length() != 1 || page.Find(`a[href="/groups/`+sess.SpunOff+`"]`).Length() != 0 {
		t.Fatalf("the link's page does not offer the spin-off again")
	}
	res := post(t, olga.c, pageURL+"/spinoff", url.Values{"name": {"Dinner"}})
	m := groupPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("spin off again: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if got := olga.c.Get("/groups/" + m[1]); got.StatusCode != http.StatusOK {
		t.Fatalf("the new group's page: %d", got.StatusCode)
	}
	if d := gus.c.Get("/groups/" + m[1] + "/invite").Doc(t); d.Find(`form[action$="/invite/accept"]`).Length() != 1 {
		t.Error("gus has no invitation to the spin-off")
	}
}

// linkWithGuest is olga's group "Conference" with a join link Gus
// joined by, on a test store that can act between two writes: the app,
// the store, olga, her membership as its owner, and the link.
func linkWithGuest(t *testing.T) (a *groupsApp, b *between, olga person, om Membership, sid string) {
	t.Helper()
	a, b = newBetweenApp(t)
	olga = a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Conference")
	sid = openJoin(t, olga, groupID)
	a.joinAsGuest(t, groupID, sid, "Gus")
	om, _, _ = a.svc.Open(ctx, groupID, olga.id, AccessOwner)
	return a, b, olga, om, sid
}

// A spin-off stalled past spinOffGrace, whose claim another request took
// over, and which then goes on: there is one group, under the id the
// link named, and both requests answer with it.
func TestASpinOffTakenOverAndResumedMakesOneGroup(t *testing.T) {
	t.Parallel()
	a, b, olga, om, sid := linkWithGuest(t)
	var over GroupRow
	var overErr error
	// The first request stalls just before making its group: meanwhile
	// the grace passes and a second one takes the link over.
	b.before(to("insert", groupsTable), func() {
		a.Clock.Advance(spinOffGrace)
		over, overErr = a.svc.SpinOff(ctx, om, olga.id, sid, "Dinner")
	})
	first, err := a.svc.SpinOff(ctx, om, olga.id, sid, "Dinner")
	if err != nil || overErr != nil {
		t.Fatalf("the stalled spin-off: %v; the one that took it over: %v", err, overErr)
	}
	if first.GroupID == "" || first.GroupID != over.GroupID {
		t.Fatalf("the two requests answer %q and %q, want one group", first.GroupID, over.GroupID)
	}
	sess, err := a.svc.JoinSession(ctx, om, sid)
	if err != nil || sess.SpunOff != first.GroupID {
		t.Errorf("the link names %q (%v), want %q", sess.SpunOff, err, first.GroupID)
	}
	if n := a.groupsNamed(t, olga, "Dinner"); n != 1 {
		t.Errorf("olga has %d groups named Dinner, want 1", n)
	}
}

// TestAStalledSpinOffThatFailsLeavesTheTakeoversClaim: a spin-off
// stalled before making its group, taken over meanwhile, that then
// fails, does not let go of the link the takeover holds under the same
// group id: the link still names the group made, and asking again
// answers with it, not a second group.
func TestAStalledSpinOffThatFailsLeavesTheTakeoversClaim(t *testing.T) {
	t.Parallel()
	a, b, olga, om, sid := linkWithGuest(t)
	var over GroupRow
	var overErr error
	b.once(to("insert", groupsTable), func() error {
		a.Clock.Advance(spinOffGrace)
		over, overErr = a.svc.SpinOff(ctx, om, olga.id, sid, "Dinner")
		return storage.ErrTransient // the stalled request's write then fails
	})
	if _, err := a.svc.SpinOff(ctx, om, olga.id, sid, "Dinner"); err == nil {
		t.Fatal("the stalled spin-off's failed write answered no error")
	}
	if overErr != nil || over.GroupID == "" {
		t.Fatalf("the takeover: %+v, %v", over, overErr)
	}
	sess, err := a.svc.JoinSession(ctx, om, sid)
	if err != nil || sess.SpunOff != over.GroupID {
		t.Errorf("the link names %q (%v), want %q", sess.SpunOff, err, over.GroupID)
	}
	again, err := a.svc.SpinOff(ctx, om, olga.id, sid, "Dinner")
	if err != nil || again.GroupID != over.GroupID {
		t.Errorf("asking again: %q, %v; want %q", again.GroupID, err, over.GroupID)
	}
	if n := a.groupsNamed(t, olga, "Dinner"); n != 1 {
		t.Errorf("olga has %d groups named Dinner, want 1", n)
	}
}

package groups

import (
	"github.com/PuerkitoBio/goquery"

	"context"
	"encoding/json"
	"fmt"
	"github.com/harmony/harmony/internal/app/inbox"

	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

// groupsApp is the real stack with the groups module.
type groupsApp struct {
	*accounttest.App
	svc   *Service
	inbox *inbox.Service
}

// invitations are the invitation mails sent so far, newest first.
func (a *groupsApp) invitations() []mail.Delivered {
	var out []mail.Delivered
	for _, m := range a.Mail() {
		if strings.Contains(m.Text, "/invite") {
			out = append(out, m)
		}
	}
	return out
}

func newGroupsApp(t *testing.T) *groupsApp {
	t.Helper()
	return newGroupsAppOn(t, nil)
}

// newGroupsAppOn is newGroupsApp on a backend wrap wraps (nil: as it is).
func newGroupsAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend) *groupsApp {
	t.Helper()
	app := &groupsApp{}
	app.App = accounttest.New(t, accounttest.Options{
		Wrap: wrap,
		Modules: []platform.Factory{
			func(c *platform.Core) (web.Module, error) {
				var err error
				app.inbox, err = inbox.FromCore(c)
				return app.inbox, err
			},
			func(c *platform.Core) (web.Module, error) {
				app.svc = New(c.Store, c.Accounts, c.Cursors, "http://localhost:8080", c.Log, c.Now)
				app.svc.UseNotifier(app.inbox)
				if err := app.svc.UseTasks(c.Tasks); err != nil {
					return nil, err
				}
				return app.svc, nil
			},
		},
	})
	// Join links make guests; a guest who signs in keeps their groups.
	app.svc.UseGuests(app.Auth)
	app.svc.UseGuestPhotos(app.Accounts)
	// Tests invite in bulk; invite_quota_test.go sets the limits it tests.
	app.svc.UseInviteLimits(InviteLimits{PerHour: 1 << 20, PerDay: 1 << 20})
	return app
}

// person is a signed-in browser and the identity the app sees.
type person struct {
	c  *webtest.Client
	id *auth.Identity
}

func (a *groupsApp) signIn(t *testing.T, email string) person {
	t.Helper()
	c := a.Client()
	key := a.SignIn(c, email)
	return person{c: c, id: &auth.Identity{MemberKey: key, UserKey: auth.UserKey(email), Email: email, DisplayName: strings.Split(email, "@")[0]}}
}

// offline is an identity that never signs in through HTTP.
func offline(email string) *auth.Identity {
	return &auth.Identity{MemberKey: "auth:" + strings.Split(email, "@")[0], UserKey: auth.UserKey(email), Email: email, DisplayName: email}
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func post(t *testing.T, c *webtest.Client, path string, form url.Values, headers ...string) *webtest.Response {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return c.PostForm(path, c.WithCSRF("/", form), headers...)
}

// confirmed is the form of a destructive action the person confirmed.
var confirmed = url.Values{"confirm": {"yes"}}

var groupPath = regexp.MustCompile(`^/groups/([0-9A-Z]{26})(?:/settings)?$`)

// createGroup creates a group through the form and returns its id.
func createGroup(t *testing.T, p person, name string) string {
	t.Helper()
	res := post(t, p.c, "/groups", url.Values{"name": {name}})
	m := groupPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create %q: %d %s", name, res.StatusCode, res.Header.Get("Location"))
	}
	return m[1]
}

func (a *groupsApp) member(t *testing.T, groupID, email string) MemberRow {
	t.Helper()
	row, err := a.svc.memberRow(ctx, groupID, auth.UserKey(email))
	if err != nil {
		t.Fatalf("member row %s: %v", email, err)
	}
	return row
}

func (a *groupsApp) userGroup(t *testing.T, groupID, email string) UserGroupRow {
	t.Helper()
	pk, rk := userGroupKey(auth.UserKey(email), groupID)
	e, err := a.svc.userGroups.Get(ctx, pk, rk)
	if err != nil {
		t.Fatalf("user group row %s: %v", email, err)
	}
	var row UserGroupRow
	if err := storage.Unmarshal(e, &row); err != nil {
		t.Fatal(err)
	}
	return row
}

func TestCreateRenameDelete(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")

	if res := post(t, ann.c, "/groups", url.Values{"name": {"   "}}); res.StatusCode != http.StatusUnprocessableEntity ||
		res.Doc(t).Find(testID("create-group-form")+" "+testID("field-error")).Length() != 1 {
		t.Fatalf("empty name: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups", url.Values{"name": {strings.Repeat("я", 81)}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("81 characters: %d", res.StatusCode)
	}
	id := createGroup(t, ann, strings.Repeat("я", 80))
	page := ann.c.Get("/groups/" + id)
	if page.StatusCode != http.StatusOK || page.Doc(t).Find(testID("group-name")).Text() != strings.Repeat("я", 80) {
		t.Fatalf("group page: %d", page.StatusCode)
	}
	owner := a.member(t, id, ann.id.Email)
	if owner.Status != StatusActive || owner.Role != RoleOwner || owner.MemberKey != ann.id.MemberKey || owner.JoinedAt == nil {
		t.Fatalf("owner row %+v", owner)
	}
	if ug := a.userGroup(t, id, ann.id.Email); ug.Status != StatusActive {
		t.Fatalf("owner's UserGroups row %+v", ug)
	}

	if res := post(t, ann.c, "/groups/"+id+"/rename", url.Values{"name": {"Smiths"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename: %d", res.StatusCode)
	}
	if got := ann.c.Get("/groups/" + id).Doc(t).Find(testID("group-name")).Text(); got != "Smiths" {
		t.Fatalf("renamed to %q", got)
	}
	if res := post(t, ann.c, "/groups/"+id+"/rename", url.Values{"name": {""}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("rename to nothing: %d", res.StatusCode)
	}

	if res := post(t, ann.c, "/groups/"+id+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	pk, rk := groupKey(id)
	e, err := a.svc.groups.Get(ctx, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	var g GroupRow
	if err := storage.Unmarshal(e, &g); err != nil {
		t.Fatal(err)
	}
	if !g.IsDeleted || g.DeletedAt == nil || g.DeletedByUserKey != ann.id.UserKey || g.PurgeAfterAt == nil ||
		!g.PurgeAfterAt.Equal(g.DeletedAt.Add(30*24*time.Hour)) {
		t.Fatalf("deleted row %+v", g)
	}
	if res := ann.c.Get("/groups/" + id); res.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted group page: %d", res.StatusCode)
	}
	if n := ann.c.Get("/").Doc(t).Find(testID("group-card")).Length(); n != 0 {
		t.Fatalf("deleted group on the dashboard: %d cards", n)
	}
}

// invite has ann (an owner) invite email through the form.
func invite(t *testing.T, owner person, groupID, email string) *webtest.Response {
	t.Helper()
	return post(t, owner.c, "/groups/"+groupID+"/invites", url.Values{"email": {email}})
}

func TestInviteBeforeAccountThenAcceptFromDashboard(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")

	if res := invite(t, ann, id, "not an address"); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad address: %d", res.StatusCode)
	}
	if res := invite(t, ann, id, " Bob@Example.com "); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("invite: %d", res.StatusCode)
	}
	// Bob has no account yet: the rows are keyed by his address.
	row := a.member(t, id, "bob@example.com")
	if row.Status != StatusInvited || row.InvitedAt == nil || row.Email != "bob@example.com" || row.MemberKey != "" {
		t.Fatalf("invited row %+v", row)
	}
	if ug := a.userGroup(t, id, "bob@example.com"); ug.Status != StatusInvited || ug.InvitedAt == nil {
		t.Fatalf("invited UserGroups row %+v", ug)
	}
	mails := a.invitations()
	if len(mails) != 1 || mails[0].To != "bob@example.com" || !strings.Contains(mails[0].Text, a.Config.BaseURL.String()+"/groups/"+id+"/invite") {
		t.Fatalf("invitation mail %+v", mails)
	}
	if res := invite(t, ann, id, "ann@example.com"); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("inviting a member: %d", res.StatusCode)
	}

	// Someone else following the link is told it is not theirs, and not
	// shown the group.
	carol := a.signIn(t, "carol@example.com")
	res := carol.c.Get("/groups/" + id + "/invite")
	if res.StatusCode != http.StatusForbidden || strings.Contains(res.Body, "Smiths") || !strings.Contains(res.Body, "not for the account") {
		t.Fatalf("carol on bob's link: %d", res.StatusCode)
	}
	if res := post(t, carol.c, "/groups/"+id+"/invite/accept", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("carol accepting bob's invitation: %d", res.StatusCode)
	}

	bob := a.signIn(t, "bob@example.com")
	if res := bob.c.Get("/groups/" + id); res.StatusCode != http.StatusNotFound {
		t.Fatalf("invitee on the group page before accepting: %d", res.StatusCode)
	}
	if res := bob.c.Get("/groups/" + id + "/invite"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "Smiths") {
		t.Fatalf("bob's invitation page: %d", res.StatusCode)
	}
	dash := bob.c.Get("/").Doc(t)
	card := dash.Find(testID("groups-list") + " " + testID("group-card"))
	if card.Length() != 1 || card.AttrOr("data-status", "") != "invited" || card.Find(testID("group-accept")).Length() != 1 || card.Find(testID("group-decline")).Length() != 1 {
		t.Fatalf("bob's dashboard: %d cards", card.Length())
	}
	accept, _ := card.Find(testID("group-accept")).Attr("hx-post")
	if action, _ := card.Find(testID("group-accept")).Closest("form").Attr("action"); action != accept {
		t.Fatalf("accept has no plain-form fallback: %q vs %q", action, accept)
	}
	frag := post(t, bob.c, accept, nil, "HX-Request", "true", "HX-Request-Type", "partial")
	if frag.StatusCode != http.StatusOK || frag.Doc(t).Find(testID("group-card")).AttrOr("data-status", "") != "active" {
		t.Fatalf("htmx accept: %d %s", frag.StatusCode, frag.Body)
	}
	row = a.member(t, id, "bob@example.com")
	if row.Status != StatusActive || row.JoinedAt == nil || row.MemberKey != bob.id.MemberKey {
		t.Fatalf("accepted row %+v", row)
	}
	if ug := a.userGroup(t, id, "bob@example.com"); ug.Status != StatusActive || ug.JoinedAt == nil {
		t.Fatalf("accepted UserGroups row %+v", ug)
	}
	if res := bob.c.Get("/groups/" + id); res.StatusCode != http.StatusOK {
		t.Fatalf("member on the group page: %d", res.StatusCode)
	}
	if res := bob.c.Get("/groups/" + id + "/invite"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("member on the invitation link: %d", res.StatusCode)
	}

	// The roster: emails for owners only.
	ownerView := ann.c.Get("/groups/" + id + "/members").Doc(t)
	if ownerView.Find(testID("roster-row")).Length() != 2 || ownerView.Find(testID("member-email")).Length() != 2 {
		t.Fatalf("owner's roster: %d rows, %d emails", ownerView.Find(testID("roster-row")).Length(), ownerView.Find(testID("member-email")).Length())
	}
	memberView := bob.c.Get("/groups/" + id + "/members")
	if memberView.Doc(t).Find(testID("member-email")).Length() != 0 || strings.Contains(memberView.Body, "ann@example.com") {
		t.Fatal("a member sees email addresses on the roster")
	}
	if memberView.Doc(t).Find(testID("member-remove")).Length() != 0 {
		t.Fatal("a member is offered owner actions")
	}
}

func TestDeclineResendCancel(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	invite(t, ann, id, "bob@example.com")
	bob := a.signIn(t, "bob@example.com")

	key := auth.UserKey("bob@example.com")
	resend := "/groups/" + id + "/members/" + a.svc.memberRef(id, key) + "/resend"
	if res := post(t, ann.c, resend, nil); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("resend within the cooldown: %d", res.StatusCode)
	}
	// Inviting again is a resend too: the same 429, and the form says when.
	if res := invite(t, ann, id, "bob@example.com"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("invite again within the cooldown: %d", res.StatusCode)
	} else if !strings.Contains(res.Body, "after 5 minutes") {
		t.Fatalf("invite again within the cooldown does not say when: %s", res.Body)
	}
	a.Clock.Advance(ResendCooldown + time.Second)
	if res := post(t, ann.c, resend, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("resend after the cooldown: %d", res.StatusCode)
	}
	if n := len(a.invitations()); n != 2 {
		t.Fatalf("%d invitation mails, want 2", n)
	}

	// Decline from the dashboard without htmx.
	if res := post(t, bob.c, "/groups/"+id+"/invite/decline", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("decline: %d", res.StatusCode)
	}
	row := a.member(t, id, "bob@example.com")
	if row.Status != StatusRemoved || row.RemovedAt == nil {
		t.Fatalf("declined row %+v", row)
	}
	if a.userGroup(t, id, "bob@example.com").Status != StatusRemoved {
		t.Fatal("declined UserGroups row not removed")
	}
	if n := bob.c.Get("/").Doc(t).Find(testID("group-card")).Length(); n != 0 {
		t.Fatalf("declined invitation still on the dashboard: %d", n)
	}
	if res := bob.c.Get("/groups/" + id + "/invite"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("declined invitation link: %d", res.StatusCode)
	}
	// A declined invitation leaves the roster; the owner is told in the
	// inbox instead.
	if r := ann.c.Get("/groups/" + id + "/members").Doc(t).Find(`[data-testid="roster-row"][data-status="removed"]`); r.Length() != 0 {
		t.Fatal("a declined invitation stays on the roster as removed")
	}
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := a.inbox.Unread(ctx, ann.id.MemberKey); n != 1 {
		t.Errorf("the owner has %d unread notices after the decline, want 1", n)
	}

	// Inviting again is a resend: within the cooldown it is refused, as
	// it is after a cancel (else invite and cancel in turn would mail
	// bob without pause).
	if res := invite(t, ann, id, "bob@example.com"); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("invite again within the cooldown of the last mail: %d", res.StatusCode)
	}
	a.Clock.Advance(ResendCooldown + time.Second)
	ann = a.signIn(t, "ann@example.com")
	if res := invite(t, ann, id, "bob@example.com"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("invite again: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, key)+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	if res := bob.c.Get("/groups/" + id + "/invite"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("cancelled invitation link: %d", res.StatusCode)
	}
	mails := len(a.invitations())
	if res := invite(t, ann, id, "bob@example.com"); res.StatusCode != http.StatusTooManyRequests || len(a.invitations()) != mails {
		t.Fatalf("invite right after a cancel: %d", res.StatusCode)
	}
	// Past 30 days the removed row leaves the roster.
	a.Clock.Advance(RecentlyRemoved + time.Hour)
	ann = a.signIn(t, "ann@example.com") // the old session has expired
	if n := ann.c.Get("/groups/" + id + "/members").Doc(t).Find(`[data-status="removed"]`).Length(); n != 0 {
		t.Fatalf("%d long-removed rows on the roster", n)
	}
}

func TestRolesLastOwnerAndRemoval(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	invite(t, ann, id, "bob@example.com")
	bob := a.signIn(t, "bob@example.com")
	post(t, bob.c, "/groups/"+id+"/invite/accept", nil)
	bobKey := auth.UserKey("bob@example.com")

	if res := post(t, ann.c, "/groups/"+id+"/leave", nil); res.StatusCode != http.StatusConflict {
		t.Fatalf("last owner leaving: %d", res.StatusCode)
	}
	if res := post(t, bob.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("ann@example.com"))+"/remove", confirmed); res.StatusCode != http.StatusForbidden {
		t.Fatalf("member removing the owner: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, bobKey)+"/promote", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("promote: %d", res.StatusCode)
	}
	if a.member(t, id, "bob@example.com").Role != RoleOwner {
		t.Fatal("bob not promoted")
	}
	if res := post(t, ann.c, "/groups/"+id+"/leave", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner leaving after handing over: %d", res.StatusCode)
	}
	if res := ann.c.Get("/groups/" + id); res.StatusCode != http.StatusNotFound {
		t.Fatalf("after leaving: %d", res.StatusCode)
	}
	if res := post(t, bob.c, "/groups/"+id+"/leave", nil); res.StatusCode != http.StatusConflict {
		t.Fatalf("bob is now the last owner: %d", res.StatusCode)
	}

	// Removal takes effect on the very next request.
	invite(t, bob, id, "carol@example.com")
	carol := a.signIn(t, "carol@example.com")
	post(t, carol.c, "/groups/"+id+"/invite/accept", nil)
	if res := carol.c.Get("/groups/" + id); res.StatusCode != http.StatusOK {
		t.Fatalf("carol before removal: %d", res.StatusCode)
	}
	if res := post(t, bob.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("carol@example.com"))+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove carol: %d", res.StatusCode)
	}
	if res := carol.c.Get("/groups/" + id); res.StatusCode != http.StatusNotFound {
		t.Fatalf("carol's next request after removal: %d", res.StatusCode)
	}
	if row := a.member(t, id, "carol@example.com"); row.Status != StatusRemoved || row.RemovedAt == nil {
		t.Fatalf("removed row %+v", row)
	}
}

func TestLastOwnersLeavingTogether(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob := offline("ann@example.com"), offline("bob@example.com")
	g, err := a.svc.Create(ctx, ann, "Pair")
	if err != nil {
		t.Fatal(err)
	}
	m, _, _ := a.svc.Open(ctx, g.GroupID, ann, AccessOwner)
	if _, err := a.svc.Invite(ctx, m, g, ann, bob.Email); err != nil {
		t.Fatal(err)
	}
	mb, _, _ := a.svc.Open(ctx, g.GroupID, bob, AccessInvitee)
	if _, err := a.svc.Accept(ctx, mb, bob); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.Promote(ctx, m, bob.UserKey); err != nil {
		t.Fatal(err)
	}
	mb, _, _ = a.svc.Open(ctx, g.GroupID, bob, AccessOwner)
	errs := make(chan error, 2)
	go func() { errs <- a.svc.Leave(ctx, m) }()
	go func() { errs <- a.svc.Leave(ctx, mb) }()
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) {
		t.Fatalf("both or neither owner left: %v, %v", e1, e2)
	}
}

// TestDashboardStorageBudget holds the signed-in home page to issue
// 11's budget: 3 storage calls whatever the number of groups (the
// session read, one query of UserGroups, one of the page's groups), plus
// the inbox badge.
func TestDashboardStorageBudget(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 30} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			a := newGroupsApp(t)
			a.svc.creations.Max = n // one owner makes them all
			ann := a.signIn(t, "ann@example.com")
			owner := offline("owner@example.com")
			for i := range n {
				g, err := a.svc.Create(ctx, owner, fmt.Sprintf("Group %02d", i))
				if err != nil {
					t.Fatal(err)
				}
				m, _, _ := a.svc.Open(ctx, g.GroupID, owner, AccessOwner)
				if _, err := a.svc.Invite(ctx, m, g, owner, ann.id.Email); err != nil {
					t.Fatal(err)
				}
				if i%3 == 0 {
					if _, err := a.svc.CreateAppointment(ctx, m, owner, AppointmentInput{Title: fmt.Sprintf("Plan %02d", i),
						Start: "2030-06-01T10:00", End: "2030-06-01T11:00", Repeat: RepeatInput{Freq: RepeatWeekly}}, time.UTC); err != nil {
						t.Fatal(err)
					}
				}
				if i%2 == 0 {
					mi, _, _ := a.svc.Open(ctx, g.GroupID, ann.id, AccessInvitee)
					if _, err := a.svc.Accept(ctx, mi, ann.id); err != nil {
						t.Fatal(err)
					}
				}
			}
			res := ann.c.Get("/")
			shown := res.Doc(t).Find(testID("group-card")).Length()
			if want := min(n, 12); shown != want {
				t.Fatalf("%d cards, want %d", shown, want)
			}
			ops := res.StorageOps(t)
			// The session read, one query of the person's UserGroups and
			// one of the page's groups, whose rows carry their next
			// appointments (upcoming.go), whatever the number of groups;
			// the header's inbox badge adds one read and one query (then
			// cached for 20 s).
			if ops["queries"] != 2+1 || ops["total"] != 3+2 || ops["writes"] != 0 {
				t.Fatalf("dashboard with %d groups: %s", n, res.Header.Get("X-Storage-Ops"))
			}
			if res.Doc(t).Find(testID("upcoming-appointment")).Length() == 0 {
				t.Fatal("no group card shows its next appointments")
			}
			if n > 12 {
				more, ok := res.Doc(t).Find(testID("load-more")).Attr("href")
				if !ok {
					t.Fatal("no load-more link")
				}
				seen := shown
				for more != "" {
					page := ann.c.Get(more)
					if page.StatusCode != http.StatusOK {
						t.Fatalf("load more: %d", page.StatusCode)
					}
					doc := page.Doc(t)
					seen += doc.Find(testID("group-card")).Length()
					more, _ = doc.Find(testID("load-more")).Attr("href")
				}
				if seen != n {
					t.Fatalf("paged through %d groups, want %d", seen, n)
				}
			}
		})
	}
}

// TestDashboardSummaryRunsShort: as time passes a group's summary of
// what comes next empties; the dashboard then reads the group live,
// shows the right next appointments, and refreshes the summary, so the
// next view reads nothing more.
func TestDashboardSummaryRunsShort(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	for d := 1; d <= 10; d++ { // daily from tomorrow, 18 May 2030
		s := accounttestStart().AddDate(0, 0, d)
		if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: fmt.Sprintf("Day %02d", d), Start: s.Format(FormTimeLayout), End: s.Add(time.Hour).Format(FormTimeLayout)}, time.UTC); err != nil {
			t.Fatal(err)
		}
	}
	next := func() (string, map[string]int64) {
		res := ann.c.Get("/")
		var titles []string
		res.Doc(t).Find(testID("upcoming-appointment")).Each(func(_ int, s *goquery.Selection) { titles = append(titles, s.Find("bdi").Text()) })
		return strings.Join(titles, ","), res.StorageOps(t)
	}
	if got, ops := next(); got != "Day 01,Day 02,Day 03" || ops["writes"] != 0 {
		t.Fatalf("dashboard: %s, %v", got, ops)
	}
	a.Clock.Advance(5*24*time.Hour + time.Hour) // the summary's six: one left
	got, ops := next()
	// Read live: the group's appointments, and the refreshed summary
	// written back (the session's renewal after five days is a write too).
	if got != "Day 06,Day 07,Day 08" || ops["queries"] <= 3 || ops["writes"] < 1 {
		t.Fatalf("a short summary: %s, %v", got, ops)
	}
	if got, ops := next(); got != "Day 06,Day 07,Day 08" || ops["writes"] != 0 || ops["total"] != 3 { // the badge is cached
		t.Fatalf("after the refresh: %s, %v", got, ops)
	}
}

func TestDashboardCursorIsPersonal(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	bob := a.signIn(t, "bob@example.com")
	for i := range 13 {
		createGroup(t, ann, fmt.Sprintf("G%d", i))
	}
	more, _ := ann.c.Get("/groups").Doc(t).Find(testID("load-more")).Attr("href")
	if more == "" {
		t.Fatal("no load-more link")
	}
	if res := bob.c.Get(more); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("ann's cursor used by bob: %d", res.StatusCode)
	}
	if res := ann.c.Get("/groups?cursor=forged"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("forged cursor: %d", res.StatusCode)
	}
}

func TestAPIMyGroups(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	anon := a.Client()
	res := anon.Get("/api/me/groups")
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("anonymous: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	ann := a.signIn(t, "ann@example.com")
	active := createGroup(t, ann, "Active")
	deleted := createGroup(t, ann, "Deleted")
	left := createGroup(t, ann, "Left")
	owner := offline("owner@example.com")
	g, _ := a.svc.Create(ctx, owner, "Invited")
	m, _, _ := a.svc.Open(ctx, g.GroupID, owner, AccessOwner)
	if _, err := a.svc.Invite(ctx, m, g, owner, ann.id.Email); err != nil {
		t.Fatal(err)
	}
	post(t, ann.c, "/groups/"+deleted+"/delete", confirmed)
	post(t, ann.c, "/groups/"+left+"/members/x/promote", confirmed) // noise: refused
	// Ann leaves "Left" after handing it over.
	ml, _, _ := a.svc.Open(ctx, left, ann.id, AccessOwner)
	gl, _ := a.svc.group(ctx, left)
	a.svc.Invite(ctx, ml, gl, ann.id, owner.Email)
	mo, _, _ := a.svc.Open(ctx, left, owner, AccessInvitee)
	a.svc.Accept(ctx, mo, owner)
	a.svc.Promote(ctx, ml, owner.UserKey)
	if err := a.svc.Leave(ctx, ml); err != nil {
		t.Fatal(err)
	}

	res = ann.c.Get("/api/me/groups")
	var body struct {
		Groups []struct {
			GroupID   string `json:"groupId"`
			GroupName string `json:"groupName"`
			Status    string `json:"status"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, res.Body)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "private, no-store" {
		t.Errorf("a person's groups as JSON: Cache-Control %q", cc)
	}
	got := map[string]string{}
	for _, g := range body.Groups {
		got[g.GroupName] = g.Status
	}
	want := map[string]string{"Active": "active", "Invited": "invited"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("api groups %v, want %v (active id %s)", got, want, active)
	}
}

func TestSignedOutHomeStaysMarketing(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	doc := a.Client().Get("/").Doc(t)
	if doc.Find(testID("home-hero")).Length() != 1 || doc.Find(testID("groups-dashboard")).Length() != 0 {
		t.Fatal("the signed-out home page is not the marketing page")
	}
}

// The only owner is not offered "Leave the group", but told how to leave;
// with a second owner, or as a plain member, the button is there.
func TestTheSoleOwnerIsNotOfferedLeave(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	page := ann.c.Get("/groups/" + id + "/settings").Doc(t)
	if page.Find(testID("leave-group")).Length() != 0 || page.Find(testID("sole-owner")).Length() != 1 {
		t.Error("the sole owner is offered to leave")
	}
	if bob.c.Get("/groups/"+id+"/settings").Doc(t).Find(testID("leave-group")).Length() != 1 {
		t.Error("a member is not offered to leave")
	}
	bobKey := auth.UserKey("bob@example.com")
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, bobKey)+"/promote", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("promote: %d", res.StatusCode)
	}
	if ann.c.Get("/groups/"+id+"/settings").Doc(t).Find(testID("leave-group")).Length() != 1 {
		t.Error("an owner with a co-owner is not offered to leave")
	}
}

// An account makes at most GroupsPerDay groups a day: the next is
// refused with 429 and a message and makes nothing; a day later it may
// make groups again, and another account was never held back.
func TestGroupsADayAreBounded(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	bob := a.signIn(t, "bob@example.com")
	for i := range GroupsPerDay {
		createGroup(t, ann, fmt.Sprintf("G%d", i))
	}
	count := func(p person) int {
		ids, err := a.svc.groupsOf(ctx, p.id.UserKey)
		if err != nil {
			t.Fatal(err)
		}
		return len(ids)
	}
	res := post(t, ann.c, "/groups", url.Values{"name": {"One too many"}})
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "You have made many groups today") {
		t.Fatalf("a group past the day's bound: %d", res.StatusCode)
	}
	if n := count(ann); n != GroupsPerDay {
		t.Errorf("ann has %d groups, want %d", n, GroupsPerDay)
	}
	createGroup(t, bob, "Bob's")
	a.Clock.Advance(24 * time.Hour)
	createGroup(t, ann, "Tomorrow's")
	if n := count(ann); n != GroupsPerDay+1 {
		t.Errorf("ann has %d groups the next day, want %d", n, GroupsPerDay+1)
	}
}

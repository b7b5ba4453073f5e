package groups

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
)

// TestADeletedMemberLeavesTheirGroups: Ann owns "Smiths" with Bob (who
// joined first) and Carol, and "Solo" alone. In Smiths she made an
// appointment with Bob, is a participant of Bob's, started a list,
// ticked an item, commented, and invited Dave, who has not answered.
// Her archive holds her groups, appointment, item and comment, and
// nobody else's. The confirmation page's preview says Smiths passes to
// Bob and Solo is deleted, and forgetting her (cut short once, then
// finished) does that and leaves no row naming her; Dave's invitation
// is withdrawn; her appointment, item and comment stay, by "Deleted
// member"; the rebuild finds nothing to repair, and a second forget
// changes nothing. The forget is cut short at several points: among
// the appointments, the invitations and mirrors, and the second group.
func TestADeletedMemberLeavesTheirGroups(t *testing.T) {
	t.Parallel()
	memberdatatest.CutShort(t, []int{4, 18, 21, 40}, forgetAnn)
}

func forgetAnn(t *testing.T, faults *memberdatatest.Faults, failAfter int) {
	a := newGroupsAppOn(t, faults.Wrap)
	ann := a.signIn(t, "ann@example.com")
	smiths := createGroup(t, ann, "Smiths")
	solo := createGroup(t, ann, "Solo")
	var bob, carol person
	for _, p := range []struct {
		email string
		who   *person
	}{{"bob@example.com", &bob}, {"carol@example.com", &carol}} {
		invite(t, ann, smiths, p.email)
		*p.who = a.signIn(t, p.email)
		if res := post(t, p.who.c, "/groups/"+smiths+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("accept: %d", res.StatusCode)
		}
		a.Clock.Advance(60e9)
	}
	invite(t, ann, smiths, "dave@example.com")
	base := "/groups/" + smiths + "/appointments/"
	annsAppt := createAppointment(t, ann, smiths, url.Values{"title": {"Picnic"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T12:00"},
		"participant": {ann.id.MemberKey, bob.id.MemberKey}, "responsible": {ann.id.MemberKey}})
	bobsAppt := createAppointment(t, bob, smiths, url.Values{"title": {"Dentist"}, "start": {"2030-06-02T10:00"}, "end": {"2030-06-02T11:00"},
		"participant": {ann.id.MemberKey, bob.id.MemberKey}, "responsible": {ann.id.MemberKey}})
	if res := post(t, ann.c, base+bobsAppt+"/comments", url.Values{"comment": {"Ann's comment"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("comment: %d", res.StatusCode)
	}
	list := createList(t, ann, smiths, "Groceries")
	addItems(t, ann, list, "Milk")
	addItems(t, bob, list, "Bread")
	shown := showList(t, ann, list)
	if res := post(t, ann.c, list+"/items/"+shown.ids["Bread"]+"/tick", url.Values{"done": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("tick: %d", res.StatusCode)
	}
	a.Tasks.RunDue(ctx)
	m := memberdatatest.Member(ann.id.MemberKey, "ann@example.com")

	var archive memberdatatest.Archive
	if err := a.svc.ExportMember(ctx, m, &archive); err != nil {
		t.Fatal(err)
	}
	text := archive.Text()
	for _, want := range []string{"Smiths", "Solo", "Picnic", "Milk", "Ann's comment"} {
		if !strings.Contains(text, want) {
			t.Errorf("Ann's archive lacks %q", want)
		}
	}
	for _, not := range []string{"Dentist", "Bread", "bob@example.com", bob.id.MemberKey} {
		if strings.Contains(text, not) {
			t.Errorf("Ann's archive holds someone else's %q", not)
		}
	}

	// The confirmation page's preview says what the forget then does.
	preview, err := a.svc.PreviewForget(memberdatatest.English(t), m)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]string{}
	for _, c := range preview {
		said[c.What+" "+c.URL] = c.Outcome
	}
	if smithsSaid := said["Smiths /groups/"+smiths]; len(said) != 2 || !strings.HasPrefix(smithsSaid, "passes to ") || !strings.Contains(strings.ToLower(smithsSaid), "bob") ||
		said["Solo /groups/"+solo] != "is deleted: nobody else is in it" {
		t.Errorf("the preview of Ann's deletion: %+v", preview)
	}
	faults.Finish(t, failAfter, func() error { return a.svc.ForgetMember(ctx, m) })
	if left := memberdatatest.Traces(t, a.Store, m, a.svc.Tables()...); len(left) != 0 {
		t.Errorf("rows still naming Ann: %v", left)
	}
	if row, err := a.svc.memberRow(ctx, smiths, bob.id.UserKey); err != nil || row.Role != RoleOwner {
		t.Errorf("Bob, who joined first, should own Smiths: %+v %v", row, err)
	}
	if row, err := a.svc.memberRow(ctx, smiths, carol.id.UserKey); err != nil || row.Role != RoleMember {
		t.Errorf("Carol should stay a member: %+v %v", row, err)
	}
	if row, err := a.svc.memberRow(ctx, smiths, auth.UserKey("dave@example.com")); err != nil || row.Status != StatusRemoved {
		t.Errorf("Dave's invitation should be withdrawn: %+v %v", row, err)
	}
	if g, err := storage.Get[GroupRow](ctx, a.svc.groups, groupsPartition, solo); err != nil || !g.IsDeleted {
		t.Errorf("Solo, owned by Ann alone, should be deleted: %v %v", g.IsDeleted, err)
	}
	if got := showList(t, bob, list).doc.Find(testID("list-ticked")).Text(); !strings.Contains(got, "Deleted member") {
		t.Errorf("the item Ann ticked: %q", got)
	}
	page := bob.c.Get(base + bobsAppt)
	if got := page.Doc(t).Find(testID("comments")).Text(); page.StatusCode != http.StatusOK || !strings.Contains(got, "Deleted member") || !strings.Contains(got, "Ann's comment") {
		t.Errorf("Bob's appointment with Ann's comment: %d %q", page.StatusCode, got)
	}
	if dots := page.Doc(t).Find(testID("comment") + " .member-dot").Length(); dots != 0 {
		t.Errorf("the comment by Deleted member has %d member colours", dots)
	}
	if res := bob.c.Get(base + annsAppt); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "Picnic") {
		t.Errorf("Ann's appointment should stay: %d", res.StatusCode)
	}
	derived := []string{userGroupsTable, appointmentsTable, participantsTable}
	before := memberdatatest.Snapshot(t, a.Store, derived...)
	if _, err := a.svc.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, derived...); after != before {
		t.Errorf("the rebuild changed the derived rows:\n%s\n%s", before, after)
	}
	before = memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...)
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...); after != before {
		t.Errorf("a second forget changed the tables:\n%s\n%s", before, after)
	}
}

package events_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestADeletedMemberLeavesEvents: Olga, an organizer, made an upcoming
// event nobody else runs (cancelled when she goes, its people told), one
// with a co-organizer (who takes it over) and one that is past (it
// stays, made by nobody; her update to its guests shows "Deleted
// member"); she is going to Co's concert, whose one seat passes to Cat
// on the waitlist; she has a calendar feed. Her archive holds her
// registration, her events and her update, nobody else's; the
// confirmation page's preview names the first two; the forget,
// cut short once, leaves no row naming her, the rebuild finds nothing to
// repair, and a second forget changes nothing.
//
// The forget is cut short at several points: in the seat changes, in
// the events Olga ran, and near its end.
func TestADeletedMemberLeavesEvents(t *testing.T) {
	t.Parallel()
	memberdatatest.CutShort(t, []int{3, 8, 20, 35}, forgetOlga)
}

func forgetOlga(t *testing.T, faults *memberdatatest.Faults, failAfter int) {
	a, svc := newAppAndServiceOn(t, faults.Wrap)
	cast := a.People("olga@example.com", "co@example.com", "ann@example.com", "bob@example.com", "cat@example.com")
	olga, co, ann, bob, cat := cast[0], cast[1], cast[2], cast[3], cast[4]
	olgaKey, coKey := a.Who(olga), a.Who(co)
	for _, k := range []string{olgaKey, coKey} {
		if _, err := a.Accounts.SetRole(t.Context(), k, account.RoleOrganizer, true); err != nil {
			t.Fatal(err)
		}
	}
	quiz := newEvent(t, olga, "title", "Quiz night", "start", "2030-07-01T19:00", "end", "2030-07-01T21:00")
	swap := newEvent(t, olga, "title", "Book swap", "start", "2030-07-02T19:00", "end", "2030-07-02T21:00", "coHosts", "co@example.com")
	picnic := newEvent(t, olga, "title", "Picnic", "start", "2030-05-18T12:00", "end", "2030-05-18T15:00", "capacity", "5")
	concert := newEvent(t, co, "title", "Concert", "start", "2030-07-03T19:00", "end", "2030-07-03T21:00")
	for _, r := range []struct {
		c    *webtest.Client
		page string
	}{{ann, quiz}, {bob, quiz}, {olga, concert}, {cat, concert}, {ann, picnic}} {
		if res := post(r.c, r.page+"/register", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("register for %s: %d", r.page, res.StatusCode)
		}
	}
	if res := post(olga, picnic+"/updates", url.Values{"body": {"Bring a blanket."}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Olga's update: %d", res.StatusCode)
	}
	if res := post(olga, "/events/mine/feed", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Olga's feed: %d", res.StatusCode)
	}
	if got := state(t, cat, concert); got != "waitlist" {
		t.Fatalf("Cat at the concert: %q", got)
	}
	a.Tasks.RunDue(t.Context())
	a.Clock.Advance(3 * 24 * time.Hour) // the picnic is past
	m := memberdatatest.Member(olgaKey, "olga@example.com")

	var archive memberdatatest.Archive
	if err := svc.ExportMember(t.Context(), m, &archive); err != nil {
		t.Fatal(err)
	}
	text := archive.Text()
	for _, want := range []string{"events/registrations.json", "Concert", "Quiz night", "Book swap", "Bring a blanket."} {
		if !strings.Contains(text, want) {
			t.Errorf("Olga's archive lacks %q", want)
		}
	}
	if strings.Contains(text, "cat@example.com") || strings.Contains(text, coKey) || strings.Count(text, `"status"`) != 1 {
		t.Errorf("Olga's archive holds others' data:\n%s", text)
	}

	// The confirmation page's preview names the two upcoming events she
	// made, and what the forget then does to them.
	preview, err := svc.PreviewForget(memberdatatest.English(t), m)
	if err != nil {
		t.Fatal(err)
	}
	said := map[string]string{}
	for _, c := range preview {
		said[c.What+" "+c.URL] = c.Outcome
	}
	if len(said) != 2 || said["Quiz night "+quiz] != "is cancelled, and everyone registered is told" || said["Book swap "+swap] != "passes to its co-organizer co" {
		t.Errorf("the preview of Olga's deletion: %+v", preview)
	}
	faults.Finish(t, failAfter, func() error { return svc.ForgetMember(t.Context(), m) })
	if left := memberdatatest.Traces(t, a.Store, m, svc.Tables()...); len(left) != 0 {
		t.Errorf("rows still naming Olga: %v", left)
	}
	if got := state(t, cat, concert); got != "going" {
		t.Errorf("Cat after Olga's seat was freed: %q", got)
	}
	if got := a.Inbox(ann).Text(); !strings.Contains(got, "Quiz night") || !strings.Contains(got, "cancel") {
		t.Errorf("Ann was not told the quiz is cancelled: %q", got)
	}
	if cards := co.Get("/events/organizing").Doc(t).Find(testID("event-card")); !strings.Contains(cards.Text(), "Book swap") {
		t.Errorf("Co does not run the book swap now: %q", cards.Text())
	}
	if res := co.Get(swap + "/edit"); res.StatusCode != http.StatusOK {
		t.Errorf("Co edits the book swap: %d", res.StatusCode)
	}
	if got := ann.Get(picnic).Doc(t).Find(testID("event-update")).Text(); !strings.Contains(got, "Deleted member") || !strings.Contains(got, "Bring a blanket.") {
		t.Errorf("the picnic's update after Olga went: %q", got)
	}
	if rows, err := a.Store.Table("EventsByDate").Query(t.Context(), storage.Query{PartitionKey: "org|" + memberdata.Forgotten}); err != nil || len(rows.Entities) != 0 {
		t.Errorf("events left to nobody are listed as run by %q: %d rows, %v", memberdata.Forgotten, len(rows.Entities), err)
	}
	derived := []string{"EventsByDate", "UserEvents"}
	before := memberdatatest.Snapshot(t, a.Store, derived...)
	if _, err := svc.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, derived...); after != before {
		t.Errorf("the rebuild changed the derived rows:\n%s\n%s", before, after)
	}
	before = memberdatatest.Snapshot(t, a.Store, svc.Tables()...)
	if err := svc.ForgetMember(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, svc.Tables()...); after != before {
		t.Errorf("a second forget changed the tables:\n%s\n%s", before, after)
	}
}

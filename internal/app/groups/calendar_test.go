package groups

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/storage"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	z, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// TestCalendarDaysSpreadsAppointments: a multi-day appointment is on
// every day it covers, an all-day one on its dates in any zone, and a
// day's timed appointments follow the ones that fill it.
func TestCalendarDaysSpreadsAppointments(t *testing.T) {
	t.Parallel()
	berlin := mustZone(t, "Europe/Berlin")
	at := func(s string) time.Time { v, _ := time.ParseInLocation(FormTimeLayout, s, berlin); return v.UTC() }
	rows := []AppointmentIndexRow{
		{AppointmentID: "visit", StartTime: at("2030-03-29T18:00"), EndTime: at("2030-04-01T12:00")},
		{AppointmentID: "dentist", StartTime: at("2030-03-30T09:00"), EndTime: at("2030-03-30T10:00")},
		// All day on 30 March: midnights UTC, whatever the zone.
		{AppointmentID: "birthday", AllDay: true, StartTime: time.Date(2030, 3, 30, 0, 0, 0, 0, time.UTC), EndTime: time.Date(2030, 3, 31, 0, 0, 0, 0, time.UTC)},
	}
	first := time.Date(2030, 3, 28, 0, 0, 0, 0, berlin)
	for _, zone := range []*time.Location{berlin, mustZone(t, "America/Los_Angeles"), mustZone(t, "Pacific/Auckland")} {
		days := CalendarDays(rows, first.In(zone), 6, zone)
		var birthday []int
		for i, d := range days {
			for _, sp := range d {
				if sp.Row.AppointmentID == "birthday" {
					birthday = append(birthday, i)
				}
			}
		}
		if fmt.Sprint(birthday) != "[2]" && zone != berlin {
			// first.In(zone) may be the 27th or 28th; the birthday's date
			// must still be 30 March.
			d0 := midnight(first.In(zone))
			if len(birthday) != 1 || d0.AddDate(0, 0, birthday[0]).Day() != 30 {
				t.Fatalf("%s: birthday on days %v from %s", zone, birthday, d0.Format(time.DateOnly))
			}
		}
	}
	days := CalendarDays(rows, first, 6, berlin)
	ids := func(d []Span) string {
		var s []string
		for _, sp := range d {
			mark := ""
			if sp.Continued {
				mark += "<"
			}
			if sp.Continues {
				mark += ">"
			}
			s = append(s, sp.Row.AppointmentID+mark)
		}
		return strings.Join(s, ",")
	}
	// 28, 29, 30 (DST starts on the 31st in Berlin), 31, 1 April, 2 April.
	want := []string{"", "visit>", "visit<>,birthday,dentist", "visit<>", "visit<", ""}
	for i, d := range days {
		if got := ids(d); got != want[i] {
			t.Errorf("day %d: %q, want %q", i, got, want[i])
		}
	}
	if sp := days[1][0]; sp.Start.Format("15:04") != "18:00" || sp.Timed() {
		t.Errorf("the visit's first day starts at %s, timed %v", sp.Start.Format("15:04"), sp.Timed())
	}
	if !days[3][0].AllDay() || days[2][2].AllDay() || !days[2][2].Timed() {
		t.Error("a middle day of the visit fills the day; the dentist is timed")
	}
}

func TestFormTimesRefuseDSTGap(t *testing.T) {
	t.Parallel()
	berlin := mustZone(t, "Europe/Berlin")
	in := AppointmentInput{Title: "Night train", Start: "2030-03-31T02:30", End: "2030-03-31T04:00"}
	_, _, errs := parseAppointment(in, berlin, nil)
	if errs["start"] != "groups.appointments.error.dst_gap" {
		t.Fatalf("a start in the spring-forward gap: %v", errs)
	}
	// The autumn overlap is a real time (its first occurrence).
	in.Start, in.End = "2030-10-27T02:30", "2030-10-27T04:00"
	if a, _, errs := parseAppointment(in, berlin, nil); errs != nil || a.Start.Format(time.RFC3339) != "2030-10-27T00:30:00Z" {
		t.Fatalf("autumn overlap: %v %s", errs, a.Start)
	}
	// All-day: dates, stored as midnights UTC, the end date included.
	in = AppointmentInput{Title: "Visit", Start: "2030-03-30", End: "2030-04-01", AllDay: true}
	a, _, errs := parseAppointment(in, berlin, nil)
	if errs != nil || !a.AllDay || a.Start != time.Date(2030, 3, 30, 0, 0, 0, 0, time.UTC) || a.End != time.Date(2030, 4, 2, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("all day: %v %s %s", errs, a.Start, a.End)
	}
	in.End = "2030-05-30"
	if _, _, errs := parseAppointment(in, berlin, nil); errs["end"] != "groups.appointments.error.too_long" {
		t.Fatalf("61 days: %v", errs)
	}
}

// TestMonthAndWeekViews: the month grid shows a multi-day appointment on
// each of its days, marks cancelled ones and today, and costs the same
// storage whatever the month holds; the week view puts overlapping
// appointments side by side.
func TestMonthAndWeekViews(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	add := func(in AppointmentInput) Appointment {
		t.Helper()
		doc, err := a.svc.CreateAppointment(ctx, m, ann.id, in, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	visit := add(AppointmentInput{Title: "Grandma visits", Start: "2030-05-30T15:00", End: "2030-06-02T11:00"})
	add(AppointmentInput{Title: "Birthday", Start: "2030-06-05", End: "2030-06-05", AllDay: true})
	dentist := add(AppointmentInput{Title: "Dentist", Start: "2030-06-04T10:00", End: "2030-06-04T11:00"})
	add(AppointmentInput{Title: "Swim", Start: "2030-06-04T10:30", End: "2030-06-04T12:00"})
	if err := a.svc.CancelAppointment(ctx, m, ann.id, dentist.AppointmentID); err != nil {
		t.Fatal(err)
	}

	res := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06")
	doc := res.Doc(t)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("month: %d", res.StatusCode)
	}
	onDays := func(doc *goquery.Document, appt string) []string {
		var days []string
		doc.Find(`[data-testid="month-day"]`).Each(func(_ int, s *goquery.Selection) {
			if s.Find(`[data-appointment="`+appt+`"]`).Length() > 0 {
				days = append(days, s.AttrOr("data-date", ""))
			}
		})
		return days
	}
	// June 2030 starts on a Saturday: the grid opens on Monday 27 May.
	if got := fmt.Sprint(onDays(doc, visit.AppointmentID)); got != "[2030-05-30 2030-05-31 2030-06-01 2030-06-02]" {
		t.Fatalf("the visit is on %s", got)
	}
	if first := doc.Find(`[data-testid="month-day"]`).First().AttrOr("data-date", ""); first != "2030-05-27" || doc.Find(`[data-testid="month-day"]`).Length()%7 != 0 {
		t.Fatalf("grid starts %s with %d days", first, doc.Find(`[data-testid="month-day"]`).Length())
	}
	if c := doc.Find(`[data-appointment="` + dentist.AppointmentID + `"] a`); c.AttrOr("data-canceled", "") != "true" || !strings.Contains(c.Text(), "(") {
		t.Fatal("the cancelled dentist is not marked")
	}
	if n := doc.Find(`[aria-current="date"]`).Length(); n != 0 {
		t.Fatalf("June 2030 is not this month, yet %d days are today", n)
	}
	may := ann.c.Get("/groups/" + id + "/appointments/month").Doc(t)
	if today := may.Find(`[aria-current="date"]`).Closest("td").AttrOr("data-date", ""); today != "2030-05-17" {
		t.Fatalf("today is %q", today)
	}
	if href := may.Find(testID("tab-month")).AttrOr("aria-current", ""); href != "page" {
		t.Fatal("the month tab is not current")
	}
	add2 := doc.Find(`[data-date="2030-06-12"] [data-testid="month-add"]`).AttrOr("href", "")
	form := ann.c.Get(add2).Doc(t)
	if v := form.Find(`input[name="start"]`).AttrOr("value", ""); v != "2030-06-12T09:00" || form.Find(`input[name="end"]`).AttrOr("value", "") != "2030-06-12T10:00" {
		t.Fatalf("a click on 12 June opens the form at %q", v)
	}

	week := ann.c.Get("/groups/" + id + "/appointments/week?d=2030-06-05").Doc(t)
	swim := week.Find(`[data-date="2030-06-04"] .week-item`).Last()
	den := week.Find(`[data-date="2030-06-04"] .week-item`).First()
	// 07:00 is row 1: 10:00 is row 4; the swim overlaps and takes lane 1.
	if !den.HasClass("week-r4") || !den.HasClass("week-s1") || !swim.HasClass("week-r4") || !swim.HasClass("week-s2") || !swim.HasClass("week-l1") {
		t.Fatalf("week placement: %q and %q", den.AttrOr("class", ""), swim.AttrOr("class", ""))
	}
	// The swim starts half way into its first row (10:30), not at 10:00.
	if !swim.HasClass("week-late2") || strings.Contains(swim.AttrOr("class", "")+den.AttrOr("class", ""), "week-early") || strings.Contains(den.AttrOr("class", ""), "week-late") {
		t.Fatalf("the quarter hours: %q and %q", den.AttrOr("class", ""), swim.AttrOr("class", ""))
	}
	if week.Find(`[data-date="2030-06-05"] .week-spans [data-testid="week-appointment"]`).Length() != 1 {
		t.Fatal("the birthday is not above the hours")
	}
	if u := week.Find(`[data-date="2030-06-06"] [data-testid="week-slot"]`).Eq(3).AttrOr("href", ""); !strings.HasSuffix(u, "date=2030-06-06&time=10%3A00") {
		t.Fatalf("the 10:00 slot opens %q", u)
	}
	for _, bad := range []string{"/appointments/month?m=2030-13", "/appointments/week?d=tuesday"} {
		if res := ann.c.Get("/groups/" + id + bad); res.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d", bad, res.StatusCode)
		}
	}

	// The month costs the same with 150 more appointments in it.
	before := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06").StorageOps(t)
	for i := range 150 {
		s := time.Date(2030, 6, 1+i%28, 8+i%10, 0, 0, 0, time.UTC)
		add(AppointmentInput{Title: fmt.Sprintf("A%03d", i), Start: s.Format(FormTimeLayout), End: s.Add(time.Hour).Format(FormTimeLayout)})
	}
	after := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06").StorageOps(t)
	if after["queries"] != before["queries"] || after["total"] != before["total"] {
		t.Fatalf("month storage grew with its content: %v then %v", before, after)
	}
}

// TestDestructiveActionsAskFirst: deleting a group, cancelling or
// deleting an appointment, and removing, promoting or demoting a member
// answer a POST without confirmation with a page that asks (posting the
// same again with the confirmation) and change nothing.
func TestDestructiveActionsAskFirst(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessOwner)
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Dentist", Start: "2030-06-01T10:00", End: "2030-06-01T11:00"}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	appt := "/groups/" + id + "/appointments/" + doc.AppointmentID
	bobRef := a.svc.memberRef(id, auth.UserKey("bob@example.com"))
	for _, path := range []string{
		"/groups/" + id + "/delete",
		appt + "/cancel",
		appt + "/delete",
		"/groups/" + id + "/members/" + bobRef + "/remove",
		"/groups/" + id + "/members/" + bobRef + "/promote",
	} {
		res := post(t, ann.c, path, url.Values{"note": {"kept"}})
		page := res.Doc(t)
		if res.StatusCode != http.StatusOK || page.Find(testID("confirm-page")).Length() != 1 || res.Writes(t) != 0 {
			t.Fatalf("%s unconfirmed: %d, %s", path, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
		form := page.Find(`[data-testid="confirm-page"] form`)
		if form.AttrOr("action", "") != path || form.Find(`input[name="confirm"][value="yes"]`).Length() != 1 || form.Find(`input[name="note"][value="kept"]`).Length() != 1 {
			t.Fatalf("%s: the confirm page posts to %q without the fields", path, form.AttrOr("action", ""))
		}
	}
	if row := a.member(t, id, "bob@example.com"); row.Status != StatusActive || row.Role != RoleMember {
		t.Fatalf("bob changed without confirmation: %+v", row)
	}
	if d, err := a.svc.Appointment(ctx, m, doc.AppointmentID); err != nil || d.Doc.Status != AppointmentActive {
		t.Fatalf("appointment changed without confirmation: %v %s", err, d.Doc.Status)
	}
	// The in-page step is a <details> holding the confirming form.
	roster := ann.c.Get("/groups/" + id + "/members").Doc(t)
	if roster.Find(`details.confirm [data-testid="member-remove-confirm"]`).Length() != 1 {
		t.Fatal("the roster's remove has no confirmation step")
	}

	// Promote, then demote: bob is an owner, then a member again.
	if res := post(t, ann.c, "/groups/"+id+"/members/"+bobRef+"/promote", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("promote: %d", res.StatusCode)
	}
	if ann.c.Get("/groups/"+id+"/members").Doc(t).Find(testID("member-demote")).Length() != 1 {
		t.Fatal("no demote offered for a co-owner")
	}
	if res := post(t, ann.c, "/groups/"+id+"/members/"+bobRef+"/demote", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("demote: %d", res.StatusCode)
	}
	if row := a.member(t, id, "bob@example.com"); row.Role != RoleMember || a.userGroup(t, id, "bob@example.com").Status != StatusActive {
		t.Fatalf("bob after demote: %+v", row)
	}
	// The last owner cannot be demoted by a co-owner who then leaves
	// none: bob (a member) may not demote, and ann may not demote herself
	// through the roster (no button), so the group keeps an owner.
	if res := post(t, bob.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("ann@example.com"))+"/demote", confirmed); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member demotes the owner: %d", res.StatusCode)
	}

	// Cancel, then restore.
	if res := post(t, bob.c, appt+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	page := bob.c.Get(appt).Doc(t)
	if page.Find(testID("restore-appointment")).Length() != 1 || page.Find(testID("cancel-appointment")).Length() != 0 {
		t.Fatal("a cancelled appointment offers no restore")
	}
	if res := post(t, bob.c, appt+"/restore", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("restore: %d", res.StatusCode)
	}
	if d, _ := a.svc.Appointment(ctx, m, doc.AppointmentID); d.Doc.Status != AppointmentActive || d.Index.Status != AppointmentActive {
		t.Fatalf("restored appointment is %s/%s", d.Doc.Status, d.Index.Status)
	}
}

// TestDemoteKeepsAnOwner: two owners demoting each other at once leave
// one owner, never none.
func TestDemoteKeepsAnOwner(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	bobKey, annKey := auth.UserKey("bob@example.com"), auth.UserKey("ann@example.com")
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, bobKey)+"/promote", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("promote: %d", res.StatusCode)
	}
	ma, _, _ := a.svc.Open(ctx, id, ann.id, AccessOwner)
	mb, _, _ := a.svc.Open(ctx, id, bob.id, AccessOwner)
	errs := make(chan error, 2)
	go func() { errs <- a.svc.Demote(ctx, ma, bobKey) }()
	go func() { errs <- a.svc.Demote(ctx, mb, annKey) }()
	<-errs
	<-errs
	owners := 0
	for _, e := range []string{"ann@example.com", "bob@example.com"} {
		if a.member(t, id, e).Role == RoleOwner {
			owners++
		}
	}
	if owners != 1 {
		t.Fatalf("%d owners after both demoted each other", owners)
	}
}

// TestMemberColours: a member's colour, assigned until they choose one,
// marks the appointments they take part in; a colour not offered is
// refused and changes nothing.
func TestMemberColours(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Swim", Start: "2030-06-04T10:00", End: "2030-06-04T11:00",
		Participants: []string{ann.id.MemberKey}, Responsible: bob.id.MemberKey}, time.UTC); err != nil {
		t.Fatal(err)
	}
	chip := func() string {
		return ann.c.Get("/groups/"+id+"/appointments/month?m=2030-06").Doc(t).Find(`[data-testid="month-appointment"] a`).AttrOr("class", "")
	}
	_, g, _ := a.svc.Open(ctx, id, bob.id, AccessMember)
	if want := fmt.Sprintf(" c%d ", ColorOf(g, bob.id.MemberKey)); !strings.Contains(chip()+" ", want) {
		t.Fatalf("chip %q lacks who picks up's assigned colour%s", chip(), want)
	}
	pick := (ColorOf(g, bob.id.MemberKey) + 3) % MemberColors
	if res := post(t, bob.c, "/groups/"+id+"/color", url.Values{"color": {fmt.Sprint(pick)}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("choose a colour: %d", res.StatusCode)
	}
	if !strings.Contains(chip()+" ", fmt.Sprintf(" c%d ", pick)) {
		t.Fatalf("chip %q does not follow bob's choice c%d", chip(), pick)
	}
	for _, bad := range []string{"8", "-1", "blue", ""} {
		res := post(t, bob.c, "/groups/"+id+"/color", url.Values{"color": {bad}})
		if ops := res.StorageOps(t); res.StatusCode != http.StatusBadRequest || ops["writes"] != 0 {
			t.Errorf("colour %q: %d, %s", bad, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	if got := ann.c.Get("/groups/"+id+"/settings").Doc(t).Find(`input[name="color"][checked]`).AttrOr("value", ""); got != fmt.Sprint(ColorOf(g, ann.id.MemberKey)) {
		t.Fatalf("ann's settings check colour %q", got)
	}
}

// picnic is a group of ann and bob with an appointment both take part
// in: the group's id, the appointment and its page.
func picnic(t *testing.T, a *groupsApp) (ann, bob person, id string, doc Appointment, appt string) {
	t.Helper()
	ann, bob, id = joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Picnic", Start: "2030-06-04T10:00", End: "2030-06-04T11:00",
		Participants: []string{ann.id.MemberKey, bob.id.MemberKey}}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return ann, bob, id, doc, "/groups/" + id + "/appointments/" + doc.AppointmentID
}

// TestAppointmentComments: a comment (Markdown, made safe) shows on the
// appointment, tells the other participants (while they are members),
// can be deleted by its author after confirmation and not by another
// member; a bad one is shown back with its message and writes nothing.
func TestAppointmentComments(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, group, _, appt := picnic(t, a)
	res := post(t, bob.c, appt+"/comments", url.Values{"comment": {"I'll bring **cake** <script>alert(1)</script>"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("comment: %d", res.StatusCode)
	}
	page := ann.c.Get(appt).Doc(t)
	c := page.Find(testID("comment"))
	if c.Length() != 1 || c.Find("strong").Last().Text() != "cake" || c.Find("script").Length() != 0 || !strings.Contains(c.Text(), "bob") {
		t.Fatalf("comment shows as %q", c.Text())
	}
	a.Tasks.RunDue(ctx)
	if !strings.Contains(ann.c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "commented on “Picnic”") {
		t.Fatal("ann is not told of bob's comment")
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 2001), "a\x00b"} {
		res := post(t, bob.c, appt+"/comments", url.Values{"comment": {bad}})
		ops := res.StorageOps(t)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`[data-testid="comment-form"] [data-testid="field-error"], [data-testid="comment-form"] .field-error`).Length() == 0 || ops["writes"] != 0 {
			t.Errorf("comment %.20q: %d, %s", bad, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	del := c.Find(`form[action$="/delete"]`).AttrOr("action", "")
	if !strings.Contains(del, "/comments/") {
		t.Fatalf("delete form %q", del)
	}
	// Bob, a plain member, may not delete ann's comment.
	a.Clock.Advance(time.Minute)
	if res := post(t, ann.c, appt+"/comments", url.Values{"comment": {"Thanks!"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann's comment: %d", res.StatusCode)
	}
	annsDel := ann.c.Get(appt).Doc(t).Find(testID("comment")).Last().Find(`form[action$="/delete"]`).AttrOr("action", "")
	if annsDel == "" || bob.c.Get(appt).Doc(t).Find(testID("comment")).Last().Find(`form[action$="/delete"]`).Length() != 0 {
		t.Fatalf("ann's delete form %q, or bob is offered one", annsDel)
	}
	if res := post(t, bob.c, annsDel, confirmed); res.StatusCode != http.StatusForbidden {
		t.Fatalf("bob deletes ann's comment: %d", res.StatusCode)
	}
	// Nor is he asked first, nor is anyone of a comment not there.
	if res := post(t, bob.c, annsDel, nil); res.StatusCode != http.StatusForbidden || res.Doc(t).Find(testID("confirm-page")).Length() != 0 {
		t.Fatalf("bob asked to delete ann's comment: %d", res.StatusCode)
	}
	if res := post(t, ann.c, appt+"/comments/1-01ARZ3NDEKTSV4RRFFQ69G5FAV/delete", nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("asked to delete no comment: %d", res.StatusCode)
	}
	if res := post(t, bob.c, del, nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 {
		t.Fatalf("delete without confirmation: %d", res.StatusCode)
	}
	if res := post(t, bob.c, del, confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if res := post(t, bob.c, del, confirmed); res.StatusCode != http.StatusNotFound {
		t.Fatalf("delete again: %d", res.StatusCode)
	}
	if left := ann.c.Get(appt).Doc(t).Find(testID("comment")); left.Length() != 1 || strings.Contains(left.Text(), "cake") {
		t.Fatal("the deleted comment still shows")
	}
	// Bob, removed from the group, stays a participant row of the
	// picnic, and hears of no more of what the group says there.
	a.Tasks.RunDue(ctx)
	if !strings.Contains(bob.c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "Thanks!") {
		t.Fatal("bob, a member, is not told of ann's comment")
	}
	if res := post(t, ann.c, "/groups/"+group+"/members/"+a.svc.memberRef(group, bob.id.UserKey)+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("removing bob: %d", res.StatusCode)
	}
	post(t, ann.c, appt+"/comments", url.Values{"comment": {"The new door code is 4711"}})
	a.Tasks.RunDue(ctx)
	if strings.Contains(bob.c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "4711") {
		t.Fatal("bob, removed, is told of the group's comment")
	}
}

// TestCommentsAndAnnouncementsAreLimited: a person may comment
// commentsPerHour times an hour (the next comes back with its draft and
// why, writing nothing), and their appointment changes tell the others
// at most announcementsPerHour times an hour, after which a change is
// saved unannounced; the next hour both start again.
func TestCommentsAndAnnouncementsAreLimited(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id, doc, appt := picnic(t, a)
	for i := range commentsPerHour {
		if res := post(t, bob.c, appt+"/comments", url.Values{"comment": {fmt.Sprint("note ", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("comment %d: %d", i, res.StatusCode)
		}
	}
	res := post(t, bob.c, appt+"/comments", url.Values{"comment": {"one too many"}})
	if res.StatusCode != http.StatusTooManyRequests || res.StorageOps(t)["writes"] > 0 ||
		!strings.Contains(res.Doc(t).Find(`[data-testid="comment-form"]`).Text(), "a lot of comments") {
		t.Fatalf("a comment past the limit: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	bm, _, _ := a.svc.Open(ctx, id, bob.id, AccessMember)
	for i := range announcementsPerHour + 5 {
		var err error
		if i%2 == 0 {
			err = a.svc.CancelAppointment(ctx, bm, bob.id, doc.AppointmentID)
		} else {
			err = a.svc.RestoreAppointment(ctx, bm, bob.id, doc.AppointmentID)
		}
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	a.Tasks.RunDue(ctx)
	unread, _ := a.inbox.Unread(ctx, ann.id.MemberKey)
	// Ann heard of the appointment's creation by nobody (she made it),
	// of bob's comments, in one line (the inbox gathers an appointment's
	// comments, unread), and of announcementsPerHour of his changes.
	if want := 1 + announcementsPerHour; unread != want {
		t.Fatalf("ann has %d unread notices, want %d", unread, want)
	}
	a.Clock.Advance(time.Hour)
	if res := post(t, bob.c, appt+"/comments", url.Values{"comment": {"an hour later"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a comment an hour later: %d", res.StatusCode)
	}
}

// TestEditingAComment: a comment's author edits it, with htmx in its
// place in the thread and without JavaScript on a page of its own; it is
// then marked edited. Nobody else may (the owner neither: owners delete,
// they do not put words in others' mouths); bad text is refused beside
// the field with nothing written.
func TestEditingAComment(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, _, _, appt := picnic(t, a)
	if res := post(t, bob.c, appt+"/comments", url.Values{"comment": {"I'll bring cake"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("comment: %d", res.StatusCode)
	}
	edit, ok := bob.c.Get(appt).Doc(t).Find(testID("comment-edit")).Attr("href")
	if !ok || ann.c.Get(appt).Doc(t).Find(testID("comment-edit")).Length() != 0 {
		t.Fatalf("bob's edit link %q, or ann is offered one", edit)
	}
	htmx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	form := bob.c.Get(edit, htmx...)
	if d := form.Doc(t); form.StatusCode != http.StatusOK || strings.Contains(form.Body, "<html") || d.Find("textarea[name=comment]").Text() != "I'll bring cake" ||
		d.Find(testID("comment-edit-item")).Length() != 1 {
		t.Fatalf("the edit form for htmx: %d %s", form.StatusCode, form.Body)
	}
	if page := bob.c.Get(edit); page.StatusCode != http.StatusOK || page.Doc(t).Find(testID("comment-edit-page")+" textarea[name=comment]").Length() != 1 {
		t.Fatalf("the edit page: %d", page.StatusCode)
	}
	for _, who := range []person{ann} {
		if res := who.c.Get(edit); res.StatusCode != http.StatusForbidden {
			t.Errorf("ann opens bob's edit: %d", res.StatusCode)
		}
		if res := post(t, who.c, edit, url.Values{"comment": {"ann was here"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
			t.Errorf("ann edits bob's: %d", res.StatusCode)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", MaxCommentLength+1), "a\x00b"} {
		for _, h := range [][]string{nil, htmx} {
			res := post(t, bob.c, edit, url.Values{"comment": {bad}}, h...)
			if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || res.Doc(t).Find(testID("comment-edit-form")+" .field-error").Length() != 1 {
				t.Errorf("edit to %.12q (htmx %v): %d, %d writes", bad, h != nil, res.StatusCode, res.Writes(t))
			}
		}
	}
	saved := post(t, bob.c, edit, url.Values{"comment": {"I'll bring **two** cakes"}}, htmx...)
	if d := saved.Doc(t); saved.StatusCode != http.StatusOK || d.Find(testID("comment")+" .comment-body strong").Text() != "two" || d.Find(testID("comment-edited")).Length() != 1 {
		t.Fatalf("saved with htmx: %d %s", saved.StatusCode, saved.Body)
	}
	res := post(t, bob.c, edit, url.Values{"comment": {"Three cakes"}})
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, appt+"#comment-") {
		t.Fatalf("saved without JavaScript: %d → %q", res.StatusCode, loc)
	}
	c := ann.c.Get(appt).Doc(t).Find(testID("comment"))
	if c.Length() != 1 || !strings.Contains(c.Text(), "Three cakes") || c.Find(testID("comment-edited")).Length() != 1 {
		t.Fatalf("ann sees %q", c.Text())
	}
}

// TestLongThreadsArePaged: an appointment page shows the newest
// commentsPage comments and a link to the earlier ones, a page at a
// time, each comment once and in order, including the comments written
// before the comments kit (written here as they were kept: bare ULIDs,
// then "-" and the ULID inverted, a deleted one marked), which "web
// migrate comments" moves to the kit's keys. The page costs the same
// whatever the thread's length; a tampered cursor is a 400; an old
// comment can still be deleted.
func TestLongThreadsArePaged(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id, doc, appt := picnic(t, a)
	pk := commentPart(id, doc.AppointmentID)
	var want []string
	// 30 comments from before paging, oldest first, then 5 from before
	// the kit, and one deleted.
	for i := range 36 {
		a.Clock.Advance(time.Minute)
		body := fmt.Sprintf("old %02d", i)
		rk := ulid.MustNew(ulid.Timestamp(a.Clock.Now()), rand.Reader).String()
		if i >= 30 {
			rk = "-" + legacyID("-"+rk)
		}
		row := legacyComment{Row: CommentRow{PartitionKey: pk, RowKey: rk,
			AuthorKey: ann.id.MemberKey, AuthorName: "ann", Body: body, CreatedAt: a.Clock.Now()}, IsDeleted: i == 33}
		if _, err := storage.Insert(ctx, a.svc.comments.Table, row); err != nil {
			t.Fatal(err)
		}
		if i != 33 {
			want = append(want, body)
		}
	}
	// The kit's threads read past them until they are moved; moved, a
	// second run finds nothing to do.
	if n := bob.c.Get(appt).Doc(t).Find(testID("comment")).Length(); n != 0 {
		t.Fatalf("before the migration the page shows %d comments", n)
	}
	for _, run := range []struct{ moved, dropped int }{{35, 1}, {0, 0}} {
		if moved, dropped, err := a.svc.MigrateComments(ctx); err != nil || moved != run.moved || dropped != run.dropped {
			t.Fatalf("migrate: moved %d, dropped %d, %v; want %v", moved, dropped, err, run)
		}
	}
	opsWith := func() map[string]int64 { return bob.c.Get(appt).StorageOps(t) }
	short := opsWith()
	m, _, _ := a.svc.Open(ctx, id, bob.id, AccessMember)
	for i := range 2*commentsPage + 10 {
		a.Clock.Advance(time.Minute)
		body := fmt.Sprintf("new %03d", i)
		if _, err := a.svc.AddComment(ctx, m, bob.id, doc.AppointmentID, body); err != nil {
			t.Fatal(err)
		}
		want = append(want, body)
		if (i+1)%commentsPerHour == 0 {
			a.Clock.Advance(time.Hour)
		}
	}
	// Deleted comments are left out, old or new (ann owns the group).
	owner, _, _ := a.svc.Open(ctx, id, ann.id, AccessOwner)
	for _, gone := range []int{3, 40} {
		var rows []CommentRow
		rows, _ = storage.All[CommentRow](ctx, a.svc.comments.Table, storage.Query{PartitionKey: pk})
		for _, r := range rows {
			if r.Body == want[gone] {
				if err := a.svc.DeleteComment(ctx, owner, ann.id, doc.AppointmentID, comments.PathKey(r.RowKey)); err != nil {
					t.Fatalf("delete %q: %v", r.Body, err)
				}
			}
		}
	}
	want = slices.Delete(slices.Delete(want, 40, 41), 3, 4)
	opsWith() // the session's upkeep after the hours the comments took
	long := opsWith()
	if long["queries"] != short["queries"] || long["total"] != short["total"] {
		t.Errorf("the page costs %v with a long thread, %v with a short one", long, short)
	}
	// Follow "earlier comments" from the newest page to the first, as a
	// browser without JavaScript would; then once as htmx does.
	var got []string
	next := appt
	for pages := 0; next != ""; pages++ {
		if pages > 10 {
			t.Fatal("the earlier links do not end")
		}
		doc := bob.c.Get(next).Doc(t)
		var page []string
		doc.Find(testID("comment") + " .comment-body").Each(func(_ int, s *goquery.Selection) { page = append(page, strings.TrimSpace(s.Text())) })
		if len(page) > commentsPage || (next != appt) != (doc.Find(testID("comments-latest")).Length() == 1) {
			t.Fatalf("%s: %d comments, latest link %d", next, len(page), doc.Find(testID("comments-latest")).Length())
		}
		got = append(page, got...)
		earlier, more := doc.Find(testID("comments-earlier")).Attr("href")
		// An earlier page that starts the thread says so.
		if start := doc.Find(testID("comments-start")).Length() == 1; start != (!more && next != appt) {
			t.Errorf("%s: the start of the thread marked %v", next, start)
		}
		next = strings.TrimSuffix(earlier, "#comments")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the pages show %d comments %q…, want %d %q…", len(got), got[:5], len(want), want[:5])
	}
	earlier, _ := bob.c.Get(appt).Doc(t).Find(testID("comments-earlier")).Attr("hx-get")
	frag := bob.c.Get(earlier, "HX-Request", "true", "HX-Request-Type", "partial")
	if n := frag.Doc(t).Find(testID("comment")).Length(); frag.StatusCode != http.StatusOK || n != commentsPage || strings.Contains(frag.Body, "<html") {
		t.Errorf("the earlier page for htmx: %d, %d comments", frag.StatusCode, n)
	}
	// It reads the thread, not the rest of the page (the members' names).
	if f, p := frag.StorageOps(t), bob.c.Get(earlier).StorageOps(t); f["queries"] >= p["queries"] {
		t.Errorf("the htmx earlier page costs %v, the whole page %v", f, p)
	}
	other := a.svc.cursors.Encode("groups/comments|other", storage.Cursor{Next: &storage.Continuation{NextPartitionKey: pk, NextRowKey: "1"}})
	for _, bad := range []string{appt + "?cursor=nonsense", appt + "?cursor=" + other} {
		if res := bob.c.Get(bad); res.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d", bad, res.StatusCode)
		}
	}
}

// TestGroupTimezone: an owner sets the group's zone, and a viewer in
// another zone is told it; a zone that is not one, or a member trying,
// changes nothing.
func TestGroupTimezone(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	if res := post(t, ann.c, "/groups/"+id+"/timezone", url.Values{"timezone": {"Europe/Berlin"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("set zone: %d", res.StatusCode)
	}
	if note := bob.c.Get("/groups/" + id).Doc(t).Find(testID("calendar-zone")).Text(); !strings.Contains(note, "shown in UTC") || !strings.Contains(note, "Berlin, UTC+2") {
		t.Fatalf("zone note %q", note)
	}
	for _, tc := range []struct {
		who    person
		zone   string
		status int
	}{{ann, "Mars/Olympus", http.StatusBadRequest}, {ann, "", http.StatusBadRequest}, {bob, "Asia/Tokyo", http.StatusForbidden}} {
		res := post(t, tc.who.c, "/groups/"+id+"/timezone", url.Values{"timezone": {tc.zone}})
		if ops := res.StorageOps(t); res.StatusCode != tc.status || ops["writes"] != 0 {
			t.Errorf("zone %q: %d, %s", tc.zone, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	if _, g, _ := a.svc.Open(ctx, id, ann.id, AccessOwner); g.Timezone != "Europe/Berlin" {
		t.Fatalf("zone now %q", g.Timezone)
	}
	// The owner's picker names zones as people do, and keeps a zone it
	// does not list selected (a zone set elsewhere is not moved by a save).
	if res := post(t, ann.c, "/groups/"+id+"/timezone", url.Values{"timezone": {"America/Argentina/Buenos_Aires"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("set an unlisted zone: %d", res.StatusCode)
	}
	picker := ann.c.Get("/groups/"+id+"/settings", "Accept-Language", "ru").Doc(t).Find("#group-timezone-select")
	if got := picker.Find("option[selected]"); got.AttrOr("value", "") != "America/Argentina/Buenos_Aires" || got.Text() != "Buenos Aires, UTC−3" {
		t.Errorf("the unlisted zone in the picker: %q %q", got.AttrOr("value", ""), got.Text())
	}
	if got := picker.Find(`option[value="Europe/Moscow"]`).Text(); got != "Москва, UTC+3" {
		t.Errorf("Moscow in a Russian picker: %q", got)
	}
}

// TestCommentsMoveAtStart: the server's start moves comments kept before
// the kit (Seed), once: it marks the table done, and a start after that
// reads the mark alone and moves nothing more.
func TestCommentsMoveAtStart(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	table := a.svc.comments.Table
	if _, err := table.Get(ctx, migratedPK, migratedRK); err != nil {
		t.Fatalf("the first start did not mark the table: %v", err)
	}
	old := func(body string) {
		row := legacyComment{Row: CommentRow{PartitionKey: "g:G|a:A", RowKey: ulid.Make().String(), AuthorName: "ann", Body: body, CreatedAt: a.Clock.Now()}}
		if _, err := storage.Insert(ctx, table, row); err != nil {
			t.Fatal(err)
		}
	}
	kit := func() []string {
		page, err := a.svc.Comments(ctx, "G", "A", nil)
		if err != nil {
			t.Fatal(err)
		}
		var bodies []string
		for _, r := range page.Rows {
			bodies = append(bodies, r.Body)
		}
		return bodies
	}
	old("kept by an older server after the start")
	if err := a.svc.Seed(ctx); err != nil || len(kit()) != 0 {
		t.Fatalf("a start after the mark moved %q (%v)", kit(), err)
	}
	if err := table.Delete(ctx, migratedPK, migratedRK, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.Seed(ctx); err != nil || strings.Join(kit(), ",") != "kept by an older server after the start" {
		t.Fatalf("a start without the mark: %q (%v)", kit(), err)
	}
	if _, err := table.Get(ctx, migratedPK, migratedRK); err != nil {
		t.Fatalf("not marked again: %v", err)
	}
}

// TestQuarters: a timed span keeps its first and last hour rows' free
// quarter hours, a start rounded down and an end up, so a short one
// still shows a quarter.
func TestQuarters(t *testing.T) {
	day := time.Date(2030, 6, 4, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	for _, tc := range []struct {
		start, end  time.Time
		late, early int
	}{
		{at(18, 30), at(19, 30), 2, 2},
		{at(10, 0), at(11, 0), 0, 0},
		{at(10, 40), at(10, 50), 2, 0},
		{at(10, 5), at(10, 10), 0, 3},
		{at(23, 15), day.AddDate(0, 0, 1), 1, 0},
	} {
		late, early := quarters(Span{Day: day, Start: tc.start, End: tc.end})
		if late != tc.late || early != tc.early {
			t.Errorf("%s–%s: %d, %d; want %d, %d", tc.start.Format("15:04"), tc.end.Format("15:04"), late, early, tc.late, tc.early)
		}
	}
}

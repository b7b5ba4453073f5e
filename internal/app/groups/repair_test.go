package groups

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// to is a write to one of the groups' tables or blobs, as between names
// them: kind ("tx", "insert", "update", "upsert", "delete" or "blob") and what the
// table or blob name ends with.
func to(kind, suffix string) func(string) bool {
	return func(op string) bool { return strings.HasPrefix(op, kind+" ") && strings.HasSuffix(op, suffix) }
}

// rebuild runs the groups rebuild and returns its report.
func (a *groupsApp) rebuild(t *testing.T) string {
	t.Helper()
	r, err := a.svc.Rebuild(ctx)
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	return r.String()
}

// An edit that stopped after its blob, before its index row and its
// participants: the calendar shows the old time and the page the new
// one with the old participants. The rebuild brings the row and the
// participants up to the blob, and a second rebuild changes nothing.
func TestTheRebuildBringsAnAppointmentUpToItsBlob(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, bob, m, doc := pairWith(t, a, dentist)
	b.refuse(to("tx", appointmentsTable))
	in := AppointmentInput{Title: "Dentist, later", Start: "2030-06-02T10:00", End: "2030-06-02T11:00", Participants: []string{bob.id.MemberKey}}
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, time.UTC); err == nil {
		t.Fatal("the edit whose row was refused succeeded")
	}
	june := func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 7, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.StartTime.Format("02 15:04 ")+r.Title)
		}
		return out
	}
	if got := june(); !slices.Equal(got, []string{"01 10:00 Dentist"}) {
		t.Fatalf("before the rebuild June shows %q", got)
	}
	report := a.rebuild(t)
	if !strings.Contains(report, "1 appointment rows written again") || !strings.Contains(report, "1 participant lists set again") {
		t.Errorf("report: %s", report)
	}
	if got := june(); !slices.Equal(got, []string{"02 10:00 Dentist, later"}) {
		t.Errorf("after the rebuild June shows %q", got)
	}
	d, err := a.svc.Appointment(ctx, m, doc.AppointmentID)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Participants) != 1 || d.Participants[0].MemberKey != bob.id.MemberKey {
		t.Errorf("participants after the rebuild: %+v", d.Participants)
	}
	if again := a.rebuild(t); !strings.Contains(again, "0 appointment rows written again, 0 stale ones deleted, 0 participant lists set again, 0 replaced dates hidden") {
		t.Errorf("a second rebuild: %s", again)
	}
}

// A change of one date of a series that stopped after writing the
// override, before the series' list of moved dates: the date shows
// twice, at its old time and its new one. The rebuild hides the old.
func TestTheRebuildHidesADateItsOverrideReplaced(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc := training(t, a)
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Start, in.End = ScopeThis, "2030-03-26T18:00", "2030-03-26T19:30"
	b.refuse(to("blob", appointmentBlobName(m.GroupID, doc.AppointmentID)))
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err == nil {
		t.Fatal("the edit whose series write was refused succeeded")
	}
	tuesday := func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 3, 27, 0, 0, 0, 0, berlin))
		if err != nil {
			t.Fatal(err)
		}
		return startsIn(rows, berlin)
	}
	if got := tuesday(); len(got) != 2 {
		t.Fatalf("before the rebuild the Tuesday shows %q, want the date twice", got)
	}
	if report := a.rebuild(t); !strings.Contains(report, "1 replaced dates hidden") {
		t.Errorf("report: %s", report)
	}
	if got := tuesday(); !slices.Equal(got, []string{"Tue 26 18:00"}) {
		t.Errorf("after the rebuild the Tuesday shows %q", got)
	}
}

// An appointment made a series whose old row's delete was refused: it
// shows twice, once as itself and once as the series' first date. The
// rebuild deletes the row left behind.
func TestTheRebuildDeletesARowAMoveLeftBehind(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, _, m, doc := pairWith(t, a, AppointmentInput{Title: "Yoga", Start: "2030-06-04T10:00", End: "2030-06-04T11:00"})
	b.refuse(to("delete", appointmentsTable))
	in := AppointmentInput{Title: "Yoga", Start: "2030-06-04T10:00", End: "2030-06-04T11:00",
		Repeat: RepeatInput{Freq: RepeatWeekly, Interval: "1", Weekdays: []string{"TU"}, Ends: "never"}}
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, time.UTC); err == nil {
		t.Fatal("the edit whose old row's delete was refused succeeded")
	}
	day := func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 6, 4, 0, 0, 0, 0, time.UTC), time.Date(2030, 6, 5, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		return startsIn(rows, time.UTC)
	}
	if got := day(); len(got) != 2 {
		t.Fatalf("before the rebuild the day shows %q, want it twice", got)
	}
	if report := a.rebuild(t); !strings.Contains(report, "1 stale ones deleted") {
		t.Errorf("report: %s", report)
	}
	if got := day(); !slices.Equal(got, []string{"Tue 04 10:00"}) {
		t.Errorf("after the rebuild the day shows %q", got)
	}
}

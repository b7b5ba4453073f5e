package groups

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// newSeriesBlob matches the write of a new appointment's blob: any
// appointment's but series'.
func newSeriesBlob(series string) func(string) bool {
	return func(op string) bool {
		return strings.HasPrefix(op, "blob ") && strings.HasSuffix(op, "/appointment.json") && !strings.Contains(op, series)
	}
}

// splitCutShort is ann's training series changed "this and following"
// from Tuesday 26 March on (a new title), a change stopped after the
// series ended, before the new series was made; and a function showing
// the titles of the week after.
func splitCutShort(t *testing.T, a *groupsApp, b *between) (ann person, m Membership, doc Appointment, week func() []string) {
	t.Helper()
	ann, m, berlin, doc := training(t, a)
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Title, in.Participants = ScopeFollowing, "Training (new coach)", []string{ann.id.MemberKey}
	b.refuse(newSeriesBlob(doc.AppointmentID))
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err == nil {
		t.Fatal("the change whose new series was refused succeeded")
	}
	week = func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 24, 0, 0, 0, 0, berlin), time.Date(2030, 3, 31, 0, 0, 0, 0, berlin))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.StartTime.In(berlin).Format("Mon 15:04 ")+r.Title)
		}
		return out
	}
	if got := week(); len(got) != 0 {
		t.Fatalf("the week of the stopped change shows %q, want it empty until it is finished", got)
	}
	return ann, m, doc, week
}

var newCoachWeek = []string{"Tue 17:00 Training (new coach)", "Thu 17:00 Training (new coach)"}

// A "this and following" change that stopped after ending the series
// lost the following dates for good. Its task, queued first, makes the
// new series a minute later, with its participants; the series no
// longer carries it.
func TestAChangeOfTheFollowingDatesCutShortIsFinishedByItsTask(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, doc, week := splitCutShort(t, a, b)
	a.runFinishes(t)
	if got := week(); !slices.Equal(got, newCoachWeek) {
		t.Errorf("after the task the week shows %q, want %q", got, newCoachWeek)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 27, 0, 0, 0, 0, time.UTC))
	if err != nil || len(rows) != 1 {
		t.Fatalf("Tuesday: %v, %v", rows, err)
	}
	next, err := a.svc.Appointment(ctx, m, rows[0].AppointmentID)
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Participants) != 1 || next.Participants[0].MemberKey != ann.id.MemberKey {
		t.Errorf("the new series' participants: %+v, want ann", next.Participants)
	}
	old, err := a.svc.appointmentDoc(ctx, m.GroupID, doc.AppointmentID)
	if err != nil || old.Pending != nil {
		t.Errorf("the old series still carries %+v (%v)", old.Pending, err)
	}
}

// The rebuild finishes it too, and a second rebuild finds nothing left.
func TestAChangeOfTheFollowingDatesCutShortIsFinishedByTheRebuild(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	_, _, _, week := splitCutShort(t, a, b)
	if report := a.rebuild(t); !strings.Contains(report, "1 series changes finished") {
		t.Errorf("report: %s", report)
	}
	if got := week(); !slices.Equal(got, newCoachWeek) {
		t.Errorf("after the rebuild the week shows %q, want %q", got, newCoachWeek)
	}
	if report := a.rebuild(t); !strings.Contains(report, "0 series changes finished") {
		t.Errorf("a second rebuild: %s", report)
	}
	a.runFinishes(t)
	if got := week(); !slices.Equal(got, newCoachWeek) {
		t.Errorf("after the rebuild and the task the week shows %q, want %q", got, newCoachWeek)
	}
}

// movedTuesday is ann's training series with its Tuesday 26 March moved
// to 18:00 (an override), and a function reading the date that
// override replaces, in Berlin.
func movedTuesday(t *testing.T, a *groupsApp) (ann person, m Membership, berlin *time.Location, doc, override Appointment, replaces func() string) {
	t.Helper()
	ann, m, berlin, doc = training(t, a)
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Start, in.End = ScopeThis, "2030-03-26T18:00", "2030-03-26T19:30"
	override, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin)
	if err != nil {
		t.Fatal(err)
	}
	replaces = func() string {
		t.Helper()
		d, err := a.svc.Appointment(ctx, m, override.AppointmentID)
		if err != nil || d.Doc.RecurrenceID == nil {
			t.Fatalf("the override: %+v, %v", d.Doc, err)
		}
		return d.Doc.RecurrenceID.In(berlin).Format("Mon 02 15:04")
	}
	return ann, m, berlin, doc, override, replaces
}

// moveAll moves every date of the series as its Thursday 21 March,
// starting at (an occurrence key), moves to start and end (wall clock).
func moveAll(t *testing.T, a *groupsApp, ann person, m Membership, berlin *time.Location, series, at, start, end string) error {
	t.Helper()
	occ, err := a.svc.Occurrence(ctx, m, series, at)
	if err != nil {
		t.Fatal(err)
	}
	in := editInput(occ, berlin)
	in.Scope, in.Start, in.End = ScopeAll, start, end
	_, err = a.svc.UpdateAppointment(ctx, m, ann.id, series, in, berlin)
	return err
}

// runFinishes runs the tasks due once finishAfter has passed.
func (a *groupsApp) runFinishes(t *testing.T) {
	t.Helper()
	a.Clock.Advance(2 * finishAfter)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
}

// moveCutShort moves every date of the series from its Thursday 21
// March 17:00 to start and end, refusing the write of the override:
// the move stops after the series moved.
func moveCutShort(t *testing.T, a *groupsApp, b *between, ann person, m Membership, berlin *time.Location, series, override Appointment, start, end string) {
	t.Helper()
	b.refuse(to("blob", appointmentBlobName(m.GroupID, override.AppointmentID)))
	if err := moveAll(t, a, ann, m, berlin, series.AppointmentID, "20300321160000Z", start, end); err == nil {
		t.Fatal("the move whose override was refused succeeded")
	}
}

// Moving every date stopped before the overrides moved with the series:
// the moved Tuesday still said it replaced the 17:00 date (so a feed's
// RECURRENCE-ID named a date the series no longer has). Its task moves
// it a minute later.
func TestAMoveOfEveryDateCutShortIsFinishedByItsTask(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc, override, replaces := movedTuesday(t, a)
	moveCutShort(t, a, b, ann, m, berlin, doc, override, "2030-03-21T16:00", "2030-03-21T17:30")
	if got := replaces(); got != "Tue 26 17:00" {
		t.Fatalf("before the task the override replaces %s", got)
	}
	a.runFinishes(t)
	if got := replaces(); got != "Tue 26 16:00" {
		t.Errorf("after the task the override replaces %s, want Tue 26 16:00", got)
	}
	if old, err := a.svc.appointmentDoc(ctx, m.GroupID, doc.AppointmentID); err != nil || old.Pending != nil {
		t.Errorf("the series still carries %+v (%v)", old.Pending, err)
	}
}

// Two moves of every date in quick succession, the first cut short
// before the override moved, the second before the first one's task
// ran: the second moves the override by both, and the tasks then move
// nothing more.
func TestTwoMovesOfEveryDateMoveAnOverrideOnceEach(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc, override, replaces := movedTuesday(t, a)
	moveCutShort(t, a, b, ann, m, berlin, doc, override, "2030-03-21T16:00", "2030-03-21T17:30")
	if err := moveAll(t, a, ann, m, berlin, doc.AppointmentID, "20300321150000Z", "2030-03-21T16:30", "2030-03-21T18:00"); err != nil {
		t.Fatal(err)
	}
	if got := replaces(); got != "Tue 26 16:30" {
		t.Errorf("after two moves the override replaces %s, want Tue 26 16:30", got)
	}
	a.runFinishes(t)
	if got := replaces(); got != "Tue 26 16:30" {
		t.Errorf("after the tasks the override replaces %s, want Tue 26 16:30", got)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 3, 27, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	if got := startsIn(rows, berlin); !slices.Equal(got, []string{"Tue 26 18:00"}) {
		t.Errorf("the Tuesday shows %q, want the moved date alone", got)
	}
}

// The rebuild finishes a move of every date cut short too: here by a
// week, so the date the override still named is another of the
// series' dates, which must stay shown.
func TestAMoveOfEveryDateCutShortIsFinishedByTheRebuild(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc, override, replaces := movedTuesday(t, a)
	moveCutShort(t, a, b, ann, m, berlin, doc, override, "2030-03-28T17:00", "2030-03-28T18:30")
	if report := a.rebuild(t); !strings.Contains(report, "1 series changes finished") || !strings.Contains(report, "0 replaced dates hidden") {
		t.Errorf("report: %s", report)
	}
	if got := replaces(); got != "Tue 02 17:00" {
		t.Errorf("after the rebuild the override replaces %s, want Tue 02 17:00", got)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 4, 3, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Tue 26 17:00", "Tue 26 18:00", "Thu 28 17:00"}
	if got := startsIn(rows, berlin); !slices.Equal(got, want) {
		t.Errorf("the week shows %q, want %q (the series moved a week on, its 2 April replaced)", got, want)
	}
}

// A one-date change whose series moved every date between its read and
// its own write of the series: the date it hides is the moved one, so
// the Tuesday shows the changed date alone, not the series' date too.
func TestAOneDateChangeRacingAMoveOfEveryDateHidesTheMovedDate(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, berlin, doc := training(t, a)
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Start, in.End = ScopeThis, "2030-03-26T18:00", "2030-03-26T19:30"
	b.before(to("blob", appointmentBlobName(m.GroupID, doc.AppointmentID)), func() {
		if err := moveAll(t, a, ann, m, berlin, doc.AppointmentID, "20300321160000Z", "2030-03-21T16:00", "2030-03-21T17:30"); err != nil {
			t.Errorf("the move of every date: %v", err)
		}
	})
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
		t.Fatal(err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 3, 27, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	if got := startsIn(rows, berlin); !slices.Equal(got, []string{"Tue 26 18:00"}) {
		t.Errorf("the Tuesday shows %q, want the changed date alone", got)
	}
}

// Two "this and following" changes of one series within the minute,
// the first cut short after the series ended: the second, at an
// earlier date, does not lose the first's new series.
func TestTwoChangesOfTheFollowingDatesKeepBothNewSeries(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, m, doc, _ := splitCutShort(t, a, b) // from Tuesday 26 March: "Training (new coach)"
	berlin := mustZone(t, "Europe/Berlin")
	in := formOf(t, a, m, doc.AppointmentID, "20300321160000Z", berlin)
	in.Scope, in.Title = ScopeFollowing, "Training (indoors)"
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
		t.Fatal(err)
	}
	a.runFinishes(t)
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 20, 0, 0, 0, 0, berlin), time.Date(2030, 3, 30, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.StartTime.In(berlin).Format("Mon 02 ")+r.Title)
	}
	// The second change's form ends with the series, the day before
	// Tuesday 26.
	want := []string{"Thu 21 Training (indoors)", "Tue 26 Training (new coach)", "Thu 28 Training (new coach)"}
	if !slices.Equal(got, want) {
		t.Errorf("the dates read %q, want %q (both new series made)", got, want)
	}
}

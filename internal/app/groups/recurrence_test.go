package groups

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	ics "github.com/arran4/golang-ical"
	"github.com/harmony/harmony/internal/web/webtest"
	"github.com/teambition/rrule-go"
)

// weeklyTraining is a Tuesday and Thursday series at 17:00 in Berlin
// from Tuesday 19 March 2030, across the spring DST change (31 March).
var weeklyTraining = AppointmentInput{
	Title: "Football training", Start: "2030-03-19T17:00", End: "2030-03-19T18:30",
	Repeat: RepeatInput{Freq: RepeatWeekly, Interval: "1", Weekdays: []string{"TU", "TH"}, Ends: "never"},
}

func startsIn(rows []AppointmentIndexRow, zone *time.Location) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.StartTime.In(zone).Format("Mon 02 15:04"))
	}
	return out
}

// formOf is the edit form of series' date at (an occurrence key), in
// zone, as it opens.
func formOf(t *testing.T, a *groupsApp, m Membership, series, at string, zone *time.Location) AppointmentInput {
	t.Helper()
	occ, err := a.svc.Occurrence(ctx, m, series, at)
	if err != nil {
		t.Fatal(err)
	}
	return editInput(occ, zone)
}

// training is ann's weekly training series (weeklyTraining, in Berlin)
// in a group of two: her membership, the zone and the series.
func training(t *testing.T, a *groupsApp) (ann person, m Membership, berlin *time.Location, doc Appointment) {
	t.Helper()
	ann, _, id := joinedPair(t, a)
	m, _, _ = a.svc.Open(ctx, id, ann.id, AccessMember)
	berlin = mustZone(t, "Europe/Berlin")
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, weeklyTraining, berlin)
	if err != nil {
		t.Fatal(err)
	}
	return ann, m, berlin, doc
}

// TestSeriesExpandsInItsZone: a weekly series keeps its wall-clock time
// across DST, and expands only inside the asked range.
func TestSeriesExpandsInItsZone(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, m, berlin, doc := training(t, a)
	id := m.GroupID
	if doc.Repeat != "FREQ=WEEKLY;INTERVAL=1;BYDAY=TU,TH" {
		t.Fatalf("rule %q", doc.Repeat)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 25, 0, 0, 0, 0, berlin), time.Date(2030, 4, 5, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	want := "[Tue 26 17:00 Thu 28 17:00 Tue 02 17:00 Thu 04 17:00]"
	if got := fmt.Sprint(startsIn(rows, berlin)); got != want {
		t.Fatalf("occurrences %s, want %s", got, want)
	}
	if rows[0].Occurrence.IsZero() || !strings.Contains(rowURL(id, rows[0]), "?at=20300326160000Z") {
		t.Fatalf("occurrence link %q", rowURL(id, rows[0]))
	}
	// A count and an until date end the series.
	for _, tc := range []struct {
		repeat RepeatInput
		want   int
	}{
		{RepeatInput{Freq: RepeatDaily, Ends: "count", Count: "3"}, 3},
		{RepeatInput{Freq: RepeatMonthly, Monthly: MonthlyByWeekday, Ends: "until", Until: "2030-12-31"}, 10}, // 3rd Tuesday, Mar..Dec
		{RepeatInput{Freq: RepeatYearly, Interval: "2", Ends: "count", Count: "2"}, 2},
	} {
		in := weeklyTraining
		in.Repeat = tc.repeat
		doc, err := a.svc.CreateAppointment(ctx, m, ann.id, in, berlin)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := a.svc.Appointment(ctx, m, doc.AppointmentID)
		got := Occurrences(d.Index, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC))
		if len(got) != tc.want {
			t.Errorf("%+v: %d occurrences, want %d (%s)", tc.repeat, len(got), tc.want, doc.Repeat)
		}
		if end := d.Index.SeriesEnd; end == nil || !end.Equal(got[len(got)-1].EndTime) {
			t.Errorf("%+v: series end %v, last occurrence ends %s", tc.repeat, end, got[len(got)-1].EndTime)
		}
	}
}

// TestEditingOccurrences: this one becomes an override, this and the
// following ones a new series, all of them moves the series; deleting
// one or the following leaves them out.
func TestEditingOccurrences(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	berlin := mustZone(t, "Europe/Berlin")
	april := func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 4, 1, 0, 0, 0, 0, berlin), time.Date(2030, 4, 13, 0, 0, 0, 0, berlin))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.StartTime.In(berlin).Format("02 15:04 ")+r.Title)
		}
		return out
	}
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, weeklyTraining, berlin)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := a.svc.Appointment(ctx, m, doc.AppointmentID)
	edit := func(at, scope string, change func(*AppointmentInput)) {
		t.Helper()
		occ, err := a.svc.Occurrence(ctx, m, doc.AppointmentID, at)
		if err != nil {
			t.Fatalf("occurrence %s: %v", at, err)
		}
		in := editInput(occ, berlin)
		in.Scope = scope
		change(&in)
		if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
			t.Fatalf("edit %s %s: %v", at, scope, err)
		}
	}
	// Only Thursday 4 April: at 18:00, "Match".
	edit("20300404150000Z", ScopeThis, func(in *AppointmentInput) {
		in.Title, in.Start, in.End = "Match", "2030-04-04T18:00", "2030-04-04T20:00"
	})
	want := "[02 17:00 Football training 04 18:00 Match 09 17:00 Football training 11 17:00 Football training]"
	if got := fmt.Sprint(april()); got != want {
		t.Fatalf("after editing one:\n%s\nwant\n%s", got, want)
	}
	// All of them: an hour earlier, which moves the series (the override
	// stays as it is).
	edit("20300402150000Z", ScopeAll, func(in *AppointmentInput) {
		in.Start, in.End = "2030-04-02T16:00", "2030-04-02T17:30"
	})
	want = "[02 16:00 Football training 04 18:00 Match 09 16:00 Football training 11 16:00 Football training]"
	if got := fmt.Sprint(april()); got != want {
		t.Fatalf("after editing all:\n%s\nwant\n%s", got, want)
	}
	// From Tuesday 9 April on: "Training (new coach)".
	edit("20300409140000Z", ScopeFollowing, func(in *AppointmentInput) { in.Title = "Training (new coach)" })
	want = "[02 16:00 Football training 04 18:00 Match 09 16:00 Training (new coach) 11 16:00 Training (new coach)]"
	if got := fmt.Sprint(april()); got != want {
		t.Fatalf("after editing the following:\n%s\nwant\n%s", got, want)
	}
	// Delete Tuesday 2 April from the original series.
	if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeThis, "20300402140000Z"); err != nil {
		t.Fatal(err)
	}
	want = "[04 18:00 Match 09 16:00 Training (new coach) 11 16:00 Training (new coach)]"
	if got := fmt.Sprint(april()); got != want {
		t.Fatalf("after deleting one:\n%s\nwant\n%s", got, want)
	}
	// A deleted occurrence, and a time the rule does not give, are 404.
	for _, at := range []string{"20300402140000Z", "20300403140000Z", "nonsense"} {
		if _, err := a.svc.Occurrence(ctx, m, doc.AppointmentID, at); err != ErrNoOccurrence {
			t.Errorf("occurrence %s: %v", at, err)
		}
	}
	_ = d
}

// TestDeletingASeriesTakesItsOverrides: a date moved or cancelled is an
// appointment of its own (an override); deleting the series from a date
// on takes the overrides from then on, deleting the series takes the
// rest, and none is left in the calendar with a link to a series that
// is gone.
func TestDeletingASeriesTakesItsOverrides(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, m, berlin, doc := training(t, a)
	for _, at := range []string{"20300402150000Z", "20300411150000Z"} {
		occ, err := a.svc.Occurrence(ctx, m, doc.AppointmentID, at)
		if err != nil {
			t.Fatal(err)
		}
		in := editInput(occ, berlin)
		in.Scope, in.Title = ScopeThis, "Moved "+at[:8]
		if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
			t.Fatal(err)
		}
	}
	moved := func() []string {
		t.Helper()
		rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 1, 0, 0, 0, 0, berlin), time.Date(2030, 6, 1, 0, 0, 0, 0, berlin))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			if strings.HasPrefix(r.Title, "Moved") {
				out = append(out, r.Title)
			}
		}
		return out
	}
	if got := moved(); len(got) != 2 {
		t.Fatalf("before: %v", got)
	}
	if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeFollowing, "20300409150000Z"); err != nil {
		t.Fatal(err)
	}
	if got := moved(); !slices.Equal(got, []string{"Moved 20300402"}) {
		t.Fatalf("after deleting from 9 April on: %v", got)
	}
	if err := a.svc.DeleteAppointment(ctx, m, ann.id, doc.AppointmentID); err != nil {
		t.Fatal(err)
	}
	if got := moved(); len(got) != 0 {
		t.Fatalf("after deleting the series: %v", got)
	}
}

// TestSplitOccurrencesStayTheCreators: a member who is neither the
// series' creator nor an owner may edit one occurrence, or it and the
// following ones, but the pieces stay the creator's, so the member
// cannot then delete them (as they cannot delete the series).
func TestSplitOccurrencesStayTheCreators(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	owner, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	member, _, _ := a.svc.Open(ctx, id, bob.id, AccessMember)
	berlin := mustZone(t, "Europe/Berlin")
	doc, err := a.svc.CreateAppointment(ctx, owner, ann.id, weeklyTraining, berlin)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ at, scope string }{{"20300402150000Z", ScopeThis}, {"20300409150000Z", ScopeFollowing}} {
		occ, err := a.svc.Occurrence(ctx, member, doc.AppointmentID, tc.at)
		if err != nil {
			t.Fatalf("occurrence %s: %v", tc.at, err)
		}
		in := editInput(occ, berlin)
		in.Scope, in.Title = tc.scope, "Moved by Bob"
		piece, err := a.svc.UpdateAppointment(ctx, member, bob.id, doc.AppointmentID, in, berlin)
		if err != nil {
			t.Fatalf("bob edits %s: %v", tc.scope, err)
		}
		if piece.AppointmentID == doc.AppointmentID || piece.CreatedBy != ann.id.MemberKey {
			t.Errorf("%s: the piece %s is created by %q", tc.scope, piece.AppointmentID, piece.CreatedBy)
		}
		if err := a.svc.DeleteAppointment(ctx, member, bob.id, piece.AppointmentID); !errors.Is(err, ErrNotCreator) {
			t.Errorf("%s: bob deletes the piece: %v", tc.scope, err)
		}
		if err := a.svc.DeleteAppointment(ctx, owner, ann.id, piece.AppointmentID); err != nil {
			t.Errorf("%s: ann deletes the piece: %v", tc.scope, err)
		}
	}
	// Cancelling one date makes an override too, also the creator's: bob
	// may cancel it, not then delete it.
	if err := a.svc.CancelOccurrence(ctx, member, bob.id, doc.AppointmentID, "20300326160000Z"); err != nil {
		t.Fatalf("bob cancels a date: %v", err)
	}
	rows, err := a.svc.Between(ctx, owner, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 3, 27, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r AppointmentIndexRow) bool {
		return r.SeriesID == doc.AppointmentID && r.Status == AppointmentCanceled
	})
	if i < 0 {
		t.Fatalf("no cancelled date among %+v", rows)
	}
	if err := a.svc.DeleteAppointment(ctx, member, bob.id, rows[i].AppointmentID); !errors.Is(err, ErrNotCreator) {
		t.Errorf("bob deletes the date he cancelled: %v", err)
	}
}

// TestRepeatFormRefusesBadInput: every bad repeat field is a 422 with
// its message and writes nothing.
func TestRepeatFormRefusesBadInput(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	base := url.Values{"title": {"Swim"}, "start": {"2030-06-04T10:00"}, "end": {"2030-06-04T11:00"}}
	for _, tc := range []struct {
		field string
		set   url.Values
	}{
		{"repeat", url.Values{"repeat": {"hourly"}}},
		{"repeatInterval", url.Values{"repeat": {"daily"}, "repeatInterval": {"0"}}},
		{"repeatInterval", url.Values{"repeat": {"daily"}, "repeatInterval": {"1e9"}}},
		{"repeatWeekdays", url.Values{"repeat": {"weekly"}, "repeatWeekday": {"XX"}}},
		{"repeatUntil", url.Values{"repeat": {"daily"}, "repeatEnds": {"until"}, "repeatUntil": {"2030-06-01"}}},
		{"repeatUntil", url.Values{"repeat": {"daily"}, "repeatEnds": {"until"}, "repeatUntil": {"soon"}}},
		{"repeatCount", url.Values{"repeat": {"daily"}, "repeatEnds": {"count"}, "repeatCount": {"100000"}}},
		{"repeatEnds", url.Values{"repeat": {"daily"}, "repeatEnds": {"whenever"}}},
	} {
		form := url.Values{}
		for k, v := range base {
			form[k] = v
		}
		for k, v := range tc.set {
			form[k] = v
		}
		res := post(t, ann.c, "/groups/"+id+"/appointments", form)
		ops := res.StorageOps(t)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`[data-testid="repeat"] [data-testid="field-error"]`).Length() != 1 || ops["writes"]+ops["blob_writes"]+ops["txs"] != 0 {
			t.Errorf("%v: %d, %s", tc.set, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	// A good one is created through the form, and its page says how it
	// repeats.
	form := url.Values{"repeat": {"weekly"}, "repeatInterval": {"2"}, "repeatWeekday": {"TU"}, "repeatEnds": {"count"}, "repeatCount": {"5"}}
	for k, v := range base {
		form[k] = v
	}
	if said, _ := createSeries(t, ann.c, id, form); said != "Every 2 weeks on Tue, 5 times" {
		t.Fatalf("repeat described as %q", said)
	}
}

// createSeries creates a series through the form, and returns how its
// page says it repeats and the page's address.
func createSeries(t *testing.T, c *webtest.Client, groupID string, form url.Values) (said, page string) {
	t.Helper()
	res := post(t, c, "/groups/"+groupID+"/appointments", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create a series: %d", res.StatusCode)
	}
	page = res.Header.Get("Location")
	return c.Get(page).Doc(t).Find(testID("appointment-repeat")).Text(), page
}

// TestMonthlyChoicesNameTheStartsDay: the form's two monthly choices say
// which day they mean for the start the form shows, and the page of a
// series made with one says the same.
func TestMonthlyChoicesNameTheStartsDay(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	choices := func(doc *goquery.Document) [2]string {
		label := func(id string) string { return strings.TrimSpace(doc.Find(testID(id)).Parent().Text()) }
		return [2]string{label("repeat-by-date"), label("repeat-by-weekday")}
	}
	// 28 March 2030 is a Thursday, the last one of the month.
	got := choices(ann.c.Get("/groups/" + id + "/appointments/new?date=2030-03-28").Doc(t))
	if want := [2]string{"On day 28", "On the last Thu"}; got != want {
		t.Fatalf("new form on the 28th: %q, want %q", got, want)
	}
	// 19 March 2030 is the third Tuesday; the edit form of a monthly
	// series from then names it, and so does the series' page.
	form := url.Values{"title": {"Book club"}, "start": {"2030-03-19T19:00"}, "end": {"2030-03-19T21:00"}, "repeat": {"monthly"}, "repeatMonthly": {"weekday"}, "repeatEnds": {"never"}}
	said, page := createSeries(t, ann.c, id, form)
	if said != "Every month on the third Tue" {
		t.Fatalf("repeat described as %q", said)
	}
	got = choices(ann.c.Get(page + "/edit").Doc(t))
	if want := [2]string{"On day 19", "On the third Tue"}; got != want {
		t.Fatalf("edit form: %q, want %q", got, want)
	}
}

// TestRepeatFormReadsAsSentences: the repeat choices read as a calendar
// says them ("Repeat every 2 weeks"), in the reader's language, the
// unit agreeing with the interval shown; every choice past "Does not
// repeat" is marked as one (repeat-option, which the CSS hides until a
// repeat is chosen), the weekdays as weekly's and the day of the month
// as monthly's, and the unit of the chosen frequency is the one shown
// where CSS cannot follow the select.
func TestRepeatFormReadsAsSentences(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	// unit is the unit shown where CSS cannot follow the choices.
	unit := func(doc *goquery.Document) string {
		return strings.TrimSpace(doc.Find(`[data-testid="repeat-every"] .repeat-unit-now .repeat-plural-now`).Text())
	}
	interval := func(doc *goquery.Document) string {
		return doc.Find(`#repeat-interval option[selected]`).AttrOr("value", "")
	}
	every := func(doc *goquery.Document) string {
		return strings.TrimSpace(doc.Find(`label[for="repeat-interval"]`).Text())
	}
	doc := ann.c.Get("/groups/" + id + "/appointments/new?date=2030-03-28").Doc(t)
	if got := every(doc) + " " + interval(doc) + " " + unit(doc); got != "Repeat every 1 week" {
		t.Errorf("new form: %q", got)
	}
	if v := doc.Find(`#repeat-freq option[selected]`).AttrOr("value", ""); v != "" {
		t.Errorf("a new appointment repeats %s", v)
	}
	for _, part := range []string{"repeat-every", "repeat-weekdays", "repeat-monthly", "repeat-ends"} {
		if !doc.Find(testID(part)).HasClass("repeat-option") {
			t.Errorf("%s is not marked a repeat option", part)
		}
	}
	if !doc.Find(testID("repeat-weekdays")).HasClass("repeat-weekly") || !doc.Find(testID("repeat-monthly")).HasClass("repeat-monthly") {
		t.Error("the weekdays or the day of the month are not marked with their frequency")
	}
	if n := doc.Find(`[data-testid="repeat-every"] .repeat-unit`).Length(); n != 4 {
		t.Errorf("%d units, want one for each frequency", n)
	}
	// Each interval says its plural form, and each unit is written in
	// every form, which CSS picks from as the interval is chosen.
	ru := ann.c.Get("/groups/"+id+"/appointments/new", "Accept-Language", "ru").Doc(t)
	for n, want := range map[string]string{"1": "неделю", "3": "недели", "5": "недель", "21": "неделю"} {
		form := ru.Find(`#repeat-interval option[value="`+n+`"]`).AttrOr("data-plural", "")
		if got := strings.TrimSpace(ru.Find(`.repeat-unit-weekly .repeat-plural-` + form).Text()); got != want {
			t.Errorf("раз в %s %q, want %q", n, got, want)
		}
	}
	form := url.Values{"title": {"Swim"}, "start": {"2030-06-04T10:00"}, "end": {"2030-06-04T11:00"},
		"repeat": {"monthly"}, "repeatInterval": {"2"}, "repeatEnds": {"count"}, "repeatCount": {"5"}}
	_, page := createSeries(t, ann.c, id, form)
	for _, tc := range []struct{ lang, every, ends string }{
		{"en", "Repeat every 2 months", "After 5 occurrences"},
		{"ru", "Повторять раз в 2 месяца", "После 5 раз"},
	} {
		doc := ann.c.Get(page+"/edit", "Accept-Language", tc.lang).Doc(t)
		if got := every(doc) + " " + interval(doc) + " " + unit(doc); got != tc.every {
			t.Errorf("%s edit form: %q, want %q", tc.lang, got, tc.every)
		}
		after := doc.Find(`input[name="repeatCount"]`).Parent()
		if got := strings.Join(strings.Fields(after.Find(`[aria-hidden="true"]`).Text()+" "+after.Find("input[name=repeatCount]").AttrOr("value", "")+" "+after.Children().Last().Text()), " "); got != tc.ends {
			t.Errorf("%s ends: %q, want %q", tc.lang, got, tc.ends)
		}
	}
}

// TestFeedCarriesRulesAndExceptions: the .ics feed has the series with
// its RRULE, EXDATE and a rising SEQUENCE, and the override with the
// series' UID and RECURRENCE-ID; expanding the feed gives the
// occurrences the month view shows.
func TestFeedCarriesRulesAndExceptions(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessOwner)
	berlin := mustZone(t, "Europe/Berlin")
	in := weeklyTraining
	in.Start, in.End = "2030-05-21T17:00", "2030-05-21T18:30" // the feed shows 60 days back
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, in, berlin)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeThis, "20300523150000Z"); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.CancelOccurrence(ctx, m, ann.id, doc.AppointmentID, "20300528150000Z"); err != nil {
		t.Fatal(err)
	}
	g, err := a.svc.RegenerateCalendarToken(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	res := ann.c.Get(strings.TrimPrefix(a.svc.CalendarURL(g, m), "http://localhost:8080"))
	cal, err := ics.ParseCalendar(bytes.NewReader([]byte(res.Body)))
	if err != nil {
		t.Fatalf("feed does not parse: %v\n%s", err, res.Body)
	}
	var series, override *ics.VEvent
	for _, e := range cal.Events() {
		switch {
		case e.GetProperty(ics.ComponentPropertyRrule) != nil:
			series = e
		case e.GetProperty(ics.ComponentProperty("RECURRENCE-ID")) != nil:
			override = e
		}
	}
	if series == nil || override == nil || series.Id() != override.Id() {
		t.Fatalf("series %v, override %v\n%s", series != nil, override != nil, res.Body)
	}
	if len(cal.Timezones()) != 1 || series.GetProperty(ics.ComponentPropertyDtStart).ICalParameters["TZID"][0] != "Europe/Berlin" {
		t.Fatalf("no Europe/Berlin VTIMEZONE for the series' TZID:\n%s", res.Body)
	}
	if seq := series.GetProperty(ics.ComponentPropertySequence).Value; seq != "2" {
		t.Errorf("series SEQUENCE %s after two changes", seq)
	}
	if st := override.GetProperty(ics.ComponentPropertyStatus).Value; st != "CANCELLED" {
		t.Errorf("override status %s", st)
	}
	// Expand the feed's rule with its EXDATEs and the override's
	// RECURRENCE-ID, as a calendar app would.
	start, err := series.GetStartAt()
	if err != nil {
		t.Fatal(err)
	}
	opt, err := rrule.StrToROptionInLocation(series.GetProperty(ics.ComponentPropertyRrule).Value, berlin)
	if err != nil {
		t.Fatal(err)
	}
	opt.Dtstart = start.In(berlin)
	rule, _ := rrule.NewRRule(*opt)
	skip := map[string]bool{}
	for _, p := range series.GetProperties(ics.ComponentPropertyExdate) {
		x, _ := time.ParseInLocation("20060102T150405", p.Value, berlin)
		skip[x.UTC().Format(time.RFC3339)] = true
	}
	rid, _ := time.ParseInLocation("20060102T150405", override.GetProperty(ics.ComponentProperty("RECURRENCE-ID")).Value, berlin)
	skip[rid.UTC().Format(time.RFC3339)] = true
	from, to := time.Date(2030, 5, 20, 0, 0, 0, 0, berlin), time.Date(2030, 6, 10, 0, 0, 0, 0, berlin)
	var fromFeed []string
	for _, occ := range rule.Between(from, to, true) {
		if !skip[occ.UTC().Format(time.RFC3339)] {
			fromFeed = append(fromFeed, occ.UTC().Format(time.RFC3339))
		}
	}
	d, _ := a.svc.Appointment(ctx, m, doc.AppointmentID)
	var ours []string
	for _, occ := range Occurrences(d.Index, from, to) {
		ours = append(ours, occ.StartTime.Format(time.RFC3339))
	}
	if fmt.Sprint(fromFeed) != fmt.Sprint(ours) || len(ours) != 4 {
		t.Fatalf("feed expands to %v, the calendar shows %v", fromFeed, ours)
	}
}

// TestMonthCostIsIndependentOfSeries: a month with 50 series costs the
// same storage as one with one.
func TestMonthCostIsIndependentOfSeries(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	add := func() {
		if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Walk", Start: "2030-05-01T08:00", End: "2030-05-01T09:00",
			Repeat: RepeatInput{Freq: RepeatDaily, Interval: "2"}}, time.UTC); err != nil {
			t.Fatal(err)
		}
	}
	add()
	one := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06")
	for range 49 {
		add()
	}
	fifty := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06")
	// Every other day from 1 May: 15 days of June (2nd, 4th, … 30th),
	// each cell showing three and "+47 more".
	doc := fifty.Doc(t)
	shown, more := doc.Find(`[data-in-month="true"] [data-testid="month-appointment"]`).Length(), 0
	doc.Find(`[data-in-month="true"] [data-testid="month-more"]`).Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.Atoi(s.AttrOr("data-more", ""))
		more += n
	})
	if shown != 15*3 || shown+more != 50*15 {
		t.Fatalf("%d shown and %d more in June, want 45 and 750 in all", shown, more)
	}
	a1, a50 := one.StorageOps(t), fifty.StorageOps(t)
	if a1["queries"] != a50["queries"] || a1["total"] != a50["total"] {
		t.Fatalf("one series %v, fifty %v", a1, a50)
	}
}

// TestAgendaAndDashboardShowSeries: the agenda lists a series'
// occurrences among single appointments, page after page without gaps
// or repeats, and the dashboard card shows the next one.
func TestAgendaAndDashboardShowSeries(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	// The test clock is Friday 17 May 2030, 09:30 UTC.
	if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Piano", Start: "2030-05-20T08:00", End: "2030-05-20T09:00",
		Repeat: RepeatInput{Freq: RepeatWeekly, Ends: "count", Count: "40"}}, time.UTC); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		s := time.Date(2030, 5, 18+i, 10, 0, 0, 0, time.UTC)
		if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: fmt.Sprintf("S%02d", i), Start: s.Format(FormTimeLayout), End: s.Add(time.Hour).Format(FormTimeLayout)}, time.UTC); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	var order []string
	next := "/groups/" + id
	for pages := 0; next != "" && pages < 20; pages++ {
		doc := ann.c.Get(next).Doc(t)
		doc.Find(testID("appointment-row")).Each(func(_ int, s *goquery.Selection) {
			key := s.Find("a").AttrOr("href", "")
			seen[key]++
			order = append(order, s.Find("time").AttrOr("datetime", ""))
		})
		next = doc.Find(testID("load-more")).AttrOr("href", "")
	}
	pianos := 0
	for href, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", href, n)
		}
		if strings.Contains(href, "?at=") {
			pianos++
		}
	}
	if pianos != 40 || len(seen) != 70 {
		t.Fatalf("agenda listed %d occurrences of the series and %d in all, want 40 and 70", pianos, len(seen))
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Fatalf("out of order at %d: %s after %s", i, order[i], order[i-1])
		}
	}
	dash := ann.c.Get("/").Doc(t)
	if first := dash.Find(testID("upcoming-appointment")).First().Text(); !strings.Contains(first, "S00") {
		t.Fatalf("dashboard's next is %q", first)
	}
	if !strings.Contains(dash.Find(testID("group-upcoming")).Text(), "Piano") {
		t.Fatalf("the dashboard does not show the series: %q", dash.Find(testID("group-upcoming")).Text())
	}
}

// TestFastForwardKeepsOccurrences: expanding a long-running series from
// a moved start gives exactly the occurrences expanding from its real
// start gives, for each kind of rule, across DST, in many windows.
func TestFastForwardKeepsOccurrences(t *testing.T) {
	t.Parallel()
	berlin := mustZone(t, "Europe/Berlin")
	start := time.Date(2026, 1, 13, 17, 30, 0, 0, berlin) // a Tuesday
	rules := []string{
		"FREQ=DAILY;INTERVAL=1", "FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,TU,SA",
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH", "FREQ=MONTHLY;INTERVAL=1", "FREQ=MONTHLY;INTERVAL=2;BYDAY=2TU",
		"FREQ=MONTHLY;INTERVAL=1;BYDAY=-1FR", "FREQ=YEARLY;INTERVAL=1", "FREQ=WEEKLY;INTERVAL=1;BYDAY=SU;UNTIL=20310101T000000Z",
	}
	for _, rule := range rules {
		row := AppointmentIndexRow{Repeat: rule, Timezone: "Europe/Berlin", StartTime: start.UTC(), EndTime: start.Add(90 * time.Minute).UTC()}
		full, _ := ruleOf(rule, start)
		for w := 0; w < 60; w++ {
			from := start.AddDate(0, w*2, w%7)
			to := from.AddDate(0, 1, 3)
			var want []string
			for _, occ := range full.Between(from.Add(-90*time.Minute), to, true) {
				if occ.Add(90*time.Minute).After(from) && occ.Before(to) {
					want = append(want, occ.UTC().Format(time.RFC3339))
				}
			}
			var got []string
			for _, occ := range Occurrences(row, from, to) {
				got = append(got, occ.StartTime.Format(time.RFC3339))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s in [%s, %s):\n got %v\nwant %v", rule, from.Format(time.DateOnly), to.Format(time.DateOnly), got, want)
			}
		}
	}
}

// TestRulesWithNoDate: a series stored with a rule that names no date
// (an import from before such rules were refused) expands to nothing and
// names no occurrence, and the check agrees with the rule walked from its
// real start for rules that do name dates, rare ones included.
func TestRulesWithNoDate(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	for rule, want := range map[string]bool{
		"FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30":                         false,
		"FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31":                        false,
		"FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=15":                       false,
		"FREQ=WEEKLY;BYMONTH=2;BYMONTHDAY=30;UNTIL=20300601T000000Z": false,
		"FREQ=DAILY":                              true,
		"FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29":     true,
		"FREQ=MONTHLY;BYMONTH=2;BYDAY=5FR":        true, // once in 28 years
		"FREQ=MONTHLY;BYMONTHDAY=13;BYDAY=FR":     true,
		"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;COUNT=3": true,
	} {
		if got := everOccurs(rule, start); got != want {
			t.Errorf("%s: ever occurs %v, want %v", rule, got, want)
		}
		if want {
			r, err := ruleOf(rule, start)
			if err != nil || r.After(start, true).IsZero() {
				t.Errorf("%s: the rule walked from its start gives no date (%v)", rule, err)
			}
			continue
		}
		row := AppointmentIndexRow{StartTime: start, EndTime: start.Add(time.Hour), Timezone: "UTC", Repeat: rule}
		if occ := Occurrences(row, start, start.AddDate(1, 0, 0)); len(occ) != 0 || isOccurrence(row, start) {
			t.Errorf("%s: %d occurrences", rule, len(occ))
		}
		if end := seriesEnd(Appointment{Start: start, End: start.Add(time.Hour), Timezone: "UTC", Repeat: rule}); !end.Equal(start.Add(time.Hour)) {
			t.Errorf("%s: the series ends %s", rule, end)
		}
	}
}

// benchStarts makes each benchmark check's start new.
var benchStarts atomic.Int64

// BenchmarkRuleWithNoDate: what a read of a series whose rule names no
// date costs, the first time in a process (the check walks the rule over
// two late 400-year cycles) and after (remembered); the rule library
// alone took about 76 ms a read, looking for a date until 9999.
func BenchmarkRuleWithNoDate(b *testing.B) {
	start := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	const rule = "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"
	b.Run("first", func(b *testing.B) {
		for b.Loop() { // a start not seen before: nothing remembered
			everOccurs(rule, start.Add(time.Duration(benchStarts.Add(1))*time.Second))
		}
	})
	b.Run("remembered", func(b *testing.B) {
		row := AppointmentIndexRow{StartTime: start, EndTime: start.Add(time.Hour), Timezone: "UTC", Repeat: rule}
		for b.Loop() {
			Occurrences(row, start, start.AddDate(0, 1, 0))
		}
	})
}

// TestASeriesIsAnnouncedWithItsNextDate: a notice about a series that
// began before now names its next occurrence, not its first, and an
// occurrence removed from it is passed over; a single appointment, and
// a series still to begin, are announced with their start.
func TestASeriesIsAnnouncedWithItsNextDate(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	// The test clock is Friday 17 May 2030, 09:30 UTC; the series began
	// on Tuesday 2 April.
	doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Choir", Start: "2030-04-02T18:00", End: "2030-04-02T19:00",
		Repeat: RepeatInput{Freq: RepeatWeekly, Ends: "never"}}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	a.Tasks.RunDue(ctx)
	notice := bob.c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text()
	if !strings.Contains(notice, "Choir") || !strings.Contains(notice, "21 May") || strings.Contains(notice, "Apr") {
		t.Fatalf("the series is announced as %q, want its next date, 21 May", notice)
	}
	if got := announcedStart(doc, a.Clock.Now()); !got.Equal(time.Date(2030, 5, 21, 18, 0, 0, 0, time.UTC)) {
		t.Fatalf("announced %v", got)
	}
	doc.ExDates = []time.Time{time.Date(2030, 5, 21, 18, 0, 0, 0, time.UTC)}
	if got := announcedStart(doc, a.Clock.Now()); !got.Equal(time.Date(2030, 5, 28, 18, 0, 0, 0, time.UTC)) {
		t.Fatalf("with 21 May removed, announced %v, want 28 May", got)
	}
	later := doc
	later.Start, later.End, later.ExDates = time.Date(2030, 6, 4, 18, 0, 0, 0, time.UTC), time.Date(2030, 6, 4, 19, 0, 0, 0, time.UTC), nil
	if got := announcedStart(later, a.Clock.Now()); !got.Equal(later.Start) {
		t.Fatalf("a series still to begin announced %v", got)
	}
	single := later
	single.Repeat, single.Start = "", time.Date(2030, 3, 1, 18, 0, 0, 0, time.UTC)
	if got := announcedStart(single, a.Clock.Now()); !got.Equal(single.Start) {
		t.Fatalf("a single appointment announced %v", got)
	}
}

// Changing a series from a date on replaces the dates from then on,
// moved and cancelled ones too: none shows next to the new series'.
func TestChangingTheFollowingDatesReplacesTheirOverrides(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, m, berlin, doc := training(t, a)
	if err := a.svc.CancelOccurrence(ctx, m, ann.id, doc.AppointmentID, "20300328160000Z"); err != nil {
		t.Fatal(err)
	}
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Title = ScopeFollowing, "Training (new coach)"
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
		t.Fatal(err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 24, 0, 0, 0, 0, berlin), time.Date(2030, 3, 31, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.StartTime.In(berlin).Format("Mon 15:04 ")+r.Title)
	}
	if want := []string{"Tue 17:00 Training (new coach)", "Thu 17:00 Training (new coach)"}; !slices.Equal(got, want) {
		t.Errorf("that week shows %q, want %q", got, want)
	}
}

// Moving every date a week on keeps each removed date's time of day
// across the change of the clocks: Tuesday 26 March (winter time)
// removed becomes Tuesday 2 April (summer time) removed, at 17:00 still.
func TestMovingEveryDateAcrossTheClockChangeKeepsRemovedDates(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, m, berlin, doc := training(t, a)
	if err := a.svc.DeleteOccurrences(ctx, m, ann.id, doc.AppointmentID, ScopeThis, "20300326160000Z"); err != nil {
		t.Fatal(err)
	}
	in := formOf(t, a, m, doc.AppointmentID, "20300321160000Z", berlin)
	in.Scope, in.Start, in.End = ScopeAll, "2030-03-28T17:00", "2030-03-28T18:30"
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
		t.Fatal(err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 31, 0, 0, 0, 0, berlin), time.Date(2030, 4, 7, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := startsIn(rows, berlin), []string{"Thu 04 17:00"}; !slices.Equal(got, want) {
		t.Errorf("the first summer week shows %q, want %q (its Tuesday removed)", got, want)
	}
}

// After "this and following" from Tuesday 26 March, the old series'
// form ends it on Monday 25, its last day: saved again as it is, it
// does not take Tuesday 26 back beside the new series'.
func TestAnEndedSeriesSavedAgainStaysEnded(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, m, berlin, doc := training(t, a)
	in := formOf(t, a, m, doc.AppointmentID, "20300326160000Z", berlin)
	in.Scope, in.Title = ScopeFollowing, "Training (new coach)"
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, in, berlin); err != nil {
		t.Fatal(err)
	}
	again := formOf(t, a, m, doc.AppointmentID, "20300321160000Z", berlin)
	if again.Repeat.Ends != "until" || again.Repeat.Until != "2030-03-25" {
		t.Errorf("the old series' form ends %s %s, want until 2030-03-25", again.Repeat.Ends, again.Repeat.Until)
	}
	again.Scope = ScopeAll
	if _, err := a.svc.UpdateAppointment(ctx, m, ann.id, doc.AppointmentID, again, berlin); err != nil {
		t.Fatal(err)
	}
	rows, err := a.svc.Between(ctx, m, time.Date(2030, 3, 26, 0, 0, 0, 0, berlin), time.Date(2030, 3, 27, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Title != "Training (new coach)" {
		t.Errorf("Tuesday 26 shows %d dates (%v), want the new series' alone", len(rows), rows)
	}
}

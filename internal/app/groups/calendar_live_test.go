package groups

import (
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live/livetest"
)

// hx are the headers of htmx's fetch of part of a page ("load more");
// hxSelect those of a fetch that selects its part from the answer (the
// page fetching itself on a change).
var (
	hx       = []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	hxSelect = []string{"HX-Request", "true", "HX-Request-Type", "full"}
)

// TestTheCalendarStreamSignalsEachWrite: the calendar's stream is
// refused to whom the agenda is refused; a member's stream says
// "calendarchange" on each appointment write another member makes (an
// appointment added, edited, cancelled, restored and deleted; a series
// added, one date changed, one cancelled, the following ones and the
// series deleted; a calendar imported), naming no appointment; a change
// after the viewer was removed says "reset".
func TestTheCalendarStreamSignalsEachWrite(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	base := "/groups/" + id + "/appointments"
	nina := a.signIn(t, "nina@example.com")
	for who, want := range map[string]struct {
		p      person
		status int
	}{"non-member": {nina, http.StatusNotFound}, "visitor": {person{c: a.Client()}, http.StatusSeeOther}} {
		if status, _, _ := livetest.Open(t, want.p.c, base+"/stream"); status != want.status {
			t.Errorf("%s opens the stream: %d, want %d", who, status, want.status)
		}
	}

	status, events, _ := livetest.Open(t, bob.c, base+"/stream")
	if status != http.StatusOK {
		t.Fatalf("bob opens the stream: %d", status)
	}
	wrote := func(what string, res int) {
		t.Helper()
		if res != http.StatusSeeOther {
			t.Fatalf("%s: %d", what, res)
		}
		ev := livetest.Next(t, events)
		if ev.Name != "calendarchange" || strings.TrimSpace(ev.Data) != "change" {
			t.Fatalf("after %s bob's stream says %+v, want a bare calendarchange", what, ev)
		}
	}
	write := func(what, path string, form url.Values) {
		t.Helper()
		wrote(what, post(t, ann.c, path, form).StatusCode)
	}
	appt := createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-04T10:00"}, "end": {"2030-06-04T11:00"}})
	wrote("add", http.StatusSeeOther)
	write("edit", base+"/"+appt+"/edit", url.Values{"title": {"Orthodontist"}, "start": {"2030-06-04T10:00"}, "end": {"2030-06-04T11:00"}})
	write("cancel", base+"/"+appt+"/cancel", confirmed)
	write("restore", base+"/"+appt+"/restore", nil)
	write("delete", base+"/"+appt+"/delete", confirmed)

	series := createAppointment(t, ann, id, url.Values{"title": {"Swimming"}, "start": {"2030-06-03T17:00"}, "end": {"2030-06-03T18:00"},
		"repeat": {"weekly"}, "repeatWeekday": {"MO"}, "repeatEnds": {"count"}, "repeatCount": {"6"}})
	wrote("add a series", http.StatusSeeOther)
	at := func(day int) string { return appointmentTimeKey(time.Date(2030, 6, day, 17, 0, 0, 0, time.UTC)) }
	write("edit one date", base+"/"+series+"/edit", url.Values{"title": {"Swimming gala"}, "start": {"2030-06-10T17:00"}, "end": {"2030-06-10T19:00"},
		"at": {at(10)}, "scope": {ScopeThis}})
	write("cancel one date", base+"/"+series+"/cancel", url.Values{"confirm": {"yes"}, "at": {at(17)}, "scope": {ScopeThis}})
	write("delete the following dates", base+"/"+series+"/delete", url.Values{"confirm": {"yes"}, "at": {at(24)}, "scope": {ScopeFollowing}})
	write("delete the series", base+"/"+series+"/delete", confirmed)

	google, err := os.ReadFile("testdata/google.ics")
	if err != nil {
		t.Fatal(err)
	}
	action := uploadICS(t, ann, id, google).Doc(t).Find(testID("import-confirm-form")).AttrOr("action", "")
	write("import", action, nil)

	// Removed from the group, bob's stream says so at the next change.
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("bob@example.com"))+"/remove", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove bob: %d", res.StatusCode)
	}
	createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-05T10:00"}, "end": {"2030-06-05T11:00"}})
	if ev := livetest.Next(t, events); ev.Name != "reset" {
		t.Fatalf("after bob's removal his stream says %+v, want reset", ev)
	}
}

// TestTheCalendarStreamResetsWhenTheGroupGoes: with the group deleted,
// the stream's next heartbeat says "reset" (the page reloads to its 404).
func TestTheCalendarStreamResetsWhenTheGroupGoes(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	a.svc.live.beat = 20 * time.Millisecond // a heartbeat soon: what it says is the test
	ann, bob, id := joinedPair(t, a)
	status, events, _ := livetest.Open(t, bob.c, "/groups/"+id+"/appointments/stream")
	if status != http.StatusOK {
		t.Fatalf("bob opens the stream: %d", status)
	}
	if res := post(t, ann.c, "/groups/"+id+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the group: %d", res.StatusCode)
	}
	if ev := livetest.Next(t, events); ev.Name != "reset" {
		t.Fatalf("after the group's delete bob's stream says %+v, want reset", ev)
	}
}

// TestCalendarStreamsAreBounded: past MaxCalendarStreams open at once, a
// person's next calendar stream is refused (429), with why.
func TestCalendarStreamsAreBounded(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	path := "/groups/" + id + "/appointments/stream"
	for i := range MaxCalendarStreams {
		if status, _, _ := livetest.Open(t, ann.c, path); status != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, status)
		}
	}
	res := ann.c.Get(path)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too many calendar pages open") {
		t.Fatalf("a stream past the bound: %d", res.StatusCode)
	}
}

// TestCalendarPagesFetchThemselves: each calendar page follows the
// stream with a form that fetches the page's own address (its month, its
// week, its date of a series) into its region; the agenda fetching
// itself answers with the region, through the pages it had loaded
// (until), and "load more" says how far it loaded; an appointment's page
// whose appointment went answers with a notice in the region.
func TestCalendarPagesFetchThemselves(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	g := "/groups/" + id
	m, _, err := a.svc.Open(ctx, id, ann.id, AccessMember)
	if err != nil {
		t.Fatal(err)
	}
	// More than a page of the agenda: a day apiece from 1 June.
	n := a.svc.rosterPageSize + 5
	var first string
	for i := range n {
		day := strconv.Itoa(1 + i%30)
		if len(day) == 1 {
			day = "0" + day
		}
		month := "06"
		if i >= 30 {
			month = "07"
		}
		doc, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: "Visit " + strconv.Itoa(i), Start: "2030-" + month + "-" + day + "T10:00", End: "2030-" + month + "-" + day + "T11:00"}, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = doc.AppointmentID
		}
	}
	for _, page := range []string{g + "/appointments/month?m=2030-06", g + "/appointments/week?d=2030-06-03", g, g + "/appointments/" + first} {
		doc := bob.c.Get(page).Doc(t)
		form := doc.Find("form#calendar-refresh")
		if form.AttrOr("hx-get", "") != page || form.AttrOr("hx-select", "") != "#calendar-live" || doc.Find("#calendar-live").Length() != 1 {
			t.Errorf("%s: refresh form %q, %d regions", page, form.AttrOr("hx-get", ""), doc.Find("#calendar-live").Length())
		}
		if doc.Find(`[hx-sse\:connect="`+g+`/appointments/stream"]`).Length() != 1 {
			t.Errorf("%s follows no stream", page)
		}
		// Its fetch of itself is its content, without the layout.
		sep := "?"
		if strings.Contains(page, "?") {
			sep = "&"
		}
		res := bob.c.Get(page+sep+"live=1", hxSelect...)
		if res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || res.Doc(t).Find("#calendar-live").Length() != 1 {
			t.Errorf("%s fetching itself: %d, or the layout, or no region", page, res.StatusCode)
		}
	}

	firstPage := bob.c.Get(g).Doc(t).Find(testID("appointment-row")).Length()
	live := bob.c.Get(g+"?live=1", hxSelect...).Doc(t)
	if got := live.Find("#calendar-live " + testID("appointment-row")).Length(); got != firstPage || got == n {
		t.Fatalf("the agenda fetching itself shows %d rows in its region, its page %d of %d", got, firstPage, n)
	}
	more := live.Find("#calendar-live .load-more").AttrOr("hx-get", "")
	from, _ := url.Parse(more)
	chunk := bob.c.Get(more, hx...).Doc(t)
	shown := chunk.Find(`input#agenda-until[hx-swap-oob]`)
	if chunk.Find(testID("appointment-row")).Length() != n-firstPage || shown.AttrOr("value", "") != from.Query().Get("from") {
		t.Fatalf("load more: %d rows, says it shows up to %q", chunk.Find(testID("appointment-row")).Length(), shown.AttrOr("value", ""))
	}
	through := bob.c.Get(g+"?live=1&until="+from.Query().Get("from"), hxSelect...).Doc(t)
	if got := through.Find("#calendar-live " + testID("appointment-row")).Length(); got != n {
		t.Fatalf("the agenda fetching itself through what it loaded shows %d rows, want %d", got, n)
	}

	// The appointment's page whose appointment was deleted says so.
	if res := post(t, ann.c, g+"/appointments/"+first+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	res := bob.c.Get(g+"/appointments/"+first+"?live=1", hxSelect...)
	if res.StatusCode != http.StatusNotFound || res.Doc(t).Find("#calendar-live"+testID("appointment-gone")).Length() != 1 {
		t.Fatalf("a deleted appointment's page fetching itself: %d %s", res.StatusCode, res.Body)
	}
	if res := bob.c.Get(g + "/appointments/" + first); res.StatusCode != http.StatusNotFound || strings.Contains(res.Body, "appointment-gone") {
		t.Fatalf("a deleted appointment's page opened: %d", res.StatusCode)
	}
}

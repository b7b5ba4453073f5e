package events_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// newEvent has org make and publish an event from form's fields over a
// one-seat quiz night, and returns its page.
func newEvent(t *testing.T, org *webtest.Client, fields ...string) string {
	t.Helper()
	form := url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "capacity": {"1"}, "place": {"The Crown"}}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Set(fields[i], fields[i+1])
	}
	res := post(org, "/events", form)
	page := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || post(org, page+"/publish", nil).StatusCode != http.StatusSeeOther {
		t.Fatalf("create and publish: %d %s", res.StatusCode, page)
	}
	return page
}

// state is the viewer's registration state on an event's page.
func state(t *testing.T, c *webtest.Client, page string) string {
	t.Helper()
	s, _ := c.Get(page).Doc(t).Find(testID("registration-state")).Attr("data-state")
	return s
}

// memberOf is the member key in the approve link of name's request on
// the check-in page.
func approveURL(t *testing.T, org *webtest.Client, page, name string) string {
	t.Helper()
	var href string
	org.Get(page + "/check-in").Doc(t).Find(testID("request")).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Find(".row-title").Text(), name) {
			href, _ = s.Find("form").First().Attr("action")
		}
	})
	if href == "" {
		t.Fatalf("no request of %s on the check-in page", name)
	}
	return href
}

// TestRequireApproval: at an event whose registrations need approval,
// "Register" asks to join: the request holds no seat and no ticket, and
// its person sees that it waits, on the page and in their events. The
// organizers see it on the check-in page (and a count on the event's
// page) and approve it: a seat, or the end of the waitlist when the
// seats are taken, and an inbox notice either way; or decline it, and
// the person is told and cannot ask again. Approving someone who did
// not ask, twice, as someone who does not run the event, or at an event
// without approval is a 4xx that writes nothing, and so is turning
// approval off while a request waits.
func TestRequireApproval(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "carl@example.com", "dan@example.com")
	org, ann, bob, carl, dan := cast[0], cast[1], cast[2], cast[3], cast[4]
	page := newEvent(t, org, "approval", "on")

	doc := ann.Get(page).Doc(t)
	if got := strings.TrimSpace(doc.Find(testID("event-register")).Text()); got != "Request to join" {
		t.Fatalf("the register button says %q", got)
	}
	if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ask to join: %d", res.StatusCode)
	}
	doc = ann.Get(page).Doc(t)
	if s, _ := doc.Find(testID("registration-state")).Attr("data-state"); s != "pending" || !strings.Contains(doc.Find(testID("registration-state")).Text(), "Waiting for the organizer's approval") {
		t.Fatalf("ann's state after asking: %q", s)
	}
	if doc.Find(testID("event-cancel")).Text() != "Withdraw request" || doc.Find(testID("ticket-link")).Length() != 0 {
		t.Error("ann, asking, is not offered to withdraw, or is offered a ticket")
	}
	if got := doc.Find(testID("event-seats")).Text(); !strings.Contains(got, "0 of 1 taken") {
		t.Errorf("a request holds a seat: %q", got)
	}
	if res := ann.Get(page + "/ticket"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a ticket while asking: %d", res.StatusCode)
	}
	if mine := ann.Get("/events/mine").Doc(t).Find(testID("my-event")); mine.AttrOr("data-status", "") != "pending" || !strings.Contains(mine.Text(), "Waiting for the organizer's approval") {
		t.Errorf("ann's events: %q", mine.Text())
	}
	// Asking again changes nothing (it counts against her registrations
	// a minute, as any press of "Register").
	if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusSeeOther || res.StorageOps(t)["txs"] != 0 {
		t.Errorf("asking again: %d, %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	// The organizer is told once, with the way to where requests are
	// decided.
	asked := a.Inbox(org).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "asks to join “Quiz night”")
	})
	if asked.Length() != 1 || !strings.Contains(asked.Text(), "ann asks to join “Quiz night” (Sat 1 Jun 2030, 19:00)") {
		t.Errorf("the organizer's notices of ann's request: %d %q", asked.Length(), asked.Text())
	} else if res := org.Get(asked.Find(testID("inbox-open")).AttrOr("href", "")); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page+"/check-in" {
		t.Errorf("the notice leads to %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got := org.Get(page).Doc(t).Find(testID("organizer-requests")).Text(); !strings.Contains(got, "1 request to join waits") {
		t.Errorf("the organizer's page: %q", got)
	}
	rows := attendeesCSV(t, org, page)
	if len(rows) != 2 || rows[1][2] != "pending" || rows[1][4] != "" {
		t.Errorf("the attendees while ann asks: %q", rows)
	}

	// Bad decisions: each a 4xx that writes nothing.
	annApprove := approveURL(t, org, page, "ann")
	post(bob, page+"/register", nil)
	bobApprove := approveURL(t, org, page, "bob")
	post(bob, page+"/cancel", url.Values{"confirm": {"yes"}}) // bob withdraws
	free := newEvent(t, org, "title", "Open quiz")
	post(ann, free+"/register", nil)
	annKey := strings.Split(annApprove, "/")[4]
	for _, c := range []struct {
		name   string
		who    *webtest.Client
		path   string
		status int
	}{
		{"someone who did not ask", org, page + "/requests/auth:nobody/approve", http.StatusNotFound},
		{"someone who withdrew", org, bobApprove, http.StatusNotFound},
		{"a bad member key", org, page + "/requests/a%23b/approve", http.StatusNotFound},
		{"by someone not running it", ann, annApprove, http.StatusForbidden},
		{"at an event without approval", org, free + "/requests/" + annKey + "/approve", http.StatusConflict},
		{"a decline at an event without approval", org, free + "/requests/" + annKey + "/decline", http.StatusConflict},
	} {
		if res := post(c.who, c.path, nil); res.StatusCode != c.status || res.Writes(t) != 0 {
			t.Errorf("approving %s: %d, %d writes; want %d and none", c.name, res.StatusCode, res.Writes(t), c.status)
		}
	}

	// Approved: ann has the seat and her ticket, and is told.
	if res := post(org, annApprove, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	if res := post(org, annApprove, nil); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("approving twice: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if state(t, ann, page) != "going" || ann.Get(page+"/ticket").StatusCode != http.StatusOK {
		t.Error("ann, approved, is not going with a ticket")
	}
	if n := strings.Count(a.Inbox(ann).Text(), "You are in: your request to join “Quiz night”"); n != 1 {
		t.Errorf("ann is told of her approval %d times", n)
	}

	// The seat is taken: carl, approved, waits; dan is declined.
	post(carl, page+"/register", nil)
	post(dan, page+"/register", nil)
	if res := post(org, approveURL(t, org, page, "carl"), nil); res.StatusCode != http.StatusSeeOther || state(t, carl, page) != "waitlist" {
		t.Errorf("carl approved for a full event: %d, %s", res.StatusCode, state(t, carl, page))
	}
	if !strings.Contains(a.Inbox(carl).Text(), "is approved: you are on the waitlist") {
		t.Error("carl is not told he waits")
	}
	danDecline := strings.TrimSuffix(approveURL(t, org, page, "dan"), "/approve") + "/decline"
	if res := post(org, danDecline, nil); res.StatusCode != http.StatusOK || res.Writes(t) != 0 || res.Doc(t).Find(testID("request-decline-confirm")).Length() != 1 {
		t.Errorf("a decline unconfirmed asks first: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// Approval stays on while dan's request waits.
	edit := url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "capacity": {"1"}, "place": {"The Crown"}}
	if res := post(org, page+"/edit", edit); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 || res.Doc(t).Find(`[data-field="event-approval"]`).Length() != 1 {
		t.Errorf("approval turned off while a request waits: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := post(org, danDecline, url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("decline: %d", res.StatusCode)
	}
	doc = dan.Get(page).Doc(t)
	if doc.Find(testID("registration-was")).AttrOr("data-was", "") != "declined" || doc.Find(testID("register-form")).Length() != 0 {
		t.Error("dan, declined, is not told so on the page, or may ask again")
	}
	if res := post(dan, page+"/register", nil); res.StatusCode != http.StatusConflict || res.StorageOps(t)["txs"] != 0 || !strings.Contains(res.Body, "declined your request") {
		t.Errorf("dan asks again: %d, %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	if !strings.Contains(a.Inbox(dan).Text(), "Your request to join “Quiz night”") || !strings.Contains(a.Inbox(dan).Text(), "was declined") {
		t.Error("dan is not told he was declined")
	}
	if dan.Get("/events/mine").Doc(t).Find(testID("my-event")).Length() != 0 {
		t.Error("a declined request is among dan's events")
	}
	if org.Get(page+"/check-in").Doc(t).Find(testID("request")).Length() != 0 {
		t.Error("decided requests are still listed")
	}
	rows = attendeesCSV(t, org, page)
	statuses := []string{}
	for _, r := range rows[1:] {
		statuses = append(statuses, r[2])
	}
	if got := strings.Join(statuses, " "); got != "going waitlist cancelled declined" {
		t.Errorf("the attendees' statuses: %s", got)
	}
	// A cancelled event gives no seats: a request still waiting there
	// is not approved.
	post(bob, page+"/register", nil)
	post(org, page+"/cancel-event", url.Values{"confirm": {"yes"}})
	if res := post(org, bobApprove, nil); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("approving at a cancelled event: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	post(org, strings.TrimSuffix(bobApprove, "/approve")+"/decline", url.Values{"confirm": {"yes"}})
	// No request waits now: approval may be turned off.
	if res := post(org, page+"/edit", edit); res.StatusCode != http.StatusSeeOther {
		t.Errorf("approval turned off: %d", res.StatusCode)
	}
}

// attendeesCSV is the event's attendee export as rows.
func attendeesCSV(t *testing.T, org *webtest.Client, page string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(org.Get(page+"/attendees.csv").Body, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// downMirrors refuses, while on, every write of a row mirrored from
// others (UserEvents, the listing's cards). With downEvents and
// downQueue it leaves the store as a process that stopped right after a
// seat change's transaction would: nothing that follows it is written.
type downMirrors struct {
	storage.Backend
	on *atomic.Bool
}

func (b downMirrors) down(table string) bool {
	return b.on.Load() && (strings.HasSuffix(table, events.UserEventsTable) || strings.HasSuffix(table, events.ByDateTable))
}

func (b downMirrors) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if b.down(table) {
		return "", storage.ErrTransient
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b downMirrors) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if b.down(table) {
		return storage.ErrTransient
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

// TestRebuildRepairsAHalfFinishedApproval: ann's approval and bob's
// decline commit their seat change, and then nothing else is written (a
// crash): "My events" still says ann waits for approval, the event's
// card does not count her, and neither is told. web reindex events, run
// twice, finishes both: ann's events say she is going, the card counts
// her, and each is told once.
func TestRebuildRepairsAHalfFinishedApproval(t *testing.T) {
	t.Parallel()
	var crash atomic.Bool
	a, svc := newAppAndServiceOn(t, func(b storage.Backend) storage.Backend {
		return downMirrors{downQueue{downEvents{b, &crash}, &crash}, &crash}
	})
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "cat@example.com")
	org, ann, bob, cat := cast[0], cast[1], cast[2], cast[3]
	page := newEvent(t, org, "approval", "on", "capacity", "5")
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	approveAnn := approveURL(t, org, page, "ann")
	declineBob := strings.TrimSuffix(approveURL(t, org, page, "bob"), "/approve") + "/decline"
	crash.Store(true)
	if res := post(org, approveAnn, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve, crashing after the seat change: %d", res.StatusCode)
	}
	if res := post(org, declineBob, url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("decline, crashing after the seat change: %d", res.StatusCode)
	}
	if res := post(cat, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cat's request, crashing after it: %d", res.StatusCode)
	}
	crash.Store(false)
	// The organizer's requests to join, unread, are one line, which
	// cat's request, told, leads.
	const catAsked = "cat and 2 others ask to join “Quiz night”"

	mine := func() string {
		return ann.Get("/events/mine").Doc(t).Find(testID("my-event")).AttrOr("data-status", "")
	}
	badge := func() string { return org.Get("/events").Doc(t).Find(testID("seats-badge")).Text() }
	const annTold, bobTold = "You are in: your request to join “Quiz night”", "was declined"
	told := func(c *webtest.Client, words string) int { return strings.Count(a.Inbox(c).Text(), words) }
	if state(t, ann, page) != "going" || mine() != "pending" || badge() != "5 seats left" || told(ann, annTold) != 0 || told(bob, bobTold) != 0 || told(org, catAsked) != 0 {
		t.Fatalf("the approval was not left half-finished as the test means it: %s, %s, %q", state(t, ann, page), mine(), badge())
	}
	for range 2 {
		if report, err := svc.Rebuild(t.Context()); err != nil {
			t.Fatalf("rebuild: %v %v", report, err)
		}
	}
	if mine() != "going" {
		t.Errorf("ann's events after the rebuild: %s", mine())
	}
	if got := badge(); got != "4 seats left" {
		t.Errorf("the card after the rebuild: %q", got)
	}
	if n := told(ann, annTold); n != 1 {
		t.Errorf("ann is told of her approval %d times", n)
	}
	if n := told(org, catAsked); n != 1 {
		t.Errorf("the organizer is told of cat's request %d times", n)
	}
	if n := told(bob, bobTold); n != 1 {
		t.Errorf("bob is told of his decline %d times", n)
	}
}

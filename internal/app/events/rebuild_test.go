package events_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web/webtest"
)

// downQueue refuses, while on, every write to the task queue, as a
// process that stopped right after a seat change's transaction would
// leave it: nothing that change was to queue is queued.
type downQueue struct {
	storage.Backend
	on *atomic.Bool
}

func (b downQueue) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if b.on.Load() && table == tasks.Table {
		return storage.ErrTransient
	}
	return b.Backend.Transact(ctx, table, ops)
}

// TestRebuildPostsSeatNoticesACrashLost: a seat freed while the queue
// is down (a crash after the seat change's transaction) gives bob an
// offer and carl a seat that nobody tells them of; the rebuild, run
// twice, tells each of them once, and dan, whose promotion was told
// when it happened, hears no second time.
func TestRebuildPostsSeatNoticesACrashLost(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, svc := newAppAndServiceOn(t, func(b storage.Backend) storage.Backend { return downQueue{b, &down} })
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "carl@example.com", "dan@example.com")
	org, ann, bob, carl, dan := cast[0], cast[1], cast[2], cast[3], cast[4]
	// freeSeat makes an event of one seat, taken by ann, waited for by
	// next; ann then gives it up, with the queue down if crash.
	freeSeat := func(title string, next *webtest.Client, crash bool, fields ...string) {
		form := url.Values{"title": {title}, "category": {"yachting"}, "start": {"2030-05-20T10:00"}, "end": {"2030-05-20T16:00"}, "capacity": {"1"}}
		for i := 0; i+1 < len(fields); i += 2 {
			form.Set(fields[i], fields[i+1])
		}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		post(ann, page+"/register", nil)
		post(next, page+"/register", nil)
		down.Store(crash)
		post(ann, page+"/cancel", url.Values{"confirm": {"yes"}})
		down.Store(false)
	}
	freeSeat("Sailing day", bob, true, "offerHours", "2", "offerStopHours", "24")
	freeSeat("Quiz night", carl, true)
	freeSeat("Book club", dan, false)
	told := func(c *webtest.Client, words string) int {
		return strings.Count(a.Inbox(c).Text(), words)
	}
	const offered, promoted = "is yours if you take it by", "A seat opened"
	if told(bob, offered) != 0 || told(carl, promoted) != 0 || told(dan, promoted) != 1 {
		t.Fatal("the notices were not lost as the test means them to be")
	}
	for range 2 {
		report, err := svc.Rebuild(t.Context())
		if err != nil || !strings.Contains(report.String(), "; offer lapses queued: 1;") {
			t.Fatalf("rebuild: %v %v", report, err)
		}
	}
	if n := told(bob, offered); n != 1 {
		t.Errorf("bob is told of his offer %d times", n)
	}
	if n := told(carl, promoted); n != 1 {
		t.Errorf("carl is told of his seat %d times", n)
	}
	if n := told(dan, promoted); n != 1 {
		t.Errorf("dan is told of his seat %d times", n)
	}
}

// eventsReads counts what reaches the Events table (not UserEvents):
// its queries (their first pages) and the point reads of one event.
type eventsReads struct {
	storage.Backend
	scans, gets *atomic.Int64
}

func (b eventsReads) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if table == events.EventsTable && q.Continuation == nil {
		b.scans.Add(1)
	}
	return b.Backend.Query(ctx, table, q)
}

func (b eventsReads) Get(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	if table == events.EventsTable {
		b.gets.Add(1)
	}
	return b.Backend.Get(ctx, table, pk, rk)
}

// TestRebuildReadsTheEventsOnce: web reindex events reads the Events
// table once, whatever the number of events, and reads no event again
// whose seat counts are in step with its counter; it still does its
// work (a reminder lost is queued again, in TestRebuildQueuesALostReminder).
func TestRebuildReadsTheEventsOnce(t *testing.T) {
	t.Parallel()
	var scans, gets atomic.Int64
	a, svc := newAppAndServiceOn(t, func(b storage.Backend) storage.Backend { return eventsReads{b, &scans, &gets} })
	cast := a.People("org@example.com", "ann@example.com")
	org, ann := cast[0], cast[1]
	for _, title := range []string{"Harbour walk", "Lighthouse tour", "Quiz night"} {
		form := url.Values{"title": {title}, "category": {"meetup"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T12:00"}, "capacity": {"5"}}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		post(ann, page+"/register", nil)
	}
	scans.Store(0)
	gets.Store(0)
	cctx, counter := storage.WithCounter(t.Context())
	report, err := svc.Rebuild(cctx)
	if err != nil || !strings.HasPrefix(report.String(), "listing: 3 canonical rows read; 0 derived rows written, 0 removed") {
		t.Fatalf("rebuild: %v %v", report, err)
	}
	t.Logf("the rebuild of 3 events: %s", counter.Snapshot())
	if scans.Load() != 1 || gets.Load() != 0 {
		t.Errorf("the rebuild read the events %d times whole and %d one by one; want 1 and 0", scans.Load(), gets.Load())
	}
}

// TestRebuildPostsRegistrationNoticesACrashLost: eve's registration
// (going), fay's (waitlisted) and bob's taking of the seat offered to
// him are made while the queue is down (a crash after the seat change's
// transaction), so nobody tells them; the rebuild, run twice, tells each
// of them once. gus, told when he registered, and who presses
// "Register" and "Accept" again, hears no second time.
func TestRebuildPostsRegistrationNoticesACrashLost(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, svc := newAppAndServiceOn(t, func(b storage.Backend) storage.Backend { return downQueue{b, &down} })
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "eve@example.com", "fay@example.com", "gus@example.com")
	org, ann, bob, eve, fay, gus := cast[0], cast[1], cast[2], cast[3], cast[4], cast[5]
	event := func(title string, fields ...string) string {
		form := url.Values{"title": {title}, "category": {"yachting"}, "start": {"2030-05-20T10:00"}, "end": {"2030-05-20T16:00"}, "capacity": {"1"}}
		for i := 0; i+1 < len(fields); i += 2 {
			form.Set(fields[i], fields[i+1])
		}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		return page
	}
	quiz := event("Quiz night")
	down.Store(true)
	post(eve, quiz+"/register", nil)
	post(fay, quiz+"/register", nil)
	down.Store(false)
	sailing := event("Sailing day", "offerHours", "2", "offerStopHours", "24")
	post(ann, sailing+"/register", nil)
	post(bob, sailing+"/register", nil)
	post(ann, sailing+"/cancel", url.Values{"confirm": {"yes"}})
	down.Store(true)
	post(bob, sailing+"/accept", nil)
	down.Store(false)
	books := event("Book club")
	post(gus, books+"/register", nil)
	post(gus, books+"/register", nil)

	told := func(c *webtest.Client, words string) int {
		return strings.Count(a.Inbox(c).Text(), words)
	}
	const quizGoing, quizWaiting, sailingGoing, booksGoing = "You are going to “Quiz night”", "You are on the waitlist for “Quiz night”", "You are going to “Sailing day”", "You are going to “Book club”"
	if told(eve, quizGoing) != 0 || told(fay, quizWaiting) != 0 || told(bob, sailingGoing) != 0 || told(gus, booksGoing) != 1 {
		t.Fatal("the notices were not lost as the test means them to be")
	}
	for range 2 {
		if report, err := svc.Rebuild(t.Context()); err != nil {
			t.Fatalf("rebuild: %v %v", report, err)
		}
	}
	for _, c := range []struct {
		who   *webtest.Client
		name  string
		words string
	}{{eve, "eve", quizGoing}, {fay, "fay", quizWaiting}, {bob, "bob", sailingGoing}, {gus, "gus", booksGoing}} {
		if n := told(c.who, c.words); n != 1 {
			t.Errorf("%s is told %q %d times", c.name, c.words, n)
		}
	}
	a.Clock.Advance(time.Minute)
	post(bob, sailing+"/accept", nil)
	if n := told(bob, sailingGoing); n != 1 {
		t.Errorf("bob, taking his seat again, is told %d times", n)
	}
}

// downEvents refuses, while on, every change of an event's row, as a
// crash right after a seat change's transaction would: the seat counts
// its card shows are not synced.
type downEvents struct {
	storage.Backend
	on *atomic.Bool
}

func (b downEvents) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if b.on.Load() && table == events.EventsTable {
		return "", storage.ErrTransient
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

// TestRebuildCostDoesNotGrowWithTheEvents: web reindex events over 20
// events, each with someone going and someone waiting, reads every
// table it works from in one scan: no event's counter or registrations
// are read one by one (it took a point read and a query per event).
// What is left per event is its reminder's queueing, one transaction.
// A card whose seat counts drifted from its counter is still put right.
func TestRebuildCostDoesNotGrowWithTheEvents(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	a, svc := newAppAndServiceOn(t, func(b storage.Backend) storage.Backend { return downEvents{b, &down} })
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "carl@example.com")
	org, ann, bob, carl := cast[0], cast[1], cast[2], cast[3]
	const n = 20
	var first string
	for i := range n {
		form := url.Values{"title": {fmt.Sprintf("Harbour walk %d", i)}, "category": {"meetup"}, "start": {"2030-06-10T10:00"}, "end": {"2030-06-10T12:00"}, "capacity": {"1"}}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		post(ann, page+"/register", nil)
		post(bob, page+"/register", nil)
		a.Clock.Advance(time.Minute) // within each one's registrations a minute
		if i == 0 {
			first = page
		}
	}
	// Past the keys of the registrations' notices, so the rebuild has
	// none to post again.
	a.Clock.Advance(tasks.KeyTTL + time.Hour)
	cctx, counter := storage.WithCounter(t.Context())
	report, err := svc.Rebuild(cctx)
	if err != nil || report.String() != fmt.Sprintf("listing: %d canonical rows read; 0 derived rows written, 0 removed; my events: %d canonical rows read; 0 derived rows written, 0 removed; reminders queued: %d; rating asks queued: %d; offer lapses queued: 0; footprints found: %d; written again: 0", n, 2*n, n, n, 2*n) {
		t.Fatalf("rebuild: %v %v", report, err)
	}
	got := counter.Snapshot()
	t.Logf("the rebuild of %d events: %s", n, got)
	// Five scans (EventsByDate, Events, UserEvents, EventAttendees, and
	// the events' footprints: a page each here) and the transactions of
	// a reminder and of an ask for ratings per event; the footprints are
	// found in the scan of EventAttendees, and none is missing.
	if got.Reads != 0 || got.Queries != 5 || got.Writes != 0 || got.Txs != 2*n {
		t.Errorf("the rebuild of %d events: %s; want no point read, 5 queries and %d transactions", n, got, 2*n)
	}

	// carl waits too, and the first event's card does not say so.
	a.SignIn(carl, "carl@example.com") // a week on, the sessions lapsed
	a.SignIn(org, "org@example.com")
	waiting := func() int {
		return strings.Count(org.Get("/events").Doc(t).Find(testID("seats-badge")).Text(), "Full · 2 waiting")
	}
	down.Store(true)
	post(carl, first+"/register", nil)
	down.Store(false)
	if waiting() != 0 {
		t.Fatal("the card followed the counter: the test means it not to")
	}
	if _, err := svc.Rebuild(t.Context()); err != nil {
		t.Fatal(err)
	}
	if waiting() != 1 {
		t.Error("the rebuild did not put the card's seat counts right")
	}
}

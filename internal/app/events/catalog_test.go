package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ics "github.com/arran4/golang-ical"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/storage/storetest"
)

type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

func newCatalog(t *testing.T) (*Catalog, *storage.Store, *testClock) {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	store := storage.New(b, storage.Options{})
	clock := &testClock{t: time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)}
	c := NewCatalog(store, clock.now)
	if err := store.Provision(t.Context(), c.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	return c, store, clock
}

func input(title, start, category string) EventInput {
	s, _ := time.Parse("2006-01-02T15:04", start)
	return EventInput{Title: title, Category: category, Start: start, End: s.Add(2 * time.Hour).Format("2006-01-02T15:04"), Capacity: "50", Place: "Hall"}
}

func titles(p ListPage) string {
	var out []string
	for _, r := range p.Rows {
		out = append(out, r.Title)
	}
	return fmt.Sprint(out)
}

func rowCount(t *testing.T, store *storage.Store, table string) int {
	t.Helper()
	n := 0
	store.Table(table).QueryAll(t.Context(), storage.Query{Scan: true}, func(storage.Entity) error { n++; return nil })
	return n
}

// TestEventFormRefusesBadInput: every bad field is a field error and
// nothing is written.
func TestEventFormRefusesBadInput(t *testing.T) {
	t.Parallel()
	c, store, _ := newCatalog(t)
	good := input("Jazz night", "2030-06-01T20:00", "concert")
	for field, change := range map[string]func(*EventInput){
		"title":          func(in *EventInput) { in.Title = "ab" },
		"category":       func(in *EventInput) { in.Category = "wrestling" },
		"start":          func(in *EventInput) { in.Start = "tomorrow" },
		"end":            func(in *EventInput) { in.End = "2030-06-01T19:00" },
		"capacity":       func(in *EventInput) { in.Capacity = "-3" },
		"price":          func(in *EventInput) { in.Price = "free" },
		"currency":       func(in *EventInput) { in.Price, in.Currency = "10", "euro" },
		"maxGuests":      func(in *EventInput) { in.MaxGuests = "99" },
		"description":    func(in *EventInput) { in.Description = "a\x00b" },
		"end (too long)": func(in *EventInput) { in.End = "2030-08-01T19:00" },
	} {
		in := good
		change(&in)
		_, err := c.Create(t.Context(), "auth:org", in, time.UTC)
		if fe, ok := err.(FieldErrors); !ok || len(fe) == 0 {
			t.Errorf("%s: %v", field, err)
		}
	}
	for _, table := range c.Tables() {
		if n := rowCount(t, store, table); n != 0 {
			t.Errorf("%s holds %d rows after refused forms", table, n)
		}
	}
}

// TestListing: only published, not secret events are listed, upcoming by
// start and past newest first, per category too; a cancelled one stays,
// marked; a change of time moves it and raises its SEQUENCE.
func TestListing(t *testing.T) {
	t.Parallel()
	c, _, clock := newCatalog(t)
	ctx := t.Context()
	mk := func(in EventInput, publish bool) EventRow {
		e, err := c.Create(ctx, "auth:org", in, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		if publish {
			if e, err = c.Publish(ctx, e.RowKey, true); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	jazz := mk(input("Jazz night", "2030-06-01T20:00", "concert"), true)
	mk(input("Sailing day", "2030-05-20T10:00", "yachting"), true)
	mk(input("Draft", "2030-05-25T10:00", "party"), false)
	secret := input("Surprise party", "2030-05-22T19:00", "party")
	secret.Secret = true
	mk(secret, true)
	mk(input("Last year's fair", "2029-09-01T10:00", "festival"), true)

	list := func(past bool, cat string) string {
		p, err := c.List(ctx, past, cat, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		return titles(p)
	}
	if got := list(false, ""); got != "[Sailing day Jazz night]" {
		t.Fatalf("upcoming: %s", got)
	}
	if got := list(false, "concert"); got != "[Jazz night]" {
		t.Fatalf("concerts: %s", got)
	}
	if got := list(true, ""); got != "[Last year's fair]" {
		t.Fatalf("past: %s", got)
	}
	in := input("Jazz night", "2030-05-19T20:00", "concert")
	e, _, err := c.Update(ctx, jazz.RowKey, in, time.UTC)
	if err != nil || e.Sequence != 1 {
		t.Fatalf("move: %v, sequence %d", err, e.Sequence)
	}
	if got := list(false, ""); got != "[Jazz night Sailing day]" {
		t.Fatalf("after the move: %s", got)
	}
	if e, _ := c.Cancel(ctx, jazz.RowKey); e.Sequence != 2 {
		t.Fatalf("cancel: sequence %d", e.Sequence)
	}
	p, _ := c.List(ctx, false, "concert", 20, nil)
	if len(p.Rows) != 1 || !p.Rows[0].IsCancelled {
		t.Fatalf("a cancelled event is not listed, marked: %+v", p.Rows)
	}
	clock.t = time.Date(2030, 5, 21, 0, 0, 0, 0, time.UTC) // both sailed and played
	if got := list(true, ""); got != "[Sailing day Jazz night Last year's fair]" {
		t.Fatalf("past, newest first: %s", got)
	}
}

// TestCapacityChangeIsCheckedFirst: lowering a capacity below the seats
// taken is refused and changes nothing; raising it promotes.
func TestCapacityChangeIsCheckedFirst(t *testing.T) {
	t.Parallel()
	c, _, _ := newCatalog(t)
	ctx := t.Context()
	in := input("Workshop", "2030-06-01T10:00", "meetup")
	in.Capacity = "2"
	e, _ := c.Create(ctx, "auth:org", in, time.UTC)
	for _, who := range []string{"a", "b", "c"} {
		c.seats.Register(ctx, e.RowKey, Person{MemberKey: who}, 1)
	}
	in.Capacity = "1"
	if _, _, err := c.Update(ctx, e.RowKey, in, time.UTC); err != ErrCapacityBelowGoing {
		t.Fatalf("lower below the seats taken: %v", err)
	}
	if got, _ := c.Event(ctx, e.RowKey); got.Capacity != 2 {
		t.Fatalf("capacity now %d", got.Capacity)
	}
	in.Capacity = "3"
	if _, moves, err := c.Update(ctx, e.RowKey, in, time.UTC); err != nil || fmt.Sprint(moves.Promoted) != "[c]" {
		t.Fatalf("raise: %+v %v", moves, err)
	}
}

// TestListingRebuildRepairsAHalfFinishedWrite: an event row written
// without its listing rows (a crash between them), a listing row whose
// event is gone, and a capacity the seat counter has and the row does
// not, are put right by the rebuild.
func TestListingRebuildRepairsAHalfFinishedWrite(t *testing.T) {
	t.Parallel()
	c, _, _ := newCatalog(t)
	ctx := t.Context()
	e, _ := c.Create(ctx, "auth:org", input("Quiz", "2030-06-03T19:00", "meetup"), time.UTC)
	// The publish's event write happened; its listing rows did not.
	e.IsPublished = true
	if _, err := storage.Upsert(ctx, c.events, e); err != nil {
		t.Fatal(err)
	}
	// And an orphan: a listing row for an event that is gone.
	if _, err := storage.Upsert(ctx, c.byDate, ListingRow{PartitionKey: upcomingPart, RowKey: startKey(e.Start) + "|01ZZZZZZZZZZZZZZZZZZZZZZZZ", EventID: "01ZZZZZZZZZZZZZZZZZZZZZZZZ", Card: Card{Title: "Ghost", Start: e.Start, End: e.End}}); err != nil {
		t.Fatal(err)
	}
	before, _ := c.List(ctx, false, "", 20, nil)
	if titles(before) != "[Ghost]" {
		t.Fatalf("before the rebuild: %s", titles(before))
	}
	rep, err := c.RebuildListing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := c.List(ctx, false, "", 20, nil)
	// Four listing rows, and the organizer's row no longer a draft.
	if titles(after) != "[Quiz]" || rep.Removed != 1 || rep.Written != 5 {
		t.Fatalf("after the rebuild: %s, %s", titles(after), rep)
	}
	if mine, err := c.Organizing(ctx, "auth:org", 20, nil); err != nil || titles(mine) != "[Quiz]" || mine.Rows[0].Draft {
		t.Fatalf("the organizer's events after the rebuild: %s, %v", titles(mine), err)
	}
	// An edit's capacity reached the seat counter and not the row (a
	// crash between): the rebuild gives the row the seats the counter
	// enforces.
	if _, err := c.seats.SetPlan(ctx, e.RowKey, Plan{Capacity: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RebuildListing(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Event(ctx, e.RowKey); err != nil || got.Capacity != 7 {
		t.Errorf("the capacity after the rebuild: %d, %v", got.Capacity, err)
	}
}

// slowListing delays every write of a listing row by up to 4 ms: the
// slower of two writers of one event then often writes its cards last.
type slowListing struct{ storage.Backend }

func (b slowListing) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if strings.HasSuffix(table, ByDateTable) {
		time.Sleep(time.Duration(rand.IntN(4000)) * time.Microsecond)
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

// downListing refuses every write of a listing row while down.
type downListing struct {
	storage.Backend
	down *atomic.Bool
}

func (b downListing) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if strings.HasSuffix(table, ByDateTable) && b.down.Load() {
		return "", errors.New("test: the listing is down")
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b downListing) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if strings.HasSuffix(table, ByDateTable) && b.down.Load() {
		return errors.New("test: the listing is down")
	}
	return b.Backend.Transact(ctx, table, ops)
}

// TestAnEventStandsWhenItsListingDoesNot: an event created or edited
// while its listing rows cannot be written is saved and answered as
// saved (no error that would have the organizer make it twice); the
// rebuild then lists it.
func TestAnEventStandsWhenItsListingDoesNot(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	wrap := func(b storage.Backend) storage.Backend { return downListing{b, &down} }
	c := NewCatalog(storetest.OpenWrapped(t, wrap, (&Catalog{}).Tables()...), (&testClock{t: time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)}).now)
	ctx := context.Background()
	down.Store(true)
	e, err := c.Create(ctx, "auth:org", input("Quiz", "2030-06-03T19:00", "meetup"), time.UTC)
	if err != nil || e.RowKey == "" {
		t.Fatalf("a create whose listing failed: %v", err)
	}
	if _, err := c.Publish(ctx, e.RowKey, true); err != nil {
		t.Fatalf("a publish whose listing failed: %v", err)
	}
	if got, err := c.Event(ctx, e.RowKey); err != nil || !got.IsPublished {
		t.Fatalf("the event as saved: %+v, %v", got, err)
	}
	down.Store(false)
	if _, err := c.RebuildListing(ctx); err != nil {
		t.Fatal(err)
	}
	if listed, _ := c.List(ctx, false, "", 20, nil); titles(listed) != "[Quiz]" {
		t.Errorf("after the rebuild: %s", titles(listed))
	}
}

// TestListingFollowsConcurrentSeatChanges: forty people register for
// one event at once, and each sync of the seat counts into the event and
// its listing cards races the others, the cards' writes slowed down. A
// sync may give up on the cards (ErrBehind), never on the event's row;
// the cards end with the counter's counts (moving them from each writer's
// before to its after let a slower sync write older counts last), and a
// rebuild then finds nothing to do.
func TestListingFollowsConcurrentSeatChanges(t *testing.T) {
	t.Parallel()
	wrap := func(b storage.Backend) storage.Backend { return slowListing{b} }
	c := NewCatalog(storetest.OpenWrapped(t, wrap, (&Catalog{}).Tables()...), (&testClock{t: time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)}).now)
	ctx := context.Background()
	e, err := c.Create(ctx, "auth:org", input("Popular", "2030-06-03T19:00", "meetup"), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Publish(ctx, e.RowKey, true); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := c.seats.Register(ctx, e.RowKey, Person{MemberKey: fmt.Sprintf("auth:p%02d", i)}, 1); err != nil {
				t.Errorf("register %d: %v", i, err)
				return
			}
			// Under this much contention a sync may write the event's
			// counts and give up on its cards (ErrBehind: the service
			// logs it, as syncSeats does); another sync's cards then
			// carry the counts, which is what is checked below.
			if _, err := c.SyncSeats(ctx, e.RowKey); err != nil && !errors.Is(err, projection.ErrBehind) {
				t.Errorf("sync %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	rows, err := storage.All[ListingRow](ctx, c.byDate, storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 { // four listing cards and the organizer's
		t.Fatalf("%d listing rows, want 5", len(rows))
	}
	for _, r := range rows {
		if r.Going != 40 || r.Waiting != 0 {
			t.Errorf("card in %s: %d going, %d waiting; 40 registered for 50 seats", r.PartitionKey, r.Going, r.Waiting)
		}
	}
	if rep, err := c.listing.Rebuild(ctx); err != nil || rep.Written != 0 || rep.Removed != 0 {
		t.Fatalf("a rebuild after the registrations: %+v, %v", rep, err)
	}
}

// TestListingCostDoesNotGrow: a page of the listing is one query, with
// 100 events or 2,000, first page or deep.
func TestListingCostDoesNotGrow(t *testing.T) {
	t.Parallel()
	c, _, _ := newCatalog(t)
	ctx := context.Background()
	queries := map[int][2]int64{}
	made := 0
	for _, n := range []int{100, 2000} {
		for ; made < n; made++ {
			s := time.Date(2030, 6, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(made) * time.Hour)
			e, err := c.Create(ctx, "auth:org", input(fmt.Sprintf("E%04d", made), s.Format("2006-01-02T15:04"), Categories[made%len(Categories)]), time.UTC)
			if err != nil {
				t.Fatal(err)
			}
			c.Publish(ctx, e.RowKey, true)
		}
		cctx, counter := storage.WithCounter(ctx)
		first, _ := c.List(cctx, false, "", 30, nil)
		firstQ := counter.Snapshot().Queries
		page := first
		for range 3 {
			page, _ = c.List(ctx, false, "", 30, page.Next)
		}
		cctx, counter = storage.WithCounter(ctx)
		deep, _ := c.List(cctx, false, "", 30, page.Next)
		queries[n] = [2]int64{firstQ, counter.Snapshot().Queries}
		if len(first.Rows) != 30 || len(deep.Rows) != 30 {
			t.Fatalf("%d events: pages of %d and %d", n, len(first.Rows), len(deep.Rows))
		}
	}
	if queries[100] != [2]int64{1, 1} || queries[2000] != [2]int64{1, 1} {
		t.Fatalf("queries per page (first, deep): %v", queries)
	}
}

// TestEventICS: the event's .ics parses, carries a SEQUENCE that rises
// with a change of time, says CANCELLED once cancelled, and holds the
// confirmed-only details only in a copy for someone going.
func TestEventICS(t *testing.T) {
	t.Parallel()
	c, _, clock := newCatalog(t)
	ctx := t.Context()
	in := input("Jazz night", "2030-06-01T20:00", "concert")
	in.ConfirmedOnly = "Door code 4711"
	e, _ := c.Create(ctx, "auth:org", in, time.UTC)
	parse := func(e EventRow, confirmed bool) *ics.VEvent {
		t.Helper()
		cal, err := ics.ParseCalendar(bytes.NewReader(EventICS(e, "harmony.test", clock.now(), confirmed)))
		if err != nil || len(cal.Events()) != 1 {
			t.Fatalf("parse: %v", err)
		}
		return cal.Events()[0]
	}
	ev := parse(e, false)
	if ev.GetProperty(ics.ComponentPropertySequence).Value != "0" || strings.Contains(ev.GetProperty(ics.ComponentPropertyLocation).Value, "4711") {
		t.Fatalf("first copy: %s", EventICS(e, "harmony.test", clock.now(), false))
	}
	if !strings.Contains(parse(e, true).GetProperty(ics.ComponentPropertyLocation).Value, "4711") {
		t.Fatal("the copy for someone going lacks the door code")
	}
	in.Start, in.End = "2030-06-01T21:00", "2030-06-01T23:30"
	e, _, _ = c.Update(ctx, e.RowKey, in, time.UTC)
	if s := parse(e, false).GetProperty(ics.ComponentPropertySequence).Value; s != "1" {
		t.Fatalf("after moving it: SEQUENCE %s", s)
	}
	e, _ = c.Cancel(ctx, e.RowKey)
	ev = parse(e, false)
	if ev.GetProperty(ics.ComponentPropertyStatus).Value != "CANCELLED" || ev.GetProperty(ics.ComponentPropertySequence).Value != "2" {
		t.Fatal("a cancelled event's copy")
	}
}

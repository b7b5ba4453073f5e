package metrics

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

func newDaily(t *testing.T, now func() time.Time) *Daily {
	t.Helper()
	store := storetest.Open(t, Table)
	d := NewDaily(store, now)
	d.Register("people", "newUsers")
	d.Register("groups", "newGroups", "newAppointments", "invitesSent")
	return d
}

func TestIncrIsExactUnderContention(t *testing.T) {
	at := time.Date(2030, 5, 17, 23, 59, 0, 0, time.UTC)
	m := newDaily(t, func() time.Time { return at })
	d := m
	var wg sync.WaitGroup
	errs := make(chan error, 150)
	for i := 0; i < 100; i++ {
		wg.Go(func() { errs <- m.Incr(ctx, "newUsers", at) })
	}
	// Another counter on the same row, at the same time.
	for i := 0; i < 50; i++ {
		wg.Go(func() { errs <- m.Incr(ctx, "invitesSent", at) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	days, err := m.Last(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].Get("newUsers") != 100 || days[0].Get("invitesSent") != 50 || days[0].Get("newGroups") != 0 {
		t.Fatalf("counts %+v, want 100 new users and 50 invites", days)
	}
	if days[0].Date.Format(time.DateOnly) != "2030-05-17" {
		t.Errorf("day %v", days[0].Date)
	}
	// The counts went to several shards, not one hot row.
	shards := 0
	err = d.table.QueryAll(ctx, storage.Query{PartitionKey: "2030-05"}, func(storage.Entity) error { shards++; return nil })
	if err != nil || shards < 2 || shards > Shards {
		t.Errorf("%d shard rows (%v), want 2..%d", shards, err, Shards)
	}
}

func TestIncrCountsTheUTCDay(t *testing.T) {
	m := newDaily(t, func() time.Time { return time.Date(2030, 5, 18, 12, 0, 0, 0, time.UTC) })
	moscow := time.FixedZone("MSK", 3*3600)
	// 01:30 in Moscow on the 18th is still the 17th in UTC.
	if err := m.Incr(ctx, "newGroups", time.Date(2030, 5, 18, 1, 30, 0, 0, moscow)); err != nil {
		t.Fatal(err)
	}
	days, _ := m.Last(ctx, 2)
	if days[0].Date.Format(time.DateOnly) != "2030-05-17" || days[0].Get("newGroups") != 1 || days[1].Get("newGroups") != 0 {
		t.Errorf("days %+v", days)
	}
	if err := m.Incr(ctx, "bogus", time.Now()); !errors.Is(err, ErrUnknownCounter) {
		t.Errorf("unknown counter: %v", err)
	}
}

// Thirty days back from the 10th reach into last month: two partitions,
// one query each, and the days without rows are zeros.
func TestLastSpansTwoMonthsInTwoQueries(t *testing.T) {
	clock := webtest.NewClock(time.Date(2030, 3, 10, 8, 0, 0, 0, time.UTC))
	m := newDaily(t, clock.Now)
	for _, at := range []time.Time{
		time.Date(2030, 2, 8, 0, 0, 0, 0, time.UTC),   // a day before the window
		time.Date(2030, 2, 9, 0, 0, 0, 0, time.UTC),   // the first day shown
		time.Date(2030, 2, 28, 23, 0, 0, 0, time.UTC), // last day of February
		time.Date(2030, 3, 10, 7, 0, 0, 0, time.UTC),  // today
		time.Date(2030, 3, 10, 7, 5, 0, 0, time.UTC),
	} {
		if err := m.Incr(ctx, "newAppointments", at); err != nil {
			t.Fatal(err)
		}
	}
	rctx, counter := storage.WithCounter(context.Background())
	days, err := m.Last(rctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	if q := counter.Snapshot(); q.Queries != 2 || q.Reads != 0 {
		t.Errorf("storage calls %s, want 2 queries", q)
	}
	key := func(d Day) string { return d.Date.Format(time.DateOnly) }
	if len(days) != 30 || key(days[0]) != "2030-02-09" || key(days[29]) != "2030-03-10" {
		t.Fatalf("%d days from %s to %s", len(days), key(days[0]), key(days[len(days)-1]))
	}
	want := map[string]int64{"2030-02-09": 1, "2030-02-28": 1, "2030-03-10": 2}
	for _, d := range days {
		if d.Get("newAppointments") != want[key(d)] {
			t.Errorf("%s: %d, want %d", key(d), d.Get("newAppointments"), want[key(d)])
		}
	}
}

// Rows written before sharding (RK the bare day) count with the shards.
func TestLastCountsRowsFromBeforeSharding(t *testing.T) {
	at := time.Date(2030, 5, 17, 12, 0, 0, 0, time.UTC)
	d := newDaily(t, func() time.Time { return at })
	if _, err := d.table.Insert(ctx, storage.Entity{PartitionKey: "2030-05", RowKey: "2030-05-17", Props: map[string]any{"newUsers": int64(3)}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Incr(ctx, "newUsers", at); err != nil {
		t.Fatal(err)
	}
	days, err := d.Last(ctx, 1)
	if err != nil || days[0].Get("newUsers") != 4 {
		t.Fatalf("%+v, %v", days, err)
	}
}

// Sections keep the order modules registered them in, a counter belongs
// to the first section that named it, and Counters lists them all.
func TestSectionsKeepTheirOrder(t *testing.T) {
	d := newDaily(t, time.Now)
	d.Register("people", "newUsers", "invitesSent") // invitesSent is the groups'
	d.Register("chat", "messagesSent")
	got := d.Sections()
	want := []Section{
		{Key: "people", Counters: []Counter{"newUsers"}},
		{Key: "groups", Counters: []Counter{"newGroups", "newAppointments", "invitesSent"}},
		{Key: "chat", Counters: []Counter{"messagesSent"}},
	}
	if len(got) != len(want) {
		t.Fatalf("sections %+v", got)
	}
	for i := range want {
		if got[i].Key != want[i].Key || !slices.Equal(got[i].Counters, want[i].Counters) {
			t.Errorf("section %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if c := d.Counters(); !slices.Equal(c, []Counter{"newUsers", "newGroups", "newAppointments", "invitesSent", "messagesSent"}) {
		t.Errorf("counters %v", c)
	}
}

// Counting adds to today's counter; the zero Counting and a failing store
// count nothing and fail nothing.
func TestCountingNeverFails(t *testing.T) {
	at := time.Date(2030, 5, 17, 12, 0, 0, 0, time.UTC)
	d := newDaily(t, func() time.Time { return at })
	c := d.Counting(slog.New(slog.DiscardHandler), "chat", "messagesSent")
	c.Add(ctx, "messagesSent")
	c.Add(ctx, "messagesSent")
	days, err := d.Last(ctx, 1)
	if err != nil || days[0].Get("messagesSent") != 2 {
		t.Fatalf("counted %+v (%v), want 2 messages", days, err)
	}

	Counting{}.Add(ctx, "messagesSent") // a module built without metrics

	var logged bytes.Buffer
	broken := NewDaily(storetest.Open(t), func() time.Time { return at }) // no DailyMetrics table
	broken.Counting(slog.New(slog.NewTextHandler(&logged, nil)), "chat", "messagesSent").Add(ctx, "messagesSent")
	if !strings.Contains(logged.String(), "metric not counted") {
		t.Errorf("a failing count was not logged: %q", logged.String())
	}
}

// AddOncePerDay counts a key once a UTC day, even when many requests (two
// instances, two devices) race on its first visit of the day.
func TestAddOncePerDayUnderContention(t *testing.T) {
	now := time.Date(2030, 5, 17, 23, 0, 0, 0, time.UTC)
	d := newDaily(t, func() time.Time { return now })
	c := d.Counting(slog.New(slog.DiscardHandler), "people", "activePeople")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { c.AddOncePerDay(ctx, "activePeople", "auth:ann") })
	}
	wg.Wait()
	c.AddOncePerDay(ctx, "activePeople", "auth:bob")
	count := func() int64 {
		days, err := d.Last(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		return days[0].Get("activePeople")
	}
	if n := count(); n != 2 {
		t.Fatalf("%d active today, want 2", n)
	}
	now = now.Add(2 * time.Hour) // the next UTC day
	c.AddOncePerDay(ctx, "activePeople", "auth:ann")
	c.AddOncePerDay(ctx, "activePeople", "auth:ann")
	if n := count(); n != 1 {
		t.Fatalf("%d active the next day, want 1", n)
	}
}

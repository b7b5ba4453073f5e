package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

var start = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

type note struct{ N int }

func newQueue(t *testing.T, store *storage.Store, clock *webtest.Clock, holder string) *Queue {
	t.Helper()
	return New(store, quiet(), Options{Now: clock.Now, Holder: holder, Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }})
}

func mustRegister[T any](t *testing.T, q *Queue, name string, run func(context.Context, T) error) Kind[T] {
	t.Helper()
	k, err := Register(q, name, run)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rows counts the table's rows by prefix.
func rows(t *testing.T, store *storage.Store, prefix string) int {
	t.Helper()
	n := 0
	err := store.Table(Table).QueryAll(context.Background(), storage.Query{PartitionKey: partition, RowKeyPrefix: prefix},
		func(storage.Entity) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestATaskRunsOnceAndLeavesNoRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	var got []int
	k := mustRegister(t, q, "note", func(_ context.Context, v note) error { got = append(got, v.N); return nil })
	woken := 0
	q.WakeWith(func() { woken++ })
	if err := k.Enqueue(ctx, "", note{7}); err != nil {
		t.Fatal(err)
	}
	if woken != 1 {
		t.Errorf("an enqueue due now woke the drain %d times, want 1", woken)
	}
	rep, err := q.RunDue(ctx)
	if err != nil || rep.Done != 1 {
		t.Fatalf("report %+v, err %v", rep, err)
	}
	if rep, _ := q.RunDue(ctx); rep.Done != 0 || len(got) != 1 || got[0] != 7 {
		t.Errorf("second drain %+v; runs %v", rep, got)
	}
	if n := rows(t, store, taskPrefix); n != 0 {
		t.Errorf("%d task rows left after success", n)
	}
}

func TestALaterTaskWaitsForItsTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	ran := 0
	k := mustRegister(t, q, "note", func(context.Context, note) error { ran++; return nil })
	if err := k.EnqueueAt(ctx, start.Add(time.Hour), "", note{1}); err != nil {
		t.Fatal(err)
	}
	q.RunDue(ctx)
	if ran != 0 {
		t.Fatal("a task ran before it was due")
	}
	clock.Advance(time.Hour)
	q.RunDue(ctx)
	if ran != 1 {
		t.Fatalf("ran %d times once due, want 1", ran)
	}
}

// The same idempotency key enqueues the work once.
func TestAnIdempotencyKeyEnqueuesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	ran := 0
	k := mustRegister(t, q, "note", func(context.Context, note) error { ran++; return nil })
	for range 3 {
		if err := k.Enqueue(ctx, "invite|g1|anna@example.org", note{1}); err != nil {
			t.Fatal(err)
		}
	}
	q.RunDue(ctx)
	if ran != 1 {
		t.Fatalf("ran %d times, want 1", ran)
	}
	// The key outlives the task, so a late repeat adds nothing either.
	if err := k.Enqueue(ctx, "invite|g1|anna@example.org", note{1}); err != nil {
		t.Fatal(err)
	}
	q.RunDue(ctx)
	if ran != 1 {
		t.Fatalf("a repeat after the run ran again (%d)", ran)
	}
	// After KeyTTL the purge forgets the key.
	clock.Advance(KeyTTL + time.Minute)
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, store, keyPrefix); n != 0 {
		t.Errorf("%d keys left after the purge", n)
	}
}

// A task queued further ahead than KeyTTL (a reminder months away) keeps
// its key until it has run: enqueued again in the meantime, after a
// purge, it is still one task that runs once. KeyTTL after it was due,
// the key goes.
func TestAKeyOutlivesItsTaskQueuedFarAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	ran := 0
	k := mustRegister(t, q, "note", func(context.Context, note) error { ran++; return nil })
	due := start.Add(3 * KeyTTL)
	if err := k.EnqueueAt(ctx, due, "remind|a1", note{1}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(KeyTTL + time.Hour)
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k.EnqueueAt(ctx, due, "remind|a1", note{1}); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, store, taskPrefix); n != 1 {
		t.Fatalf("%d tasks queued for one key, want 1", n)
	}
	clock.Advance(due.Sub(clock.Now()) + time.Minute)
	q.RunDue(ctx)
	if ran != 1 {
		t.Fatalf("ran %d times, want 1", ran)
	}
	clock.Advance(KeyTTL + time.Hour)
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, store, keyPrefix); n != 0 {
		t.Errorf("%d keys left KeyTTL after their task was due", n)
	}
}

// A process that dies after claiming a task (here: claims it and never
// records an outcome) loses nothing: the task comes due again when the
// lease lapses, and another instance runs it.
func TestACrashMidTaskDoesNotLoseIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	crashing := newQueue(t, store, clock, "crashing")
	k := mustRegister(t, crashing, "note", func(context.Context, note) error { return nil })
	if err := k.Enqueue(ctx, "", note{1}); err != nil {
		t.Fatal(err)
	}
	due, err := crashing.due(ctx)
	if err != nil || len(due) != 1 {
		t.Fatalf("due %v, %v", due, err)
	}
	if _, ok, err := crashing.claim(ctx, due[0]); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	// ... and the process is gone.

	survivor := newQueue(t, store, clock, "survivor")
	var ran []int
	mustRegister(t, survivor, "note", func(_ context.Context, v note) error { ran = append(ran, v.N); return nil })
	if rep, _ := survivor.RunDue(ctx); rep.Done != 0 || len(ran) != 0 {
		t.Fatalf("the survivor ran a task still under its lease: %+v", rep)
	}
	clock.Advance(DefaultLease + time.Second)
	if rep, _ := survivor.RunDue(ctx); rep.Done != 1 || len(ran) != 1 {
		t.Fatalf("after the lease lapsed: %+v, ran %v", rep, ran)
	}
}

// Two instances drain the same queue at the same time: every task runs
// exactly once.
func TestAcrossTwoInstancesATaskRunsOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	// A clock that moves on each reading, as a real one does, so the two
	// instances' claims name different due times.
	var ticks atomic.Int64
	now := func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * time.Microsecond) }
	var mu sync.Mutex
	runs := map[int]int{}
	count := func(_ context.Context, v note) error {
		mu.Lock()
		runs[v.N]++
		mu.Unlock()
		time.Sleep(time.Millisecond) // let the other instance interleave
		return nil
	}
	a := New(store, quiet(), Options{Now: now, Holder: "a"})
	b := New(store, quiet(), Options{Now: now, Holder: "b"})
	ka := mustRegister(t, a, "note", count)
	mustRegister(t, b, "note", count)
	const n = 60
	for i := range n {
		if err := ka.Enqueue(ctx, "", note{i}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var done atomic.Int32
	for _, q := range []*Queue{a, b} {
		wg.Go(func() {
			rep, err := q.RunDue(ctx)
			if err != nil {
				t.Error(err)
			}
			done.Add(int32(rep.Done))
		})
	}
	wg.Wait()
	if len(runs) != n || done.Load() != n {
		t.Fatalf("%d distinct tasks ran, %d reported done; want %d", len(runs), done.Load(), n)
	}
	for i, c := range runs {
		if c != 1 {
			t.Errorf("task %d ran %d times", i, c)
		}
	}
}

// A failing task is retried after a growing wait, and dead after
// MaxAttempts; a permanent error makes it dead at once.
func TestFailuresRetryWithBackoffThenDie(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := New(store, quiet(), Options{Now: clock.Now, MaxAttempts: 3, Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }})
	var at []time.Time
	k := mustRegister(t, q, "flaky", func(context.Context, note) error {
		at = append(at, clock.Now())
		return errors.New("smtp: 451 try later")
	})
	if err := k.Enqueue(ctx, "", note{1}); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		q.RunDue(ctx)
		clock.Advance(30 * time.Second)
	}
	if len(at) != 3 {
		t.Fatalf("ran %d times, want MaxAttempts = 3", len(at))
	}
	// Backoff(1) = 1 min after the first failure, Backoff(2) = 2 min after
	// the second (drains every 30 s, so a run comes within 30 s of due).
	if gap := at[1].Sub(at[0]); gap < time.Minute || gap > 90*time.Second {
		t.Errorf("first retry after %v, want about 1 min", gap)
	}
	if gap := at[2].Sub(at[1]); gap < 2*time.Minute || gap > 150*time.Second {
		t.Errorf("second retry after %v, want about 2 min", gap)
	}
	dead, err := q.Dead(ctx, 10)
	if err != nil || len(dead) != 1 || dead[0].Attempts != 3 || dead[0].LastError != "smtp: 451 try later" {
		t.Fatalf("dead %+v, %v", dead, err)
	}
	if rows(t, store, taskPrefix) != 0 {
		t.Error("a dead task is still waiting")
	}

	bad := mustRegister(t, q, "bad", func(context.Context, note) error { return Permanent(errors.New("no such mailbox")) })
	if err := bad.Enqueue(ctx, "", note{2}); err != nil {
		t.Fatal(err)
	}
	if rep, _ := q.RunDue(ctx); rep.Dead != 1 {
		t.Errorf("a permanent failure: %+v, want dead at once", rep)
	}
}

func TestAPanickingTaskIsRetriedNotFatal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	k := mustRegister(t, q, "boom", func(context.Context, note) error { panic("nil map") })
	k.Enqueue(ctx, "", note{1})
	rep, err := q.RunDue(ctx)
	if err != nil || rep.Retried != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
}

func TestBadInputIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	q := newQueue(t, store, webtest.NewClock(start), "a")
	for _, name := range []string{"", "Mail", "mail send", "-x"} {
		if _, err := Register(q, name, func(context.Context, note) error { return nil }); !errors.Is(err, ErrInvalidKind) {
			t.Errorf("kind %q: %v", name, err)
		}
	}
	mustRegister(t, q, "mail", func(context.Context, string) error { return nil })
	if _, err := Register(q, "mail", func(context.Context, string) error { return nil }); !errors.Is(err, ErrInvalidKind) {
		t.Errorf("a kind registered twice: %v", err)
	}
	// Into puts a kind registered where it is told, and nothing where it
	// is refused.
	var wired, refused *Kind[string]
	if err := Into(q, &wired, "wired", func(context.Context, string) error { return nil }); err != nil || wired == nil || wired.name != "wired" {
		t.Errorf("into: %v, %+v", err, wired)
	}
	if err := Into(q, &refused, "Bad Name", func(context.Context, string) error { return nil }); !errors.Is(err, ErrInvalidKind) || refused != nil {
		t.Errorf("into a refused kind: %v, %+v", err, refused)
	}
	big := mustRegister(t, q, "big", func(context.Context, []byte) error { return nil })
	if err := big.Enqueue(ctx, "", make([]byte, MaxPayload)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("an oversized payload: %v", err)
	}
	if rows(t, store, "") != 0 {
		t.Error("a refused enqueue wrote a row")
	}
}

// The runner's kick drains the queue at once, without waiting out the
// period: what takes a sign-in code off the request path without delaying
// it.
func TestAnEnqueueIsRunAtOnceByTheRunner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table, jobs.LeasesTable)
	q := New(store, quiet(), Options{Every: time.Hour})
	ran := make(chan int, 1)
	k := mustRegister(t, q, "note", func(_ context.Context, v note) error { ran <- v.N; return nil })
	runner := jobs.New(store, quiet(), jobs.Options{Jitter: func(d time.Duration) time.Duration { return d }})
	for _, j := range q.Jobs() {
		if err := runner.Add(j); err != nil {
			t.Fatal(err)
		}
	}
	q.WakeWith(func() { runner.Kick(JobName) })
	runner.Start(ctx)
	t.Cleanup(runner.Stop)
	if err := k.Enqueue(ctx, "", note{5}); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-ran:
		if n != 5 {
			t.Errorf("ran %d", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the kicked drain did not run the task")
	}
}

// Later: each try of the work queues a task of its own (two tries at
// the same instant are two tasks), due when asked; a kind never
// registered (nil) queues nothing; a refused enqueue is logged, not
// returned.
func TestLaterQueuesATaskPerTry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	var got []int
	k := mustRegister(t, q, "bury", func(_ context.Context, v note) error { got = append(got, v.N); return nil })
	k.Later(ctx, start.Add(time.Minute), "item-1", note{1}, quiet(), "not queued")
	k.Later(ctx, start.Add(time.Minute), "item-1", note{2}, quiet(), "not queued")
	if rep, _ := q.RunDue(ctx); rep.Done != 0 {
		t.Fatalf("ran before they were due: %+v", rep)
	}
	clock.Advance(time.Minute)
	if rep, _ := q.RunDue(ctx); rep.Done != 2 || len(got) != 2 {
		t.Fatalf("two tries: %+v, ran %v", rep, got)
	}
	var none *Kind[note]
	none.Later(ctx, start, "item-1", note{3}, quiet(), "not queued")

	var logged strings.Builder
	bad := mustRegister(t, q, "bad", func(context.Context, chan int) error { return nil })
	bad.Later(ctx, start, "item-1", make(chan int), slog.New(slog.NewTextHandler(&logged, nil)), "a burial not queued", "item", "item-1")
	if out := logged.String(); !strings.Contains(out, "a burial not queued") || !strings.Contains(out, "item=item-1") || !strings.Contains(out, "err=") {
		t.Errorf("a refused enqueue logged %q", out)
	}
}

// TestRescheduleQueuesOnlyAChange: a change queues its task for its
// time; a change that changed nothing, one that failed, and a time taken
// off queue none; a nil kind only runs the change.
func TestRescheduleQueuesOnlyAChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	var got []int
	k := mustRegister(t, q, "remind", func(_ context.Context, v note) error { got = append(got, v.N); return nil })
	failed := errors.New("the row is gone")
	changed := func(err error) func() error { return func() error { return err } }
	at := start.Add(time.Hour)
	if err := k.Reschedule(ctx, at, "r|1", note{1}, changed(nil)); err != nil {
		t.Fatal(err)
	}
	if err := k.Reschedule(ctx, at, "r|2", note{2}, changed(storage.ErrNoChange)); err != nil {
		t.Errorf("no change: %v", err)
	}
	if err := k.Reschedule(ctx, at, "r|3", note{3}, changed(failed)); !errors.Is(err, failed) {
		t.Errorf("a failed change: %v", err)
	}
	if err := k.Reschedule(ctx, time.Time{}, "r|4", note{4}, changed(nil)); err != nil {
		t.Errorf("taken off: %v", err)
	}
	ran := false
	var none *Kind[note]
	if err := none.Reschedule(ctx, at, "r|5", note{5}, func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("a nil kind: %v, ran %v", err, ran)
	}
	clock.Advance(time.Hour)
	if _, err := q.RunDue(ctx); err != nil || fmt.Sprint(got) != "[1]" {
		t.Errorf("ran %v (%v)", got, err)
	}
}

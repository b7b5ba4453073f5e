package tasks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

// failing is a kind whose runs fail until ok is set.
type failing struct {
	k  Kind[note]
	ok bool
}

func registerFailing(t *testing.T, q *Queue, name string) *failing {
	f := &failing{}
	f.k = mustRegister(t, q, name, func(context.Context, note) error {
		if f.ok {
			return nil
		}
		return errors.New("smtp: 550 mailbox unavailable")
	})
	return f
}

// failingQueue is a queue on a fresh store whose kind "mail" fails
// (retried a minute later) until told otherwise.
func failingQueue(t *testing.T, maxAttempts int) (*storage.Store, *webtest.Clock, *Queue, *failing) {
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := New(store, quiet(), Options{Now: clock.Now, MaxAttempts: maxAttempts, Backoff: func(int) time.Duration { return time.Minute }})
	return store, clock, q, registerFailing(t, q, "mail")
}

// deadOne enqueues a task of f under key and runs it until it is dead.
func deadOne(t *testing.T, q *Queue, clock *webtest.Clock, f *failing, key string) TaskRow {
	t.Helper()
	ctx := context.Background()
	if err := f.k.Enqueue(ctx, key, note{1}); err != nil {
		t.Fatal(err)
	}
	for range q.opts.MaxAttempts {
		if _, err := q.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
	}
	dead, err := q.Dead(ctx, 1)
	if err != nil || len(dead) != 1 {
		t.Fatalf("dead %+v, %v", dead, err)
	}
	return dead[0]
}

// The summary counts each state once, by kind: a task never run waits, a
// failed one is retrying (not running, though its last drain held it),
// a claimed one runs until its lease lapses, and a dead one is dead.
func TestTheSummaryCountsEachState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := New(store, quiet(), Options{Now: clock.Now, Holder: "web-1", MaxAttempts: 2, Backoff: func(int) time.Duration { return time.Hour }})
	mail := registerFailing(t, q, "mail")
	notes := mustRegister(t, q, "note", func(context.Context, note) error { return nil })
	deadOne(t, q, clock, mail, "")
	if err := mail.k.Enqueue(ctx, "", note{2}); err != nil { // fails once: retrying
		t.Fatal(err)
	}
	if _, err := q.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{{}, clock.Now().Add(time.Minute), clock.Now().Add(24 * time.Hour)} {
		if err := notes.EnqueueAt(ctx, at, "", note{3}); err != nil {
			t.Fatal(err)
		}
	}
	due, _ := q.due(ctx)
	if _, ok, err := q.claim(ctx, due[0]); !ok || err != nil { // the one due now
		t.Fatalf("claim: %v %v", ok, err)
	}
	clock.Advance(time.Minute) // the second note is due now

	s, err := q.Summarize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		Counts: Counts{Waiting: 2, Retrying: 1, Running: 1, Dead: 1},
		DueNow: 1,
		Kinds: []KindCounts{
			{Kind: "mail", Counts: Counts{Retrying: 1, Dead: 1}},
			{Kind: "note", Counts: Counts{Waiting: 2, Running: 1}},
		},
	}
	if !summaryEqual(s, want) {
		t.Errorf("summary\n got %+v\nwant %+v", s, want)
	}
	// A lease that lapsed (its drain stopped) is a task to retry.
	clock.Advance(DefaultLease)
	if s, _ := q.Summarize(ctx); s.Running != 0 || s.Retrying != 2 {
		t.Errorf("after the lease lapsed: %+v", s.Counts)
	}
}

func summaryEqual(a, b Summary) bool {
	if a.Counts != b.Counts || a.DueNow != b.DueNow || a.MoreWaiting != b.MoreWaiting || a.MoreDead != b.MoreDead || len(a.Kinds) != len(b.Kinds) {
		return false
	}
	for i := range a.Kinds {
		if a.Kinds[i] != b.Kinds[i] {
			return false
		}
	}
	return true
}

// Past MaxCounted rows the summary stops reading and says so.
func TestTheSummaryStopsAtMaxCounted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 5,001 rows")
	}
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	k := mustRegister(t, q, "note", func(context.Context, note) error { return nil })
	for i := range MaxCounted {
		if err := k.EnqueueAt(ctx, start.Add(time.Duration(i)*time.Second), "", note{i}); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := q.Summarize(ctx); err != nil || s.Waiting != MaxCounted || s.MoreWaiting {
		t.Fatalf("exactly MaxCounted: %+v, %v", s, err)
	}
	if err := k.Enqueue(ctx, "", note{0}); err != nil {
		t.Fatal(err)
	}
	if s, err := q.Summarize(ctx); err != nil || s.Waiting != MaxCounted || !s.MoreWaiting {
		t.Fatalf("one more: %+v, %v", s.Counts, err)
	}
}

// "Run again" queues a dead task as new, due now, with its last error
// kept; it then runs and leaves the queue. A second "Run again" of it
// finds nothing and writes nothing.
func TestRunAgainQueuesADeadTaskOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock, q, mail := failingQueue(t, 3)
	dead := deadOne(t, q, clock, mail, "welcome|anna")
	if dead.Attempts != 3 || !strings.Contains(dead.LastError, "550") || !strings.HasPrefix(dead.Ref(), "d-") {
		t.Fatalf("dead %+v", dead)
	}
	woken := 0
	q.WakeWith(func() { woken++ })

	queued, err := q.RetryDead(ctx, dead.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if queued.Attempts != 0 || queued.Dead || !queued.Due.Equal(clock.Now()) || queued.LastError != dead.LastError || woken != 1 {
		t.Errorf("queued %+v, woken %d", queued, woken)
	}
	if rows(t, store, deadPrefix) != 0 || rows(t, store, taskPrefix) != 1 {
		t.Fatal("the dead row did not move to the waiting ones")
	}
	if _, err := q.RetryDead(ctx, dead.Ref()); !errors.Is(err, ErrNoTask) || !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a second run again: %v", err)
	}
	if rows(t, store, "") != 2 { // the task and its key
		t.Errorf("%d rows after a refused run again, want 2", rows(t, store, ""))
	}
	mail.ok = true
	if rep, err := q.RunDue(ctx); err != nil || rep.Done != 1 {
		t.Fatalf("run: %+v %v", rep, err)
	}
	if rows(t, store, taskPrefix)+rows(t, store, deadPrefix) != 0 {
		t.Error("the task run again is still in the queue")
	}
}

// Two repairs of one dead task race on its ETag: the one that read it
// before the other moved or changed it writes nothing.
func TestAStaleRepairLoses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock, q, mail := failingQueue(t, 1)
	dead := deadOne(t, q, clock, mail, "")

	// Another admin changed the row since it was read.
	e, err := store.Table(Table).Get(ctx, partition, dead.storedKey())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table(Table).Update(ctx, e, storage.Merge, e.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := q.retry(ctx, dead); !errors.Is(err, ErrChanged) {
		t.Errorf("a run again at a stale ETag: %v, want ErrChanged", err)
	}
	if rows(t, store, taskPrefix) != 0 || rows(t, store, deadPrefix) != 1 {
		t.Fatal("a stale run again wrote")
	}
	// Another admin ran it again first.
	fresh, _ := q.DeadTask(ctx, dead.Ref())
	if _, err := q.RetryDead(ctx, dead.Ref()); err != nil {
		t.Fatal(err)
	}
	if _, err := q.retry(ctx, fresh); !errors.Is(err, ErrNoTask) {
		t.Errorf("a run again of a task moved meanwhile: %v, want ErrNoTask", err)
	}
	if rows(t, store, taskPrefix) != 1 {
		t.Errorf("%d waiting tasks, want the one run again", rows(t, store, taskPrefix))
	}
}

// Discarding a dead task deletes it and the idempotency key that names
// it, so the same work may be queued again; a key that names another task
// stays.
func TestDiscardDeletesADeadTaskAndItsKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock, q, mail := failingQueue(t, 1)
	dead := deadOne(t, q, clock, mail, "welcome|anna")
	if _, err := q.DiscardDead(ctx, dead.Ref()); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, store, ""); n != 0 {
		t.Fatalf("%d rows after the discard, want none", n)
	}
	if _, err := q.DiscardDead(ctx, dead.Ref()); !errors.Is(err, ErrNoTask) {
		t.Errorf("a second discard: %v", err)
	}
	if err := mail.k.EnqueueAt(ctx, clock.Now().Add(24*time.Hour), "welcome|anna", note{1}); err != nil || rows(t, store, taskPrefix) != 1 {
		t.Fatalf("the same work queued again: %v, %d waiting", err, rows(t, store, taskPrefix))
	}

	other := deadOne(t, q, clock, mail, "") // its key below names the waiting one
	other.Key = "welcome|anna"
	e, _ := other.entity()
	if _, err := store.Table(Table).Update(ctx, e, storage.Replace, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := q.DiscardDead(ctx, other.Ref()); err != nil {
		t.Fatal(err)
	}
	if rows(t, store, keyPrefix) != 1 || rows(t, store, deadPrefix) != 0 {
		t.Error("a discard took a key that names another task")
	}
}

// Only a dead task's ref opens one; anything else is ErrNoTask and
// writes nothing.
func TestBadRefsNameNoTask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, clock, q, mail := failingQueue(t, 1)
	dead := deadOne(t, q, clock, mail, "")
	if err := mail.k.EnqueueAt(ctx, clock.Now().Add(time.Hour), "", note{2}); err != nil {
		t.Fatal(err)
	}
	waiting, _ := q.Soonest(ctx, 1)
	ref := dead.Ref()
	for _, bad := range []string{
		"", "garbage", "d-", ref + "0", ref[:len(ref)-1], strings.Repeat("d", 5000),
		waiting[0].Ref(),                      // a waiting task's
		"x" + ref[1:],                         // another prefix
		ref[:21] + "-" + ulid.Make().String(), // nobody's
		ref[:22] + strings.ToLower(ref[22:]),  // not the ULID's letters
		strings.Replace(ref, "-", "|", 1),
	} {
		if _, err := q.RetryDead(ctx, bad); !errors.Is(err, ErrNoTask) {
			t.Errorf("run again %q: %v", bad, err)
		}
		if _, err := q.DiscardDead(ctx, bad); !errors.Is(err, ErrNoTask) {
			t.Errorf("discard %q: %v", bad, err)
		}
	}
	if rows(t, store, deadPrefix) != 1 || rows(t, store, taskPrefix) != 1 {
		t.Error("a bad ref wrote")
	}
}

// The dead list is newest first, a page at a time.
func TestDeadTasksPageNewestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := New(store, quiet(), Options{Now: clock.Now, MaxAttempts: 1})
	k := mustRegister(t, q, "bad", func(_ context.Context, v note) error { return Permanent(errors.New("no")) })
	for i := range 5 {
		if err := k.Enqueue(ctx, "", note{i}); err != nil {
			t.Fatal(err)
		}
		q.RunDue(ctx)
		clock.Advance(time.Minute)
	}
	var seen []time.Time
	var from *storage.Continuation
	for range 3 {
		page, next, err := q.DeadPage(ctx, from, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page {
			seen = append(seen, d.Due)
		}
		if from = next; from == nil {
			break
		}
	}
	if len(seen) != 5 {
		t.Fatalf("%d dead tasks paged, want 5", len(seen))
	}
	for i := 1; i < len(seen); i++ {
		if !seen[i].Before(seen[i-1]) {
			t.Errorf("dead tasks not newest first: %v", seen)
		}
	}
}

// RetryDeadOfKind queues the dead tasks of one kind, newest first and at
// most as many as asked, across pages of the dead list; another kind's
// stay dead.
func TestRetryDeadOfKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := New(store, quiet(), Options{Now: clock.Now, MaxAttempts: 1})
	fail := func(context.Context, note) error { return Permanent(errors.New("no")) }
	mail, other := mustRegister(t, q, "mail", fail), mustRegister(t, q, "other", fail)
	for i := range 150 {
		k := mail
		if i%2 == 1 {
			k = other
		}
		if err := k.Enqueue(ctx, "", note{i}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	if _, err := q.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := q.RetryDeadOfKind(ctx, "mail", 70); err != nil || n != 70 {
		t.Fatalf("first press: %d, %v", n, err)
	}
	if n, err := q.RetryDeadOfKind(ctx, "mail", 70); err != nil || n != 5 {
		t.Fatalf("second press: %d, %v", n, err)
	}
	if n, err := q.RetryDeadOfKind(ctx, "mail", 70); err != nil || n != 0 {
		t.Fatalf("third press: %d, %v", n, err)
	}
	sum, err := q.Summarize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sum.Kinds {
		want := Counts{Dead: 75}
		if k.Kind == "mail" {
			want = Counts{Waiting: 75}
		}
		if k.Counts.Dead != want.Dead || k.Counts.Waiting != want.Waiting {
			t.Errorf("%s: %+v, want %+v", k.Kind, k.Counts, want)
		}
	}
}

// A dead row of the forward-ticks keys (before dead rows sorted newest
// first) reads with its time, can be run again, and the purge moves it to
// its reverse key, or deletes it past DeadTTL.
func TestDeadRowsOfTheOldKeysAreReadAndMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	legacy := func(at time.Time) TaskRow {
		id := ulid.Make().String()
		row := TaskRow{ID: id, Kind: "mail", Attempts: 8, LastError: "timeout", Due: at, CreatedAt: at.Add(-24 * time.Hour)}
		e, _ := row.entity()
		e.RowKey = deadPrefix + storage.ForwardTicks(at) + "|" + id
		if _, err := store.Table(Table).Insert(ctx, e); err != nil {
			t.Fatal(err)
		}
		return row
	}
	young, old, retried := legacy(start.Add(-time.Hour)), legacy(start.Add(-DeadTTL-time.Hour)), legacy(start.Add(-2*time.Hour))
	dead, err := q.Dead(ctx, 10)
	if err != nil || len(dead) != 3 || !dead[0].Due.Equal(old.Due) {
		t.Fatalf("dead %+v, %v", dead, err)
	}
	for _, d := range dead {
		if d.ID == retried.ID {
			if _, err := q.RetryDead(ctx, d.Ref()); err != nil {
				t.Fatalf("run again of an old-keyed row: %v", err)
			}
		}
	}
	if err := q.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	dead, _ = q.Dead(ctx, 10)
	if len(dead) != 1 || dead[0].ID != young.ID || !dead[0].Due.Equal(young.Due) || dead[0].readAs != "" || dead[0].LastError != "timeout" {
		t.Errorf("after the purge: %+v", dead)
	}
	if rows(t, store, legacyDeadPrefix) != 0 || rows(t, store, taskPrefix) != 1 {
		t.Error("rows of the old keys are left")
	}
}

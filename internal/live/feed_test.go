package live_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// clock is the instances' shared clock, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// instances are two instances' feeds on one store, polled by hand.
func instances(t *testing.T) (a, b *live.Feed, c *clock, store *storage.Store) {
	t.Helper()
	store = storetest.Open(t, live.Table)
	c = &clock{t: time.Date(2030, 5, 17, 9, 0, 0, 0, time.UTC)}
	a = live.New(store, nil, c.now, live.Options{Manual: true})
	b = live.New(store, nil, c.now, live.Options{Manual: true})
	return a, b, c, store
}

// heard collects what a subscriber is handed, one call per batch.
type heard struct {
	mu      sync.Mutex
	batches [][]live.Change
}

func (h *heard) fn(cs []live.Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.batches = append(h.batches, cs)
}

// topics are the topics of every change heard, in order, and how many
// calls brought them.
func (h *heard) topics() (topics []string, calls int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range h.batches {
		for _, c := range b {
			topics = append(topics, c.Topic+"="+string(c.Payload))
		}
	}
	return topics, len(h.batches)
}

// TestPublishReachesTheOtherInstanceOnce: a publish on A wakes A's
// subscriber at once and B's at B's next poll, with its payload, a poll's
// changes in one call; the polls after it, whose window still holds the
// row, do not hand it on again; nor does A's own poll.
func TestPublishReachesTheOtherInstanceOnce(t *testing.T) {
	t.Parallel()
	a, b, c, _ := instances(t)
	var onA, onB heard
	defer a.Unsubscribe(a.Subscribe(onA.fn, "list|g1|l1"))
	defer b.Unsubscribe(b.Subscribe(onB.fn, "list|g1|l1", "chat|c1"))
	a.Publish(t.Context(), "list|g1|l1", []byte("added"))
	c.add(time.Millisecond)
	a.Publish(t.Context(), "chat|c1", []byte(`{"seq":1}`))
	if got, _ := onA.topics(); !slices.Equal(got, []string{"list|g1|l1=added"}) {
		t.Fatalf("A's own subscriber heard %v, want the list's change at once", got)
	}
	if got, _ := onB.topics(); len(got) != 0 {
		t.Fatalf("B heard %v before polling", got)
	}
	c.add(time.Second)
	b.Poll(t.Context())
	want := []string{"list|g1|l1=added", `chat|c1={"seq":1}`}
	if got, calls := onB.topics(); !slices.Equal(got, want) || calls != 1 {
		t.Fatalf("B heard %v in %d calls, want %v in one", got, calls, want)
	}
	for range 3 {
		c.add(time.Second)
		b.Poll(t.Context())
		a.Poll(t.Context())
	}
	if got, _ := onB.topics(); len(got) != 2 {
		t.Fatalf("overlapping polls handed on %v", got)
	}
	if got, _ := onA.topics(); len(got) != 1 {
		t.Fatalf("A heard its own rows again from the feed: %v", got)
	}
	if a.Reads.Load() != 3 || b.Reads.Load() != 4 {
		t.Fatalf("feed reads: A %d, B %d, want one a poll", a.Reads.Load(), b.Reads.Load())
	}
}

// TestLateRowIsReadWithinTheOverlap: a row whose key is older than B's
// last poll (written late, or by an instance whose clock is behind) is
// still handed on, while it is within Overlap.
func TestLateRowIsReadWithinTheOverlap(t *testing.T) {
	t.Parallel()
	a, b, c, _ := instances(t)
	var onB heard
	defer b.Unsubscribe(b.Subscribe(onB.fn, "chat|c1"))
	c.add(3 * time.Second)
	b.Poll(t.Context()) // nothing yet
	// A's clock is 3 s behind B's when it writes.
	c.add(-3 * time.Second)
	a.Publish(t.Context(), "chat|c1", []byte("late"))
	c.add(3 * time.Second)
	b.Poll(t.Context())
	if got, _ := onB.topics(); !slices.Equal(got, []string{"chat|c1=late"}) {
		t.Fatalf("B heard %v, want the late row", got)
	}
}

// TestNobodyWatchingCostsNothing: an instance with no subscriber reads
// nothing and its poller is stopped; a change of a topic nobody here
// watches wakes nobody; the poller stops again when the last subscriber
// goes.
func TestNobodyWatchingCostsNothing(t *testing.T) {
	t.Parallel()
	a, b, c, _ := instances(t)
	a.Publish(t.Context(), "list|g1|l1", nil)
	for range 5 {
		c.add(time.Second)
		if b.Poll(t.Context()) {
			t.Fatal("an idle poll says someone watches")
		}
	}
	if b.Reads.Load() != 0 || b.Polling() {
		t.Fatalf("an idle instance read the feed %d times (polling %v)", b.Reads.Load(), b.Polling())
	}
	var onB heard
	sub := b.Subscribe(onB.fn, "list|g1|l2")
	if !b.Polling() {
		t.Fatal("a subscriber did not start the poller")
	}
	a.Publish(t.Context(), "list|g1|l1", nil)
	c.add(time.Second)
	b.Poll(t.Context())
	if got, calls := onB.topics(); calls != 0 {
		t.Fatalf("a change of another topic woke the subscriber: %v", got)
	}
	b.Unsubscribe(sub)
	if b.Polling() || b.Poll(t.Context()) || b.Reads.Load() != 1 {
		t.Fatalf("the poller runs on without subscribers (%d reads)", b.Reads.Load())
	}
}

// TestDrainEndsSubscriptions: Drain closes every subscriber's Done and
// stops the polls.
func TestDrainEndsSubscriptions(t *testing.T) {
	t.Parallel()
	a, _, _, _ := instances(t)
	sub := a.Subscribe(func([]live.Change) {}, "chat|c1")
	a.Drain()
	a.Drain()
	select {
	case <-sub.Done:
	default:
		t.Fatal("Done is open after Drain")
	}
	if a.Poll(t.Context()) || a.Reads.Load() != 0 {
		t.Fatal("a drained feed polls")
	}
}

// TestSweepDeletesOldRowsOnly: the sweep deletes the rows older than Keep
// and leaves the newer ones.
func TestSweepDeletesOldRowsOnly(t *testing.T) {
	t.Parallel()
	a, _, c, store := instances(t)
	a.Publish(t.Context(), "old", nil)
	c.add(live.Keep - time.Second)
	a.Publish(t.Context(), "recent", nil)
	c.add(2 * time.Second)
	if err := a.SweepJob().Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	rows, err := storage.All[live.Row](t.Context(), store.Table(live.Table), storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, r := range rows {
		left = append(left, r.Topic)
	}
	if !slices.Equal(left, []string{"recent"}) {
		t.Fatalf("after the sweep: %v, want only the recent row", left)
	}
}

// TestForgetDeletesTheRowsNamingText: Forget deletes the rows whose
// payload or topic holds the text (a deleted member's key), and only
// those.
func TestForgetDeletesTheRowsNamingText(t *testing.T) {
	t.Parallel()
	a, _, c, store := instances(t)
	a.Publish(t.Context(), "chat|c1", []byte(`{"sender":"auth:ann"}`))
	c.add(time.Millisecond)
	a.Publish(t.Context(), "chat|c1", []byte(`{"sender":"auth:bob"}`))
	c.add(time.Millisecond)
	a.Publish(t.Context(), "inbox|auth:ann", nil)
	if err := a.Forget(t.Context(), "auth:ann"); err != nil {
		t.Fatal(err)
	}
	rows, err := storage.All[live.Row](t.Context(), store.Table(live.Table), storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Payload != `{"sender":"auth:bob"}` {
		t.Fatalf("after forgetting ann: %+v", rows)
	}
}

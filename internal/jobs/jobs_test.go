package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

var start = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

func newStore(t *testing.T) *storage.Store {
	t.Helper()
	return storetest.Open(t, LeasesTable)
}

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func noJitter(time.Duration) time.Duration { return 0 }

func newRunner(store *storage.Store, holder string, now func() time.Time, log *slog.Logger) *Runner {
	return New(store, log, Options{Holder: holder, Now: now, Jitter: noJitter})
}

// Two instances tick at the same instants: each period, exactly one runs
// the job, and the other takes over only once the lease has expired.
func TestOneInstanceRunsAJobPerPeriod(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	clock := webtest.NewClock(start)
	var runsA, runsB atomic.Int32
	a := newRunner(store, "a", clock.Now, quiet())
	b := newRunner(store, "b", clock.Now, quiet())
	job := func(n *atomic.Int32) Job {
		return Job{Name: "purge", Every: time.Hour, Run: func(context.Context) error { n.Add(1); return nil }}
	}
	if err := a.Add(job(&runsA)); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(job(&runsB)); err != nil {
		t.Fatal(err)
	}
	ea, eb := a.jobs["purge"], b.jobs["purge"]

	if !a.tick(ctx, ea) {
		t.Fatal("a did not take the free lease")
	}
	if b.tick(ctx, eb) {
		t.Fatal("b ran while a holds the lease")
	}
	clock.Advance(59 * time.Minute)
	if b.tick(ctx, eb) {
		t.Fatal("b ran a minute before the lease expired")
	}
	// The lease expires: a has stopped (crashed, say), and b takes over.
	clock.Advance(time.Minute)
	if !b.tick(ctx, eb) {
		t.Fatal("b did not take over the expired lease")
	}
	if a.tick(ctx, ea) {
		t.Fatal("a ran while b holds the taken-over lease")
	}
	if runsA.Load() != 1 || runsB.Load() != 1 {
		t.Errorf("runs a=%d b=%d, want 1 and 1", runsA.Load(), runsB.Load())
	}

	pk, rk := leaseKey("purge")
	e, err := store.Table(LeasesTable).Get(ctx, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	var row LeaseRow
	if err := storage.Unmarshal(e, &row); err != nil {
		t.Fatal(err)
	}
	if row.Holder != "b" || !row.ExpiresAt.Equal(start.Add(2*time.Hour)) {
		t.Errorf("lease %+v", row)
	}
}

// Many instances racing for a free lease: exactly one wins.
func TestLeaseRaceHasOneWinner(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	clock := webtest.NewClock(start)
	var runs atomic.Int32
	runners := make([]*Runner, 8)
	for i := range runners {
		runners[i] = newRunner(store, string(rune('a'+i)), clock.Now, quiet())
		runners[i].Add(Job{Name: "race", Every: time.Minute, Run: func(context.Context) error { runs.Add(1); return nil }})
	}
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Go(func() { r.tick(ctx, r.jobs["race"]) })
	}
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("%d instances ran, want 1", runs.Load())
	}
}

// Two started runners on one store, on the real clock: the runs never
// overlap and come at most about once per period.
func TestStartedRunnersShareTheJob(t *testing.T) {
	store := newStore(t)
	const every = 40 * time.Millisecond
	var running, overlaps, runs atomic.Int32
	work := func(context.Context) error {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		runs.Add(1)
		return nil
	}
	var runners []*Runner
	for _, h := range []string{"a", "b"} {
		r := New(store, quiet(), Options{Holder: h})
		if err := r.Add(Job{Name: "tick", Every: every, Run: work}); err != nil {
			t.Fatal(err)
		}
		runners = append(runners, r)
	}
	began := time.Now()
	for _, r := range runners {
		r.Start(context.Background())
	}
	// Until the job has run a few times (a loaded machine only delays
	// runs; two runners that both ran it would run it more often).
	deadline := began.Add(10 * time.Second)
	for runs.Load() < 5 && time.Now().Before(deadline) {
		time.Sleep(every / 4)
	}
	for _, r := range runners {
		r.Stop()
	}
	elapsed := time.Since(began)
	if overlaps.Load() != 0 {
		t.Errorf("%d overlapping runs", overlaps.Load())
	}
	most := int32(elapsed/every) + 1
	if n := runs.Load(); n < 5 || n > most {
		t.Errorf("%d runs in %v at one per %v, want 5 to %d", n, elapsed, every, most)
	}
}

func TestJobErrorIsLoggedAndRunnerGoesOn(t *testing.T) {
	store := newStore(t)
	var logs logBuffer
	r := New(store, slog.New(slog.NewTextHandler(&logs, nil)), Options{Jitter: noJitter})
	var failures, panics, healthy atomic.Int32
	r.Add(Job{Name: "failing", Every: 5 * time.Millisecond, Run: func(context.Context) error {
		failures.Add(1)
		return errors.New("disk on fire")
	}})
	r.Add(Job{Name: "panicking", Every: 5 * time.Millisecond, Run: func(context.Context) error {
		panics.Add(1)
		panic("boom")
	}})
	r.Add(Job{Name: "healthy", Every: 5 * time.Millisecond, Run: func(context.Context) error {
		healthy.Add(1)
		return nil
	}})
	r.Start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for failures.Load() < 3 || panics.Load() < 3 || healthy.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("runs: failing %d, panicking %d, healthy %d", failures.Load(), panics.Load(), healthy.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.Stop()
	out := logs.String()
	if !strings.Contains(out, "job failed") || !strings.Contains(out, "disk on fire") {
		t.Errorf("error not logged:\n%s", out)
	}
	if !strings.Contains(out, "job panicked") || !strings.Contains(out, "boom") {
		t.Errorf("panic not logged:\n%s", out)
	}
	// RunOnce reports the error to its caller, panics included.
	if err := r.RunOnce(context.Background(), "failing"); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("RunOnce error %v", err)
	}
	if err := r.RunOnce(context.Background(), "panicking"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("RunOnce panic %v", err)
	}
}

func TestStopWaitsForRunningJob(t *testing.T) {
	store := newStore(t)
	r := New(store, quiet(), Options{Jitter: noJitter})
	started := make(chan struct{}, 1) // the job may start before the test waits for it
	var finished atomic.Bool
	r.Add(Job{Name: "slow", Every: time.Millisecond, Run: func(ctx context.Context) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done() // Stop cancels; the job tidies up before returning
		time.Sleep(30 * time.Millisecond)
		finished.Store(true)
		return ctx.Err()
	}})
	r.Start(context.Background())
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("job never started")
	}
	r.Stop()
	if !finished.Load() {
		t.Fatal("Stop returned before the running job finished")
	}
	r.Stop() // twice is fine
}

func TestStopEndsWithStartContext(t *testing.T) {
	store := newStore(t)
	r := New(store, quiet(), Options{})
	r.Add(Job{Name: "idle", Every: time.Hour, Run: func(context.Context) error { return nil }})
	ctx, cancel := context.WithCancel(context.Background())
	r.Start(ctx)
	cancel()
	done := make(chan struct{})
	go func() { r.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hangs")
	}
	New(store, quiet(), Options{}).Stop() // never started
}

func TestRunOnce(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	clock := webtest.NewClock(start)
	a := newRunner(store, "a", clock.Now, quiet())
	b := newRunner(store, "b", clock.Now, quiet())
	var runs atomic.Int32
	for _, r := range []*Runner{a, b} {
		r.Add(Job{Name: "rebuild", Every: time.Hour, Run: func(context.Context) error { runs.Add(1); return nil }})
	}
	a.tick(ctx, a.jobs["rebuild"])
	// An admin's button on b runs the job even though a holds the lease.
	if err := b.RunOnce(ctx, "rebuild"); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 2 {
		t.Errorf("%d runs, want 2", runs.Load())
	}
	if err := b.RunOnce(ctx, "nope"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("unknown job: %v", err)
	}
}

func TestAddRefusesBadJobs(t *testing.T) {
	r := New(newStore(t), quiet(), Options{})
	ok := func(context.Context) error { return nil }
	if err := r.Add(Job{Name: "groups-purge", Every: time.Hour, Run: ok}); err != nil {
		t.Fatal(err)
	}
	for name, j := range map[string]Job{
		"duplicate":   {Name: "groups-purge", Every: time.Hour, Run: ok},
		"empty name":  {Every: time.Hour, Run: ok},
		"bad name":    {Name: "Purge/All", Every: time.Hour, Run: ok},
		"no period":   {Name: "p", Run: ok},
		"no function": {Name: "q", Every: time.Hour},
	} {
		if err := r.Add(j); !errors.Is(err, ErrInvalidJob) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A stopped instance gives its leases up: another takes the job at once,
// and a lease held by someone else is never released by the one stopping.
func TestStopReleasesLeases(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	clock := webtest.NewClock(start)
	a := newRunner(store, "a", clock.Now, quiet())
	b := newRunner(store, "b", clock.Now, quiet())
	for _, r := range []*Runner{a, b} {
		for _, name := range []string{"purge", "rollup"} {
			if err := r.Add(Job{Name: name, Every: time.Hour, Run: func(context.Context) error { return nil }}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !a.tick(ctx, a.jobs["purge"]) || !b.tick(ctx, b.jobs["rollup"]) {
		t.Fatal("the free leases were not taken")
	}
	a.Start(ctx)
	a.Stop()
	if !b.tick(ctx, b.jobs["purge"]) {
		t.Fatal("b could not take the lease a released at shutdown")
	}
	pk, rk := leaseKey("rollup")
	e, err := store.Table(LeasesTable).Get(ctx, pk, rk)
	if err != nil {
		t.Fatalf("b's lease is gone: %v", err)
	}
	var row LeaseRow
	if err := storage.Unmarshal(e, &row); err != nil || row.Holder != "b" {
		t.Fatalf("b's lease: %+v, %v", row, err)
	}
}

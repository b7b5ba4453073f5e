// Package jobs runs Harmony's background work on tickers inside the web
// process (ARCHITECTURE §8), and owns the Leases table: before each run an
// instance takes the job's lease with an ETag-conditional write, so when
// several instances run, only one of them runs a job in any period. Jobs
// must be idempotent: a lease can lapse mid-run, and RunOnce ignores it.
package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"os"
	"regexp"
	"runtime/debug"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Job is one piece of background work.
type Job struct {
	// Name identifies the job across instances (its lease row): lower-case
	// letters, digits and dashes, such as "groups-purge".
	Name string
	// Every is the period: each instance wakes about this often, and the
	// lease it takes lasts this long, so the job runs about once per period
	// whatever the number of instances.
	Every time.Duration
	// Run does the work. It must return soon after ctx is cancelled (the
	// runner stopping), and it must be idempotent.
	Run func(ctx context.Context) error
}

// Options adjust a Runner. The zero value is fine for production.
type Options struct {
	// Holder names this instance in lease rows; default host name plus a
	// random suffix.
	Holder string
	// Now is the lease clock; nil means time.Now.
	Now func() time.Time
	// Jitter returns the random delay added to a wait of d, so instances
	// started together do not hit storage together; nil means up to a
	// tenth of d.
	Jitter func(d time.Duration) time.Duration
}

// Errors from Add and RunOnce.
var (
	ErrInvalidJob = errors.New("jobs: invalid job")
	ErrUnknownJob = errors.New("jobs: no such job")
)

// Runner runs jobs on tickers under leases.
type Runner struct {
	leases leases
	log    *slog.Logger
	jitter func(time.Duration) time.Duration

	mu      sync.Mutex
	jobs    map[string]*entry
	order   []*entry
	started bool
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// entry is a job with the lock that keeps one instance of it running in
// this process.
type entry struct {
	Job
	running sync.Mutex
	kick    chan struct{} // buffered 1: a pending wake-up
}

var jobName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// New builds a runner on store's Leases table (provisioned by cmd/web;
// see Tables).
func New(store *storage.Store, log *slog.Logger, opts Options) *Runner {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Holder == "" {
		opts.Holder = defaultHolder()
	}
	if opts.Jitter == nil {
		opts.Jitter = func(d time.Duration) time.Duration { return mathrand.N(d/10 + 1) }
	}
	return &Runner{
		leases: leases{table: store.Table(LeasesTable), holder: opts.Holder, now: opts.Now},
		log:    log,
		jitter: opts.Jitter,
		jobs:   map[string]*entry{},
	}
}

// Tables are the tables the runner needs provisioned.
func (r *Runner) Tables() []string { return []string{LeasesTable} }

// Holder is this instance's name in lease rows.
func (r *Runner) Holder() string { return r.leases.holder }

func defaultHolder() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	rand.Read(b) // never fails
	if host == "" {
		host = "instance"
	}
	return host + "-" + hex.EncodeToString(b)
}

// Add registers a job. Add jobs before Start; a job added later runs from
// the next Start only.
func (r *Runner) Add(j Job) error {
	switch {
	case !jobName.MatchString(j.Name):
		return fmt.Errorf("%w: name %q", ErrInvalidJob, j.Name)
	case j.Every <= 0:
		return fmt.Errorf("%w: %s has no period", ErrInvalidJob, j.Name)
	case j.Run == nil:
		return fmt.Errorf("%w: %s has no Run", ErrInvalidJob, j.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.jobs[j.Name]; dup {
		return fmt.Errorf("%w: %s added twice", ErrInvalidJob, j.Name)
	}
	e := &entry{Job: j, kick: make(chan struct{}, 1)}
	r.jobs[j.Name] = e
	r.order = append(r.order, e)
	return nil
}

// Start runs every job on its ticker until ctx is cancelled or Stop is
// called. Each job first wakes after a random part of its period. A runner
// starts once: calling Start again does nothing.
func (r *Runner) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	ctx, r.stop = context.WithCancel(ctx)
	for _, e := range r.order {
		r.wg.Add(1)
		go r.loop(ctx, e)
	}
	if len(r.order) > 0 {
		r.log.Info("background jobs started", "jobs", len(r.order), "holder", r.leases.holder)
	}
}

// Stop ends the tickers, cancels running jobs' contexts, waits for them
// to return, and releases this instance's leases, so another instance
// takes the jobs over at once rather than after up to a period. It is safe
// to call more than once, and without Start.
func (r *Runner) Stop() {
	r.mu.Lock()
	stop := r.stop
	r.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	for _, e := range r.order {
		if err := r.leases.release(ctx, e.Name); err != nil {
			r.log.Warn("job lease not released; it lapses at its end", "job", e.Name, "err", err)
		}
	}
}

// releaseTimeout bounds the lease release at shutdown.
const releaseTimeout = 5 * time.Second

func (r *Runner) loop(ctx context.Context, e *entry) {
	defer r.wg.Done()
	t := time.NewTimer(r.jitter(e.Every))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
			r.kicked(ctx, e) // the period's timer runs on
		case <-t.C:
			r.tick(ctx, e)
			t.Reset(e.Every + r.jitter(e.Every))
		}
	}
}

// Kick asks for the named job to run soon in this process, without its
// lease: for work that should not wait for the period, such as a task
// just enqueued. Kicks while one is pending merge into it. A kick before
// Start runs at Start. Only jobs safe to run on several instances at
// once may be kicked (the task drain claims each task atomically).
func (r *Runner) Kick(name string) {
	r.mu.Lock()
	e := r.jobs[name]
	r.mu.Unlock()
	if e == nil {
		return
	}
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// kicked runs e now unless it is running here already (a RunOnce).
func (r *Runner) kicked(ctx context.Context, e *entry) {
	if !e.running.TryLock() {
		return
	}
	defer e.running.Unlock()
	r.run(ctx, e)
}

// tick runs e if this instance can take its lease and it is not already
// running here. It reports whether the job ran.
func (r *Runner) tick(ctx context.Context, e *entry) bool {
	if !e.running.TryLock() {
		return false
	}
	defer e.running.Unlock()
	ok, err := r.leases.acquire(ctx, e.Name, e.Every)
	if err != nil {
		if ctx.Err() == nil {
			r.log.WarnContext(ctx, "job lease not taken", "job", e.Name, "err", err)
		}
		return false
	}
	if !ok {
		return false
	}
	done := make(chan struct{})
	var renewing sync.WaitGroup
	renewing.Go(func() { r.renew(ctx, e, done) })
	r.run(ctx, e)
	close(done)
	renewing.Wait()
	return true
}

// renew keeps the lease of a run that outlasts half its period, so no
// other instance starts the job while this one is still at it.
func (r *Runner) renew(ctx context.Context, e *entry, done <-chan struct{}) {
	t := time.NewTicker(e.Every / 2)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if ok, err := r.leases.acquire(ctx, e.Name, e.Every); !ok && ctx.Err() == nil {
				r.log.WarnContext(ctx, "job lease lost while running", "job", e.Name, "err", err)
			}
		}
	}
}

// RunOnce runs the named job now, in this process, and returns its error:
// for tests and admin buttons. It waits if the job is running here already,
// and it does not take the lease (jobs are idempotent).
func (r *Runner) RunOnce(ctx context.Context, name string) error {
	r.mu.Lock()
	e := r.jobs[name]
	r.mu.Unlock()
	if e == nil {
		return fmt.Errorf("%w: %s", ErrUnknownJob, name)
	}
	e.running.Lock()
	defer e.running.Unlock()
	return r.run(ctx, e)
}

// run calls the job, logging its error or panic: a failing job never stops
// the runner or the process.
func (r *Runner) run(ctx context.Context, e *entry) (err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("jobs: %s panicked: %v", e.Name, p)
			r.log.ErrorContext(ctx, "job panicked", "job", e.Name, "panic", p, "stack", string(debug.Stack()))
			return
		}
		if err != nil {
			r.log.ErrorContext(ctx, "job failed", "job", e.Name, "err", err, "took", time.Since(start))
			return
		}
		r.log.DebugContext(ctx, "job done", "job", e.Name, "took", time.Since(start))
	}()
	return e.Run(ctx)
}

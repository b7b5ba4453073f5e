// Package tasks is Harmony's queue of one-off background work: mail to
// send, reminders, notifications, waitlist offers. A task is a row in the
// Tasks table with a due time; the job runner drains the due ones (job
// "tasks"), and an enqueue in this process wakes it at once.
//
// A task is claimed by moving its row, in one atomic batch, to a due time
// a lease ahead (attempts+1), so a crash mid-task loses nothing: the row
// comes due again when the lease lapses and another drain takes it. Two
// instances claiming the same row race on its ETag and one wins, so a task
// runs once while its handler finishes within the lease; past that it may
// run again, so handlers must be idempotent (delivery is at least once).
// A failure moves the row to a later due time (exponential backoff with
// jitter); after MaxAttempts, or on a Permanent error, it becomes a dead
// row, which admins read at /admin/tasks and run again or discard
// (inspect.go). An idempotency key makes a second enqueue of
// the same work a no-op for KeyTTL, counted from its due time when that
// is later.
package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mathrand "math/rand/v2"
	"regexp"
	"runtime/debug"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
)

// Table holds the queue; see rows.go for its keys.
const Table = "Tasks"

// JobName is the runner job that drains due tasks.
const JobName = "tasks"

// Defaults for Options.
const (
	DefaultLease       = 2 * time.Minute
	DefaultMaxAttempts = 8
	DefaultEvery       = 15 * time.Second
	KeyTTL             = 7 * 24 * time.Hour
	DeadTTL            = 30 * 24 * time.Hour
	// MaxPayload bounds a task's encoded value (Azure's binary property
	// limit is 64 KiB).
	MaxPayload = 60 << 10
)

// Errors from Register and Enqueue.
var (
	ErrInvalidKind = errors.New("tasks: invalid kind")
	ErrTooLarge    = errors.New("tasks: payload too large")
)

// Options adjust a Queue. The zero value is fine for production.
type Options struct {
	Now func() time.Time
	// Lease is how long a claimed task is hidden from other drains.
	Lease time.Duration
	// MaxAttempts is how many runs a task gets before it is dead.
	MaxAttempts int
	// Backoff is the wait before attempt n+1 after n failed ones; nil
	// means 30 s doubling per attempt, capped at 6 h, plus up to a tenth.
	Backoff func(attempts int) time.Duration
	// Every is how often the runner drains without being woken.
	Every time.Duration
	// Holder names this instance on claimed rows (for admins reading them).
	Holder string
}

// Queue enqueues and runs tasks.
type Queue struct {
	table *storage.Table
	log   *slog.Logger
	opts  Options

	mu       sync.RWMutex
	handlers map[string]handler
	wake     func()
}

type handler func(ctx context.Context, payload []byte) error

// New builds a queue on store's Tasks table (see Tables).
func New(store *storage.Store, log *slog.Logger, opts Options) *Queue {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Backoff == nil {
		opts.Backoff = defaultBackoff
	}
	if opts.Every <= 0 {
		opts.Every = DefaultEvery
	}
	return &Queue{table: store.Table(Table), log: log, opts: opts, handlers: map[string]handler{}, wake: func() {}}
}

func defaultBackoff(attempts int) time.Duration {
	d := 30 * time.Second << min(attempts-1, 10)
	d = min(d, 6*time.Hour)
	return d + mathrand.N(d/10+1)
}

// Tables are the tables the queue needs provisioned.
func (q *Queue) Tables() []string { return []string{Table} }

// Jobs are the runner jobs: the drain, and the purge of old keys and dead
// rows.
func (q *Queue) Jobs() []jobs.Job {
	return []jobs.Job{
		{Name: JobName, Every: q.opts.Every, Run: func(ctx context.Context) error { _, err := q.RunDue(ctx); return err }},
		{Name: "tasks-purge", Every: 6 * time.Hour, Run: q.Purge},
	}
}

// WakeWith sets what an enqueue calls to have the due tasks run soon (the
// runner's Kick of the drain job).
func (q *Queue) WakeWith(wake func()) { q.wake = wake }

var kindName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,62}$`)

// ValidKind says whether name may name a kind (Register refuses any
// other): what a page taking a kind from its address checks first.
func ValidKind(name string) bool { return kindName.MatchString(name) }

// Kind is a registered kind of task whose value is a T (JSON-encoded on
// the row).
type Kind[T any] struct {
	q    *Queue
	name string
}

// Into registers run as kind name on q (Register) and puts the kind in
// *dst, which stays nil when it fails: a module's UseTasks wires each of
// its kinds in a line, joining their errors.
func Into[T any](q *Queue, dst **Kind[T], name string, run func(ctx context.Context, v T) error) error {
	k, err := Register(q, name, run)
	if err != nil {
		return err
	}
	*dst = &k
	return nil
}

// Register declares the kind name and what runs a task of it. Register
// kinds before the runner starts.
func Register[T any](q *Queue, name string, run func(ctx context.Context, v T) error) (Kind[T], error) {
	if !ValidKind(name) || run == nil {
		return Kind[T]{}, fmt.Errorf("%w: %q", ErrInvalidKind, name)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, dup := q.handlers[name]; dup {
		return Kind[T]{}, fmt.Errorf("%w: %q registered twice", ErrInvalidKind, name)
	}
	q.handlers[name] = func(ctx context.Context, payload []byte) error {
		var v T
		if err := json.Unmarshal(payload, &v); err != nil {
			return Permanent(fmt.Errorf("tasks: %s: undecodable payload: %w", name, err))
		}
		return run(ctx, v)
	}
	return Kind[T]{q: q, name: name}, nil
}

// Enqueue adds a task to run now. A non-empty key makes it idempotent: a
// second Enqueue with the same key within KeyTTL (of the first's enqueue
// or due time, whichever is later) adds nothing and returns nil.
func (k Kind[T]) Enqueue(ctx context.Context, key string, v T) error {
	return k.EnqueueAt(ctx, time.Time{}, key, v)
}

// Later queues v to run at at, after a try of the work that may be cut
// short (a deletion's burial, a series change's finishing), keyed by
// what it is about and by the try: a task that finds its work done does
// nothing, so the next try needs a key of its own. A failure is logged
// on log as warn with attrs, not returned: the work's own try, a retry
// or a rebuild finishes it. A nil kind (a module wired without tasks)
// queues nothing.
func (k *Kind[T]) Later(ctx context.Context, at time.Time, about string, v T, log *slog.Logger, warn string, attrs ...any) {
	if k == nil {
		return
	}
	key := k.name + "|" + about + "|" + ulid.Make().String()
	if err := k.EnqueueAt(ctx, at, key, v); err != nil {
		log.WarnContext(ctx, warn, append(attrs, "err", err)...)
	}
}

// Reschedule runs change, which changes where it is kept what v is due
// for (a reminder's time), then queues v to run at at under key: unless
// change changed nothing (storage.ErrNoChange: nil) or failed, or at is
// zero (the time taken off: the task queued before finds nothing to do).
// A nil kind (a module wired without tasks) only runs change.
func (k *Kind[T]) Reschedule(ctx context.Context, at time.Time, key string, v T, change func() error) error {
	err := change()
	switch {
	case errors.Is(err, storage.ErrNoChange):
		return nil
	case err != nil || at.IsZero() || k == nil:
		return err
	}
	return k.EnqueueAt(ctx, at, key, v)
}

// EnqueueAt adds a task to run at at (zero: now).
func (k Kind[T]) EnqueueAt(ctx context.Context, at time.Time, key string, v T) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("tasks: %s: %w", k.name, err)
	}
	return k.q.enqueue(ctx, k.name, at, key, payload)
}

func (q *Queue) enqueue(ctx context.Context, kind string, at time.Time, key string, payload []byte) error {
	if len(payload) > MaxPayload {
		return fmt.Errorf("%w: %s, %d bytes", ErrTooLarge, kind, len(payload))
	}
	now := q.opts.Now().UTC()
	if at.IsZero() || at.Before(now) {
		at = now
	}
	row := TaskRow{ID: ulid.Make().String(), Kind: kind, Key: key, Payload: payload, CreatedAt: now, Due: at.UTC()}
	ops := []storage.TxOp{}
	if key != "" {
		kr, err := storage.Marshal(KeyRow{PartitionKey: partition, RowKey: keyRowKey(key), TaskID: row.ID, CreatedAt: now, Due: row.Due})
		if err != nil {
			return err
		}
		ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: kr})
	}
	tr, err := row.entity()
	if err != nil {
		return err
	}
	ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: tr})
	err = q.table.Transact(ctx, ops)
	if key != "" && errors.Is(err, storage.ErrExists) {
		return nil // enqueued before: the key row stands for it
	}
	if err != nil {
		return fmt.Errorf("tasks: enqueue %s: %w", kind, err)
	}
	if !at.After(now) {
		q.wake()
	}
	return nil
}

// permanent marks an error no retry can fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so the task is not retried: it becomes dead at once.
func Permanent(err error) error { return permanent{err} }

// Report says what one RunDue did.
type Report struct {
	Done, Retried, Dead, Lost int
}

// RunDue claims and runs every task due now, one at a time, until none is
// left or ctx ends. Claims are safe against other instances draining at
// the same time: each task goes to one of them.
func (q *Queue) RunDue(ctx context.Context) (Report, error) {
	var rep Report
	skipped := map[string]bool{}
	for ctx.Err() == nil {
		due, err := q.due(ctx)
		if err != nil {
			return rep, err
		}
		progress := false
		for _, t := range due {
			if skipped[t.ID] {
				continue
			}
			if !q.known(t.Kind) {
				// A newer instance's kind: leave it for one that knows it.
				skipped[t.ID] = true
				q.log.WarnContext(ctx, "task of an unknown kind left in the queue", "kind", t.Kind, "task", t.ID)
				continue
			}
			claimed, ok, err := q.claim(ctx, t)
			if err != nil {
				return rep, err
			}
			if !ok {
				continue // another drain took it
			}
			progress = true
			q.run(ctx, claimed, &rep)
		}
		if !progress {
			return rep, nil
		}
	}
	return rep, ctx.Err()
}

// drainPage is how many due rows one query reads.
const drainPage = 50

// due reads up to drainPage tasks whose due time has come, oldest first.
func (q *Queue) due(ctx context.Context) ([]TaskRow, error) {
	now := q.opts.Now().UTC()
	rows, _, err := q.page(ctx, storage.Query{
		RowKeyFrom: taskPrefix,
		RowKeyTo:   taskPrefix + storage.ForwardTicks(now.Add(100*time.Nanosecond)),
	}, drainPage)
	if err != nil {
		return nil, fmt.Errorf("tasks: read due: %w", err)
	}
	return rows, nil
}

func (q *Queue) known(kind string) bool {
	q.mu.RLock()
	defer q.mu.RUnlock()
	_, ok := q.handlers[kind]
	return ok
}

// claim moves t a lease ahead with one more attempt, at t's ETag, so no
// other drain runs it meanwhile. ok is false when another drain moved it
// first.
func (q *Queue) claim(ctx context.Context, t TaskRow) (TaskRow, bool, error) {
	next := t
	next.readAs = ""
	next.Attempts++
	next.Due = q.opts.Now().UTC().Add(q.opts.Lease)
	next.Holder = q.opts.Holder
	if err := q.move(ctx, t, next); err != nil {
		if errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrExists) {
			return TaskRow{}, false, nil
		}
		return TaskRow{}, false, fmt.Errorf("tasks: claim %s: %w", t.ID, err)
	}
	return next, true, nil
}

// move replaces row from by row to in one batch: the delete at from's
// ETag and the insert under to's key.
func (q *Queue) move(ctx context.Context, from TaskRow, to TaskRow) error {
	e, err := to.entity()
	if err != nil {
		return err
	}
	etag := from.ETag
	if etag == "" {
		etag = storage.AnyETag
	}
	return q.table.Transact(ctx, []storage.TxOp{
		{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: partition, RowKey: from.storedKey()}, IfMatch: etag},
		{Kind: storage.TxInsert, Entity: e},
	})
}

// run runs a claimed task and records the outcome: the row is deleted on
// success, moved to its next try on failure, or made dead. If the row has
// moved meanwhile (the lease lapsed and another drain claimed it), the
// outcome is theirs to record.
func (q *Queue) run(ctx context.Context, t TaskRow, rep *Report) {
	runCtx, cancel := context.WithTimeout(ctx, q.opts.Lease)
	err := q.call(runCtx, t)
	cancel()
	claimed := t
	claimed.ETag = storage.AnyETag
	var outcome error
	switch {
	case err == nil:
		outcome = q.table.Delete(ctx, partition, t.rowKey(), storage.AnyETag)
		if outcome == nil {
			rep.Done++
		}
	case isPermanent(err) || t.Attempts >= q.opts.MaxAttempts:
		dead := t
		dead.LastError = truncate(err.Error(), 1000)
		dead.Dead = true
		dead.Due = q.opts.Now().UTC()
		outcome = q.move(ctx, claimed, dead)
		if outcome == nil {
			rep.Dead++
			q.log.ErrorContext(ctx, "task failed for good", "kind", t.Kind, "task", t.ID, "attempts", t.Attempts, "err", err)
		}
	default:
		retry := t
		retry.Holder = "" // waiting again, not being run (Running)
		retry.LastError = truncate(err.Error(), 1000)
		retry.Due = q.opts.Now().UTC().Add(q.opts.Backoff(t.Attempts))
		outcome = q.move(ctx, claimed, retry)
		if outcome == nil {
			rep.Retried++
			q.log.WarnContext(ctx, "task failed; it will be retried", "kind", t.Kind, "task", t.ID, "attempts", t.Attempts, "next", retry.Due, "err", err)
		}
	}
	if errors.Is(outcome, storage.ErrNotFound) {
		rep.Lost++
		q.log.WarnContext(ctx, "task outlasted its lease; another drain has it", "kind", t.Kind, "task", t.ID)
	} else if outcome != nil {
		// The row stays claimed and comes due when the lease lapses.
		q.log.ErrorContext(ctx, "task outcome not recorded; it runs again after its lease", "kind", t.Kind, "task", t.ID, "err", outcome)
	}
}

// call runs t's handler, turning a panic into an error.
func (q *Queue) call(ctx context.Context, t TaskRow) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tasks: %s panicked: %v", t.Kind, p)
			q.log.ErrorContext(ctx, "task panicked", "kind", t.Kind, "task", t.ID, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	q.mu.RLock()
	h := q.handlers[t.Kind]
	q.mu.RUnlock()
	return h(ctx, t.Payload)
}

func isPermanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Purge deletes idempotency keys more than KeyTTL past both their
// enqueue and their task's due time, and dead tasks older than DeadTTL;
// it moves the younger dead rows of the forward-ticks keys to theirs.
func (q *Queue) Purge(ctx context.Context) error {
	now := q.opts.Now().UTC()
	var stale []string
	err := q.table.QueryAll(ctx, storage.Query{
		PartitionKey: partition, RowKeyPrefix: keyPrefix,
		Filters: []storage.Filter{{Name: "createdAt", Op: storage.Lt, Value: now.Add(-KeyTTL)}},
	}, func(e storage.Entity) error {
		if due, ok := e.Props["due"].(time.Time); ok && !due.Before(now.Add(-KeyTTL)) {
			return nil // its task was due lately, or is still to come
		}
		stale = append(stale, e.RowKey)
		return nil
	})
	if err != nil {
		return err
	}
	err = q.table.QueryAll(ctx, storage.Query{
		PartitionKey: partition, RowKeyPrefix: deadPrefix,
		RowKeyFrom: deadPrefix + storage.ReverseTicks(now.Add(-DeadTTL)),
	}, func(e storage.Entity) error { stale = append(stale, e.RowKey); return nil })
	if err != nil {
		return err
	}
	var legacy []TaskRow
	err = q.table.QueryAll(ctx, storage.Query{PartitionKey: partition, RowKeyPrefix: legacyDeadPrefix}, func(e storage.Entity) error {
		t, err := taskFromEntity(e)
		switch {
		case err != nil:
			q.log.WarnContext(ctx, "unreadable dead task row left alone", "rk", e.RowKey, "err", err)
		case t.Due.Before(now.Add(-DeadTTL)):
			stale = append(stale, e.RowKey)
		default:
			legacy = append(legacy, t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range legacy {
		if err := q.move(ctx, t, t); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
			return err
		}
	}
	for _, rk := range stale {
		if err := storage.Forget(ctx, q.table, partition, rk); err != nil {
			return err
		}
	}
	return nil
}

// Dead lists the tasks that failed for good, newest first (at most limit).
func (q *Queue) Dead(ctx context.Context, limit int) ([]TaskRow, error) {
	rows, _, err := q.DeadPage(ctx, nil, limit)
	return rows, err
}

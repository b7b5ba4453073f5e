package tasks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/storage"
)

// What an operator reads and repairs (the admin page /admin/tasks and
// "web tasks"): how much waits, what is being run, what keeps failing,
// and the dead tasks, which they may run again or discard.

// MaxCounted bounds the rows Summarize reads of each range (waiting,
// dead): at most five pages of keys and three small properties each.
const MaxCounted = 5000

// Errors of RetryDead and DiscardDead.
var (
	// ErrNoTask is a ref that names no dead task: malformed, or its task
	// was run again or discarded meanwhile.
	ErrNoTask = fmt.Errorf("tasks: no such dead task: %w", storage.ErrNotFound)
	// ErrChanged is a dead task changed since it was read; nothing was
	// written.
	ErrChanged = fmt.Errorf("tasks: the dead task changed meanwhile: %w", storage.ErrPrecondition)
)

// Counts are tasks by state. A task waits until it first runs, is
// retrying after a failed run until its next, is running while a drain
// holds its lease, and is dead once it failed for good.
type Counts struct {
	Waiting, Retrying, Running, Dead int
}

// KindCounts are one kind's counts.
type KindCounts struct {
	Kind string
	Counts
}

// Summary is the queue at a glance.
type Summary struct {
	Counts
	// DueNow are the waiting and retrying tasks whose time has come: a
	// drain that keeps up holds it near zero.
	DueNow int
	// Kinds are the counts by kind, by name.
	Kinds []KindCounts
	// MoreWaiting and MoreDead say a range held more than MaxCounted
	// rows: its counts are of the first MaxCounted (soonest due; newest
	// dead), and the rest were not read.
	MoreWaiting, MoreDead bool
}

// Summarize counts the queue by state and kind. It reads the keys and
// kind, attempts and holder of up to MaxCounted waiting rows and as many
// dead ones, never their payloads: at most six queries a range (five
// pages of 1,000, and one row to know whether more follow).
func (q *Queue) Summarize(ctx context.Context) (Summary, error) {
	now := q.opts.Now().UTC()
	var s Summary
	kinds := map[string]*Counts{}
	count := func(t TaskRow) {
		c := kinds[t.Kind]
		if c == nil {
			c = &Counts{}
			kinds[t.Kind] = c
		}
		for _, c := range []*Counts{c, &s.Counts} {
			switch {
			case t.Dead:
				c.Dead++
			case t.Running(now):
				c.Running++
			case t.Attempts > 0:
				c.Retrying++
			default:
				c.Waiting++
			}
		}
		if !t.Dead && !t.Running(now) && !t.Due.After(now) {
			s.DueNow++
		}
	}
	for _, r := range []struct {
		query storage.Query
		more  *bool
	}{
		{storage.Query{RowKeyPrefix: taskPrefix, Select: []string{"kind", "attempts", "holder"}}, &s.MoreWaiting},
		{storage.Query{RowKeyPrefix: deadPrefix, Select: []string{"kind"}}, &s.MoreDead},
	} {
		rows, _, err := q.page(ctx, r.query, MaxCounted+1)
		if err != nil {
			return Summary{}, err
		}
		*r.more = len(rows) > MaxCounted
		for _, t := range rows[:min(len(rows), MaxCounted)] {
			count(t)
		}
	}
	for k, c := range kinds {
		s.Kinds = append(s.Kinds, KindCounts{Kind: k, Counts: *c})
	}
	slices.SortFunc(s.Kinds, func(a, b KindCounts) int { return strings.Compare(a.Kind, b.Kind) })
	return s, nil
}

// page reads up to n of the tasks query finds in the queue's partition
// (a page may come short and still go on), and where the rest start (nil
// when none follow).
func (q *Queue) page(ctx context.Context, query storage.Query, n int) ([]TaskRow, *storage.Continuation, error) {
	query.PartitionKey = partition
	var out []TaskRow
	for len(out) < n {
		query.Limit = min(n-len(out), storage.MaxPageSize)
		p, err := q.table.Query(ctx, query)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range p.Entities {
			t, err := taskFromEntity(e)
			if err != nil {
				q.log.WarnContext(ctx, "unreadable task row left alone", "rk", e.RowKey, "err", err)
				continue
			}
			out = append(out, t)
		}
		if p.Next == nil {
			return out, nil, nil
		}
		query.Continuation = p.Next
	}
	return out, query.Continuation, nil
}

// Soonest are the n waiting tasks due soonest, those being run among them
// (a running task is due when its lease lapses), overdue ones first.
func (q *Queue) Soonest(ctx context.Context, n int) ([]TaskRow, error) {
	rows, _, err := q.page(ctx, storage.Query{RowKeyPrefix: taskPrefix}, n)
	return rows, err
}

// DeadPage is a page of the dead tasks, newest first, from from (nil:
// the newest), and where the next page starts (nil after the last).
func (q *Queue) DeadPage(ctx context.Context, from *storage.Continuation, n int) ([]TaskRow, *storage.Continuation, error) {
	return q.page(ctx, storage.Query{RowKeyPrefix: deadPrefix, Continuation: from}, n)
}

// DeadTask reads the dead task ref names: ErrNoTask when there is none.
func (q *Queue) DeadTask(ctx context.Context, ref string) (TaskRow, error) {
	rk, err := parseRef(ref)
	if err != nil {
		return TaskRow{}, err
	}
	e, err := q.table.Get(ctx, partition, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return TaskRow{}, ErrNoTask
	}
	if err != nil {
		return TaskRow{}, err
	}
	return taskFromEntity(e)
}

// RetryDead queues the dead task ref names to run now, as new: no
// attempts yet, its last error kept until the next run. The dead row
// goes and the waiting one comes in one batch at the dead row's ETag,
// so of two admins pressing "Run again" at once one wins and the other
// gets ErrNoTask or ErrChanged, having written nothing. It returns the
// task as queued.
func (q *Queue) RetryDead(ctx context.Context, ref string) (TaskRow, error) {
	dead, err := q.DeadTask(ctx, ref)
	if err != nil {
		return TaskRow{}, err
	}
	return q.retry(ctx, dead)
}

// RetryDeadOfKind queues to run again, as RetryDead does, the dead
// tasks of kind, newest first, most at the most (after an outage of the
// service a kind calls: many emails failed for good). One another admin
// ran again or discarded meanwhile is passed over. It returns how many
// it queued.
func (q *Queue) RetryDeadOfKind(ctx context.Context, kind string, most int) (int, error) {
	n := 0
	var from *storage.Continuation
	for n < most {
		rows, next, err := q.DeadPage(ctx, from, 100)
		if err != nil {
			return n, err
		}
		for _, t := range rows {
			if t.Kind != kind || n == most {
				continue
			}
			if _, err := q.retry(ctx, t); err != nil {
				if errors.Is(err, ErrNoTask) || errors.Is(err, ErrChanged) {
					continue
				}
				return n, err
			}
			n++
		}
		if next == nil {
			break
		}
		from = next
	}
	return n, nil
}

// retry moves dead, as read, back to the waiting tasks.
func (q *Queue) retry(ctx context.Context, dead TaskRow) (TaskRow, error) {
	next := dead
	next.readAs, next.ETag = "", ""
	next.Dead, next.Attempts, next.Holder = false, 0, ""
	next.Due = q.opts.Now().UTC()
	if err := q.move(ctx, dead, next); err != nil {
		return TaskRow{}, answer(err)
	}
	q.wake()
	return next, nil
}

// DiscardDead deletes the dead task ref names, and its idempotency key
// when the key still names it (so the same work may be queued again),
// in one batch at their ETags. It returns the task as it was.
func (q *Queue) DiscardDead(ctx context.Context, ref string) (TaskRow, error) {
	dead, err := q.DeadTask(ctx, ref)
	if err != nil {
		return TaskRow{}, err
	}
	ops := []storage.TxOp{{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: partition, RowKey: dead.storedKey()}, IfMatch: dead.ETag}}
	if dead.Key != "" {
		k, err := q.table.Get(ctx, partition, keyRowKey(dead.Key))
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return TaskRow{}, err
		}
		if err == nil && k.Props["taskId"] == dead.ID {
			ops = append(ops, storage.TxOp{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: partition, RowKey: k.RowKey}, IfMatch: k.ETag})
		}
	}
	if err := q.table.Transact(ctx, ops); err != nil {
		return TaskRow{}, answer(err)
	}
	return dead, nil
}

// answer is a repair's failed batch as its caller reads it.
func answer(err error) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return ErrNoTask
	case errors.Is(err, storage.ErrPrecondition), errors.Is(err, storage.ErrExists):
		return ErrChanged
	}
	return err
}

// Kinds are the registered kinds, by name.
func (q *Queue) Kinds() []string {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return slices.Sorted(maps.Keys(q.handlers))
}

package memberdata

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/lru"
	"github.com/harmony/harmony/internal/storage"
)

// Footprints are where each member has written in a module's table
// whose partitions are not the member's (a chat's log, a topic's posts):
// one row per member and partition, so that exporting and forgetting a
// member reads the partitions they wrote in instead of scanning the
// whole table, however large it grows.
//
// A footprint is written before what it points to (Mark), so a row of
// the member's never stands where no footprint leads: a write whose
// footprint failed is refused. A footprint may point to a partition that
// holds nothing of theirs (the write after it failed, or was undone);
// its reader finds nothing there, and that is all.
//
// A module's footprints are complete once its rows from before them were
// read (Recorder: a background Job after an upgrade, and the module's
// rebuild), or at the first start on a new store, which has none (Start).
// Until then Where answers with the scan it was given, so a deletion
// never misses a row; from then on, with one query of a partition per
// footprint.
const FootprintsTable = "MemberFootprints"

// completePart holds one row per module whose footprints are complete
// (RK the module). A memberKey never starts with "~".
const completePart = "~complete"

// FootprintRow is one footprint: PK the memberKey, RK
// "{module}|{partition, escaped}".
type FootprintRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	At           time.Time `table:"at"`
}

// Footprints are one module's footprints.
type Footprints struct {
	table  *storage.Table
	module string
	now    func() time.Time
	// known are the footprints this instance wrote or found written, so
	// that a member's next message in a chat costs no write.
	known    *lru.Cache[string, bool]
	complete atomic.Bool
}

// remembered bounds the footprints an instance remembers.
const remembered = 100_000

// NewFootprints are module's footprints in store's FootprintsTable
// (which the caller provisions).
func NewFootprints(store *storage.Store, module string, now func() time.Time) *Footprints {
	return &Footprints{table: store.Table(FootprintsTable), module: module, now: now, known: lru.New[string, bool](remembered)}
}

func (f *Footprints) key(partition string) string {
	return f.module + "|" + storage.EscapeKey(partition)
}

// Mark records that memberKey is about to write in partition: call it
// before the write, and refuse the write when it fails. It writes once
// per member and partition (an instance remembers what it wrote); a
// guest's empty key and Forgotten leave none.
func (f *Footprints) Mark(ctx context.Context, memberKey, partition string) error {
	if f == nil || memberKey == "" || IsForgotten(memberKey) {
		return nil
	}
	known := memberKey + "\x00" + partition
	if _, ok := f.known.Get(known); ok {
		return nil
	}
	_, err := storage.Insert(ctx, f.table, FootprintRow{PartitionKey: memberKey, RowKey: f.key(partition), At: f.now().UTC()})
	if err != nil && !errors.Is(err, storage.ErrExists) {
		return fmt.Errorf("memberdata: %s footprint of %s: %w", f.module, memberKey, err)
	}
	f.known.Put(known, true)
	return nil
}

// Complete reports whether the module's footprints lead to every row
// its members wrote (see the top of this file).
func (f *Footprints) Complete(ctx context.Context) (bool, error) {
	if f.complete.Load() {
		return true, nil
	}
	ok, err := storage.Exists(ctx, f.table, completePart, f.module)
	if ok {
		f.complete.Store(true)
	}
	return ok, err
}

// Where are the queries that find memberKey's rows that scan (a query
// of the whole table, with its filters) finds: once the footprints are
// complete, scan narrowed to each partition memberKey wrote in; before,
// scan itself.
func (f *Footprints) Where(ctx context.Context, memberKey string, scan storage.Query) ([]storage.Query, error) {
	parts, complete, err := f.Partitions(ctx, memberKey)
	if err != nil || !complete {
		return []storage.Query{scan}, err
	}
	out := make([]storage.Query, len(parts))
	for i, p := range parts {
		q := scan
		q.Scan, q.PartitionKey = false, p
		out[i] = q
	}
	return out, nil
}

// QueryAll runs each of the queries Where gives for memberKey and scan.
func (f *Footprints) QueryAll(ctx context.Context, t *storage.Table, memberKey string, scan storage.Query, each func(storage.Entity) error) error {
	qs, err := f.Where(ctx, memberKey, scan)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := t.QueryAll(ctx, q, each); err != nil {
			return err
		}
	}
	return nil
}

// Partitions are the partitions memberKey wrote in, and whether the
// footprints are complete (when not, the list may miss some): a read
// and one query.
func (f *Footprints) Partitions(ctx context.Context, memberKey string) (parts []string, complete bool, err error) {
	if complete, err = f.Complete(ctx); err != nil || !complete {
		return nil, complete, err
	}
	prefix := f.module + "|"
	err = f.table.QueryAll(ctx, storage.Query{PartitionKey: memberKey, RowKeyPrefix: prefix, Select: []string{"RowKey"}}, func(e storage.Entity) error {
		p, err := storage.UnescapeKey(strings.TrimPrefix(e.RowKey, prefix))
		if err != nil {
			return err
		}
		parts = append(parts, p)
		return nil
	})
	return parts, true, err
}

// Forget deletes memberKey's footprints in the module: the last step of
// forgetting them, so that a run cut short before it finds its way again.
func (f *Footprints) Forget(ctx context.Context, memberKey string) error {
	if memberKey == "" {
		return nil
	}
	prefix := f.module + "|"
	return f.table.QueryAll(ctx, storage.Query{PartitionKey: memberKey, RowKeyPrefix: prefix, Select: []string{"RowKey"}}, func(e storage.Entity) error {
		if p, err := storage.UnescapeKey(strings.TrimPrefix(e.RowKey, prefix)); err == nil {
			f.known.Delete(memberKey + "\x00" + p)
		}
		return storage.Forget(ctx, f.table, memberKey, e.RowKey)
	})
}

// Recorder writes the footprints a read of the module's rows finds
// (Add), missing ones only, and marks them complete (Done): the rebuild
// of the footprints from their canonical rows. It holds the pairs the
// read found until Done.
type Recorder struct {
	f     *Footprints
	pairs map[[2]string]bool
	// Found is how many member-and-partition pairs the read found, Added
	// how many of them had no footprint.
	Found, Added int
}

// Recorder starts a read of the module's rows.
func (f *Footprints) Recorder() *Recorder { return &Recorder{f: f, pairs: map[[2]string]bool{}} }

// Add records that memberKey wrote in partition.
func (r *Recorder) Add(memberKey, partition string) {
	if memberKey != "" && !IsForgotten(memberKey) {
		r.pairs[[2]string{memberKey, partition}] = true
	}
}

// Done writes the footprints found that are missing (one scan of the
// module's footprints, then a write each), and marks them complete:
// call it when the read has finished without an error.
func (r *Recorder) Done(ctx context.Context) error {
	r.Found = len(r.pairs)
	prefix := r.f.module + "|"
	err := r.f.table.QueryAll(ctx, storage.Query{Scan: true, RowKeyPrefix: prefix, Select: []string{"RowKey"}}, func(e storage.Entity) error {
		if p, err := storage.UnescapeKey(strings.TrimPrefix(e.RowKey, prefix)); err == nil {
			delete(r.pairs, [2]string{e.PartitionKey, p})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for pair := range r.pairs {
		_, err := storage.Insert(ctx, r.f.table, FootprintRow{PartitionKey: pair[0], RowKey: r.f.key(pair[1]), At: r.f.now().UTC()})
		switch {
		case err == nil:
			r.Added++
		case !errors.Is(err, storage.ErrExists):
			return err
		}
	}
	if r.f.complete.Load() {
		return nil // known complete: nothing to mark
	}
	if _, err := storage.Upsert(ctx, r.f.table, FootprintRow{PartitionKey: completePart, RowKey: r.f.module, At: r.f.now().UTC()}); err != nil {
		return err
	}
	r.f.complete.Store(true)
	return nil
}

// Reader reads a module's rows and gives add each member and partition
// a row implies (a module's rebuild of its footprints).
type Reader func(ctx context.Context, add func(memberKey, partition string)) error

// Record rebuilds the module's footprints: read reads the module's rows;
// when it has finished, the missing footprints are written and marked
// complete (Recorder). It returns what it found.
func (f *Footprints) Record(ctx context.Context, read Reader) (*Recorder, error) {
	r := f.Recorder()
	if err := read(ctx, r.Add); err != nil {
		return r, err
	}
	return r, r.Done(ctx)
}

// Start is the footprints' part of a module's start (its Seed): a store
// where empty finds none of the module's rows (a new one) has nothing to
// read, and its footprints are complete at once; on a store of before,
// the rows are read by Job, in the background, so a start never waits
// for a read of a whole table. It costs a point read a start, and on a
// store not complete yet what empty reads.
func (f *Footprints) Start(ctx context.Context, empty func(ctx context.Context) (bool, error)) error {
	if done, err := f.Complete(ctx); err != nil || done {
		return err
	}
	none, err := empty(ctx)
	if err != nil || !none {
		return err
	}
	_, err = f.Record(ctx, func(context.Context, func(string, string)) error { return nil })
	return err
}

// Empty reports whether q finds no row of t: a module's Start. It reads
// one row at most (storage.First, through short pages).
func Empty(ctx context.Context, t *storage.Table, q storage.Query) (bool, error) {
	q.Limit = 1
	_, err := storage.First[struct {
		RowKey string `table:"RowKey"`
	}](ctx, t, q, nil, errNoRow)
	if errors.Is(err, errNoRow) {
		return true, nil
	}
	return false, err
}

// errNoRow is Empty's answer from storage.First.
var errNoRow = errors.New("memberdata: no row")

// Job is the background job (its name, such as "chat-footprints") that
// reads the module's rows of before once (Record), on one instance at a
// time, until the footprints are complete; after that a run costs
// nothing (the instance knows they are complete). log tells what it found.
func (f *Footprints) Job(name string, read Reader, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: name, Every: footprintsEvery, Run: func(ctx context.Context) error {
		if done, err := f.Complete(ctx); err != nil || done {
			return err
		}
		r, err := f.Record(ctx, read)
		if err == nil {
			log.InfoContext(ctx, "memberdata: members' footprints recorded", "module", f.module, "found", r.Found, "written", r.Added)
		}
		return err
	}}
}

// footprintsEvery is how often an instance looks whether the footprints
// are complete yet (Job): the first look comes within it after a start.
const footprintsEvery = 10 * time.Minute

func (r *Recorder) String() string {
	return fmt.Sprintf("footprints found: %d; written again: %d", r.Found, r.Added)
}

// AllWhere reads every row of t (a T) that scan finds of memberKey's, by
// f's footprints (Footprints.Where).
func AllWhere[T any](ctx context.Context, f *Footprints, t *storage.Table, memberKey string, scan storage.Query) ([]T, error) {
	qs, err := f.Where(ctx, memberKey, scan)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, q := range qs {
		rows, err := storage.All[T](ctx, t, q)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// RewriteWhere is Rewrite of the rows of memberKey's that scan finds,
// by f's footprints (Footprints.Where).
func RewriteWhere[T any](ctx context.Context, f *Footprints, t *storage.Table, memberKey string, scan storage.Query, change func(row *T) error) error {
	qs, err := f.Where(ctx, memberKey, scan)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if err := Rewrite(ctx, t, q, change); err != nil {
			return err
		}
	}
	return nil
}

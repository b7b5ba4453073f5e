// Package projection keeps derived rows (indexes, directories, mirrors) in
// step with the canonical rows they are computed from. A module declares
// once which derived rows a canonical row implies (Projection.Rows); it
// then gets maintenance on every write (Sync), the repair of a write that
// stopped half way (Repair, and Rebuild, which also finds orphans), and a
// rebuild from scratch.
//
// Derived rows are written after their canonical row, never in the same
// transaction (Azure batches one partition only), so a crash in between
// leaves them stale. Each derived row is a pure function of its canonical
// row, so writing it again is always safe: repairs are idempotent.
package projection

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/harmony/harmony/internal/storage"
)

// Row is one derived row: its table and the entity it must hold there.
type Row struct {
	Table  *storage.Table
	Entity storage.Entity
}

// RowOf marshals a row struct (with table tags) into a Row of t.
func RowOf(t *storage.Table, v any) (Row, error) {
	e, err := storage.Marshal(v)
	if err != nil {
		return Row{}, err
	}
	return Row{Table: t, Entity: e}, nil
}

// ID names the row across tables.
func (r Row) ID() string {
	return r.Table.Name() + "\x00" + r.Entity.PartitionKey + "\x00" + r.Entity.RowKey
}

// content is what two versions of a row are compared by.
func (r Row) content() []byte {
	b, _ := json.Marshal(r.Entity.Props) // props are plain values
	return b
}

// Apply moves the derived rows from had to want: it deletes the rows of
// had (and of written) that want lacks, and writes the rows of want that
// had lacks or holds with other content, or that written may have
// overwritten. written, when not nil, collects the rows written, for a
// caller that retries after losing a race (see the prompts indexes).
func Apply(ctx context.Context, had, want []Row, written map[string]Row) error {
	if written == nil {
		written = map[string]Row{}
	}
	wantIDs := make(map[string]bool, len(want))
	for _, r := range want {
		wantIDs[r.ID()] = true
	}
	hadContent := make(map[string][]byte, len(had))
	gone := map[string]Row{}
	for _, r := range had {
		hadContent[r.ID()] = r.content()
		if !wantIDs[r.ID()] {
			gone[r.ID()] = r
		}
	}
	for id, r := range written {
		if !wantIDs[id] {
			gone[id] = r
		}
	}
	for id, r := range gone {
		// A key the store refuses was never written (an intent may name
		// one whose write failed).
		err := r.Table.Delete(ctx, r.Entity.PartitionKey, r.Entity.RowKey, storage.AnyETag)
		if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrInvalidKey) {
			return err
		}
		delete(written, id)
	}
	for _, r := range want {
		id := r.ID()
		old, ok := hadContent[id]
		if _, rewritten := written[id]; ok && !rewritten && bytes.Equal(old, r.content()) {
			continue
		}
		if _, err := r.Table.Upsert(ctx, r.Entity, storage.Replace); err != nil {
			return err
		}
		written[id] = r
	}
	return nil
}

// Projection declares the derived rows of one canonical table.
type Projection[C any] struct {
	// Canonical is the table of the rows that are the truth.
	Canonical *storage.Table
	// Derived are the tables whose rows it owns, for Rebuild's sweep.
	Derived []*storage.Table
	// Rows are the derived rows c implies (none is fine: a guest has no
	// directory row). It must depend on c alone.
	Rows func(c C) ([]Row, error)
	// Canon reports whether a canonical table entity is one of the rows
	// Rows takes (a table may hold other rows too); nil means all.
	Canon func(e storage.Entity) bool
	// Derivative reports whether an entity of a derived table is a
	// derived row at all (an index's meta row is not); Rebuild deletes
	// derived rows no canonical row implies. nil means all.
	Derivative func(e storage.Entity) bool
	// Recorded names a string property of the canonical row in which the
	// projection records which derived rows it last wrote for it (their
	// keys and a digest of their content): Sync, Change and Repair follow
	// the row as stored (Follow), which stays right under any number of
	// concurrent writers of one row. The row struct must carry the
	// property (a string field with that table tag) so that the module's
	// own writes keep it, and every write of the row must be at its ETag.
	Recorded string
}

// Sync maintains the derived rows after a write of the canonical row:
// before is the row as the caller had it (nil when new), after as
// written (nil when deleted). It follows the row as stored; before
// serves only a row that has no record yet (written before its
// projection recorded), whose derived rows are taken to be before's,
// and a deleted row, whose derived rows go.
func (p *Projection[C]) Sync(ctx context.Context, before, after *C) error {
	_, err := p.sync(ctx, before, after, nil)
	return err
}

// sync is Sync; start, when not nil, is the row as stored at its ETag
// (just written), which saves the follow its first read.
func (p *Projection[C]) sync(ctx context.Context, before, after *C, start *storage.Entity) (Followed[C], error) {
	row := after
	if row == nil {
		row = before
	}
	if row == nil {
		return Followed[C]{Gone: true}, nil
	}
	e, err := storage.Marshal(*row)
	if err != nil {
		return Followed[C]{}, err
	}
	prior := func() ([]Row, error) {
		if before == nil {
			return nil, nil
		}
		b, err := storage.Marshal(*before)
		if err != nil {
			return nil, err
		}
		rec, _ := b.Props[p.Recorded].(string)
		return p.had(rec, before)
	}
	return p.follow(ctx, e.PartitionKey, e.RowKey, false, start, prior)
}

// ErrBehind marks a Change whose canonical row was written but whose
// derived rows were not: the write stands, and Repair or Rebuild brings
// them in step. A caller for whom the canonical row is all that matters
// logs it instead of failing the request.
var ErrBehind = errors.New("projection: derived rows not written")

// Stood is err as the writer of a canonical row answers it: nil when
// only the derived rows are behind (ErrBehind: the row is written, and
// Repair or Rebuild brings them in step), logged to log as msg with
// args; err otherwise. Failing such a write would tell the person their
// change was lost when it was saved, and invite them to make it twice.
func Stood(ctx context.Context, log *slog.Logger, err error, msg string, args ...any) error {
	if !errors.Is(err, ErrBehind) {
		return err
	}
	if log != nil {
		log.WarnContext(ctx, msg, append(args, "err", err)...)
	}
	return nil
}

// Change applies change to the canonical row at pk, rk under its ETag
// (storage.Change: read, change, write, again when another writer came
// first), then follows the row from the version it wrote (no second
// read). It returns the row as it then stands, with the ETag of its
// record's write (and any write that came in between). missing is the
// error for a row that is not there; change returning
// storage.ErrNoChange writes nothing. When only the derived rows failed,
// the error wraps ErrBehind and the written row is returned with it.
func (p *Projection[C]) Change(ctx context.Context, pk, rk string, missing error, change func(c *C) error) (C, error) {
	var before C
	unchanged := false
	after, err := storage.Change(ctx, p.Canonical, pk, rk, missing, func(c *C) error {
		before = *c
		err := change(c)
		if unchanged = errors.Is(err, storage.ErrNoChange); err != nil {
			return err
		}
		return p.intend(c, &before)
	})
	if err != nil || unchanged {
		return after, err
	}
	var start *storage.Entity
	if e, err := storage.Marshal(after); err == nil && e.ETag != "" {
		start = &e
	}
	f, err := p.sync(ctx, &before, &after, start)
	if err != nil {
		return after, fmt.Errorf("%w: %w", ErrBehind, err)
	}
	if f.Gone {
		return after, nil
	}
	return f.Row, nil
}

// Delete deletes the canonical row c at its ETag (one gone already is
// deleted), then the derived rows it implied. When only the derived rows
// failed, the error wraps ErrBehind (Rebuild sweeps them); another writer
// since is storage.ErrPrecondition, and nothing is deleted.
func (p *Projection[C]) Delete(ctx context.Context, c C) error {
	e, err := storage.Marshal(c)
	if err != nil {
		return err
	}
	if err := p.Canonical.Delete(ctx, e.PartitionKey, e.RowKey, e.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if err := p.Sync(ctx, &c, nil); err != nil {
		return fmt.Errorf("%w: %w", ErrBehind, err)
	}
	return nil
}

// stale marks rows whose stored content is unknown, so Apply rewrites
// them rather than trusting they match.
func stale(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		r.Entity.Props = map[string]any{"\x00unknown": true}
		out[i] = r
	}
	return out
}

// Repair rewrites the derived rows of the canonical row at pk, rk from
// what is stored, even where its record says they are right: the fix
// for a write that stopped between the canonical row and its derived
// rows, or for derived rows damaged since. A missing canonical row is
// nothing to repair here (its orphans are Rebuild's).
func (p *Projection[C]) Repair(ctx context.Context, pk, rk string) error {
	_, err := p.follow(ctx, pk, rk, true, nil, nil)
	return err
}

// Report counts what Rebuild did.
type Report struct {
	Canonical int // canonical rows read
	Written   int // derived rows added or corrected
	Removed   int // derived rows no canonical row implies, deleted
}

func (r Report) String() string {
	return fmt.Sprintf("%d canonical rows read; %d derived rows written, %d removed", r.Canonical, r.Written, r.Removed)
}

// Rebuild recomputes every derived row from the canonical table: it
// writes the missing and stale ones and deletes those no canonical row
// implies. It reads the tables whole (the derived ones into memory), so
// it is for operators, jobs and tests, not for requests.
func (p *Projection[C]) Rebuild(ctx context.Context) (Report, error) {
	var rep Report
	var follow [][2]string // recorded rows whose derived rows or record are behind
	have := map[string]Row{}
	for _, t := range p.Derived {
		err := t.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
			if p.Derivative != nil && !p.Derivative(e) {
				return nil
			}
			r := Row{Table: t, Entity: storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Props: e.Props}}
			have[r.ID()] = r
			return nil
		})
		if err != nil {
			return rep, err
		}
	}
	err := p.Canonical.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if p.Canon != nil && !p.Canon(e) {
			return nil
		}
		var c C
		if err := storage.Unmarshal(e, &c); err != nil {
			return err
		}
		rep.Canonical++
		want, err := p.Rows(c)
		if err != nil {
			return err
		}
		rec, err := p.recordOf(want)
		if err != nil {
			return err
		}
		stored, _ := e.Props[p.Recorded].(string)
		behind := rec != stored
		for _, r := range want {
			// Compare in the form a read returns (UTC times at storage
			// precision).
			norm, err := storage.Normalize(r.Entity)
			if err != nil {
				return err
			}
			r.Entity = norm
			old, ok := have[r.ID()]
			delete(have, r.ID())
			if ok && bytes.Equal(old.content(), r.content()) {
				continue
			}
			rep.Written++
			behind = true
		}
		if behind {
			follow = append(follow, [2]string{e.PartitionKey, e.RowKey})
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	// The rows are written by a follow, which also puts the record right
	// and holds against a writer of the row meanwhile.
	for _, k := range follow {
		if _, err := p.follow(ctx, k[0], k[1], true, nil, nil); err != nil {
			return rep, err
		}
	}
	for _, orphan := range have {
		err := orphan.Table.Delete(ctx, orphan.Entity.PartitionKey, orphan.Entity.RowKey, storage.AnyETag)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return rep, err
		}
		rep.Removed++
	}
	return rep, nil
}

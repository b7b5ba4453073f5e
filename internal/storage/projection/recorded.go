package projection

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/harmony/harmony/internal/storage"
)

// A projection with Recorded set keeps, in its canonical row, the keys of
// the derived rows it last wrote and a digest of their content. That
// makes following a row safe under concurrent writers, which moving
// "from before to after" is not: two writers of one row each move its
// rows from what they saw, the slower one last, and leave the older rows
// standing (a topic listed twice, or with yesterday's count).
//
// Follow reads the row, moves its derived rows from the recorded ones to
// the ones it implies, and records them at the ETag it read. When
// another write came in between, the record fails: Follow reads the row
// again and moves on from there, undoing what it wrote itself. So the
// last follower to record leaves exactly the rows of the row as it
// stands, and a slower follower never records over it.

// A follow that stops half way (a crash, a write that failed) must not
// leave a row it wrote unnamed: no later follow would remove it. So before it writes a row the record
// does not name, a follow records an intent: the rows recorded and the
// rows it is about to write, marked pending. The next follow moves from
// all of them. A module's own write of the row can carry the intent
// (Intend; Change does), which spares the follow that write.

// record is the recorded state: the derived rows' keys, each with its
// table's place in Derived (not its name, which carries the store's
// prefix: a store copied under another prefix keeps its records; a new
// derived table goes at the end of Derived), and a digest of their
// content. An intent is Pending and has no digest: it names rows that
// may exist, and never says they are right.
type record struct {
	Sum     string      `json:"s"`
	Rows    []recordRow `json:"r"`
	Pending bool        `json:"w,omitempty"`
}

type recordRow struct {
	Table int    `json:"t"`
	PK    string `json:"p"`
	RK    string `json:"k"`
}

// recordOf is the record of rows (normalized, as a read returns them).
func (p *Projection[C]) recordOf(rows []Row) (string, error) {
	h := sha256.New()
	rec := record{Rows: make([]recordRow, 0, len(rows))}
	for _, r := range rows {
		t, err := p.tableOf(r)
		if err != nil {
			return "", err
		}
		norm, err := storage.Normalize(r.Entity)
		if err != nil {
			return "", err
		}
		r.Entity = norm
		h.Write([]byte(r.ID()))
		h.Write(r.content())
		rec.Rows = append(rec.Rows, recordRow{Table: t, PK: r.Entity.PartitionKey, RK: r.Entity.RowKey})
	}
	rec.Sum = hex.EncodeToString(h.Sum(nil)[:12])
	b, err := json.Marshal(rec)
	return string(b), err
}

// tableOf is the place of r's table in Derived, which a record names.
func (p *Projection[C]) tableOf(r Row) (int, error) {
	t := slices.IndexFunc(p.Derived, func(d *storage.Table) bool { return d.Name() == r.Table.Name() })
	if t < 0 {
		return 0, fmt.Errorf("projection: a row of %s, which is not among Derived", r.Table.Name())
	}
	return t, nil
}

// intentOf is the intent of moving from had to want: the keys of both,
// pending. needed is false when had names every row of want already
// (a change of content only, or an intent recorded before).
func (p *Projection[C]) intentOf(had, want []Row) (intent string, needed bool, err error) {
	rec := record{Pending: true}
	named := map[recordRow]bool{}
	add := func(rows []Row) (added bool, err error) {
		for _, r := range rows {
			t, err := p.tableOf(r)
			if err != nil {
				return false, err
			}
			k := recordRow{Table: t, PK: r.Entity.PartitionKey, RK: r.Entity.RowKey}
			if !named[k] {
				named[k] = true
				rec.Rows = append(rec.Rows, k)
				added = true
			}
		}
		return added, nil
	}
	if _, err := add(had); err != nil {
		return "", false, err
	}
	if needed, err = add(want); err != nil || !needed {
		return "", false, err
	}
	b, err := json.Marshal(rec)
	return string(b), true, err
}

// Intend puts into c's record the intent of the follow that will come
// after c is written: the rows recorded now and those c implies. A
// module that writes the canonical row itself (an insert, a
// transaction) calls it on the row it is about to write, so that the
// follow after the write need not record the intent first. Change does
// it for its own write.
func (p *Projection[C]) Intend(c *C) error {
	return p.intend(c, nil)
}

// intend is Intend; before, when not nil, is the row as read, whose
// rows a row without a record is taken to have.
func (p *Projection[C]) intend(c *C, before *C) error {
	e, err := storage.Marshal(*c)
	if err != nil {
		return err
	}
	want, err := p.Rows(*c)
	if err != nil {
		return err
	}
	stored, _ := e.Props[p.Recorded].(string)
	had, err := p.had(stored, before)
	if err != nil {
		return err
	}
	intent, needed, err := p.intentOf(had, want)
	if err != nil || !needed {
		return err
	}
	e.Props[p.Recorded] = intent
	return storage.Unmarshal(e, c)
}

// had are the derived rows a row is taken to have, their content
// unknown: those its record names, or, without a record (written before
// its projection recorded), those before implies (none without before).
func (p *Projection[C]) had(record string, before *C) ([]Row, error) {
	switch {
	case record != "":
		return p.recorded(record), nil
	case before != nil:
		rows, err := p.Rows(*before)
		return stale(rows), err
	}
	return nil, nil
}

// recorded are the rows a record names, their content unknown. An
// unreadable record names none: Rebuild sweeps what it named.
func (p *Projection[C]) recorded(s string) []Row {
	var rec record
	if s == "" || json.Unmarshal([]byte(s), &rec) != nil {
		return nil
	}
	var rows []Row
	for _, r := range rec.Rows {
		if r.Table < 0 || r.Table >= len(p.Derived) {
			continue
		}
		rows = append(rows, Row{Table: p.Derived[r.Table], Entity: storage.Entity{PartitionKey: r.PK, RowKey: r.RK}})
	}
	return stale(rows)
}

// recorder is the loop under a recorded projection: its record is the
// keys and digest of its rows.
func (p *Projection[C]) recorder() *Recorder[C] {
	return &Recorder[C]{
		Canonical: p.Canonical,
		Property:  p.Recorded,
		Rows:      p.Rows,
		Record:    func(_ C, want []Row) (string, error) { return p.recordOf(want) },
		Recorded:  func(_ C, rec string) ([]Row, error) { return p.recorded(rec), nil },
		Intent:    func(_ C, had, want []Row) (string, bool, error) { return p.intentOf(had, want) },
	}
}

// Follow brings the derived rows of the canonical row at pk, rk in step
// with the row as stored, under any number of concurrent writers (see
// Recorded). It costs a read of the row, the derived rows' writes and
// one write of the record; nothing past the read when the record is
// already right. A missing row has nothing to follow, but what this call
// wrote for it goes.
func (p *Projection[C]) Follow(ctx context.Context, pk, rk string) error {
	_, err := p.follow(ctx, pk, rk, false, nil, nil)
	return err
}

// follow is Follow; force rewrites the rows even when the record says
// they are right (a repair), start is the row as stored at its ETag when
// the caller has it, and prior gives the rows a row without a record is
// taken to have (one written before its projection recorded), or a
// deleted row had.
func (p *Projection[C]) follow(ctx context.Context, pk, rk string, force bool, start *storage.Entity, prior func() ([]Row, error)) (Followed[C], error) {
	if p.Recorded == "" {
		return Followed[C]{}, fmt.Errorf("projection: %s has no Recorded property", p.Canonical.Name())
	}
	return p.recorder().follow(ctx, pk, rk, force, start, prior)
}

// Recorder is the recorded-state loop itself, for a module whose record
// says more than which rows it wrote: the prompt catalog records the
// fields its index rows come from, and keeps tag counts and a bucket
// marker from the record a follow replaced. A recorded Projection is a
// Recorder whose record is its rows' keys and digest.
type Recorder[C any] struct {
	// Canonical holds the rows; Property is the string property of each
	// that holds its record (the row struct must carry it, and every
	// write of the row must be at its ETag).
	Canonical *storage.Table
	Property  string
	// Rows are the derived rows c implies; Record is the record that
	// says c's rows are written (it must change whenever they do).
	Rows   func(c C) ([]Row, error)
	Record func(c C, rows []Row) (string, error)
	// Recorded are the rows a stored record names (c gives what the
	// record leaves out; content may be unknown: mark it with Stale).
	Recorded func(c C, record string) ([]Row, error)
	// Moving, when set, runs before the rows move on each attempt, with
	// the record they move from (the catalog raises its top bucket
	// before a row lands above it).
	Moving func(ctx context.Context, c C, from string) error
	// Intent, when set, is the record to write before the rows move from
	// had to want, naming both (see Intend); needed false skips it.
	Intent func(c C, had, want []Row) (intent string, needed bool, err error)
	// Attempts bounds the follow's attempts (default 16).
	Attempts int
}

// Followed is what a follow did: the row as it stands (its new record
// and ETag included), and the record that replaced From. Moved is false
// when the record was right already, and nothing was written; Gone says
// the row is not there.
type Followed[C any] struct {
	Row   C
	From  string
	Moved bool
	Gone  bool
}

// Follow brings the derived rows of the row at pk, rk in step with the
// row as stored: read it, move its derived rows from the recorded ones to
// the ones it implies, and record them at the ETag read. When another
// write came in between, the record fails and the next attempt reads
// again, rewriting every row it wants and removing those it wrote that
// the row no longer implies. So the last follower to record leaves
// exactly the rows of the row as it stands.
func (r *Recorder[C]) Follow(ctx context.Context, pk, rk string) (Followed[C], error) {
	return r.follow(ctx, pk, rk, false, nil, nil)
}

// Repair is Follow that rewrites the rows even when the record says they
// are right.
func (r *Recorder[C]) Repair(ctx context.Context, pk, rk string) (Followed[C], error) {
	return r.follow(ctx, pk, rk, true, nil, nil)
}

// follow is Follow and Repair (force). start, when not nil, is the row
// as stored at its ETag, which spares the first attempt its read; prior,
// when not nil, gives the rows a row without a record is taken to have,
// and those a row gone meanwhile had.
func (r *Recorder[C]) follow(ctx context.Context, pk, rk string, force bool, start *storage.Entity, prior func() ([]Row, error)) (Followed[C], error) {
	attempts := r.Attempts
	if attempts == 0 {
		attempts = followAttempts
	}
	var out Followed[C]
	written := map[string]Row{} // what the earlier attempts wrote
	err := storage.Optimistic(ctx, attempts, func(ctx context.Context) error {
		out = Followed[C]{}
		var e storage.Entity
		var err error
		if start != nil {
			e, start = *start, nil
		} else {
			e, err = r.Canonical.Get(ctx, pk, rk)
		}
		if errors.Is(err, storage.ErrNotFound) {
			out.Gone = true
			var had []Row
			if prior != nil {
				if had, err = prior(); err != nil {
					return err
				}
			}
			return Apply(ctx, stale(had), nil, written)
		}
		if err != nil {
			return err
		}
		var c C
		if err := storage.Unmarshal(e, &c); err != nil {
			return err
		}
		want, err := r.Rows(c)
		if err != nil {
			return err
		}
		rec, err := r.Record(c, want)
		if err != nil {
			return err
		}
		stored, _ := e.Props[r.Property].(string)
		if rec == stored && !force {
			out.Row = c
			return nil
		}
		var had []Row
		switch {
		case stored != "":
			had, err = r.Recorded(c, stored)
		case prior != nil:
			had, err = prior()
		}
		if err != nil {
			return err
		}
		if force {
			// A repair, or a retry: another attempt may have deleted a row
			// this one wants, so every wanted row is written.
			had = stale(had)
		}
		force = true
		if r.Intent != nil {
			intent, needed, err := r.Intent(c, had, want)
			if err != nil {
				return err
			}
			if needed {
				if e.ETag, err = r.record(ctx, pk, rk, intent, e.ETag); err != nil {
					return err
				}
			}
		}
		if r.Moving != nil {
			if err := r.Moving(ctx, c, stored); err != nil {
				return err
			}
		}
		if err := Apply(ctx, had, want, written); err != nil {
			return err
		}
		etag, err := r.record(ctx, pk, rk, rec, e.ETag)
		if err != nil {
			return err
		}
		e.Props[r.Property], e.ETag = rec, etag
		if err := storage.Unmarshal(e, &c); err != nil {
			return err
		}
		out = Followed[C]{Row: c, From: stored, Moved: true}
		return nil
	})
	return out, err
}

// record writes rec into the row's record at etag. A row deleted
// meanwhile is a lost race too: the next attempt removes what this one
// wrote.
func (r *Recorder[C]) record(ctx context.Context, pk, rk, rec, etag string) (string, error) {
	etag, err := r.Canonical.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{r.Property: rec}}, storage.Merge, etag)
	if errors.Is(err, storage.ErrNotFound) {
		return "", fmt.Errorf("%w: the row went meanwhile", storage.ErrPrecondition)
	}
	return etag, err
}

// Stale marks rows whose stored content is unknown, so Apply rewrites
// them rather than trusting they match.
func Stale(rows []Row) []Row { return stale(rows) }

// followAttempts bounds a follow's attempts: each lost attempt means
// another writer of the row came in between, and a busy topic has dozens
// at once. A follower that gives up returns storage.ErrConflict. Each
// attempt removes what the earlier ones wrote that the row no longer
// implies, and a row is written only once a record or intent names it;
// but the last attempt's rows, written after a faster follower recorded
// the newer rows and deleted the older ones, can stand until Rebuild.
const followAttempts = 16

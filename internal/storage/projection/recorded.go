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

// record is the recorded state: the derived rows' IDs (table, PK, RK)
// and a digest of their content.
type record struct {
	Sum  string      `json:"s"`
	Rows [][3]string `json:"r"`
}

// recordOf is the record of rows (normalized, as a read returns them).
func recordOf(rows []Row) (string, error) {
	h := sha256.New()
	rec := record{Rows: make([][3]string, 0, len(rows))}
	for _, r := range rows {
		norm, err := storage.Normalize(r.Entity)
		if err != nil {
			return "", err
		}
		r.Entity = norm
		h.Write([]byte(r.ID()))
		h.Write(r.content())
		rec.Rows = append(rec.Rows, [3]string{r.Table.Name(), r.Entity.PartitionKey, r.Entity.RowKey})
	}
	rec.Sum = hex.EncodeToString(h.Sum(nil)[:12])
	b, err := json.Marshal(rec)
	return string(b), err
}

// recorded are the rows e's record names, their content unknown. An
// unreadable record names none: Rebuild sweeps what it named.
func (p *Projection[C]) recorded(e storage.Entity) []Row {
	s, _ := e.Props[p.Recorded].(string)
	var rec record
	if s == "" || json.Unmarshal([]byte(s), &rec) != nil {
		return nil
	}
	var rows []Row
	for _, id := range rec.Rows {
		i := slices.IndexFunc(p.Derived, func(t *storage.Table) bool { return t.Name() == id[0] })
		if i < 0 {
			continue
		}
		rows = append(rows, Row{Table: p.Derived[i], Entity: storage.Entity{PartitionKey: id[1], RowKey: id[2]}})
	}
	return stale(rows)
}

// Follow brings the derived rows of the canonical row at pk, rk in step
// with the row as stored, under any number of concurrent writers (see
// Recorded). It costs a read of the row, the derived rows' writes and
// one write of the record; nothing past the read when the record is
// already right. A missing row has nothing to follow, but what this call
// wrote for it goes.
func (p *Projection[C]) Follow(ctx context.Context, pk, rk string) error {
	return p.follow(ctx, pk, rk, false, nil)
}

// follow is Follow; force rewrites the rows even when the record says
// they are right (a repair), and unrecorded are the rows a row without a
// record is taken to have (one written before its projection recorded).
func (p *Projection[C]) follow(ctx context.Context, pk, rk string, force bool, unrecorded []Row) error {
	if p.Recorded == "" {
		return fmt.Errorf("projection: Follow of %s without Recorded", p.Canonical.Name())
	}
	written := map[string]Row{} // what the earlier attempts wrote
	return storage.Optimistic(ctx, followAttempts, func(ctx context.Context) error {
		e, err := p.Canonical.Get(ctx, pk, rk)
		if errors.Is(err, storage.ErrNotFound) {
			return Apply(ctx, nil, nil, written)
		}
		if err != nil {
			return err
		}
		var c C
		if err := storage.Unmarshal(e, &c); err != nil {
			return err
		}
		want, err := p.Rows(c)
		if err != nil {
			return err
		}
		rec, err := recordOf(want)
		if err != nil {
			return err
		}
		if rec == e.Props[p.Recorded] && !force {
			return nil
		}
		// Another attempt may have deleted a row this one wants: every
		// attempt writes every wanted row (the recorded ones are stale).
		force = true
		had := p.recorded(e)
		if e.Props[p.Recorded] == nil || e.Props[p.Recorded] == "" {
			had = stale(unrecorded)
		}
		if err := Apply(ctx, had, want, written); err != nil {
			return err
		}
		_, err = p.Canonical.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{p.Recorded: rec}}, storage.Merge, e.ETag)
		return err
	})
}

// followAttempts bounds Follow's attempts: each lost attempt means another
// writer of the row came in between, and a busy topic has dozens at once.
// A follower that gives up returns storage.ErrConflict and may leave the
// rows it wrote standing; Rebuild removes them.
const followAttempts = 16

// followOne follows the row that after (or, deleted, before) names. A
// row that has no record yet is taken to have before's rows.
func (p *Projection[C]) followOne(ctx context.Context, before, after *C) error {
	row := after
	if row == nil {
		row = before
	}
	if row == nil {
		return nil
	}
	e, err := storage.Marshal(*row)
	if err != nil {
		return err
	}
	var unrecorded []Row
	if before != nil {
		if unrecorded, err = p.Rows(*before); err != nil {
			return err
		}
	}
	return p.follow(ctx, e.PartitionKey, e.RowKey, false, unrecorded)
}

package storage

import (
	"context"
	"errors"
	"slices"

	"golang.org/x/sync/errgroup"
)

// Typed helpers: the get, write and read-modify-write steps every module
// takes on its row structs (struct with table tags, see Marshal), written
// once. A row's ETag field, when it has one, holds the ETag read or
// written.

// Get reads one row into a T; ErrNotFound when it is missing.
func Get[T any](ctx context.Context, t *Table, pk, rk string) (T, error) {
	var v T
	e, err := t.Get(ctx, pk, rk)
	if err != nil {
		return v, err
	}
	err = Unmarshal(e, &v)
	return v, err
}

// Find is Get for a row whose absence the caller names: a missing row is
// missing (with nil, the zero T and no error), any other failure is
// returned as it is.
func Find[T any](ctx context.Context, t *Table, pk, rk string, missing error) (T, error) {
	v, err := Get[T](ctx, t, pk, rk)
	if errors.Is(err, ErrNotFound) {
		var zero T
		return zero, missing
	}
	return v, err
}

// Exists reports whether the row (pk, rk) is there: a mark whose presence
// is all it says (someone follows, someone waits for an item).
func Exists(ctx context.Context, t *Table, pk, rk string) (bool, error) {
	_, err := t.Get(ctx, pk, rk)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Forget deletes the row (pk, rk) whatever its ETag, and is content when
// it is not there: a mark taken back.
func Forget(ctx context.Context, t *Table, pk, rk string) error {
	err := t.Delete(ctx, pk, rk, AnyETag)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Insert writes a new row; ErrExists when its keys are taken. It returns
// the new ETag.
func Insert[T any](ctx context.Context, t *Table, v T) (string, error) {
	e, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return t.Insert(ctx, e)
}

// Upsert writes a row whether or not it exists (replacing it) and returns
// the new ETag.
func Upsert[T any](ctx context.Context, t *Table, v T) (string, error) {
	e, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return t.Upsert(ctx, e, Replace)
}

// Update replaces an existing row if ifMatch matches its ETag (or is
// AnyETag) and returns the new ETag.
func Update[T any](ctx context.Context, t *Table, v T, ifMatch string) (string, error) {
	e, err := Marshal(v)
	if err != nil {
		return "", err
	}
	return t.Update(ctx, e, Replace, ifMatch)
}

// ErrNoChange, returned by Modify's change, means the row is as it should
// be: Modify writes nothing and returns the row as read, with no error.
var ErrNoChange = errors.New("storage: no change")

// Modify reads the row (pk, rk) into a T, lets change edit it, and writes
// it back at the ETag read, starting over when someone wrote in between (up
// to DefaultAttempts; then ErrConflict). exists is false for a missing row:
// v is then the zero T with its keys set, change may fill it in (the write
// is an insert) or return an error such as ErrNotFound. change must only
// edit v, since it may run more than once. Any error change returns ends
// Modify with it, and nothing is written. Modify returns the row written,
// its ETag field (if any) set.
func Modify[T any](ctx context.Context, t *Table, pk, rk string, change func(v *T, exists bool) error) (T, error) {
	var out T
	err := Optimistic(ctx, DefaultAttempts, func(ctx context.Context) error {
		var v T
		e, err := t.Get(ctx, pk, rk)
		exists := err == nil
		switch {
		case errors.Is(err, ErrNotFound):
			e = Entity{PartitionKey: pk, RowKey: rk}
		case err != nil:
			return err
		}
		if err := Unmarshal(e, &v); err != nil {
			return err
		}
		if err := change(&v, exists); errors.Is(err, ErrNoChange) {
			out = v
			return nil
		} else if err != nil {
			return err
		}
		next, err := Marshal(v)
		if err != nil {
			return err
		}
		next.PartitionKey, next.RowKey = pk, rk
		var etag string
		if exists {
			etag, err = t.Update(ctx, next, Replace, e.ETag)
		} else {
			etag, err = t.Insert(ctx, next)
		}
		if err != nil {
			return err
		}
		next.ETag = etag
		return Unmarshal(next, &out)
	})
	return out, err
}

// Change is Modify for a row that must exist: missing is returned (and
// nothing written) when there is none, so change sees only rows that do.
// missing may be ErrNoChange, for "nothing to do then".
func Change[T any](ctx context.Context, t *Table, pk, rk string, missing error, change func(v *T) error) (T, error) {
	return Modify(ctx, t, pk, rk, func(v *T, exists bool) error {
		if !exists {
			return missing
		}
		return change(v)
	})
}

// Tx collects one transaction's operations on row structs. Each step
// marshals its row; Commit writes nothing when any of them did not
// marshal, so a caller checks one error instead of one per row.
type Tx struct {
	ops []TxOp
	err error
}

// add marshals row into an operation of kind.
func (tx *Tx) add(kind TxKind, row any, mode UpdateMode, ifMatch string) *Tx {
	e, err := Marshal(row)
	if err != nil {
		tx.err = errors.Join(tx.err, err)
		return tx
	}
	tx.ops = append(tx.ops, TxOp{Kind: kind, Entity: e, Mode: mode, IfMatch: ifMatch})
	return tx
}

// Insert adds row as a new row (ErrExists if its keys are taken).
func (tx *Tx) Insert(row any) *Tx { return tx.add(TxInsert, row, 0, "") }

// Replace replaces an existing row if ifMatch matches its ETag (or is
// AnyETag).
func (tx *Tx) Replace(row any, ifMatch string) *Tx {
	return tx.add(TxUpdate, row, Replace, ifMatch)
}

// Upsert writes row whether or not it exists, replacing it.
func (tx *Tx) Upsert(row any) *Tx { return tx.add(TxUpsert, row, Replace, "") }

// Delete removes the row (pk, rk) if ifMatch matches its ETag.
func (tx *Tx) Delete(pk, rk, ifMatch string) *Tx {
	tx.ops = append(tx.ops, TxOp{Kind: TxDelete, Entity: Entity{PartitionKey: pk, RowKey: rk}, IfMatch: ifMatch})
	return tx
}

// Commit applies the operations atomically on t (Table.Transact), or
// returns the first marshal error and writes nothing.
func (tx *Tx) Commit(ctx context.Context, t *Table) error {
	if tx.err != nil {
		return tx.err
	}
	return t.Transact(ctx, tx.ops)
}

// DeletePartition deletes every row of partition pk of t, MaxTxOps to a
// transaction: a thread, a list, whatever a partition holds and goes
// as one. A batch that fails because a row in it went meanwhile is done
// a row at a time; a row already gone is not an error.
func DeletePartition(ctx context.Context, t *Table, pk string) error {
	var keys []string
	err := t.QueryAll(ctx, Query{PartitionKey: pk, Select: []string{"RowKey"}}, func(e Entity) error {
		keys = append(keys, e.RowKey)
		return nil
	})
	if err != nil {
		return err
	}
	for batch := range slices.Chunk(keys, MaxTxOps) {
		var tx Tx
		for _, rk := range batch {
			tx.Delete(pk, rk, AnyETag)
		}
		err := tx.Commit(ctx, t)
		if !errors.Is(err, ErrNotFound) {
			if err != nil {
				return err
			}
			continue
		}
		for _, rk := range batch {
			if err := t.Delete(ctx, pk, rk, AnyETag); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// Each runs read(ctx, i) for every i below n, at most limit at once: a
// page's point reads, so it waits for the slowest few, not for all of
// them in turn. The first error cancels ctx for the others and is what
// Each returns. Each read owns its index: results go in a slice at i.
func Each(ctx context.Context, n, limit int, read func(ctx context.Context, i int) error) error {
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(limit)
	for i := range n {
		eg.Go(func() error { return read(gctx, i) })
	}
	return eg.Wait()
}

// Keep is the items keep answers true for, in their order, asking at
// most limit at once (Each).
func Keep[T any](ctx context.Context, items []T, limit int, keep func(ctx context.Context, v T) (bool, error)) ([]T, error) {
	kept := make([]bool, len(items))
	err := Each(ctx, len(items), limit, func(ctx context.Context, i int) error {
		var err error
		kept[i], err = keep(ctx, items[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []T
	for i, v := range items {
		if kept[i] {
			out = append(out, v)
		}
	}
	return out, nil
}

package storage

import (
	"context"
	"errors"
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

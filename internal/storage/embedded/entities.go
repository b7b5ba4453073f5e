package embedded

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/harmony/harmony/internal/storage"
)

// Get implements storage.Backend.
func (b *Backend) Get(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	if err := ctx.Err(); err != nil {
		return storage.Entity{}, err
	}
	var e storage.Entity
	err := b.db.View(func(tx *bolt.Tx) error {
		tb, err := tableBucket(tx, table)
		if err != nil {
			return err
		}
		k := rowKey(pk, rk)
		v := tb.Get(k)
		if v == nil {
			return errEntityNotFound(pk, rk)
		}
		r, err := parseRecord(v)
		if err != nil {
			return err
		}
		e, err = decodeEntity(k, r, nil)
		return err
	})
	return e, err
}

// Insert implements storage.Backend.
func (b *Backend) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	var etag string
	err := b.write(ctx, table, func(w *writeTx) (err error) {
		etag, err = w.apply(storage.TxInsert, e, storage.Merge, "")
		return err
	})
	return etag, err
}

// Update implements storage.Backend.
func (b *Backend) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	var etag string
	err := b.write(ctx, table, func(w *writeTx) (err error) {
		etag, err = w.apply(storage.TxUpdate, e, mode, ifMatch)
		return err
	})
	return etag, err
}

// Upsert implements storage.Backend.
func (b *Backend) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	var etag string
	err := b.write(ctx, table, func(w *writeTx) (err error) {
		etag, err = w.apply(storage.TxUpsert, e, mode, "")
		return err
	})
	return etag, err
}

// Delete implements storage.Backend.
func (b *Backend) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	e := storage.Entity{PartitionKey: pk, RowKey: rk}
	return b.write(ctx, table, func(w *writeTx) error {
		_, err := w.apply(storage.TxDelete, e, storage.Merge, ifMatch)
		return err
	})
}

// Transact implements storage.Backend: all ops run in one bbolt write
// transaction, and returning an error rolls every one of them back.
func (b *Backend) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	return b.write(ctx, table, func(w *writeTx) error {
		for i, op := range ops {
			if _, err := w.apply(op.Kind, op.Entity, op.Mode, op.IfMatch); err != nil {
				return fmt.Errorf("transaction op %d: %w", i, err)
			}
		}
		return nil
	})
}

// writeTx is one bbolt write transaction on one table. Every write in it
// shares one Timestamp, as the entities of an Azure batch do.
type writeTx struct {
	tb    *bolt.Bucket
	stamp time.Time
}

func (b *Backend) write(ctx context.Context, table string, fn func(*writeTx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		tb, err := tableBucket(tx, table)
		if err != nil {
			return err
		}
		return fn(&writeTx{tb: tb, stamp: time.Now().UTC().Truncate(100 * time.Nanosecond)})
	})
}

// apply performs one write with Azure's rules and returns the new ETag ("" for
// a delete).
func (w *writeTx) apply(kind storage.TxKind, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	k := rowKey(e.PartitionKey, e.RowKey)
	var old *record
	if v := w.tb.Get(k); v != nil {
		r, err := parseRecord(v)
		if err != nil {
			return "", err
		}
		old = &r
	}
	switch kind {
	case storage.TxInsert:
		if old != nil {
			return "", fmt.Errorf("%w: entity (%q, %q)", storage.ErrExists, e.PartitionKey, e.RowKey)
		}
		return w.put(k, e.Props)
	case storage.TxUpdate, storage.TxUpsert:
		if old == nil {
			if kind == storage.TxUpdate {
				return "", errEntityNotFound(e.PartitionKey, e.RowKey)
			}
			return w.put(k, e.Props)
		}
		if kind == storage.TxUpdate {
			if err := checkETag(*old, ifMatch, e); err != nil {
				return "", err
			}
		}
		props := e.Props
		if mode == storage.Merge {
			merged, err := merge(*old, e)
			if err != nil {
				return "", err
			}
			props = merged
		}
		return w.put(k, props)
	case storage.TxDelete:
		if old == nil {
			return "", errEntityNotFound(e.PartitionKey, e.RowKey)
		}
		if err := checkETag(*old, ifMatch, e); err != nil {
			return "", err
		}
		return "", w.tb.Delete(k)
	}
	return "", fmt.Errorf("%w: unknown operation kind %d", storage.ErrInvalidTransaction, kind)
}

// put stores props as the entity's new version under a fresh ETag. The
// bucket's sequence is bumped inside the writer's exclusive transaction, so
// ETags are unique even across concurrent writers.
func (w *writeTx) put(k []byte, props map[string]any) (string, error) {
	seq, err := w.tb.NextSequence()
	if err != nil {
		return "", err
	}
	// bbolt keeps a reference to the value until commit: no buffer reuse.
	rec, err := encodeRecord(make([]byte, 0, 64+16*len(props)), seq, w.stamp, props)
	if err != nil {
		return "", err
	}
	if err := w.tb.Put(k, rec); err != nil {
		return "", err
	}
	return formatETag(seq), nil
}

func checkETag(old record, ifMatch string, e storage.Entity) error {
	if ifMatch == storage.AnyETag || ifMatch == formatETag(old.seq) {
		return nil
	}
	return fmt.Errorf("%w: entity (%q, %q)", storage.ErrPrecondition, e.PartitionKey, e.RowKey)
}

// merge overlays e's properties on the stored ones. The front checked e on
// its own; Azure checks the merged entity too, so the limits are checked again.
func merge(old record, e storage.Entity) (map[string]any, error) {
	props, err := decodeProps(old)
	if err != nil {
		return nil, err
	}
	for name, v := range e.Props {
		props[name] = v
	}
	if len(props) > storage.MaxProperties {
		return nil, fmt.Errorf("%w: merged entity has %d properties, at most %d", storage.ErrTooLarge, len(props), storage.MaxProperties)
	}
	e.Props = props
	if storage.EntitySize(e) > storage.MaxEntityBytes {
		return nil, fmt.Errorf("%w: merged entity over 1 MiB", storage.ErrTooLarge)
	}
	return props, nil
}

func errEntityNotFound(pk, rk string) error {
	return fmt.Errorf("%w: entity (%q, %q)", storage.ErrNotFound, pk, rk)
}

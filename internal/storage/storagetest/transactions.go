package storagetest

import (
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func testTransactions(t *testing.T, s *suite) {
	tbl := s.table(t)
	orig := map[string]any{"V": "orig", "A": int32(1)}
	// Each case works in its own partition, named after it.
	cases := []struct {
		name string
		run  func(t *testing.T, pk string)
	}{
		{"AllOpsApplied", func(t *testing.T, pk string) {
			etags := map[string]string{}
			for _, rk := range []string{"u1", "u2", "d1", "d2", "m1", "r1"} {
				etags[rk] = insert(t, tbl, ent(pk, rk, orig))
			}
			ops := []storage.TxOp{
				{Kind: storage.TxInsert, Entity: ent(pk, "n1", map[string]any{"A": int32(9)})},
				{Kind: storage.TxUpdate, Entity: ent(pk, "u1", map[string]any{"B": true}), Mode: storage.Merge, IfMatch: etags["u1"]},
				{Kind: storage.TxUpdate, Entity: ent(pk, "u2", map[string]any{"B": true}), Mode: storage.Replace, IfMatch: storage.AnyETag},
				{Kind: storage.TxDelete, Entity: ent(pk, "d1", nil), IfMatch: etags["d1"]},
				{Kind: storage.TxDelete, Entity: ent(pk, "d2", nil), IfMatch: storage.AnyETag},
				{Kind: storage.TxUpsert, Entity: ent(pk, "m1", map[string]any{"B": true}), Mode: storage.Merge},
				{Kind: storage.TxUpsert, Entity: ent(pk, "r1", map[string]any{"B": true}), Mode: storage.Replace},
				{Kind: storage.TxUpsert, Entity: ent(pk, "n2", map[string]any{"B": true}), Mode: storage.Merge},
			}
			must(t, tbl.Transact(t.Context(), ops), "transaction")
			merged := map[string]any{"V": "orig", "A": int32(1), "B": true}
			for rk, want := range map[string]map[string]any{
				"n1": {"A": int32(9)}, "u1": merged, "u2": {"B": true}, "m1": merged, "r1": {"B": true}, "n2": {"B": true},
			} {
				e := get(t, tbl, pk, rk)
				checkProps(t, e.Props, want, rk)
				if e.ETag == etags[rk] {
					t.Errorf("%s kept its ETag through the transaction", rk)
				}
			}
			wantMissing(t, tbl, pk, "d1")
			wantMissing(t, tbl, pk, "d2")
		}},
		{"Exactly100OpsAccepted", func(t *testing.T, pk string) {
			es := rows(pk, storage.MaxTxOps)
			must(t, tbl.Transact(t.Context(), inserts(es)), "100 inserts")
			wantQuery(t, tbl, storage.Query{PartitionKey: pk}, es, "after the transaction")
		}},
		{"Over100OpsRejected", func(t *testing.T, pk string) {
			err := tbl.Transact(t.Context(), inserts(rows(pk, storage.MaxTxOps+1)))
			wantErr(t, err, storage.ErrInvalidTransaction, "101 inserts")
			wantQuery(t, tbl, storage.Query{PartitionKey: pk}, nil, "after the rejected transaction")
		}},
		{"Over4MiBRejected", func(t *testing.T, pk string) {
			// 70 entities of ~64 KiB each: every one is valid, together they
			// exceed the 4 MiB batch limit Azure enforces on the request.
			big := strings.Repeat("x", 32<<10-8)
			es := make([]storage.Entity, 70)
			for i := range es {
				es[i] = ent(pk, storage.Pad(int64(i), 3), map[string]any{"S": big})
			}
			wantErr(t, tbl.Transact(t.Context(), inserts(es)), storage.ErrTooLarge, "a 4.4 MiB transaction")
			wantQuery(t, tbl, storage.Query{PartitionKey: pk}, nil, "after the rejected transaction")
		}},
		{"MixedPartitionKeysRejected", func(t *testing.T, pk string) {
			// Azurite accepts these; the client-side check must catch them.
			ops := inserts([]storage.Entity{ent(pk, "a", nil), ent(pk+"2", "b", nil)})
			wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrInvalidTransaction, "two partition keys")
			wantMissing(t, tbl, pk, "a")
			wantMissing(t, tbl, pk+"2", "b")
		}},
		{"EmptyRejected", func(t *testing.T, pk string) {
			wantErr(t, tbl.Transact(t.Context(), nil), storage.ErrInvalidTransaction, "no operations")
		}},
		{"DuplicateRowKeyRejected", func(t *testing.T, pk string) {
			ops := []storage.TxOp{
				{Kind: storage.TxInsert, Entity: ent(pk, "a", nil)},
				{Kind: storage.TxUpsert, Entity: ent(pk, "a", nil)},
			}
			wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrInvalidTransaction, "one row twice")
			wantMissing(t, tbl, pk, "a")
		}},
		{"InvalidEntityRejected", func(t *testing.T, pk string) {
			for _, c := range []struct {
				bad    storage.Entity
				target error
			}{
				{ent(pk, "bad/key", nil), storage.ErrInvalidKey},
				{withProps(pk, "wide", storage.MaxProperties+1), storage.ErrTooLarge},
				{ent(pk, "type", map[string]any{"V": uint8(1)}), storage.ErrInvalid},
			} {
				ops := inserts([]storage.Entity{ent(pk, "ok", nil), c.bad})
				wantErr(t, tbl.Transact(t.Context(), ops), c.target, "transaction with "+c.bad.RowKey)
				wantMissing(t, tbl, pk, "ok")
			}
		}},
		{"RollbackOnFailure", func(t *testing.T, pk string) {
			etags := map[string]string{}
			for _, rk := range []string{"x", "y", "b"} {
				etags[rk] = insert(t, tbl, ent(pk, rk, orig))
			}
			ops := []storage.TxOp{
				{Kind: storage.TxInsert, Entity: ent(pk, "a", orig)},
				{Kind: storage.TxUpdate, Entity: ent(pk, "x", map[string]any{"V": "new"}), Mode: storage.Merge, IfMatch: etags["x"]},
				{Kind: storage.TxInsert, Entity: ent(pk, "b", map[string]any{"V": "new"})}, // exists
				{Kind: storage.TxInsert, Entity: ent(pk, "c", orig)},
				{Kind: storage.TxDelete, Entity: ent(pk, "y", nil), IfMatch: storage.AnyETag},
			}
			wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrExists, "insert of an existing row mid-transaction")
			wantUntouched(t, tbl, pk, etags, orig)
			wantMissing(t, tbl, pk, "a")
			wantMissing(t, tbl, pk, "c")
		}},
		{"RollbackWhenLastOpFails", func(t *testing.T, pk string) {
			etags := map[string]string{"y": insert(t, tbl, ent(pk, "y", orig))}
			ops := []storage.TxOp{
				{Kind: storage.TxInsert, Entity: ent(pk, "a", orig)},
				{Kind: storage.TxDelete, Entity: ent(pk, "y", nil), IfMatch: etags["y"]},
				{Kind: storage.TxUpdate, Entity: ent(pk, "z", orig), Mode: storage.Replace, IfMatch: storage.AnyETag}, // missing
			}
			wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrNotFound, "update of a missing row last")
			wantUntouched(t, tbl, pk, etags, orig)
			wantMissing(t, tbl, pk, "a")
		}},
		{"StaleETagRejected", func(t *testing.T, pk string) {
			stale := insert(t, tbl, ent(pk, "x", orig))
			current, err := tbl.Update(t.Context(), ent(pk, "x", orig), storage.Merge, stale)
			must(t, err, "update")
			etags := map[string]string{"x": current}
			for _, op := range []storage.TxOp{
				{Kind: storage.TxUpdate, Entity: ent(pk, "x", map[string]any{"V": "new"}), Mode: storage.Merge, IfMatch: stale},
				{Kind: storage.TxDelete, Entity: ent(pk, "x", nil), IfMatch: stale},
			} {
				ops := []storage.TxOp{{Kind: storage.TxInsert, Entity: ent(pk, "a", orig)}, op}
				wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrPrecondition, "stale ETag in a transaction")
				wantUntouched(t, tbl, pk, etags, orig)
				wantMissing(t, tbl, pk, "a")
			}
		}},
		{"MissingRowRejected", func(t *testing.T, pk string) {
			for _, op := range []storage.TxOp{
				{Kind: storage.TxUpdate, Entity: ent(pk, "gone", orig), Mode: storage.Merge, IfMatch: storage.AnyETag},
				{Kind: storage.TxDelete, Entity: ent(pk, "gone", nil), IfMatch: storage.AnyETag},
			} {
				ops := []storage.TxOp{{Kind: storage.TxInsert, Entity: ent(pk, "a", orig)}, op}
				wantErr(t, tbl.Transact(t.Context(), ops), storage.ErrNotFound, "missing row in a transaction")
				wantMissing(t, tbl, pk, "a")
			}
		}},
		{"DeleteInTx", func(t *testing.T, pk string) {
			etag := insert(t, tbl, ent(pk, "d1", orig))
			insert(t, tbl, ent(pk, "d2", orig))
			keep := insert(t, tbl, ent(pk, "keep", orig))
			ops := []storage.TxOp{
				{Kind: storage.TxDelete, Entity: ent(pk, "d1", nil), IfMatch: etag},
				{Kind: storage.TxDelete, Entity: ent(pk, "d2", nil), IfMatch: storage.AnyETag},
			}
			must(t, tbl.Transact(t.Context(), ops), "deletes")
			wantMissing(t, tbl, pk, "d1")
			wantMissing(t, tbl, pk, "d2")
			wantUntouched(t, tbl, pk, map[string]string{"keep": keep}, orig)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, c.name)
		})
	}
}

// inserts is a transaction inserting es.
func inserts(es []storage.Entity) []storage.TxOp {
	ops := make([]storage.TxOp, len(es))
	for i, e := range es {
		ops[i] = storage.TxOp{Kind: storage.TxInsert, Entity: e}
	}
	return ops
}

// wantUntouched checks that rows still hold props and their ETags.
func wantUntouched(t *testing.T, tbl *storage.Table, pk string, etags map[string]string, props map[string]any) {
	t.Helper()
	for rk, etag := range etags {
		e := get(t, tbl, pk, rk)
		checkProps(t, e.Props, props, rk+" after the failed transaction")
		if e.ETag != etag {
			t.Errorf("%s: ETag %q, want %q: the failed transaction changed it", rk, e.ETag, etag)
		}
	}
}

package storagetest

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func testErrors(t *testing.T, s *suite) {
	tbl := s.table(t)
	const pk = "errors"
	// fresh inserts a row for one case and returns its ETag.
	fresh := func(t *testing.T, rk string) string {
		return insert(t, tbl, ent(pk, rk, map[string]any{"V": "original"}))
	}
	// unchanged checks that a failed write left the row as fresh wrote it.
	unchanged := func(t *testing.T, rk, etag string) {
		t.Helper()
		e := get(t, tbl, pk, rk)
		checkProps(t, e.Props, map[string]any{"V": "original"}, "after the failed write")
		if e.ETag != etag {
			t.Errorf("ETag changed by a failed write: %q, was %q", e.ETag, etag)
		}
	}
	changed := map[string]any{"V": "changed"}
	// staled writes the row twice (the second time in mode): its first
	// ETag is then stale.
	staled := func(t *testing.T, rk string, mode storage.UpdateMode) (stale, current string) {
		t.Helper()
		stale = fresh(t, rk)
		current, err := tbl.Update(t.Context(), ent(pk, rk, map[string]any{"V": "original"}), mode, stale)
		must(t, err, "the second write")
		return stale, current
	}

	cases := []struct {
		name string
		run  func(t *testing.T, rk string)
	}{
		{"InsertDuplicate", func(t *testing.T, rk string) {
			etag := fresh(t, rk)
			_, err := tbl.Insert(t.Context(), ent(pk, rk, changed))
			wantErr(t, err, storage.ErrExists, "second insert")
			unchanged(t, rk, etag)
		}},
		{"UpdateStaleETag", func(t *testing.T, rk string) {
			stale, current := staled(t, rk, storage.Merge)
			for _, mode := range []storage.UpdateMode{storage.Merge, storage.Replace} {
				_, err := tbl.Update(t.Context(), ent(pk, rk, changed), mode, stale)
				wantErr(t, err, storage.ErrPrecondition, "update with a stale ETag")
			}
			unchanged(t, rk, current)
		}},
		{"DeleteStaleETag", func(t *testing.T, rk string) {
			stale, current := staled(t, rk, storage.Replace)
			wantErr(t, tbl.Delete(t.Context(), pk, rk, stale), storage.ErrPrecondition, "delete with a stale ETag")
			unchanged(t, rk, current)
		}},
		{"GetMissing", func(t *testing.T, rk string) {
			wantMissing(t, tbl, pk, rk)
			wantMissing(t, tbl, "no-such-partition", rk)
		}},
		{"UpdateMissing", func(t *testing.T, rk string) {
			other := fresh(t, rk+"-other") // a real ETag, from another row
			for _, ifMatch := range []string{other, storage.AnyETag} {
				for _, mode := range []storage.UpdateMode{storage.Merge, storage.Replace} {
					_, err := tbl.Update(t.Context(), ent(pk, rk, changed), mode, ifMatch)
					wantErr(t, err, storage.ErrNotFound, "update of a missing row, If-Match "+ifMatch)
				}
			}
			wantMissing(t, tbl, pk, rk)
		}},
		{"DeleteMissing", func(t *testing.T, rk string) {
			other := fresh(t, rk+"-other")
			for _, ifMatch := range []string{other, storage.AnyETag} {
				wantErr(t, tbl.Delete(t.Context(), pk, rk, ifMatch), storage.ErrNotFound, "delete of a missing row, If-Match "+ifMatch)
			}
		}},
		{"UpdateAnyETag", func(t *testing.T, rk string) {
			fresh(t, rk)
			_, err := tbl.Update(t.Context(), ent(pk, rk, map[string]any{"W": int32(1)}), storage.Merge, storage.AnyETag)
			must(t, err, "merge with *")
			checkProps(t, get(t, tbl, pk, rk).Props, map[string]any{"V": "original", "W": int32(1)}, "after merge with *")
			_, err = tbl.Update(t.Context(), ent(pk, rk, changed), storage.Replace, storage.AnyETag)
			must(t, err, "replace with *")
			checkProps(t, get(t, tbl, pk, rk).Props, changed, "after replace with *")
		}},
		{"DeleteAnyETag", func(t *testing.T, rk string) {
			fresh(t, rk)
			_, err := tbl.Update(t.Context(), ent(pk, rk, changed), storage.Merge, storage.AnyETag)
			must(t, err, "update")
			must(t, tbl.Delete(t.Context(), pk, rk, storage.AnyETag), "delete with *")
			wantMissing(t, tbl, pk, rk)
		}},
		{"EmptyETagRejected", func(t *testing.T, rk string) {
			fresh(t, rk)
			_, err := tbl.Update(t.Context(), ent(pk, rk, changed), storage.Merge, "")
			wantErr(t, err, storage.ErrInvalid, "update with no ETag")
			wantErr(t, tbl.Delete(t.Context(), pk, rk, ""), storage.ErrInvalid, "delete with no ETag")
		}},
		{"InsertAfterDelete", func(t *testing.T, rk string) {
			old := fresh(t, rk)
			must(t, tbl.Delete(t.Context(), pk, rk, old), "delete")
			etag := insert(t, tbl, ent(pk, rk, changed))
			checkProps(t, get(t, tbl, pk, rk).Props, changed, "after insert again")
			if etag == old {
				t.Errorf("re-inserted row has its old ETag %q", old)
			}
			_, err := tbl.Update(t.Context(), ent(pk, rk, changed), storage.Merge, old)
			wantErr(t, err, storage.ErrPrecondition, "update with the deleted row's ETag")
		}},
		{"ETagChangesOnEveryWrite", func(t *testing.T, rk string) { etagChanges(t, tbl, pk, rk) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, c.name)
		})
	}
}

// etagChanges checks that every kind of write gives the row a new ETag, that
// Get and Query report the latest one, and that the backend sets Timestamp.
func etagChanges(t *testing.T, tbl *storage.Table, pk, rk string) {
	ctx := t.Context()
	e := ent(pk, rk, map[string]any{"N": int32(0)})
	seen := map[string]string{}
	var last storage.Entity
	step := func(what, etag string, err error) {
		t.Helper()
		must(t, err, what)
		if prev, ok := seen[etag]; ok {
			t.Errorf("%s returned ETag %q, already returned by %s", what, etag, prev)
		}
		seen[etag] = what
		got := get(t, tbl, pk, rk)
		if got.ETag != etag {
			t.Errorf("after %s: get ETag %q, write returned %q", what, got.ETag, etag)
		}
		if got.Timestamp.IsZero() {
			t.Errorf("after %s: Timestamp not set", what)
		}
		if got.Timestamp.Before(last.Timestamp) {
			t.Errorf("after %s: Timestamp %v went back from %v", what, got.Timestamp, last.Timestamp)
		}
		last = got
	}
	etag, err := tbl.Insert(ctx, e)
	step("insert", etag, err)
	etag, err = tbl.Update(ctx, e, storage.Merge, etag)
	step("update (merge)", etag, err)
	etag, err = tbl.Update(ctx, e, storage.Replace, etag)
	step("update (replace)", etag, err)
	etag, err = tbl.Upsert(ctx, e, storage.Merge)
	step("upsert (merge)", etag, err)
	etag, err = tbl.Upsert(ctx, e, storage.Replace)
	step("upsert (replace)", etag, err)
	etag, err = tbl.Update(ctx, e, storage.Merge, storage.AnyETag)
	step("update with *", etag, err)

	before := last.ETag
	must(t, tbl.Transact(ctx, []storage.TxOp{{Kind: storage.TxUpdate, Entity: e, Mode: storage.Merge, IfMatch: before}}), "transaction update")
	after := get(t, tbl, pk, rk).ETag
	if after == before {
		t.Errorf("a transaction update kept ETag %q", before)
	}

	found, _ := queryAll(t, tbl, storage.Query{PartitionKey: pk, RowKeyFrom: rk, RowKeyTo: rk + " "})
	if len(found) != 1 {
		t.Fatalf("query for the row found %d entities", len(found))
	}
	for _, q := range found {
		if q.ETag != after {
			t.Errorf("query ETag %q, get ETag %q", q.ETag, after)
		}
		_, err := tbl.Update(ctx, q, storage.Merge, q.ETag)
		must(t, err, "update with the ETag a query returned")
	}
}

package storagetest

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func testCounter(t *testing.T, s *suite) {
	tbl := s.table(t)
	c := s.container(t)
	wantCounts := func(t *testing.T, got, want storage.Counts) {
		t.Helper()
		if got != want {
			t.Errorf("counts %v, want %v", got, want)
		}
	}
	t.Run("CountsEveryCall", func(t *testing.T) {
		t.Parallel()
		ctx, counter := storage.WithCounter(t.Context())
		const pk = "every"
		etag, err := tbl.Insert(ctx, ent(pk, "a", nil))
		must(t, err, "insert")
		_, err = tbl.Get(ctx, pk, "a")
		must(t, err, "get")
		_, err = tbl.Get(ctx, pk, "missing") // a miss is still a read
		wantErr(t, err, storage.ErrNotFound, "get missing")
		_, err = tbl.Update(ctx, ent(pk, "a", nil), storage.Merge, etag)
		must(t, err, "update")
		_, err = tbl.Upsert(ctx, ent(pk, "b", nil), storage.Replace)
		must(t, err, "upsert")
		for range 2 {
			_, err = tbl.Query(ctx, storage.Query{PartitionKey: pk})
			must(t, err, "query")
		}
		must(t, tbl.Transact(ctx, inserts([]storage.Entity{ent(pk, "c", nil), ent(pk, "d", nil)})), "transaction")
		must(t, tbl.Delete(ctx, pk, "a", storage.AnyETag), "delete")
		_, err = c.Put(ctx, "counted", []byte("x"), "text/plain")
		must(t, err, "put blob")
		_, err = c.Get(ctx, "counted")
		must(t, err, "get blob")
		_, err = c.List(ctx, "")
		must(t, err, "list blobs")
		must(t, c.Delete(ctx, "counted"), "delete blob")
		want := storage.Counts{Reads: 2, Queries: 2, Writes: 4, Txs: 1, BlobReads: 2, BlobWrites: 2}
		wantCounts(t, counter.Snapshot(), want)
		if counter.Snapshot().Total() != 13 {
			t.Errorf("total %d, want 13", counter.Snapshot().Total())
		}
	})
	t.Run("QueryAllCountsPages", func(t *testing.T) {
		t.Parallel()
		seed(t, tbl, rows("pages", 25))
		ctx, counter := storage.WithCounter(t.Context())
		n := 0
		must(t, tbl.QueryAll(ctx, storage.Query{PartitionKey: "pages", Limit: 10}, func(storage.Entity) error { n++; return nil }), "query all")
		got := counter.Snapshot()
		if n != 25 || got.Queries < 3 || !s.opts.ShortPages && got.Queries != 3 {
			t.Errorf("QueryAll saw %d entities in %d counted pages; want 25 in 3 (or more with short pages)", n, got.Queries)
		}
		if got.Total() != got.Queries {
			t.Errorf("QueryAll counted %v, want only queries", got)
		}
	})
	t.Run("RejectedCallsNotCounted", func(t *testing.T) {
		t.Parallel()
		ctx, counter := storage.WithCounter(t.Context())
		_, err := tbl.Get(ctx, "bad/key", "r")
		wantErr(t, err, storage.ErrInvalidKey, "get")
		_, err = tbl.Insert(ctx, withProps("p", "wide", storage.MaxProperties+1))
		wantErr(t, err, storage.ErrTooLarge, "insert")
		wantErr(t, tbl.Transact(ctx, nil), storage.ErrInvalidTransaction, "transaction")
		_, err = c.Put(ctx, "../x", nil, "")
		wantErr(t, err, storage.ErrInvalid, "put blob")
		wantCounts(t, counter.Snapshot(), storage.Counts{})
	})
	t.Run("CountersAreSeparate", func(t *testing.T) {
		t.Parallel()
		ctx1, c1 := storage.WithCounter(t.Context())
		ctx2, c2 := storage.WithCounter(t.Context())
		_, err := tbl.Get(ctx1, "separate", "x")
		wantErr(t, err, storage.ErrNotFound, "get")
		_, err = tbl.Query(ctx2, storage.Query{PartitionKey: "separate"})
		must(t, err, "query")
		_, err = tbl.Get(t.Context(), "separate", "x") // no counter: counted nowhere
		wantErr(t, err, storage.ErrNotFound, "get without a counter")
		wantCounts(t, c1.Snapshot(), storage.Counts{Reads: 1})
		wantCounts(t, c2.Snapshot(), storage.Counts{Queries: 1})
	})
}

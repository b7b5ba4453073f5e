package storagetest

import (
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// benchEntity is a typical small row: a title, a count, a time, a flag and a
// score.
func benchEntity(pk string, i int) storage.Entity {
	return ent(pk, storage.Pad(int64(i), 12), map[string]any{
		"Title":   "A prompt title of a typical length, say forty",
		"Count":   int64(i),
		"Created": time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC),
		"Public":  i%2 == 0,
		"Score":   float64(i) / 3,
	})
}

// Bench runs the backend benchmarks: PointRead, Query50 (one partition of 50
// rows), Insert, Upsert and Tx10 (a transaction of 10 upserts). open may
// return a shared backend; each benchmark uses its own table.
func Bench(b *testing.B, open func(b testing.TB) storage.Backend) {
	s := &suite{store: storage.New(open(b), storage.Options{})}
	seeded := func(b *testing.B, pk string, n int) *storage.Table {
		tbl := s.table(b)
		es := make([]storage.Entity, n)
		for i := range es {
			es[i] = benchEntity(pk, i)
		}
		seed(b, tbl, es)
		// Neighbouring partitions, so a query must find its partition.
		seed(b, tbl, []storage.Entity{benchEntity(pk+"-", 0), benchEntity(pk[:len(pk)-1], 0)})
		return tbl
	}
	b.Run("PointRead", func(b *testing.B) {
		tbl := seeded(b, "read", 50)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := tbl.Get(b.Context(), "read", storage.Pad(int64(i%50), 12)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("Query50", func(b *testing.B) {
		tbl := seeded(b, "query", 50)
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := tbl.QueryAll(b.Context(), storage.Query{PartitionKey: "query"}, func(storage.Entity) error {
				n++
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if n != 50 {
				b.Fatalf("query returned %d rows, want 50", n)
			}
		}
	})
	b.Run("Insert", func(b *testing.B) {
		tbl := s.table(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := tbl.Insert(b.Context(), benchEntity("insert", i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("Upsert", func(b *testing.B) {
		tbl := seeded(b, "upsert", 50)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := tbl.Upsert(b.Context(), benchEntity("upsert", i%50), storage.Replace); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("Tx10", func(b *testing.B) {
		tbl := seeded(b, "tx", 100)
		b.ReportAllocs()
		ops := make([]storage.TxOp, 10)
		i := 0
		for b.Loop() {
			for j := range ops {
				ops[j] = storage.TxOp{Kind: storage.TxUpsert, Entity: benchEntity("tx", (i*10+j)%100), Mode: storage.Merge}
			}
			if err := tbl.Transact(b.Context(), ops); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

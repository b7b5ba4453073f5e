package embedded

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Quick checks of the embedded backend's speed goals (point read under 20 µs,
// 50-row partition query under 300 µs). The shared backend benchmarks that
// feed docs/PERFORMANCE.md live in storagetest.

func typicalProps(i int) map[string]any {
	return map[string]any{
		"Title":   fmt.Sprintf("A typical title for row %d", i),
		"Body":    "Some text of a realistic length, a sentence or two that a user wrote about a prompt.",
		"Author":  "user-1234567890",
		"Score":   int32(i),
		"Views":   int64(i) << 40,
		"Rating":  4.5,
		"Public":  true,
		"Created": time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC),
		"ID":      storage.GUID{1, 2, 3},
	}
}

func seedMicroBench(b *testing.B) *Backend {
	be := openEmbeddedForTest(b, Options{})
	ops := make([]storage.TxOp, 0, 50)
	for p := range 20 {
		ops = ops[:0]
		for i := range 50 {
			ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: storage.Entity{
				PartitionKey: fmt.Sprintf("partition-%02d", p), RowKey: fmt.Sprintf("row-%04d", i), Props: typicalProps(i),
			}})
		}
		if err := be.Transact(context.Background(), "Items", ops); err != nil {
			b.Fatal(err)
		}
	}
	return be
}

func BenchmarkMicroGet(b *testing.B) {
	be := seedMicroBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := be.Get(ctx, "Items", fmt.Sprintf("partition-%02d", i%20), "row-0025"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMicroQuery50(b *testing.B) {
	be := seedMicroBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p, err := be.Query(ctx, "Items", storage.Query{PartitionKey: fmt.Sprintf("partition-%02d", i%20), Limit: 50})
		if err != nil || len(p.Entities) != 50 || p.Next != nil {
			b.Fatalf("%d entities, next %v, err %v", len(p.Entities), p.Next, err)
		}
	}
}

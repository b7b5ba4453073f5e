package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

type allRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	N            int64  `table:"N"`
}

// TestAllReadsEveryPageInOrder: All follows continuations through short
// and empty pages and unmarshals every row, in key order.
func TestAllReadsEveryPageInOrder(t *testing.T) {
	ctx := context.Background()
	b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true, ShortPages: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	store := storage.New(b, storage.Options{})
	if err := store.Provision(ctx, []string{"AllRows"}, nil); err != nil {
		t.Fatal(err)
	}
	table := store.Table("AllRows")
	for i := range 250 {
		e, _ := storage.Marshal(allRow{PartitionKey: "p", RowKey: fmt.Sprintf("%04d", i), N: int64(i)})
		if _, err := table.Insert(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := storage.All[allRow](ctx, table, storage.Query{PartitionKey: "p", Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 250 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		if r.N != int64(i) {
			t.Fatalf("row %d holds %d", i, r.N)
		}
	}
}

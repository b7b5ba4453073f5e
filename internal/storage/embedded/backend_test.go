package embedded

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// openEmbeddedForTest opens a Backend in a fresh temp dir with table "Items"
// and container "files", closed when the test ends.
func openEmbeddedForTest(t testing.TB, opts Options) *Backend {
	t.Helper()
	opts.NoSync = true
	b, err := Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	if err := b.CreateTable(ctx, "Items"); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateContainer(ctx, "files"); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReopenKeepsTablesEntitiesAndBlobs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateTable(ctx, "Items"); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateContainer(ctx, "files"); err != nil {
		t.Fatal(err)
	}
	etag, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"N": int64(1 << 60)}})
	if err != nil {
		t.Fatal(err)
	}
	blobETag, err := b.PutBlob(ctx, "files", "a/b.txt", []byte("hello"), "text/plain", storage.AnyETag)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e, err := b.Get(ctx, "Items", "p", "r")
	if err != nil {
		t.Fatal(err)
	}
	if e.ETag != etag || e.Props["N"] != int64(1<<60) {
		t.Errorf("after reopen: %+v, want ETag %s", e, etag)
	}
	blob, err := b.GetBlob(ctx, "files", "a/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(blob.Data) != "hello" || blob.ETag != blobETag || blob.ContentType != "text/plain" {
		t.Errorf("after reopen: %+v", blob)
	}
	// A new write after reopen must not reuse an old ETag.
	etag2, err := b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r"}, storage.Merge, etag)
	if err != nil || etag2 == etag {
		t.Errorf("update after reopen: etag %q (was %q), err %v", etag2, etag, err)
	}
}

func TestSecondOpenOfSameDirFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	start := time.Now()
	b2, err := Open(dir, Options{})
	if err == nil {
		b2.Close()
		t.Fatal("second Open succeeded")
	}
	if !strings.Contains(err.Error(), "locked") {
		t.Errorf("error %q does not say the store is locked", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("second Open took %v", d)
	}
}

func TestTableNamesAreCaseInsensitive(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	if err := b.CreateTable(ctx, "ITEMS"); err != nil {
		t.Fatalf("creating an existing table: %v", err)
	}
	if _, err := b.Insert(ctx, "items", storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "Items", "p", "r"); err != nil {
		t.Errorf("get through another spelling: %v", err)
	}
}

func TestMissingTableIsNotFound(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	e := storage.Entity{PartitionKey: "p", RowKey: "r"}
	calls := map[string]func() error{
		"Get":      func() error { _, err := b.Get(ctx, "Nope", "p", "r"); return err },
		"Insert":   func() error { _, err := b.Insert(ctx, "Nope", e); return err },
		"Upsert":   func() error { _, err := b.Upsert(ctx, "Nope", e, storage.Merge); return err },
		"Delete":   func() error { return b.Delete(ctx, "Nope", "p", "r", storage.AnyETag) },
		"Query":    func() error { _, err := b.Query(ctx, "Nope", storage.Query{}); return err },
		"Transact": func() error { return b.Transact(ctx, "Nope", []storage.TxOp{{Kind: storage.TxInsert, Entity: e}}) },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), "table not found") {
			t.Errorf("%s on a missing table: %v", name, err)
		}
	}
}

func TestConcurrentWritersGetUniqueETags(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	const writers, writes = 8, 25
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range writes {
				etag, err := b.Upsert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "shared", Props: map[string]any{"W": int32(w), "I": int32(i)}}, storage.Replace)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[etag] {
					t.Errorf("ETag %s handed out twice", etag)
				}
				seen[etag] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != writers*writes {
		t.Errorf("%d distinct ETags, want %d", len(seen), writers*writes)
	}
}

func TestFailedTransactionRollsBackAndNamesTheOp(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	if _, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "taken", Props: map[string]any{"V": "old"}}); err != nil {
		t.Fatal(err)
	}
	err := b.Transact(ctx, "Items", []storage.TxOp{
		{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "new"}},
		{Kind: storage.TxUpsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "taken", Props: map[string]any{"V": "new"}}, Mode: storage.Replace},
		{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: "p", RowKey: "missing"}, IfMatch: storage.AnyETag},
	})
	if !errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), "op 2") {
		t.Fatalf("err = %v, want ErrNotFound naming op 2", err)
	}
	if _, err := b.Get(ctx, "Items", "p", "new"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("insert of op 0 survived the rollback: %v", err)
	}
	if e, _ := b.Get(ctx, "Items", "p", "taken"); e.Props["V"] != "old" {
		t.Errorf("upsert of op 1 survived the rollback: %v", e.Props)
	}
}

func TestMergeBeyondPropertyLimitIsTooLarge(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	first, second := map[string]any{}, map[string]any{}
	for i := range storage.MaxProperties {
		first["A"+strings.Repeat("x", i%10)+string(rune('a'+i/10))] = int32(i)
		second["B"+strings.Repeat("x", i%10)+string(rune('a'+i/10))] = int32(i)
	}
	if _, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: first}); err != nil {
		t.Fatal(err)
	}
	_, err := b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: second}, storage.Merge, storage.AnyETag)
	if !errors.Is(err, storage.ErrTooLarge) {
		t.Errorf("merge to %d properties: %v, want ErrTooLarge", 2*storage.MaxProperties, err)
	}
	if _, err := b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: second}, storage.Replace, storage.AnyETag); err != nil {
		t.Errorf("replace with %d properties: %v", storage.MaxProperties, err)
	}
}

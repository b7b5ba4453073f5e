package storage_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

type counterRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	N            int64  `table:"N"`
	Note         string `table:"Note"`
}

func typedTable(t *testing.T) *storage.Table {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	store := storage.New(b, storage.Options{})
	if err := store.Provision(context.Background(), []string{"Counters"}, nil); err != nil {
		t.Fatal(err)
	}
	return store.Table("Counters")
}

// Modify creates a missing row, changes an existing one at its ETag, and
// under 50 concurrent changes of one row loses none of them.
func TestModify(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	inc := func(v *counterRow, exists bool) error { v.N++; return nil }
	got, err := storage.Modify(ctx, tbl, "p", "r", inc)
	if err != nil || got.N != 1 || got.ETag == "" || got.PartitionKey != "p" || got.RowKey != "r" {
		t.Fatalf("create: %+v, %v", got, err)
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if _, err := storage.Modify(ctx, tbl, "p", "r", inc); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	row, err := storage.Get[counterRow](ctx, tbl, "p", "r")
	if err != nil || row.N != 51 {
		t.Fatalf("after 50 concurrent changes: %+v, %v", row, err)
	}
	// An error from change writes nothing, and a missing row can be refused.
	stop := errors.New("stop")
	if _, err := storage.Modify(ctx, tbl, "p", "r", func(v *counterRow, _ bool) error { v.N = 0; return stop }); !errors.Is(err, stop) {
		t.Fatalf("change error: %v", err)
	}
	if row, _ := storage.Get[counterRow](ctx, tbl, "p", "r"); row.N != 51 {
		t.Fatalf("an abandoned change wrote: %+v", row)
	}
}

// Change changes a row that exists and answers its own error, writing
// nothing, for one that does not; ErrNoChange there is no error.
func TestChange(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	inc := func(v *counterRow) error { v.N++; return nil }
	gone := errors.New("no such counter")
	if _, err := storage.Change(ctx, tbl, "p", "missing", gone, inc); !errors.Is(err, gone) {
		t.Fatalf("a missing row: %v, want its own error", err)
	}
	if _, err := storage.Change(ctx, tbl, "p", "missing", storage.ErrNoChange, inc); err != nil {
		t.Fatalf("a missing row with ErrNoChange: %v", err)
	}
	if _, err := storage.Get[counterRow](ctx, tbl, "p", "missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("a missing row was written: %v", err)
	}
	if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "r", N: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := storage.Change(ctx, tbl, "p", "r", gone, inc)
	if err != nil || got.N != 2 || got.ETag == "" {
		t.Fatalf("an existing row: %+v, %v", got, err)
	}
}

func TestInsertUpsertUpdate(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	etag, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a"}); !errors.Is(err, storage.ErrExists) {
		t.Fatalf("insert twice: %v", err)
	}
	if _, err := storage.Update(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a", N: 2}, "stale"); !errors.Is(err, storage.ErrPrecondition) {
		t.Fatalf("update at a stale ETag: %v", err)
	}
	if _, err := storage.Update(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a", N: 2}, etag); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Upsert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a", Note: "replaced"}); err != nil {
		t.Fatal(err)
	}
	row, err := storage.Get[counterRow](ctx, tbl, "p", "a")
	if err != nil || row.N != 0 || row.Note != "replaced" {
		t.Fatalf("after upsert: %+v, %v", row, err)
	}
}

// A change that finds the row as it should be writes nothing.
func TestModifyNoChange(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	first, err := storage.Modify(ctx, tbl, "p", "r", func(v *counterRow, _ bool) error { v.N = 5; return nil })
	if err != nil {
		t.Fatal(err)
	}
	counted, counter := storage.WithCounter(ctx)
	got, err := storage.Modify(counted, tbl, "p", "r", func(v *counterRow, _ bool) error {
		if v.N == 5 {
			return storage.ErrNoChange
		}
		v.N = 5
		return nil
	})
	if err != nil || got.N != 5 || got.ETag != first.ETag {
		t.Fatalf("got %+v, %v", got, err)
	}
	if w := counter.Snapshot(); w.Total() != 1 {
		t.Errorf("a no-change modify took %s, want the one read", w)
	}
}

// Find names a missing row with the caller's error, or none.
func TestFind(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	gone := errors.New("no such counter")
	if _, err := storage.Find[counterRow](ctx, tbl, "p", "r", gone); !errors.Is(err, gone) {
		t.Fatalf("missing row: %v, want the caller's error", err)
	}
	if v, err := storage.Find[counterRow](ctx, tbl, "p", "r", nil); err != nil || v != (counterRow{}) {
		t.Fatalf("missing row, no error named: %+v, %v", v, err)
	}
	if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "r", N: 7}); err != nil {
		t.Fatal(err)
	}
	if v, err := storage.Find[counterRow](ctx, tbl, "p", "r", gone); err != nil || v.N != 7 || v.ETag == "" {
		t.Fatalf("present row: %+v, %v", v, err)
	}
	if _, err := storage.Find[counterRow](ctx, tbl, "", "r", gone); !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("bad key: %v, want ErrInvalidKey as it is", err)
	}
}

// A Tx writes its rows at once; a row that does not marshal, or a stale
// ETag, writes none of them.
func TestTx(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	etag, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "a", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	var tx storage.Tx
	tx.Insert(counterRow{PartitionKey: "p", RowKey: "b", N: 2}).
		Replace(counterRow{PartitionKey: "p", RowKey: "a", N: 10}, etag).
		Upsert(counterRow{PartitionKey: "p", RowKey: "c", N: 3})
	if err := tx.Commit(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	rows, err := storage.All[counterRow](ctx, tbl, storage.Query{PartitionKey: "p"})
	if err != nil || len(rows) != 3 || rows[0].N != 10 || rows[1].N != 2 || rows[2].N != 3 {
		t.Fatalf("after commit: %+v, %v", rows, err)
	}

	var bad storage.Tx
	bad.Delete("p", "b", storage.AnyETag).Insert(struct{ C chan int }{})
	if err := bad.Commit(ctx, tbl); err == nil {
		t.Fatal("a row that does not marshal: committed")
	}
	var stale storage.Tx
	stale.Delete("p", "b", storage.AnyETag).Replace(counterRow{PartitionKey: "p", RowKey: "a", N: 99}, etag)
	if err := stale.Commit(ctx, tbl); !errors.Is(err, storage.ErrPrecondition) {
		t.Fatalf("stale ETag: %v, want ErrPrecondition", err)
	}
	if rows, _ := storage.All[counterRow](ctx, tbl, storage.Query{PartitionKey: "p"}); len(rows) != 3 || rows[0].N != 10 {
		t.Fatalf("refused transactions changed rows: %+v", rows)
	}
}

// First returns the first row that matches, or the caller's error.
func TestFirst(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	for i, note := range []string{"a", "b", "c", "b"} {
		if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: string(rune('0' + i)), N: int64(i), Note: note}); err != nil {
			t.Fatal(err)
		}
	}
	none := errors.New("none")
	q := storage.Query{PartitionKey: "p"}
	if r, err := storage.First(ctx, tbl, q, func(r counterRow) bool { return r.Note == "b" }, none); err != nil || r.N != 1 {
		t.Fatalf("first b: %+v, %v", r, err)
	}
	if r, err := storage.First[counterRow](ctx, tbl, q, nil, none); err != nil || r.N != 0 {
		t.Fatalf("first of any: %+v, %v", r, err)
	}
	if r, err := storage.First(ctx, tbl, q, func(r counterRow) bool { return r.Note == "z" }, none); !errors.Is(err, none) || r != (counterRow{}) {
		t.Fatalf("no match: %+v, %v", r, err)
	}
	if _, err := storage.First[counterRow](ctx, tbl, storage.Query{}, nil, none); err == nil || errors.Is(err, none) {
		t.Fatalf("a query the store refuses: %v", err)
	}
}

// TakePage pages through a partition: full pages, then the rest, then
// no continuation.
func TestTakePage(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	for i := range 5 {
		if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: string(rune('a' + i)), N: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	q := storage.Query{PartitionKey: "p"}
	var got []int64
	for pages := 0; ; pages++ {
		rows, next, err := storage.TakePage[counterRow](ctx, tbl, q, 2)
		if err != nil || pages > 3 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, r := range rows {
			got = append(got, r.N)
		}
		if next == nil {
			break
		}
		if len(rows) != 2 {
			t.Fatalf("page %d: %d rows and a continuation", pages, len(rows))
		}
		q.Continuation = next
	}
	if !slices.Equal(got, []int64{0, 1, 2, 3, 4}) {
		t.Fatalf("rows %v", got)
	}
}

// TestEach: every index is read once, never more than the limit at
// once; the first error is returned, and the reads after it see their
// context cancelled. Keep keeps the items it is told to, in order.
func TestEach(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	running, most := 0, 0
	seen := make([]int, 50)
	err := storage.Each(context.Background(), len(seen), 3, func(ctx context.Context, i int) error {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		seen[i]++
		mu.Lock()
		running--
		mu.Unlock()
		return nil
	})
	if err != nil || most > 3 || slices.ContainsFunc(seen, func(n int) bool { return n != 1 }) {
		t.Fatalf("err %v, %d at once, seen %v", err, most, seen)
	}
	boom := errors.New("boom")
	err = storage.Each(context.Background(), 10, 1, func(ctx context.Context, i int) error {
		if i == 0 {
			return boom
		}
		if ctx.Err() == nil {
			t.Errorf("read %d ran after the first failed, its context not cancelled", i)
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	odd, err := storage.Keep(context.Background(), []int{5, 2, 9, 4, 7}, 2, func(_ context.Context, v int) (bool, error) { return v%2 == 1, nil })
	if err != nil || !slices.Equal(odd, []int{5, 9, 7}) {
		t.Fatalf("Keep: %v, %v", odd, err)
	}
	if _, err := storage.Keep(context.Background(), []int{1, 2}, 2, func(context.Context, int) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Fatalf("Keep's error: %v", err)
	}
}

// Exists says whether a row is there; Forget deletes it, and is content
// when it is gone already.
func TestExistsAndForget(t *testing.T) {
	ctx := context.Background()
	tbl := typedTable(t)
	if ok, err := storage.Exists(ctx, tbl, "p", "r"); ok || err != nil {
		t.Fatalf("a missing row: %v %v", ok, err)
	}
	if _, err := storage.Insert(ctx, tbl, counterRow{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := storage.Exists(ctx, tbl, "p", "r"); !ok || err != nil {
		t.Fatalf("a row there: %v %v", ok, err)
	}
	for range 2 {
		if err := storage.Forget(ctx, tbl, "p", "r"); err != nil {
			t.Fatalf("forget: %v", err)
		}
	}
	if ok, _ := storage.Exists(ctx, tbl, "p", "r"); ok {
		t.Error("a forgotten row is still there")
	}
	if _, err := storage.Exists(ctx, tbl, "p/x", "r"); !errors.Is(err, storage.ErrInvalidKey) {
		t.Errorf("a bad key: %v", err)
	}
}

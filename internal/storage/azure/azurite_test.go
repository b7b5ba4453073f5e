package azure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storagetest"
)

// These tests need Azurite (HARMONY_AZURITE). They exercise what the shared
// conformance suite cannot see from outside: the exact EDM types on the wire,
// each error path, and the batch and empty-PartitionKey code paths.

func openAzurite(t *testing.T) *Backend {
	t.Helper()
	b, err := Open(t.Context(), storagetest.AzuriteConnectionString(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newTable creates a table with a fresh name and drops it after the test.
func newTable(t *testing.T, b *Backend) string {
	t.Helper()
	name := "az" + strings.ReplaceAll(newID(), "-", "")[:16]
	if err := b.CreateTable(t.Context(), name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = b.tables.DeleteTable(context.Background(), name, nil) })
	return name
}

// edgeProps holds every EDM type at the values most likely to lose their
// type or precision on the way.
func edgeProps() map[string]any {
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	return map[string]any{
		"Str":        "hello",
		"StrEmpty":   "",
		"StrNumber":  "123",
		"StrDouble":  "2.0",
		"StrBool":    "true",
		"StrDate":    "2024-01-01T00:00:00Z",
		"StrGUID":    "01234567-89ab-cdef-0123-456789abcdef",
		"StrUnicode": "Ёжик 日本語 😀 'single' \"double\" \\ % & + = ; , ( ) # ? / \u2028 \x7f",
		"StrMax":     strings.Repeat("ж", storage.MaxValueBytes/2),
		"I32":        int32(42),
		"I32Min":     int32(math.MinInt32),
		"I32Max":     int32(math.MaxInt32),
		"I32Zero":    int32(0),
		"I64":        int64(1<<53 + 1),
		"I64Small":   int64(7),
		"I64Min":     int64(math.MinInt64),
		"I64Max":     int64(math.MaxInt64),
		"F":          2.0,
		"FZero":      0.0,
		"FFrac":      0.1,
		"FNeg":       -1.5e-300,
		"FBig":       1e300,
		"FMax":       math.MaxFloat64,
		"FTiny":      5e-324,
		"FInt64ish":  9007199254740993.0,
		"BTrue":      true,
		"BFalse":     false,
		"T":          time.Date(2024, 2, 29, 23, 59, 58, 123456700, time.UTC),
		"TMin":       time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		"TMax":       time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC),
		"TEpoch":     time.Unix(0, 0).UTC(),
		"G":          storage.GUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		"GZero":      storage.GUID{},
		"Bin":        all,
		"BinEmpty":   []byte{},
		"BinMax":     bytes.Repeat([]byte{0xa5}, storage.MaxValueBytes),
	}
}

func TestAzuriteEDMRoundTrip(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	want := edgeProps()
	ent := func(pk, rk string) storage.Entity {
		return storage.Entity{PartitionKey: pk, RowKey: rk, Props: edgeProps()}
	}
	check := func(t *testing.T, pk, rk string) {
		t.Helper()
		got, err := b.Get(ctx, tbl, pk, rk)
		if err != nil {
			t.Fatal(err)
		}
		diffProps(t, "get", got.Props, want)
		if got.ETag == "" || got.Timestamp.IsZero() {
			t.Errorf("get: ETag %q, Timestamp %v", got.ETag, got.Timestamp)
		}
		page, err := b.Query(ctx, tbl, storage.Query{PartitionKey: pk, RowKeyFrom: rk, RowKeyTo: rk + "\x00"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entities) != 1 {
			t.Fatalf("query found %d entities, want 1", len(page.Entities))
		}
		diffProps(t, "query", page.Entities[0].Props, want)
		if page.Entities[0].ETag != got.ETag || !page.Entities[0].Timestamp.Equal(got.Timestamp) {
			t.Errorf("query ETag %q / Timestamp %v, get gave %q / %v", page.Entities[0].ETag, page.Entities[0].Timestamp, got.ETag, got.Timestamp)
		}
	}
	t.Run("Insert", func(t *testing.T) {
		if _, err := b.Insert(ctx, tbl, ent("p", "insert")); err != nil {
			t.Fatal(err)
		}
		check(t, "p", "insert")
	})
	t.Run("UpdateReplace", func(t *testing.T) {
		etag, err := b.Insert(ctx, tbl, storage.Entity{PartitionKey: "p", RowKey: "update", Props: map[string]any{"Old": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Update(ctx, tbl, ent("p", "update"), storage.Replace, etag); err != nil {
			t.Fatal(err)
		}
		check(t, "p", "update")
	})
	t.Run("UpsertMerge", func(t *testing.T) {
		if _, err := b.Upsert(ctx, tbl, ent("p", "upsert"), storage.Merge); err != nil {
			t.Fatal(err)
		}
		check(t, "p", "upsert")
	})
	t.Run("Transaction", func(t *testing.T) {
		err := b.Transact(ctx, tbl, []storage.TxOp{
			{Kind: storage.TxInsert, Entity: ent("p", "tx1")},
			{Kind: storage.TxUpsert, Mode: storage.Replace, Entity: ent("p", "tx2")},
		})
		if err != nil {
			t.Fatal(err)
		}
		check(t, "p", "tx1")
		check(t, "p", "tx2")
	})
	t.Run("EmptyPartitionKey", func(t *testing.T) {
		if _, err := b.Upsert(ctx, tbl, ent("", "empty"), storage.Replace); err != nil {
			t.Fatal(err)
		}
		check(t, "", "empty")
	})
}

func diffProps(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("%s: %s missing", what, k)
		case !sameProps(map[string]any{k: g}, map[string]any{k: w}):
			gs, ws := fmt.Sprintf("%T %v", g, g), fmt.Sprintf("%T %v", w, w)
			if len(gs) > 80 {
				gs, ws = gs[:80]+"…", ws[:min(80, len(ws))]+"…"
			}
			t.Errorf("%s: %s = %s, want %s", what, k, gs, ws)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected property %s", what, k)
		}
	}
}

func TestAzuriteErrors(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	e := storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"N": int32(1)}}
	first, err := b.Insert(ctx, tbl, e)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Update(ctx, tbl, e, storage.Merge, first)
	if err != nil {
		t.Fatal(err)
	}
	if second == first {
		t.Fatal("update kept the ETag")
	}
	missing := storage.Entity{PartitionKey: "p", RowKey: "missing"}
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"get missing", func() error { _, err := b.Get(ctx, tbl, "p", "missing"); return err }, storage.ErrNotFound},
		{"get in missing table", func() error { _, err := b.Get(ctx, "nosuchtable", "p", "r"); return err }, storage.ErrNotFound},
		{"get empty PartitionKey missing", func() error { _, err := b.Get(ctx, tbl, "", "r"); return err }, storage.ErrNotFound},
		{"insert duplicate", func() error { _, err := b.Insert(ctx, tbl, e); return err }, storage.ErrExists},
		{"insert into missing table", func() error { _, err := b.Insert(ctx, "nosuchtable", e); return err }, storage.ErrNotFound},
		{"update missing with *", func() error { _, err := b.Update(ctx, tbl, missing, storage.Merge, storage.AnyETag); return err }, storage.ErrNotFound},
		{"update missing with an ETag", func() error { _, err := b.Update(ctx, tbl, missing, storage.Replace, first); return err }, storage.ErrNotFound},
		{"update stale ETag", func() error { _, err := b.Update(ctx, tbl, e, storage.Replace, first); return err }, storage.ErrPrecondition},
		{"delete stale ETag", func() error { return b.Delete(ctx, tbl, "p", "r", first) }, storage.ErrPrecondition},
		{"delete missing", func() error { return b.Delete(ctx, tbl, "p", "missing", storage.AnyETag) }, storage.ErrNotFound},
		{"delete missing with an ETag", func() error { return b.Delete(ctx, tbl, "p", "missing", first) }, storage.ErrNotFound},
		{"delete empty PartitionKey missing", func() error { return b.Delete(ctx, tbl, "", "missing", storage.AnyETag) }, storage.ErrNotFound},
		{"query missing table", func() error { _, err := b.Query(ctx, "nosuchtable", storage.Query{}); return err }, storage.ErrNotFound},
		// ETags the service never issued cannot match.
		{"update foreign ETag", func() error { _, err := b.Update(ctx, tbl, e, storage.Merge, `"abc"`); return err }, storage.ErrPrecondition},
		{"delete foreign ETag", func() error { return b.Delete(ctx, tbl, "p", "r", "abc") }, storage.ErrPrecondition},
		{"update ETag with a newline", func() error { _, err := b.Update(ctx, tbl, e, storage.Merge, "a\r\nX-Evil: 1"); return err }, storage.ErrPrecondition},
		{"transaction foreign ETag", func() error {
			return b.Transact(ctx, tbl, []storage.TxOp{{Kind: storage.TxUpdate, IfMatch: "abc", Entity: e}})
		}, storage.ErrPrecondition},
		{"transaction ETag with a newline", func() error {
			return b.Transact(ctx, tbl, []storage.TxOp{{Kind: storage.TxDelete, IfMatch: "a\r\n\r\nDELETE x", Entity: e}})
		}, storage.ErrPrecondition},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, c.want) {
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}

	// The current ETag and * both work, and the entity then is gone.
	third, err := b.Update(ctx, tbl, e, storage.Replace, storage.AnyETag)
	if err != nil {
		t.Fatalf("update with *: %v", err)
	}
	if _, err := b.Update(ctx, tbl, e, storage.Merge, third); err != nil {
		t.Fatalf("update with the current ETag: %v", err)
	}
	if err := b.Delete(ctx, tbl, "p", "r", storage.AnyETag); err != nil {
		t.Fatalf("delete with *: %v", err)
	}
	if _, err := b.Get(ctx, tbl, "p", "r"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get after delete: %v", err)
	}
	if err := b.CreateTable(ctx, tbl); err != nil {
		t.Errorf("creating an existing table: %v", err)
	}
}

func TestAzuriteMergeReplace(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	base := map[string]any{"A": "a", "B": int32(1)}
	for _, pk := range []string{"p", ""} { // the SDK path and the batch path
		for _, c := range []struct {
			name  string
			write func(e storage.Entity) error
			mode  storage.UpdateMode
			want  map[string]any
		}{
			{"update merge", func(e storage.Entity) error {
				_, err := b.Update(ctx, tbl, e, storage.Merge, storage.AnyETag)
				return err
			}, storage.Merge, map[string]any{"A": "a", "B": int32(2), "C": true}},
			{"update replace", func(e storage.Entity) error {
				_, err := b.Update(ctx, tbl, e, storage.Replace, storage.AnyETag)
				return err
			}, storage.Replace, map[string]any{"B": int32(2), "C": true}},
			{"upsert merge", func(e storage.Entity) error { _, err := b.Upsert(ctx, tbl, e, storage.Merge); return err },
				storage.Merge, map[string]any{"A": "a", "B": int32(2), "C": true}},
			{"upsert replace", func(e storage.Entity) error { _, err := b.Upsert(ctx, tbl, e, storage.Replace); return err },
				storage.Replace, map[string]any{"B": int32(2), "C": true}},
		} {
			t.Run(fmt.Sprintf("%s pk=%q", c.name, pk), func(t *testing.T) {
				rk := strings.ReplaceAll(c.name, " ", "-")
				if _, err := b.Upsert(ctx, tbl, storage.Entity{PartitionKey: pk, RowKey: rk, Props: base}, storage.Replace); err != nil {
					t.Fatal(err)
				}
				if err := c.write(storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"B": int32(2), "C": true}}); err != nil {
					t.Fatal(err)
				}
				got, err := b.Get(ctx, tbl, pk, rk)
				if err != nil {
					t.Fatal(err)
				}
				diffProps(t, "after write", got.Props, c.want)
			})
		}
	}
}

func TestAzuriteTransactionFailures(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	ent := func(rk string) storage.Entity {
		return storage.Entity{PartitionKey: "p", RowKey: rk, Props: map[string]any{"V": rk}}
	}
	etag, err := b.Insert(ctx, tbl, ent("taken"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Update(ctx, tbl, ent("taken"), storage.Merge, etag); err != nil {
		t.Fatal(err)
	}
	stale := etag

	cases := []struct {
		name   string
		ops    []storage.TxOp
		want   error
		failed string
	}{
		{"duplicate insert", []storage.TxOp{
			{Kind: storage.TxInsert, Entity: ent("new1")},
			{Kind: storage.TxInsert, Entity: ent("taken")},
			{Kind: storage.TxInsert, Entity: ent("new2")},
		}, storage.ErrExists, `operation 1 (insert "p"/"taken")`},
		{"stale ETag", []storage.TxOp{
			{Kind: storage.TxUpsert, Entity: ent("new1")},
			{Kind: storage.TxUpdate, IfMatch: stale, Entity: ent("taken")},
		}, storage.ErrPrecondition, `operation 1 (update "p"/"taken")`},
		{"update missing", []storage.TxOp{
			{Kind: storage.TxUpdate, IfMatch: storage.AnyETag, Entity: ent("new1")},
			{Kind: storage.TxUpsert, Entity: ent("new2")},
		}, storage.ErrNotFound, `operation 0 (update "p"/"new1")`},
		{"delete missing", []storage.TxOp{
			{Kind: storage.TxInsert, Entity: ent("new1")},
			{Kind: storage.TxDelete, IfMatch: storage.AnyETag, Entity: ent("new2")},
		}, storage.ErrNotFound, `operation 1 (delete "p"/"new2")`},
		{"delete stale", []storage.TxOp{
			{Kind: storage.TxDelete, IfMatch: stale, Entity: ent("taken")},
		}, storage.ErrPrecondition, `operation 0 (delete "p"/"taken")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := b.Transact(ctx, tbl, c.ops)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.failed) {
				t.Errorf("err = %q, want it to name %s", err, c.failed)
			}
			// Nothing was applied.
			for _, rk := range []string{"new1", "new2"} {
				if _, err := b.Get(ctx, tbl, "p", rk); !errors.Is(err, storage.ErrNotFound) {
					t.Errorf("%s after a failed transaction: %v", rk, err)
				}
			}
			if got, err := b.Get(ctx, tbl, "p", "taken"); err != nil || got.Props["V"] != "taken" {
				t.Errorf("taken after a failed transaction: %+v, %v", got, err)
			}
		})
	}
}

func TestAzuriteTransactionKeys(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	// aztables' own SubmitTransaction cannot address these; ours must.
	for _, pk := range []string{"O'Brien", "", "a b%c&d+e", "Ёж 😀"} {
		t.Run(fmt.Sprintf("%q", pk), func(t *testing.T) {
			rks := []string{"it's", "''", "", "x=y;z", "日本"}
			var ops []storage.TxOp
			for _, rk := range rks {
				ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"V": int32(1)}}})
			}
			if err := b.Transact(ctx, tbl, ops); err != nil {
				t.Fatal(err)
			}
			for i := range ops {
				ops[i] = storage.TxOp{Kind: storage.TxUpdate, Mode: storage.Merge, IfMatch: storage.AnyETag,
					Entity: storage.Entity{PartitionKey: pk, RowKey: rks[i], Props: map[string]any{"V": int32(2)}}}
			}
			if err := b.Transact(ctx, tbl, ops); err != nil {
				t.Fatal(err)
			}
			for _, rk := range rks {
				got, err := b.Get(ctx, tbl, pk, rk)
				if err != nil || got.Props["V"] != int32(2) {
					t.Errorf("get %q/%q = %+v, %v", pk, rk, got, err)
				}
			}
			for i := range ops {
				ops[i] = storage.TxOp{Kind: storage.TxDelete, IfMatch: storage.AnyETag, Entity: storage.Entity{PartitionKey: pk, RowKey: rks[i]}}
			}
			if err := b.Transact(ctx, tbl, ops); err != nil {
				t.Fatal(err)
			}
			if page, err := b.Query(ctx, tbl, storage.Query{PartitionKey: pk}); err != nil || (pk != "" && len(page.Entities) != 0) {
				t.Errorf("after deleting all: %d entities, %v", len(page.Entities), err)
			}
		})
	}
}

func TestAzuriteQuery(t *testing.T) {
	b := openAzurite(t)
	tbl := newTable(t, b)
	ctx := t.Context()
	base := time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	var ops []storage.TxOp
	for i := range 25 {
		ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "q", RowKey: fmt.Sprintf("r%02d", i), Props: map[string]any{
			"I32": int32(i), "I64": int64(1<<53) + int64(i), "F": float64(i), "B": i%2 == 0,
			"T": base.Add(time.Duration(i) * time.Hour), "G": storage.GUID{byte(i)}, "X": []byte{byte(i)},
			"S": fmt.Sprintf("it's %d", i), "Extra": "x",
		}}})
	}
	if err := b.Transact(ctx, tbl, ops); err != nil {
		t.Fatal(err)
	}
	rows := func(t *testing.T, q storage.Query) []string {
		t.Helper()
		var out []string
		for {
			p, err := b.Query(ctx, tbl, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entities {
				out = append(out, e.RowKey)
			}
			if p.Next == nil {
				return out
			}
			q.Continuation = p.Next
		}
	}
	filter := func(name string, op storage.Op, v any) storage.Query {
		return storage.Query{PartitionKey: "q", Filters: []storage.Filter{{Name: name, Op: op, Value: v}}}
	}
	cases := []struct {
		name string
		q    storage.Query
		want []string
	}{
		{"int32", filter("I32", storage.Gt, int32(22)), []string{"r23", "r24"}},
		{"int64 above 2^53", filter("I64", storage.Eq, int64(1<<53)+3), []string{"r03"}},
		{"whole double", filter("F", storage.Eq, 4.0), []string{"r04"}},
		{"double range", filter("F", storage.Lt, 1.5), []string{"r00", "r01"}},
		{"bool", storage.Query{PartitionKey: "q", RowKeyTo: "r04", Filters: []storage.Filter{{Name: "B", Op: storage.Eq, Value: false}}}, []string{"r01", "r03"}},
		{"datetime", filter("T", storage.Ge, base.Add(23*time.Hour)), []string{"r23", "r24"}},
		{"guid", filter("G", storage.Eq, storage.GUID{7}), []string{"r07"}},
		{"binary", filter("X", storage.Eq, []byte{9}), []string{"r09"}},
		{"string with a quote", filter("S", storage.Eq, "it's 12"), []string{"r12"}},
		{"prefix", storage.Query{PartitionKey: "q", RowKeyPrefix: "r1"}, []string{"r10", "r11", "r12", "r13", "r14", "r15", "r16", "r17", "r18", "r19"}},
		{"range", storage.Query{PartitionKey: "q", RowKeyFrom: "r05", RowKeyTo: "r08"}, []string{"r05", "r06", "r07"}},
		{"other partition", storage.Query{PartitionKey: "q'"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rows(t, c.q); !slices.Equal(got, c.want) {
				t.Errorf("rows = %v, want %v", got, c.want)
			}
		})
	}

	t.Run("paging", func(t *testing.T) {
		q := storage.Query{PartitionKey: "q", Limit: 10}
		var pages []int
		var all []string
		for {
			p, err := b.Query(ctx, tbl, q)
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, len(p.Entities))
			for _, e := range p.Entities {
				all = append(all, e.RowKey)
			}
			if p.Next == nil {
				break
			}
			q.Continuation = p.Next
		}
		if len(all) != 25 || !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != 25 {
			t.Errorf("paged rows %v", all)
		}
		if pages[0] != 10 || pages[1] != 10 {
			t.Errorf("page sizes %v, want 10, 10, ...", pages)
		}
	})

	t.Run("select", func(t *testing.T) {
		p, err := b.Query(ctx, tbl, storage.Query{PartitionKey: "q", RowKeyPrefix: "r0", Select: []string{"I32", "Missing"}, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entities) != 3 || p.Next == nil {
			t.Fatalf("got %d entities, next %v", len(p.Entities), p.Next)
		}
		for i, e := range p.Entities {
			if e.PartitionKey != "q" || e.RowKey != fmt.Sprintf("r%02d", i) || e.ETag == "" || e.Timestamp.IsZero() {
				t.Errorf("entity %d: %+v", i, e)
			}
			diffProps(t, "select", e.Props, map[string]any{"I32": int32(i)})
		}
	})
}

func TestAzuriteBlobs(t *testing.T) {
	b := openAzurite(t)
	ctx := t.Context()
	c := "az-" + strings.ReplaceAll(newID(), "-", "")[:16]
	for range 2 { // creating twice is fine
		if err := b.CreateContainer(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = b.blobs.DeleteContainer(context.Background(), c, nil) })

	data := []byte("hello, Ёж")
	before := time.Now().Add(-time.Minute)
	etag, err := b.PutBlob(ctx, c, "docs/a.txt", data, "text/plain; charset=utf-8", storage.AnyETag)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.GetBlob(ctx, c, "docs/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, data) || got.ContentType != "text/plain; charset=utf-8" || got.ETag != etag ||
		got.Size != int64(len(data)) || got.Name != "docs/a.txt" || got.LastModified.Before(before) {
		t.Errorf("get = %+v (put ETag %s)", got, etag)
	}

	etag2, err := b.PutBlob(ctx, c, "docs/a.txt", []byte{}, "application/octet-stream", storage.AnyETag)
	if err != nil {
		t.Fatal(err)
	}
	if etag2 == etag {
		t.Error("overwrite kept the ETag")
	}
	if got, err := b.GetBlob(ctx, c, "docs/a.txt"); err != nil || len(got.Data) != 0 || got.ETag != etag2 || got.ContentType != "application/octet-stream" {
		t.Errorf("after overwrite: %+v, %v", got, err)
	}

	for _, n := range []string{"docs/b.txt", "docs/sub/c.txt", "docsx", "img/ж.png"} {
		if _, err := b.PutBlob(ctx, c, n, []byte(n), "text/plain", storage.AnyETag); err != nil {
			t.Fatal(err)
		}
	}
	list, err := b.ListBlobs(ctx, c, "docs/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, bi := range list {
		names = append(names, bi.Name)
		if bi.ETag == "" || bi.ContentType == "" || bi.LastModified.IsZero() {
			t.Errorf("listing %+v", bi)
		}
	}
	if want := []string{"docs/a.txt", "docs/b.txt", "docs/sub/c.txt"}; !slices.Equal(names, want) {
		t.Errorf("list docs/ = %v, want %v", names, want)
	}
	if list[0].ETag != etag2 || list[0].Size != 0 || list[1].Size != int64(len("docs/b.txt")) {
		t.Errorf("listing %+v, want ETag %s", list[:2], etag2)
	}
	if all, err := b.ListBlobs(ctx, c, ""); err != nil || len(all) != 5 {
		t.Errorf("list all: %d blobs, %v", len(all), err)
	}

	if err := b.DeleteBlob(ctx, c, "docs/a.txt"); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"get deleted":              func() error { _, err := b.GetBlob(ctx, c, "docs/a.txt"); return err }(),
		"delete deleted":           b.DeleteBlob(ctx, c, "docs/a.txt"),
		"get in missing container": func() error { _, err := b.GetBlob(ctx, "no-such-container", "x"); return err }(),
	} {
		if !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}

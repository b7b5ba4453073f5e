package embedded

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// Characters on both sides of the UTF-8/UTF-16 order difference.
var (
	modelPartitions = []string{"", "a", "b", "é", "\ue000", "\U0001f600", "a\U0001f600"}
	modelRunes      = []string{"a", "b", "0", "é", "\ue000", "\uffff", "\U00010000", "\U0001f600"}
)

func randomText(r *rand.Rand, maxLen int) string {
	var s strings.Builder
	for range r.IntN(maxLen + 1) {
		s.WriteString(modelRunes[r.IntN(len(modelRunes))])
	}
	return s.String()
}

// TestQueriesMatchModelInEveryPageMode runs random queries against random
// data and checks that looping on Page.Next returns exactly the entities a
// brute-force model selects, in Azure's order, once each, with and without
// ShortPages.
func TestQueriesMatchModelInEveryPageMode(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{ShortPages: true, Seed: 1})
	r := rand.New(rand.NewPCG(7, 7))

	stored := map[[2]string]storage.Entity{}
	for range 400 {
		e := storage.Entity{PartitionKey: modelPartitions[r.IntN(len(modelPartitions))], RowKey: randomText(r, 3), Props: map[string]any{}}
		switch r.IntN(3) {
		case 0:
			e.Props["N"] = int32(r.IntN(10))
		case 1:
			e.Props["N"] = int64(r.IntN(10)) // same name, other type: never matches an int32 filter
		}
		if r.IntN(4) > 0 {
			e.Props["S"] = randomText(r, 2)
		}
		if _, err := b.Upsert(ctx, "Items", e, storage.Replace); err != nil {
			t.Fatal(err)
		}
		stored[[2]string{e.PartitionKey, e.RowKey}] = e
	}
	all := make([]storage.Entity, 0, len(stored))
	for _, e := range stored {
		all = append(all, e)
	}
	slices.SortFunc(all, func(x, y storage.Entity) int {
		return cmp.Or(storage.CompareKeys(x.PartitionKey, y.PartitionKey), storage.CompareKeys(x.RowKey, y.RowKey))
	})

	for i := range 300 {
		q := randomQuery(r)
		var want []string
		for _, e := range all {
			if modelMatches(q, e) {
				want = append(want, e.PartitionKey+"|"+e.RowKey)
			}
		}
		for _, short := range []bool{false, true} {
			if short {
				b.short = rand.New(rand.NewPCG(uint64(i), 1))
			} else {
				b.short = nil
			}
			got, pages := runQuery(t, b, q)
			if !slices.Equal(got, want) {
				t.Fatalf("query %d %+v (short pages %v, %d pages):\n got %q\nwant %q", i, q, short, pages, got, want)
			}
		}
	}
}

func randomQuery(r *rand.Rand) storage.Query {
	q := storage.Query{Limit: 1 + r.IntN(7)}
	if r.IntN(2) == 0 {
		q.PartitionKey = modelPartitions[1+r.IntN(len(modelPartitions)-1)]
	}
	if r.IntN(3) == 0 {
		q.RowKeyFrom = randomText(r, 2)
	}
	if r.IntN(3) == 0 {
		q.RowKeyTo = randomText(r, 2)
	}
	if r.IntN(3) == 0 {
		q.RowKeyPrefix = randomText(r, 1)
	}
	ops := []storage.Op{storage.Eq, storage.Ne, storage.Lt, storage.Le, storage.Gt, storage.Ge}
	for range r.IntN(3) {
		f := storage.Filter{Op: ops[r.IntN(len(ops))]}
		switch r.IntN(4) {
		case 0:
			f.Name, f.Value = "N", int32(r.IntN(10))
		case 1:
			f.Name, f.Value = "S", randomText(r, 2)
		case 2:
			f.Name, f.Value = "RowKey", randomText(r, 2)
		case 3:
			f.Name, f.Value = "PartitionKey", modelPartitions[r.IntN(len(modelPartitions))]
		}
		q.Filters = append(q.Filters, f)
	}
	return q
}

func modelMatches(q storage.Query, e storage.Entity) bool {
	if q.PartitionKey != "" && e.PartitionKey != q.PartitionKey ||
		storage.CompareKeys(e.RowKey, q.RowKeyFrom) < 0 ||
		q.RowKeyTo != "" && storage.CompareKeys(e.RowKey, q.RowKeyTo) >= 0 ||
		!strings.HasPrefix(e.RowKey, q.RowKeyPrefix) {
		return false
	}
	for _, f := range q.Filters {
		var c int
		switch f.Name {
		case "PartitionKey":
			c = storage.CompareKeys(e.PartitionKey, f.Value.(string))
		case "RowKey":
			c = storage.CompareKeys(e.RowKey, f.Value.(string))
		case "S":
			s, ok := e.Props["S"].(string)
			if !ok {
				return false
			}
			c = storage.CompareKeys(s, f.Value.(string))
		case "N":
			n, ok := e.Props["N"].(int32)
			if !ok {
				return false
			}
			c = cmp.Compare(n, f.Value.(int32))
		}
		ok := map[storage.Op]bool{storage.Eq: c == 0, storage.Ne: c != 0, storage.Lt: c < 0, storage.Le: c <= 0, storage.Gt: c > 0, storage.Ge: c >= 0}[f.Op]
		if !ok {
			return false
		}
	}
	return true
}

// runQuery loops a query to its end the way callers must, returning the keys
// seen and the number of pages.
func runQuery(t *testing.T, b *Backend, q storage.Query) (keys []string, pages int) {
	t.Helper()
	for {
		pages++
		if pages > 10_000 {
			t.Fatalf("query %+v does not finish", q)
		}
		p, err := b.Query(context.Background(), "Items", q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entities) > q.Limit {
			t.Fatalf("page of %d entities over limit %d", len(p.Entities), q.Limit)
		}
		for _, e := range p.Entities {
			keys = append(keys, e.PartitionKey+"|"+e.RowKey)
		}
		if p.Next == nil {
			return keys, pages
		}
		q.Continuation = p.Next
	}
}

func TestShortPagesModeReturnsEmptyAndShortPages(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{ShortPages: true, Seed: 42})
	for i := range 300 {
		if _, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: fmt.Sprint(i % 3), RowKey: fmt.Sprintf("%04d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	q := storage.Query{Limit: 20}
	var empty, short, seen int
	for {
		p, err := b.Query(ctx, "Items", q)
		if err != nil {
			t.Fatal(err)
		}
		seen += len(p.Entities)
		if p.Next == nil {
			break
		}
		switch {
		case len(p.Entities) == 0:
			empty++
		case len(p.Entities) < q.Limit:
			short++
		}
		q.Continuation = p.Next
	}
	if seen != 300 || empty == 0 || short == 0 {
		t.Errorf("saw %d entities with %d empty and %d short pages; want 300 with some of each", seen, empty, short)
	}
}

func TestSelectiveScanStopsAtBudgetWithContinuation(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	ops := make([]storage.TxOp, scanBudget+50)
	for i := range ops {
		ops[i] = storage.TxOp{Kind: storage.TxInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("%06d", i), Props: map[string]any{"Last": i == len(ops)-1}}}
	}
	if err := b.Transact(ctx, "Items", ops); err != nil { // the front would cap this at 100; the backend does not care
		t.Fatal(err)
	}
	q := storage.Query{PartitionKey: "p", Filters: []storage.Filter{{Name: "Last", Op: storage.Eq, Value: true}}}
	p, err := b.Query(ctx, "Items", q)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entities) != 0 || p.Next == nil {
		t.Fatalf("first page: %d entities, next %v; want an empty page with a continuation", len(p.Entities), p.Next)
	}
	q.Continuation = p.Next
	p, err = b.Query(ctx, "Items", q)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entities) != 1 || p.Entities[0].RowKey != fmt.Sprintf("%06d", len(ops)-1) || p.Next != nil {
		t.Errorf("second page: %+v, next %v; want the last row and no continuation", p.Entities, p.Next)
	}
}

func TestFiltersDoNotCoerceTypes(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	rows := map[string]map[string]any{
		"i32":     {"V": int32(5)},
		"i64":     {"V": int64(5)},
		"dbl":     {"V": float64(5)},
		"str":     {"V": "5"},
		"missing": {},
	}
	for rk, props := range rows {
		if _, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: rk, Props: props}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		filter storage.Filter
		want   []string
	}{
		{storage.Filter{Name: "V", Op: storage.Eq, Value: int32(5)}, []string{"i32"}},
		{storage.Filter{Name: "V", Op: storage.Ge, Value: int64(5)}, []string{"i64"}},
		{storage.Filter{Name: "V", Op: storage.Lt, Value: float64(5.5)}, []string{"dbl"}},
		{storage.Filter{Name: "V", Op: storage.Ne, Value: "x"}, []string{"str"}},      // missing and other types do not match Ne
		{storage.Filter{Name: "V", Op: storage.Ne, Value: int32(6)}, []string{"i32"}}, // nor here
	}
	for _, tt := range tests {
		p, err := b.Query(ctx, "Items", storage.Query{PartitionKey: "p", Filters: []storage.Filter{tt.filter}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range p.Entities {
			got = append(got, e.RowKey)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v matched %q, want %q", tt.filter, got, tt.want)
		}
	}
}

func TestKeyFiltersWithNulValues(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	for _, k := range [][2]string{{"a", "zz"}, {"a", "a"}, {"b", "a"}} {
		if _, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: k[0], RowKey: k[1]}); err != nil {
			t.Fatal(err)
		}
	}
	q := storage.Query{Filters: []storage.Filter{{Name: "PartitionKey", Op: storage.Lt, Value: "a\x00z"}}}
	got, _ := runQuery(t, b, storage.Query{Limit: 10, Filters: q.Filters})
	if want := []string{"a|a", "a|zz"}; !slices.Equal(got, want) {
		t.Errorf("PartitionKey lt \"a\\x00z\": %q, want %q", got, want)
	}
	got, _ = runQuery(t, b, storage.Query{Limit: 10, Filters: []storage.Filter{{Name: "RowKey", Op: storage.Gt, Value: "a\x00"}}})
	if want := []string{"a|zz"}; !slices.Equal(got, want) {
		t.Errorf("RowKey gt \"a\\x00\": %q, want %q", got, want)
	}
}

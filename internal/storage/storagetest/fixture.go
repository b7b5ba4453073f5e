package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// uniqueName is a table name no other test (or earlier run against the same
// account) uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s%016x", prefix, rand.Uint64())
}

// table provisions a fresh table for the calling test.
func (s *suite) table(t testing.TB) *storage.Table {
	t.Helper()
	name := uniqueName("st")
	if err := s.store.Provision(t.Context(), []string{name}, nil); err != nil {
		t.Fatalf("provision table %s: %v", name, err)
	}
	return s.store.Table(name)
}

// container provisions a fresh blob container for the calling test.
func (s *suite) container(t testing.TB) *storage.Container {
	t.Helper()
	name := uniqueName("st-")
	if err := s.store.Provision(t.Context(), nil, []string{name}); err != nil {
		t.Fatalf("provision container %s: %v", name, err)
	}
	return s.store.Container(name)
}

func ent(pk, rk string, props map[string]any) storage.Entity {
	return storage.Entity{PartitionKey: pk, RowKey: rk, Props: props}
}

// must stops the test when a step that sets up the case fails.
func must(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantErr checks that err wraps target.
func wantErr(t testing.TB, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

// insert writes an entity that the test needs and returns its ETag.
func insert(t testing.TB, tbl *storage.Table, e storage.Entity) string {
	t.Helper()
	etag, err := tbl.Insert(t.Context(), e)
	must(t, err, fmt.Sprintf("insert %s", keyOf(e)))
	if etag == "" {
		t.Fatalf("insert %s returned an empty ETag", keyOf(e))
	}
	return etag
}

// get reads an entity that must exist.
func get(t testing.TB, tbl *storage.Table, pk, rk string) storage.Entity {
	t.Helper()
	e, err := tbl.Get(t.Context(), pk, rk)
	must(t, err, fmt.Sprintf("get (%q, %q)", pk, rk))
	if e.PartitionKey != pk || e.RowKey != rk {
		t.Errorf("get (%q, %q) returned keys (%q, %q)", pk, rk, e.PartitionKey, e.RowKey)
	}
	return e
}

// wantMissing checks that an entity is not stored.
func wantMissing(t testing.TB, tbl *storage.Table, pk, rk string) {
	t.Helper()
	_, err := tbl.Get(t.Context(), pk, rk)
	wantErr(t, err, storage.ErrNotFound, fmt.Sprintf("get (%q, %q)", pk, rk))
}

// seed inserts entities with transactions of up to MaxTxOps, one partition
// at a time, which is far quicker than one insert each on Azure.
func seed(t testing.TB, tbl *storage.Table, es []storage.Entity) {
	t.Helper()
	byPK := map[string][]storage.Entity{}
	var pks []string
	for _, e := range es {
		if _, ok := byPK[e.PartitionKey]; !ok {
			pks = append(pks, e.PartitionKey)
		}
		byPK[e.PartitionKey] = append(byPK[e.PartitionKey], e)
	}
	for _, pk := range pks {
		for chunk := range slices.Chunk(byPK[pk], storage.MaxTxOps) {
			must(t, tbl.Transact(t.Context(), inserts(chunk)), fmt.Sprintf("seed partition %q", pk))
		}
	}
}

// key is an entity's identity, for comparing query results.
type key struct{ PK, RK string }

func (k key) String() string { return fmt.Sprintf("(%+q, %+q)", k.PK, k.RK) }

func keyOf(e storage.Entity) key { return key{e.PartitionKey, e.RowKey} }

func keysOf(es []storage.Entity) []key {
	ks := make([]key, len(es))
	for i, e := range es {
		ks[i] = keyOf(e)
	}
	return ks
}

// compareKeys is the table order: PartitionKey, then RowKey, both as UTF-16
// code units (storage.CompareKeys is the oracle).
func compareKeys(a, b key) int {
	if c := storage.CompareKeys(a.PK, b.PK); c != 0 {
		return c
	}
	return storage.CompareKeys(a.RK, b.RK)
}

// sortedKeys returns the keys of es in table order: what a query must return.
func sortedKeys(es []storage.Entity) []key {
	ks := keysOf(es)
	slices.SortFunc(ks, compareKeys)
	return ks
}

// matching returns the entities for which keep is true.
func matching(es []storage.Entity, keep func(storage.Entity) bool) []storage.Entity {
	var out []storage.Entity
	for _, e := range es {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// sameKeys reports the first difference between two key sequences.
func sameKeys(t testing.TB, got, want []key, what string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	at := func(ks []key) string {
		if i < len(ks) {
			return ks[i].String()
		}
		return "<end>"
	}
	t.Errorf("%s: got %d entities, want %d; first difference at #%d: got %s, want %s",
		what, len(got), len(want), i, at(got), at(want))
}

// pageStats describes the pages a query loop saw.
type pageStats struct {
	pages         int
	emptyWithNext int // pages with no entities and a continuation
	shortWithNext int // pages with some entities, fewer than the limit, and a continuation
}

// maxPages stops a query loop whose continuations never end.
const maxPages = 100_000

// queryAll loops a query to its end, as every caller must, and checks what
// holds for every page: no page over the limit, and entities strictly in table
// order across pages (so nothing repeats).
func queryAll(t testing.TB, tbl *storage.Table, q storage.Query) ([]storage.Entity, pageStats) {
	t.Helper()
	limit := q.Limit
	if limit <= 0 || limit > storage.MaxPageSize {
		limit = storage.MaxPageSize
	}
	var all []storage.Entity
	var st pageStats
	for {
		p, err := tbl.Query(t.Context(), q)
		must(t, err, fmt.Sprintf("query page %d", st.pages+1))
		st.pages++
		if len(p.Entities) > limit {
			t.Fatalf("page %d holds %d entities, over the limit %d", st.pages, len(p.Entities), limit)
		}
		for _, e := range p.Entities {
			if n := len(all); n > 0 && compareKeys(keyOf(all[n-1]), keyOf(e)) >= 0 {
				t.Fatalf("page %d: %s follows %s: out of order or repeated", st.pages, keyOf(e), keyOf(all[n-1]))
			}
			all = append(all, e)
		}
		if p.Next == nil {
			return all, st
		}
		switch {
		case len(p.Entities) == 0:
			st.emptyWithNext++
		case len(p.Entities) < limit:
			st.shortWithNext++
		}
		if st.pages >= maxPages {
			t.Fatalf("query still has a continuation after %d pages", st.pages)
		}
		q.Continuation = p.Next
	}
}

// wantQuery runs a query to its end and checks it returns exactly want, in
// table order.
func wantQuery(t testing.TB, tbl *storage.Table, q storage.Query, want []storage.Entity, what string) {
	t.Helper()
	got, _ := queryAll(t, tbl, q)
	sameKeys(t, keysOf(got), sortedKeys(want), what)
}

// numbered names values P0, P1, ... for an entity's Props.
func numbered(prefix string, values []any) map[string]any {
	m := make(map[string]any, len(values))
	for i, v := range values {
		m[fmt.Sprintf("%s%d", prefix, i)] = v
	}
	return m
}

// checkProps checks that got holds exactly the properties of want, each with
// the same Go type and value.
func checkProps(t testing.TB, got, want map[string]any, what string) {
	t.Helper()
	var problems []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s missing (want %s)", k, describe(w)))
		case !sameValue(g, w):
			problems = append(problems, fmt.Sprintf("%s = %s, want %s", k, describe(g), describe(w)))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			problems = append(problems, fmt.Sprintf("unexpected property %s = %s", k, describe(g)))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Errorf("%s: %d property problems:\n\t%s", what, len(problems), strings.Join(problems, "\n\t"))
	}
}

// sameValue compares a stored value with the expected one: same Go type and
// same value. Times must be the same instant, in UTC.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case time.Time:
		g, ok := got.(time.Time)
		_, offset := g.Zone()
		return ok && g.Equal(w) && offset == 0
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w)
	default:
		return reflect.TypeOf(got) == reflect.TypeOf(want) && got == want
	}
}

// describe prints a value with its type, shortening long ones.
func describe(v any) string {
	switch x := v.(type) {
	case []byte:
		if len(x) > 32 {
			return fmt.Sprintf("[]byte(len %d, % x...)", len(x), x[:16])
		}
	case string:
		if len(x) > 64 {
			return fmt.Sprintf("string(len %d, %+q...)", len(x), x[:32])
		}
	case time.Time:
		return fmt.Sprintf("time.Time(%s)", x.Format(time.RFC3339Nano+" MST"))
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}

package storagetest

import (
	"fmt"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// rows builds n entities in one partition with zero-padded row keys.
func rows(pk string, n int) []storage.Entity {
	es := make([]storage.Entity, n)
	for i := range es {
		es[i] = ent(pk, storage.Pad(int64(i), 5), map[string]any{"N": int32(i)})
	}
	return es
}

// firstPage checks the first page of a query against a limit: never more
// than the limit, exactly the limit when the backend fills its pages, and a
// continuation since more rows follow.
func (s *suite) firstPage(t *testing.T, tbl *storage.Table, q storage.Query, want int) {
	t.Helper()
	p, err := tbl.Query(t.Context(), q)
	must(t, err, "first page")
	if len(p.Entities) > want || !s.opts.ShortPages && len(p.Entities) != want {
		t.Errorf("limit %d: first page holds %d entities, want %d", q.Limit, len(p.Entities), want)
	}
	if p.Next == nil {
		t.Errorf("limit %d: first page has no continuation, but more rows follow", q.Limit)
	}
}

func testLimit(t *testing.T, s *suite) {
	tbl := s.table(t)
	big := rows("L", 1500)
	seed(t, tbl, append(rows("K", 10), append(big, rows("M", 10)...)...))
	wantAll := sortedKeys(big)

	cases := []struct {
		name      string
		limit     int
		firstPage int
	}{
		{"Below1000", 10, 10},
		{"At1000", 1000, 1000},
		{"Above1000", 1500, storage.MaxPageSize},
		{"ZeroMeansMax", 0, storage.MaxPageSize},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			q := storage.Query{PartitionKey: "L", Limit: c.limit}
			s.firstPage(t, tbl, q, c.firstPage)
			got, _ := queryAll(t, tbl, q)
			sameKeys(t, keysOf(got), wantAll, fmt.Sprintf("all pages at limit %d", c.limit))
		})
	}
	t.Run("ExactlyLimitRows", func(t *testing.T) {
		t.Parallel()
		// 1000 rows asked for 1000 at a time: one full page holds them all.
		q := storage.Query{PartitionKey: "L", RowKeyTo: storage.Pad(1000, 5), Limit: 1000}
		p, err := tbl.Query(t.Context(), q)
		must(t, err, "first page")
		if !s.opts.ShortPages && len(p.Entities) != 1000 {
			t.Errorf("first page holds %d entities, want 1000", len(p.Entities))
		}
		got, _ := queryAll(t, tbl, q)
		sameKeys(t, keysOf(got), wantAll[:1000], "all pages")
	})
}

func testPaging(t *testing.T, s *suite) {
	t.Run("Paging2500AcrossPartitions", func(t *testing.T) {
		t.Parallel()
		tbl := s.table(t)
		var all []storage.Entity
		sizes := []struct {
			pk string
			n  int
		}{{"p0", 1}, {"p1", 99}, {"pж", 400}, {"p😀", 500}, {"p\uE000", 700}, {"pz", 800}}
		for _, p := range sizes {
			all = append(all, rows(p.pk, p.n)...)
		}
		if len(all) != 2500 {
			t.Fatalf("built %d entities, want 2500", len(all))
		}
		seed(t, tbl, all)
		want := sortedKeys(all)
		for _, limit := range []int{37, 250, 1000} {
			got, st := queryAll(t, tbl, storage.Query{Scan: true, Limit: limit})
			sameKeys(t, keysOf(got), want, fmt.Sprintf("whole table, %d a page", limit))
			if fewest := (2500 + limit - 1) / limit; st.pages < fewest {
				t.Errorf("limit %d: %d pages, want at least %d", limit, st.pages, fewest)
			}
		}
		var viaQueryAll []key
		must(t, tbl.QueryAll(t.Context(), storage.Query{Scan: true, Limit: 99}, func(e storage.Entity) error {
			viaQueryAll = append(viaQueryAll, keyOf(e))
			return nil
		}), "Table.QueryAll")
		sameKeys(t, viaQueryAll, want, "Table.QueryAll")
	})
}

func testShortPages(t *testing.T, s *suite) {
	shapes := []struct {
		name string
		q    storage.Query
	}{
		{"PartitionQuery", storage.Query{PartitionKey: "b", Limit: 7}},
		{"WholeTableQuery", storage.Query{Scan: true, Limit: 11}},
		{"RangeQuery", storage.Query{PartitionKey: "b", RowKeyFrom: storage.Pad(10, 5), RowKeyTo: storage.Pad(50, 5), Limit: 5}},
		{"PrefixQuery", storage.Query{PartitionKey: "c", RowKeyPrefix: "0001", Limit: 4}},
		{"FilterQuery", storage.Query{Scan: true, Filters: []storage.Filter{{Name: "N", Op: storage.Ge, Value: int32(45)}}, Limit: 3}},
	}
	if !s.opts.ShortPages {
		for _, sh := range shapes {
			t.Run(sh.name, func(t *testing.T) { t.Skip(skipShortPages) })
		}
		return
	}
	tbl := s.table(t)
	var all []storage.Entity
	for _, pk := range []string{"a", "b", "c"} {
		all = append(all, rows(pk, 60)...)
	}
	seed(t, tbl, all)
	// Pages are short or empty at random, so each shape runs until both kinds
	// have been seen, and every run must still return every entity once.
	const passes = 50
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			want := sortedKeys(oracle(all, sh.q))
			var seen pageStats
			for i := 0; i < passes && (seen.emptyWithNext == 0 || seen.shortWithNext == 0); i++ {
				got, st := queryAll(t, tbl, sh.q)
				sameKeys(t, keysOf(got), want, fmt.Sprintf("pass %d", i+1))
				seen.pages += st.pages
				seen.emptyWithNext += st.emptyWithNext
				seen.shortWithNext += st.shortWithNext
			}
			if seen.emptyWithNext == 0 {
				t.Errorf("no empty page with a continuation in %d pages", seen.pages)
			}
			if seen.shortWithNext == 0 {
				t.Errorf("no short page with a continuation in %d pages", seen.pages)
			}
		})
	}
}

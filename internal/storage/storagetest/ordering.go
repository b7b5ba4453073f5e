package storagetest

import (
	"slices"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// orderKeys mix ASCII, Latin-1, Cyrillic, CJK, private-use, the last BMP
// characters and supplementary characters. In UTF-16 a supplementary
// character (a surrogate pair, D800–DBFF first) sorts before U+E000–U+FFFF;
// in UTF-8 byte order it sorts after them.
var orderKeys = []string{
	"a", "z", "é", "ж", "中", "\uE000", "\uFFFD", "\uFFFF", "😀", "😁", "\U0010FFFF",
	"a😀", "a\uFFFD", "a\uE000", "A", "0", " ", "~", "\u00A0", "\uD7FF", "ab", "a ", "aa",
}

func testOrdering(t *testing.T, s *suite) {
	t.Run("OracleIsUTF16", func(t *testing.T) {
		t.Parallel()
		if storage.CompareKeys("😀", "\uE000") >= 0 || "😀" < "\uE000" {
			t.Fatal("test keys do not tell UTF-16 order from byte order")
		}
		byBytes := slices.Clone(orderKeys)
		slices.Sort(byBytes)
		byUnits := slices.Clone(orderKeys)
		slices.SortFunc(byUnits, storage.CompareKeys)
		if slices.Equal(byBytes, byUnits) {
			t.Fatal("orderKeys sort the same by bytes and by UTF-16 code units")
		}
	})
	t.Run("WithinPartition", func(t *testing.T) {
		t.Parallel()
		tbl, es := s.orderedPartition(t)
		wantQuery(t, tbl, storage.Query{PartitionKey: "p"}, es, "partition query")
	})
	t.Run("AcrossPartitions", func(t *testing.T) {
		t.Parallel()
		tbl := s.table(t)
		var es []storage.Entity
		for _, pk := range orderKeys {
			for _, rk := range []string{"2", "😀", "\uE000", "1"} {
				es = append(es, ent(pk, rk, nil))
			}
		}
		seed(t, tbl, es)
		wantQuery(t, tbl, storage.Query{Scan: true}, es, "whole-table query")
		wantQuery(t, tbl, storage.Query{Scan: true, Limit: 3}, es, "whole-table query, 3 a page")
	})
	t.Run("RangeBoundsInUTF16Order", func(t *testing.T) {
		t.Parallel()
		tbl, es := s.orderedPartition(t)
		for _, bound := range []string{"\uE000", "😀", "\uFFFF", "a\uE000", "ж"} {
			from := matching(es, func(e storage.Entity) bool { return storage.CompareKeys(e.RowKey, bound) >= 0 })
			wantQuery(t, tbl, storage.Query{PartitionKey: "p", RowKeyFrom: bound}, from, "RowKeyFrom "+bound)
			to := matching(es, func(e storage.Entity) bool { return storage.CompareKeys(e.RowKey, bound) < 0 })
			wantQuery(t, tbl, storage.Query{PartitionKey: "p", RowKeyTo: bound}, to, "RowKeyTo "+bound)
		}
	})
}

// orderedPartition is a fresh table whose partition "p" holds one row per
// orderKeys entry, and those rows.
func (s *suite) orderedPartition(t testing.TB) (*storage.Table, []storage.Entity) {
	tbl := s.table(t)
	var es []storage.Entity
	for _, k := range orderKeys {
		es = append(es, ent("p", k, nil))
	}
	seed(t, tbl, es)
	return tbl, es
}

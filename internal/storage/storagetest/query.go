package storagetest

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// rangeKeys exercise prefixes whose "next" key is unusual in UTF-16 order:
// after U+FFFE comes U+FFFF, after U+FFFF nothing, after U+D7FF the
// supplementary characters, and after U+10FFFF comes U+E000.
var rangeKeys = []string{
	"a", "ab", "abc", "abd", "abz", "b", "ж", "жук", "жё", "жа",
	"a\uFFFE", "a\uFFFEz", "a\uFFFF", "a\uFFFFz", "a\uFFFF😀",
	"a\uD7FF", "a\uD7FFz", "a😀", "a😀b", "a😁", "a\U0010FFFF", "a\U0010FFFFx", "a\uE000",
	"😀", "😀a", "😁", "\uE000", "\uFFFF", "\uFFFFa", "k0", "k1", "k2",
}

var opNames = map[storage.Op]string{
	storage.Eq: "Eq", storage.Ne: "Ne", storage.Lt: "Lt", storage.Le: "Le", storage.Gt: "Gt", storage.Ge: "Ge",
}

// inRange is the oracle for a query's row-key range and prefix.
func inRange(rk string, q storage.Query) bool {
	return (q.RowKeyFrom == "" || storage.CompareKeys(rk, q.RowKeyFrom) >= 0) &&
		(q.RowKeyTo == "" || storage.CompareKeys(rk, q.RowKeyTo) < 0) &&
		strings.HasPrefix(rk, q.RowKeyPrefix) &&
		(q.RowKeyIn == nil || slices.Contains(q.RowKeyIn, rk))
}

// compareValues orders two values of one EDM type. Strings compare as UTF-16
// code units, like keys.
func compareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return storage.CompareKeys(x, b.(string))
	case int32:
		return cmp.Compare(x, b.(int32))
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case time.Time:
		return x.Compare(b.(time.Time))
	case storage.GUID:
		y := b.(storage.GUID)
		return bytes.Compare(x[:], y[:])
	}
	panic(fmt.Sprintf("no order for %T", a))
}

// matches is the oracle for one property filter. A property the entity lacks
// matches nothing, whatever the operator (as in Azure).
func matches(e storage.Entity, f storage.Filter) bool {
	var v any
	switch f.Name {
	case "PartitionKey":
		v = e.PartitionKey
	case "RowKey":
		v = e.RowKey
	default:
		var ok bool
		if v, ok = e.Props[f.Name]; !ok {
			return false
		}
	}
	return f.Op.Holds(compareValues(v, f.Value))
}

// oracle returns the entities a query must return, from all that are stored.
func oracle(all []storage.Entity, q storage.Query) []storage.Entity {
	return matching(all, func(e storage.Entity) bool {
		if q.PartitionKey != "" && e.PartitionKey != q.PartitionKey || !inRange(e.RowKey, q) {
			return false
		}
		for _, f := range q.Filters {
			if !matches(e, f) {
				return false
			}
		}
		return true
	})
}

// guid is a GUID that differs from the others only in its last byte. GUID
// ordering beyond equality is backend-defined; on the last byte, 0 to 3,
// every implementation agrees (Azurite compares base64 of the text form).
func guid(last byte) storage.GUID {
	return storage.GUID{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, last}
}

// filterColumns are the typed columns of the filter data set: values[i]
// belongs to row i, and pivots are compared against with every operator.
func filterColumns() []struct {
	name, prop     string
	values, pivots []any
} {
	base := time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)
	hours := func(hs ...int) []any {
		var out []any
		for _, h := range hs {
			out = append(out, base.Add(time.Duration(h)*time.Hour))
		}
		return out
	}
	return []struct {
		name, prop     string
		values, pivots []any
	}{
		{"String", "S",
			[]any{"", "a", "apple", "b", "ж", "😀", "\uE000", "中"},
			[]any{"apple", "ж", "ab", "😀", "\uE000", ""}},
		{"Int32", "I32",
			[]any{int32(-5), int32(0), int32(1), int32(2), int32(100), int32(math.MaxInt32), int32(math.MinInt32), int32(7)},
			[]any{int32(1), int32(100), int32(50), int32(math.MinInt32)}},
		{"Int64", "I64",
			[]any{int64(1 << 53), int64(1<<53 + 1), int64(1<<53 + 2), int64(-1), int64(0), int64(math.MaxInt64), int64(math.MinInt64), int64(42)},
			[]any{int64(1<<53 + 1), int64(0), int64(1<<53 + 3), int64(math.MaxInt64)}},
		{"Float64", "F",
			[]any{-1.5, 0.0, 0.1, 2.0, 2.5, 1e10, -1e10, 3.0},
			[]any{2.0, 0.1, 2.25, -1e10}},
		{"Bool", "B",
			[]any{true, false, true, false, true, false, true, true},
			[]any{true, false}},
		{"DateTime", "T",
			hours(5, -3, 0, 48, 2, -100000, 1, 7),
			hours(0, 2, 3)},
		{"GUID", "G",
			[]any{guid(2), guid(0), guid(3), guid(1), guid(0), guid(2), guid(3), guid(1)},
			[]any{guid(0), guid(2), guid(3)}},
	}
}

func testQuery(t *testing.T, s *suite) {
	tbl := s.table(t)
	var all []storage.Entity
	// Rows in partition "r" to query, and the same rows in the partitions
	// either side, which no partition query may return.
	for _, pk := range []string{"q", "r", "r ", "s"} {
		for _, rk := range rangeKeys {
			all = append(all, ent(pk, rk, nil))
		}
	}
	cols := filterColumns()
	for _, pk := range []string{"f", "g"} {
		for i := range cols[0].values {
			props := map[string]any{}
			for _, c := range cols {
				props[c.prop] = c.values[i]
			}
			all = append(all, ent(pk, fmt.Sprintf("row%d", i), props))
		}
	}
	// A row without the typed properties: no filter on them may match it.
	all = append(all, ent("f", "sparse", map[string]any{"Other": int32(1)}))
	seed(t, tbl, all)

	run := func(t *testing.T, q storage.Query, what string) {
		t.Helper()
		wantQuery(t, tbl, q, oracle(all, q), what)
	}
	t.Run("RowKeyRange", func(t *testing.T) {
		t.Parallel()
		for _, r := range [][2]string{
			{"", ""}, {"ab", ""}, {"", "ab"}, {"ab", "b"}, {"abc", "abc"}, {"b", "a"}, {"aa", "abx"},
			{"a\uE000", "a\uFFFF"}, {"😀", "\uE000"}, {"a\uD7FF", "a\uE000"}, {"ж", "жё"}, {"k1", "k1 "},
		} {
			run(t, storage.Query{PartitionKey: "r", RowKeyFrom: r[0], RowKeyTo: r[1]}, fmt.Sprintf("range [%+q, %+q)", r[0], r[1]))
		}
	})
	t.Run("RowKeyPrefix", func(t *testing.T) {
		t.Parallel()
		for _, p := range []string{
			"", "a", "ab", "abc", "abcd", "zzz", "ж", "жу", "a\uFFFE", "a\uFFFF", "a\uD7FF",
			"a😀", "a\U0010FFFF", "😀", "\uFFFF", "\uE000",
		} {
			run(t, storage.Query{PartitionKey: "r", RowKeyPrefix: p}, fmt.Sprintf("prefix %+q", p))
		}
	})
	t.Run("RowKeyPrefixWithRange", func(t *testing.T) {
		t.Parallel()
		for _, q := range []storage.Query{
			{RowKeyPrefix: "a", RowKeyFrom: "ab", RowKeyTo: "a\uFFFF"},
			{RowKeyPrefix: "a", RowKeyFrom: "b"},
			{RowKeyPrefix: "ab", RowKeyTo: "abd"},
			{RowKeyPrefix: "ab", RowKeyFrom: "a", RowKeyTo: "c"},
			{RowKeyPrefix: "a\uFFFF", RowKeyFrom: "a\uFFFFa"},
		} {
			q.PartitionKey = "r"
			run(t, q, fmt.Sprintf("prefix %+q range [%+q, %+q)", q.RowKeyPrefix, q.RowKeyFrom, q.RowKeyTo))
		}
	})
	t.Run("RowKeyIn", func(t *testing.T) {
		t.Parallel()
		// A batch of point reads: present and absent keys, in any order,
		// keys that sort oddly in UTF-16, alone and with other conditions.
		for _, q := range []storage.Query{
			{RowKeyIn: []string{"abd"}},
			{RowKeyIn: []string{"k2", "a", "nope", "😀", "a\uFFFF", "ж"}},
			{RowKeyIn: []string{"a\U0010FFFF", "a\uE000", "a😀"}},
			{RowKeyIn: []string{"missing", "also missing"}},
			{RowKeyIn: []string{"ab", "abc", "b", "k0"}, RowKeyPrefix: "a"},
			{RowKeyIn: []string{"ab", "abc", "abd", "k1"}, RowKeyFrom: "abc", Limit: 1},
		} {
			q.PartitionKey = "r"
			run(t, q, fmt.Sprintf("keys %+q prefix %+q from %+q", q.RowKeyIn, q.RowKeyPrefix, q.RowKeyFrom))
		}
	})
	t.Run("WholeTableRange", func(t *testing.T) {
		t.Parallel()
		// Without a partition key, the range applies to the row key in
		// every partition.
		run(t, storage.Query{Scan: true, RowKeyFrom: "ab", RowKeyTo: "b"}, "whole-table range")
		run(t, storage.Query{Scan: true, RowKeyPrefix: "ж"}, "whole-table prefix")
	})
	t.Run("Filters", func(t *testing.T) {
		for _, c := range cols {
			t.Run(c.name, func(t *testing.T) {
				for op := storage.Eq; op <= storage.Ge; op++ {
					t.Run(opNames[op], func(t *testing.T) {
						t.Parallel()
						for _, p := range c.pivots {
							f := storage.Filter{Name: c.prop, Op: op, Value: p}
							run(t, storage.Query{PartitionKey: "f", Filters: []storage.Filter{f}}, fmt.Sprintf("%s %s %s", c.prop, opNames[op], describe(p)))
						}
					})
				}
			})
		}
		t.Run("KeyNames", func(t *testing.T) {
			t.Parallel()
			for op := storage.Eq; op <= storage.Ge; op++ {
				run(t, storage.Query{Scan: true, Filters: []storage.Filter{{Name: "PartitionKey", Op: op, Value: "g"}}}, "PartitionKey "+opNames[op])
				run(t, storage.Query{PartitionKey: "r", Filters: []storage.Filter{{Name: "RowKey", Op: op, Value: "ab"}}}, "RowKey "+opNames[op])
			}
		})
		t.Run("Combined", func(t *testing.T) {
			t.Parallel()
			run(t, storage.Query{PartitionKey: "f", Filters: []storage.Filter{
				{Name: "S", Op: storage.Ge, Value: "a"},
				{Name: "I32", Op: storage.Lt, Value: int32(100)},
				{Name: "B", Op: storage.Eq, Value: true},
			}}, "three filters")
			run(t, storage.Query{Scan: true, Filters: []storage.Filter{{Name: "I64", Op: storage.Gt, Value: int64(0)}}, RowKeyFrom: "row2", RowKeyTo: "row6"},
				"filter and range, whole table")
			run(t, storage.Query{PartitionKey: "f", Filters: []storage.Filter{
				{Name: "F", Op: storage.Gt, Value: 0.0},
				{Name: "F", Op: storage.Lt, Value: 3.0},
			}}, "two filters on one property")
		})
		t.Run("Timestamp", func(t *testing.T) {
			t.Parallel()
			hourAgo := time.Now().Add(-time.Hour)
			rows := oracle(all, storage.Query{PartitionKey: "f"})
			wantQuery(t, tbl, storage.Query{PartitionKey: "f", Filters: []storage.Filter{{Name: "Timestamp", Op: storage.Ge, Value: hourAgo}}}, rows, "Timestamp ge an hour ago")
			wantQuery(t, tbl, storage.Query{PartitionKey: "f", Filters: []storage.Filter{{Name: "Timestamp", Op: storage.Lt, Value: hourAgo}}}, nil, "Timestamp lt an hour ago")
		})
	})
	t.Run("Select", func(t *testing.T) {
		t.Parallel()
		q := storage.Query{PartitionKey: "f", RowKeyFrom: "row3", RowKeyTo: "row5", Select: []string{"S", "I64", "Missing"}}
		got, _ := queryAll(t, tbl, q)
		sameKeys(t, keysOf(got), sortedKeys(oracle(all, q)), "select")
		for _, e := range got {
			want := oracle(all, storage.Query{PartitionKey: "f", RowKeyFrom: e.RowKey, RowKeyTo: e.RowKey + " "})[0].Props
			checkProps(t, e.Props, map[string]any{"S": want["S"], "I64": want["I64"]}, "selected "+e.RowKey)
			if e.ETag == "" || e.Timestamp.IsZero() {
				t.Errorf("selected %s has ETag %q, Timestamp %v", e.RowKey, e.ETag, e.Timestamp)
			}
		}
	})
	t.Run("FullEntities", func(t *testing.T) {
		t.Parallel()
		got, _ := queryAll(t, tbl, storage.Query{PartitionKey: "f"})
		want := oracle(all, storage.Query{PartitionKey: "f"})
		sameKeys(t, keysOf(got), sortedKeys(want), "partition f")
		for _, e := range got {
			w := oracle(all, storage.Query{PartitionKey: "f", RowKeyFrom: e.RowKey, RowKeyTo: e.RowKey + " "})[0]
			checkProps(t, e.Props, w.Props, "queried "+e.RowKey)
		}
	})
	t.Run("EmptyResult", func(t *testing.T) {
		t.Parallel()
		wantQuery(t, tbl, storage.Query{PartitionKey: "no-such-partition"}, nil, "missing partition")
		wantQuery(t, s.table(t), storage.Query{Scan: true}, nil, "empty table")
	})
	t.Run("InvalidQueries", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct {
			q      storage.Query
			target error
		}{
			{storage.Query{Scan: true, Limit: -1}, storage.ErrInvalid},
			{storage.Query{Scan: true, Filters: []storage.Filter{{Name: "S", Op: storage.Ge + 1, Value: "x"}}}, storage.ErrInvalid},
			{storage.Query{Scan: true, Filters: []storage.Filter{{Name: "RowKey", Op: storage.Eq, Value: 1}}}, storage.ErrInvalid},
			{storage.Query{Scan: true, Filters: []storage.Filter{{Name: "bad-name", Op: storage.Eq, Value: 1}}}, storage.ErrInvalid},
			{storage.Query{Scan: true, Filters: []storage.Filter{{Name: "S", Op: storage.Eq, Value: float32(1)}}}, storage.ErrInvalid},
			{storage.Query{Scan: true, Select: []string{"bad name"}}, storage.ErrInvalid},
			{storage.Query{PartitionKey: "\xff"}, storage.ErrInvalidKey},
			// No partition key and no explicit scan: refused, never read
			// as the whole table.
			{storage.Query{}, storage.ErrInvalidKey},
			{storage.Query{RowKeyPrefix: "a"}, storage.ErrInvalidKey},
			{storage.Query{Filters: []storage.Filter{{Name: "S", Op: storage.Eq, Value: "x"}}}, storage.ErrInvalidKey},
			{storage.Query{PartitionKey: "p", Scan: true}, storage.ErrInvalid},
			{storage.Query{PartitionKey: "a%b"}, storage.ErrInvalidKey},
			{storage.Query{PartitionKey: "a/b"}, storage.ErrInvalidKey},
			{storage.Query{Scan: true, RowKeyIn: []string{"a"}}, storage.ErrInvalid},
			{storage.Query{PartitionKey: "p", RowKeyIn: []string{}}, storage.ErrInvalid},
			{storage.Query{PartitionKey: "p", RowKeyIn: strings.Split("a b c d e f g h i j k l m n o", " ")}, storage.ErrInvalid},
			{storage.Query{PartitionKey: "p", RowKeyIn: []string{"a/b"}}, storage.ErrInvalidKey},
		} {
			_, err := tbl.Query(t.Context(), c.q)
			wantErr(t, err, c.target, fmt.Sprintf("query %+v", c.q))
		}
	})
}

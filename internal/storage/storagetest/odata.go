package storagetest

import (
	"fmt"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// odataValues are stored as keys and property values. Each is something an
// OData filter or a URL treats specially.
var odataValues = []string{
	"'", "''", "a'b", "'a'", "it''s", "&", "a&b=c", "+", "a+b", " and ", "x and y",
	"eq", " eq ", ")", "(", "()", `"`, `"quoted"`, "ж'ё", "😀'", "中'文", "$filter", "*", ":", ";", ",", "@",
	"=", "[", "]", "{", "}", "<", ">", "|", "~", "!", "a b", "x' or 'a' eq 'a", "' or PartitionKey ne '",
}

// odataPropOnly may not be keys but are fine property values.
var odataPropOnly = []string{"a/b", "a#b", "a?b", `a\b`, "'/'", "?$top=1", "%", "%27", "%2F", "100%"}

// odataMisses are stored nowhere, and no stored value starts with one: a
// query for them must find nothing, however its text is built.
var odataMisses = []string{
	"y' or 'a' eq 'a", "') or (RowKey ne '", "q'", "'' or true or ''", "'x", "nomatch' or 1 eq 1 or 'x",
	"zz) or (PartitionKey ne 'zz",
}

func testOData(t *testing.T, s *suite) {
	tbl := s.table(t)
	var all []storage.Entity
	for _, v := range odataValues {
		all = append(all,
			ent(v, "r", map[string]any{"S": v}),
			ent("rows", v, map[string]any{"S": v}),
			ent("rows", v+"tail", map[string]any{"S": v + "tail"}))
	}
	for i, v := range odataPropOnly {
		all = append(all, ent("props", fmt.Sprint("h", i), map[string]any{"S": v}))
	}
	seed(t, tbl, all)
	run := func(t *testing.T, q storage.Query, what string) {
		t.Helper()
		want := oracle(all, q)
		wantQuery(t, tbl, q, want, what)
	}
	keyed := append(append([]string(nil), odataValues...), odataMisses...)
	t.Run("PartitionKey", func(t *testing.T) {
		t.Parallel()
		for _, v := range keyed {
			run(t, storage.Query{PartitionKey: v}, fmt.Sprintf("partition %+q", v))
		}
	})
	t.Run("RowKeyRange", func(t *testing.T) {
		t.Parallel()
		for _, v := range keyed {
			run(t, storage.Query{PartitionKey: "rows", RowKeyFrom: v, RowKeyTo: v + " "}, fmt.Sprintf("range [%+q, %+q)", v, v+" "))
			run(t, storage.Query{PartitionKey: "rows", RowKeyFrom: v}, fmt.Sprintf("from %+q", v))
			run(t, storage.Query{PartitionKey: "rows", RowKeyTo: v}, fmt.Sprintf("to %+q", v))
		}
	})
	t.Run("RowKeyPrefix", func(t *testing.T) {
		t.Parallel()
		for _, v := range keyed {
			run(t, storage.Query{PartitionKey: "rows", RowKeyPrefix: v}, fmt.Sprintf("prefix %+q", v))
		}
	})
	t.Run("PropertyFilter", func(t *testing.T) {
		t.Parallel()
		for _, v := range append(keyed, odataPropOnly...) {
			for _, op := range []storage.Op{storage.Eq, storage.Ne, storage.Gt} {
				run(t, storage.Query{Scan: true, Filters: []storage.Filter{{Name: "S", Op: op, Value: v}}}, fmt.Sprintf("S %s %+q", opNames[op], v))
			}
		}
	})
	t.Run("KeyFilters", func(t *testing.T) {
		t.Parallel()
		for _, v := range keyed {
			run(t, storage.Query{Scan: true, Filters: []storage.Filter{{Name: "PartitionKey", Op: storage.Eq, Value: v}}}, fmt.Sprintf("PartitionKey eq %+q", v))
			run(t, storage.Query{PartitionKey: "rows", Filters: []storage.Filter{{Name: "RowKey", Op: storage.Eq, Value: v}}}, fmt.Sprintf("RowKey eq %+q", v))
		}
	})
	t.Run("InjectionMatchesOnlyItself", func(t *testing.T) {
		t.Parallel()
		const inj = "x' or 'a' eq 'a"
		got, _ := queryAll(t, tbl, storage.Query{PartitionKey: inj})
		sameKeys(t, keysOf(got), []key{{inj, "r"}}, "partition "+inj)
		got, _ = queryAll(t, tbl, storage.Query{Scan: true, Filters: []storage.Filter{{Name: "S", Op: storage.Eq, Value: "y' or 'a' eq 'a"}}})
		sameKeys(t, keysOf(got), nil, "filter on a value stored nowhere")
	})
	t.Run("PointOps", func(t *testing.T) {
		own := s.table(t)
		for _, v := range odataValues {
			t.Run(fmt.Sprintf("%+q", v), func(t *testing.T) {
				t.Parallel()
				acceptKey(t, own, v)
			})
		}
	})
}

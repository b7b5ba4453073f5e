package storagetest

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func testUpsert(t *testing.T, s *suite) {
	tbl := s.table(t)
	const pk = "upsert"
	stored := map[string]any{"A": "a", "B": int32(1)}
	cases := []struct {
		name     string
		existing map[string]any // nil: no row before the upsert
		mode     storage.UpdateMode
		upsert   map[string]any
		want     map[string]any
	}{
		{"InsertsWhenMissingMerge", nil, storage.Merge, stored, stored},
		{"InsertsWhenMissingReplace", nil, storage.Replace, stored, stored},
		{"MergeKeepsOtherProps", stored, storage.Merge,
			map[string]any{"B": int32(2), "C": true},
			map[string]any{"A": "a", "B": int32(2), "C": true}},
		{"ReplaceDropsOtherProps", stored, storage.Replace,
			map[string]any{"C": true},
			map[string]any{"C": true}},
		{"MergeChangesType", stored, storage.Merge,
			map[string]any{"B": "now a string"},
			map[string]any{"A": "a", "B": "now a string"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var before string
			if c.existing != nil {
				before = insert(t, tbl, ent(pk, c.name, c.existing))
			}
			etag, err := tbl.Upsert(t.Context(), ent(pk, c.name, c.upsert), c.mode)
			must(t, err, "upsert")
			got := get(t, tbl, pk, c.name)
			checkProps(t, got.Props, c.want, "after upsert")
			if etag == "" || etag == before || got.ETag != etag {
				t.Errorf("upsert ETag %q (before %q), get ETag %q", etag, before, got.ETag)
			}
		})
	}
}

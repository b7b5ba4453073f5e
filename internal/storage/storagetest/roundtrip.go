package storagetest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// edmValues are the values each EDM type must store and return unchanged,
// with the same Go type.
func edmValues() []struct {
	name   string
	values []any
} {
	moscow := time.FixedZone("MSK", 3*60*60)
	return []struct {
		name   string
		values []any
	}{
		{"String", []any{
			"", "hello", "Привет, мир", "😀🎉👍🏽", "中文字符", "it's", "''", "a'b''c",
			"tab\tline\nreturn\r", "\uFFFD\uFFFF\uE000", `<x a="1">&amp;</x>`, "100% & +more",
		}},
		{"Int32", []any{int32(0), int32(1), int32(-1), int32(math.MinInt32), int32(math.MaxInt32)}},
		{"Int64", []any{
			int64(0), int64(-1), int64(42),
			int64(1<<53 + 1), int64(-(1<<53 + 1)), int64(1<<62 + 3),
			int64(math.MinInt64), int64(math.MaxInt64),
		}},
		{"Float64", []any{
			2.0, 0.0, -1.0, 1e15, float64(1 << 53), // whole numbers stay float64
			0.1, -1.5, 3.141592653589793, 1e300, -1e-300,
			math.MaxFloat64, math.SmallestNonzeroFloat64,
		}},
		{"Bool", []any{true, false}},
		{"DateTime", []any{
			time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.UTC), // 100 ns precision
			time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
			time.Date(1900, 6, 15, 12, 0, 0, 100, time.UTC),
			time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),              // Azure's earliest
			time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC), // and latest
			time.Date(2025, 3, 30, 3, 30, 0, 500, moscow),            // another zone: same instant, back in UTC
		}},
		{"GUID", []any{
			storage.GUID{},
			storage.GUID{0x3f, 0x2b, 0x8c, 0x01, 0x9a, 0x7e, 0x4d, 0x22, 0xb1, 0x05, 0xc4, 0x6e, 0x00, 0xff, 0x10, 0x99},
			storage.GUID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		}},
		{"Binary", []any{
			[]byte{}, []byte{0}, []byte("hello"), []byte{0xff, 0xfe, 0x00, 0x80},
			patterned(storage.MaxValueBytes),
		}},
	}
}

// patterned is n bytes that are not all alike, so truncation or reordering
// shows.
func patterned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func testRoundTrip(t *testing.T, s *suite) {
	tbl := s.table(t)
	var all []any
	for _, c := range edmValues() {
		all = append(all, c.values...)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, tbl, c.name, c.values)
		})
	}
	t.Run("AllTypesInOneEntity", func(t *testing.T) {
		t.Parallel()
		roundTrip(t, tbl, "all", all)
	})
	t.Run("DateTimeTruncatedTo100ns", func(t *testing.T) {
		t.Parallel()
		in := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
		insert(t, tbl, ent("truncate", "ns", map[string]any{"T": in}))
		want := time.Date(2024, 5, 6, 7, 8, 9, 123456700, time.UTC)
		checkProps(t, get(t, tbl, "truncate", "ns").Props, map[string]any{"T": want}, "nanoseconds")
	})
	t.Run("IntStoredAsInt64", func(t *testing.T) {
		t.Parallel()
		insert(t, tbl, ent("int", "int", map[string]any{"N": 7, "Big": math.MaxInt64}))
		checkProps(t, get(t, tbl, "int", "int").Props, map[string]any{"N": int64(7), "Big": int64(math.MaxInt64)}, "Go int")
	})
	t.Run("NegativeZero", func(t *testing.T) {
		t.Parallel()
		// The sign of a zero is not kept everywhere (JSON engines print -0 as
		// 0); what must hold is that it comes back as the double 0.
		insert(t, tbl, ent("zero", "neg", map[string]any{"Z": math.Copysign(0, -1)}))
		checkProps(t, get(t, tbl, "zero", "neg").Props, map[string]any{"Z": 0.0}, "-0.0")
	})
	t.Run("LargeUnicodeStrings", func(t *testing.T) {
		t.Parallel()
		// Request bodies this large arrive in several chunks; a multi-byte
		// character split across two must still arrive whole. Offsets of 0-3
		// ASCII bytes move the chunk boundaries through each character.
		for shift := range 4 {
			pad := strings.Repeat("a", shift)
			props := map[string]any{
				"Two":   pad + longString('ж', 32768-shift),
				"Three": pad + longString('中', 32768-shift),
				"Four":  pad + longString('😀', 16384-shift),
			}
			rk := fmt.Sprint("shift", shift)
			etag := insert(t, tbl, ent("unicode", rk, props))
			checkProps(t, get(t, tbl, "unicode", rk).Props, props, "after insert")
			_, err := tbl.Update(t.Context(), ent("unicode", rk, props), storage.Replace, etag)
			must(t, err, "replace")
			checkProps(t, get(t, tbl, "unicode", rk).Props, props, "after replace")
		}
	})
	t.Run("NoProperties", func(t *testing.T) {
		t.Parallel()
		insert(t, tbl, ent("empty", "empty", nil))
		checkProps(t, get(t, tbl, "empty", "empty").Props, map[string]any{}, "no properties")
	})
	t.Run("CallerMapUnchanged", func(t *testing.T) {
		t.Parallel()
		in := map[string]any{"N": 1, "T": time.Date(2024, 1, 1, 0, 0, 0, 1, time.UTC)}
		before := maps.Clone(in)
		insert(t, tbl, ent("caller", "map", in))
		if !maps.Equal(in, before) {
			t.Errorf("insert changed the caller's map: %v, was %v", in, before)
		}
	})
}

// roundTrip takes one entity through insert, get, merge, get, replace, get,
// delete and get, checking every value's Go type and value on each read.
func roundTrip(t *testing.T, tbl *storage.Table, rk string, values []any) {
	const pk = "roundtrip"
	ctx := t.Context()

	inserted := numbered("V", values)
	inserted["Keep"] = "kept"
	etag := insert(t, tbl, ent(pk, rk, inserted))
	got := get(t, tbl, pk, rk)
	checkProps(t, got.Props, inserted, "after insert")
	if got.ETag != etag {
		t.Errorf("get ETag %q, insert returned %q", got.ETag, etag)
	}

	reversed := slices.Clone(values)
	slices.Reverse(reversed)
	merged := numbered("V", reversed)
	merged["Extra"] = values[0]
	etag, err := tbl.Update(ctx, ent(pk, rk, merged), storage.Merge, etag)
	must(t, err, "update (merge)")
	want := maps.Clone(merged)
	want["Keep"] = "kept"
	checkProps(t, get(t, tbl, pk, rk).Props, want, "after merge")

	replaced := numbered("R", values)
	etag, err = tbl.Update(ctx, ent(pk, rk, replaced), storage.Replace, etag)
	must(t, err, "update (replace)")
	checkProps(t, get(t, tbl, pk, rk).Props, replaced, "after replace")

	must(t, tbl.Delete(ctx, pk, rk, etag), "delete")
	wantMissing(t, tbl, pk, rk)
}

// longString is a string of n copies of r.
func longString(r rune, n int) string { return strings.Repeat(string(r), n) }

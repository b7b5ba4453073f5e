package storagetest

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// withProps is an entity with n int32 properties.
func withProps(pk, rk string, n int) storage.Entity {
	props := make(map[string]any, n)
	for i := range n {
		props[fmt.Sprintf("P%03d", i)] = int32(i)
	}
	return ent(pk, rk, props)
}

// entityOfSize builds an entity whose size by Azure's formula
// (storage.EntitySize) is exactly size. Full-size values come from fill
// (asked for a value of MaxValueBytes); the last one is binary, to hit the
// size to the byte.
func entityOfSize(pk, rk string, size int, fill func() any) storage.Entity {
	const overhead = 8 + 2*3 + 4 // property header, a three-letter name, the value's length
	e := ent(pk, rk, map[string]any{})
	for i := 0; ; i++ {
		name := fmt.Sprintf("P%02d", i)
		left := size - storage.EntitySize(e) - overhead
		if left <= storage.MaxValueBytes {
			e.Props[name] = make([]byte, left)
			return e
		}
		if after := left - storage.MaxValueBytes - overhead; after < 0 {
			// Too little would be left for another property: take less now.
			e.Props[name] = make([]byte, left-overhead)
			continue
		}
		e.Props[name] = fill()
	}
}

func testLimits(t *testing.T, s *suite) {
	tbl := s.table(t)
	const pk = "limits"
	// accept checks that an entity at a limit is stored and read back whole.
	accept := func(t *testing.T, e storage.Entity) {
		t.Helper()
		insert(t, tbl, e)
		checkProps(t, get(t, tbl, e.PartitionKey, e.RowKey).Props, e.Props, "read back")
	}
	// refuse checks that every write of an entity over a limit fails with
	// target and stores nothing.
	refuse := func(t *testing.T, e storage.Entity, target error) {
		t.Helper()
		reject(t, tbl, writeOps, e, target, "")
		wantMissing(t, tbl, e.PartitionKey, e.RowKey)
	}
	fullString := func() any { return strings.Repeat("s", storage.MaxValueBytes/2) }
	fullBinary := func() any { return patterned(storage.MaxValueBytes) }

	values := []struct{ name, under, over string }{
		// 64 KiB as UTF-16, then one code unit more.
		{"ASCII", longString('a', 32768), longString('a', 32769)},
		{"Cyrillic", longString('ж', 32768), longString('ж', 32769)},
		{"Emoji", longString('😀', 16384), longString('😀', 16383) + "abc"},
	}
	cases := []struct {
		name string
		run  func(t *testing.T, rk string)
	}{
		{"Properties252Accepted", func(t *testing.T, rk string) { accept(t, withProps(pk, rk, storage.MaxProperties)) }},
		{"Properties253Rejected", func(t *testing.T, rk string) {
			refuse(t, withProps(pk, rk, storage.MaxProperties+1), storage.ErrTooLarge)
		}},
		{"String64KiBAccepted", func(t *testing.T, rk string) {
			for i, v := range values {
				accept(t, ent(pk, fmt.Sprint(rk, i), map[string]any{"S": v.under}))
			}
		}},
		{"StringOver64KiBRejected", func(t *testing.T, rk string) {
			for i, v := range values {
				refuse(t, ent(pk, fmt.Sprint(rk, i), map[string]any{"S": v.over}), storage.ErrTooLarge)
			}
		}},
		{"Binary64KiBAccepted", func(t *testing.T, rk string) {
			accept(t, ent(pk, rk, map[string]any{"B": patterned(storage.MaxValueBytes)}))
		}},
		{"BinaryOver64KiBRejected", func(t *testing.T, rk string) {
			refuse(t, ent(pk, rk, map[string]any{"B": patterned(storage.MaxValueBytes + 1)}), storage.ErrTooLarge)
		}},
		{"EntityJustUnder1MiBAccepted", func(t *testing.T, rk string) {
			for _, size := range []int{storage.MaxEntityBytes - 100, storage.MaxEntityBytes} {
				e := entityOfSize(pk, fmt.Sprint(rk, size), size, fullBinary)
				if got := storage.EntitySize(e); got != size {
					t.Fatalf("built an entity of %d bytes, want %d", got, size)
				}
				accept(t, e)
			}
			// Replacing it with a string-heavy entity of the same size works too.
			e := entityOfSize(pk, fmt.Sprint(rk, storage.MaxEntityBytes), storage.MaxEntityBytes, fullString)
			_, err := tbl.Upsert(t.Context(), e, storage.Replace)
			must(t, err, "upsert of a 1 MiB string entity")
			checkProps(t, get(t, tbl, e.PartitionKey, e.RowKey).Props, e.Props, "read back")
		}},
		{"EntityOver1MiBRejected", func(t *testing.T, rk string) {
			refuse(t, entityOfSize(pk, rk+"b", storage.MaxEntityBytes+1, fullBinary), storage.ErrTooLarge)
			refuse(t, entityOfSize(pk, rk+"s", storage.MaxEntityBytes+1, fullString), storage.ErrTooLarge)
		}},
		{"PropertyNames", func(t *testing.T, rk string) {
			accept(t, ent(pk, rk, map[string]any{strings.Repeat("n", storage.MaxPropNameChars): true, "_x9": true}))
			for _, name := range []string{"", "1a", "a-b", "a b", "ж", "PartitionKey", "RowKey", "Timestamp", "ETag", strings.Repeat("n", storage.MaxPropNameChars+1)} {
				refuse(t, ent(pk, rk+"bad", map[string]any{name: true}), storage.ErrInvalid)
			}
		}},
		{"UnsupportedValues", func(t *testing.T, rk string) {
			for _, v := range []any{float32(1), uint64(1), nil, struct{}{}, math.NaN(), math.Inf(1), "\xff",
				time.Date(1600, 12, 31, 0, 0, 0, 0, time.UTC), time.Time{}} {
				refuse(t, ent(pk, rk, map[string]any{"V": v}), storage.ErrInvalid)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, c.name)
		})
	}
	t.Run("TableNames", func(t *testing.T) { testTableNames(t, s) })
}

func testTableNames(t *testing.T, s *suite) {
	suffix := uniqueName("")
	valid := []struct{ name, table string }{
		{"Unique", uniqueName("T")},
		{"Shortest", "T" + suffix[:2]},
		{"Longest63", "T" + strings.Repeat("x", 62-len(suffix)) + suffix},
		{"MixedCase", "MiXeD" + suffix},
	}
	for _, c := range valid {
		t.Run("Valid"+c.name, func(t *testing.T) {
			t.Parallel()
			must(t, s.store.Provision(t.Context(), []string{c.table}, nil), "provision "+c.table)
			tbl := s.store.Table(c.table)
			insert(t, tbl, ent("p", suffix, map[string]any{"N": int32(1)}))
			get(t, tbl, "p", suffix)
			// A second store provisions it again: creating an existing table
			// is not an error, and the data stays.
			again := storage.New(s.backend, storage.Options{})
			must(t, again.Provision(t.Context(), []string{c.table}, nil), "provision again")
			get(t, again.Table(c.table), "p", suffix)
		})
	}
	invalid := []struct{ name, table string }{
		{"Empty", ""},
		{"TooShort", "ab"},
		{"TooLong64", "T" + strings.Repeat("x", 63)},
		{"StartsWithDigit", "1abc"},
		{"HasDash", "ab-cd"},
		{"HasUnderscore", "ab_cd"},
		{"HasSpace", "ab cd"},
		{"NonASCII", "tableж"},
		{"Reserved", "tables"},
		{"ReservedAnyCase", "Tables"},
	}
	for _, c := range invalid {
		t.Run("Invalid"+c.name, func(t *testing.T) {
			t.Parallel()
			err := s.store.Provision(t.Context(), []string{c.table}, nil)
			wantErr(t, err, storage.ErrInvalid, fmt.Sprintf("provision %q", c.table))
		})
	}
}

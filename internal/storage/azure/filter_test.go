package azure

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

func TestRenderFilter(t *testing.T) {
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456700, time.UTC)
	g := storage.GUID{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}
	cases := []struct {
		name string
		q    storage.Query
		want string
	}{
		{"whole table", storage.Query{}, ""},
		{"partition", storage.Query{PartitionKey: "p1"}, "PartitionKey eq 'p1'"},
		{"quote doubled", storage.Query{PartitionKey: "O'Brien"}, "PartitionKey eq 'O''Brien'"},
		{"only quotes", storage.Query{PartitionKey: "''"}, "PartitionKey eq ''''''"},
		{"injection stays a literal", storage.Query{PartitionKey: "x' or PartitionKey ne 'y"},
			"PartitionKey eq 'x'' or PartitionKey ne ''y'"},
		{"url-sensitive characters", storage.Query{PartitionKey: "a%b&c+d=e;f g"}, "PartitionKey eq 'a%b&c+d=e;f g'"},
		{"unicode", storage.Query{PartitionKey: "Ёж 日本 🎉"}, "PartitionKey eq 'Ёж 日本 🎉'"},
		{"range", storage.Query{PartitionKey: "p", RowKeyFrom: "a", RowKeyTo: "m"},
			"PartitionKey eq 'p' and RowKey ge 'a' and RowKey lt 'm'"},
		{"prefix", storage.Query{PartitionKey: "p", RowKeyPrefix: "ab"},
			"PartitionKey eq 'p' and RowKey ge 'ab' and RowKey lt 'ac'"},
		{"prefix ending in a quote", storage.Query{RowKeyPrefix: "it'"},
			"RowKey ge 'it''' and RowKey lt 'it('"},
		{"prefix of the last BMP character", storage.Query{RowKeyPrefix: "a\uffff"},
			"RowKey ge 'a\uffff' and RowKey lt 'b'"},
		{"prefix with range", storage.Query{RowKeyFrom: "ab1", RowKeyPrefix: "ab"},
			"RowKey ge 'ab1' and RowKey ge 'ab' and RowKey lt 'ac'"},
		{"string filter", storage.Query{Filters: []storage.Filter{{Name: "Title", Op: storage.Ne, Value: "it's"}}},
			"Title ne 'it''s'"},
		{"number-like string stays a string", storage.Query{Filters: []storage.Filter{{Name: "S", Op: storage.Eq, Value: "123"}}},
			"S eq '123'"},
		{"int32", storage.Query{Filters: []storage.Filter{{Name: "N", Op: storage.Lt, Value: int32(-5)}}}, "N lt -5"},
		{"int64", storage.Query{Filters: []storage.Filter{{Name: "N", Op: storage.Ge, Value: int64(9007199254740993)}}},
			"N ge 9007199254740993L"},
		{"whole double", storage.Query{Filters: []storage.Filter{{Name: "D", Op: storage.Eq, Value: 2.0}}}, "D eq 2.0"},
		{"fractional double", storage.Query{Filters: []storage.Filter{{Name: "D", Op: storage.Le, Value: -0.25}}}, "D le -0.25"},
		{"large double", storage.Query{Filters: []storage.Filter{{Name: "D", Op: storage.Gt, Value: -1e10}}}, "D gt -10000000000.0"},
		{"huge double", storage.Query{Filters: []storage.Filter{{Name: "D", Op: storage.Gt, Value: 1e25}}}, "D gt 10000000000000000000000000.0"},
		{"small double", storage.Query{Filters: []storage.Filter{{Name: "D", Op: storage.Gt, Value: 1.5e-7}}}, "D gt 0.00000015"},
		{"bool", storage.Query{Filters: []storage.Filter{{Name: "B", Op: storage.Eq, Value: false}}}, "B eq false"},
		{"datetime", storage.Query{Filters: []storage.Filter{{Name: "Timestamp", Op: storage.Ge, Value: ts}}},
			"Timestamp ge datetime'2024-02-29T23:59:58.1234567Z'"},
		{"datetime in another zone is rendered in UTC", storage.Query{Filters: []storage.Filter{{Name: "T", Op: storage.Lt,
			Value: time.Date(2024, 1, 1, 3, 0, 0, 0, time.FixedZone("MSK", 3*3600))}}},
			"T lt datetime'2024-01-01T00:00:00.0000000Z'"},
		{"guid", storage.Query{Filters: []storage.Filter{{Name: "G", Op: storage.Eq, Value: g}}},
			"G eq guid'01234567-89ab-cdef-0123-456789abcdef'"},
		{"binary", storage.Query{Filters: []storage.Filter{{Name: "X", Op: storage.Eq, Value: []byte{0, 0xff, 0x27}}}},
			"X eq X'00ff27'"},
		{"everything", storage.Query{PartitionKey: "p", RowKeyPrefix: "r", Filters: []storage.Filter{
			{Name: "A", Op: storage.Eq, Value: "x"}, {Name: "B", Op: storage.Gt, Value: int32(1)}}},
			"PartitionKey eq 'p' and RowKey ge 'r' and RowKey lt 's' and A eq 'x' and B gt 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := renderFilter(c.q)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("renderFilter:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestRenderFilterRejects(t *testing.T) {
	cases := []struct {
		name string
		f    storage.Filter
	}{
		{"name with a space", storage.Filter{Name: "A or B", Op: storage.Eq, Value: "x"}},
		{"name with a quote", storage.Filter{Name: "A'", Op: storage.Eq, Value: "x"}},
		{"empty name", storage.Filter{Name: "", Op: storage.Eq, Value: "x"}},
		{"unknown operator", storage.Filter{Name: "A", Op: storage.Op(42), Value: "x"}},
		{"unsupported type", storage.Filter{Name: "A", Op: storage.Eq, Value: struct{}{}}},
		{"NaN", storage.Filter{Name: "A", Op: storage.Eq, Value: math.NaN()}},
		{"infinity", storage.Filter{Name: "A", Op: storage.Eq, Value: math.Inf(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := renderFilter(storage.Query{Filters: []storage.Filter{c.f}})
			if !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestRenderSelect(t *testing.T) {
	got, err := renderSelect([]string{"Title", "RowKey", "Title", "ETag", "Score"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "PartitionKey,RowKey,Timestamp,Title,Score"; got != want {
		t.Errorf("renderSelect = %q, want %q", got, want)
	}
	if got, _ := renderSelect(nil); got != "" {
		t.Errorf("renderSelect(nil) = %q, want empty", got)
	}
	if _, err := renderSelect([]string{"a,b"}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("renderSelect(a,b) err = %v, want ErrInvalid", err)
	}
}

func TestEntityPath(t *testing.T) {
	cases := []struct{ pk, rk, want string }{
		{"p", "r", "t(PartitionKey='p',RowKey='r')"},
		{"O'Brien", "''", "t(PartitionKey='O%27%27Brien',RowKey='%27%27%27%27')"},
		{"", "", "t(PartitionKey='',RowKey='')"},
		{"a b%c", "日", "t(PartitionKey='a%20b%25c',RowKey='%E6%97%A5')"},
		{",", "=()&+$;:@!*", "t(PartitionKey='%2C',RowKey='%3D%28%29%26%2B%24%3B%3A%40%21%2A')"},
	}
	for _, c := range cases {
		if got := entityPath("t", c.pk, c.rk); got != c.want {
			t.Errorf("entityPath(%q, %q) = %s, want %s", c.pk, c.rk, got, c.want)
		}
	}
}

// FuzzRenderFilter checks that whatever the values, the rendered filter is a
// sequence of "Name op literal" clauses joined by " and ", every string
// literal is balanced, and each unquotes to exactly the value given: no value
// can end its literal early and add a clause of its own.
func FuzzRenderFilter(f *testing.F) {
	f.Add("p", "a", "z", "pre", "v", "w")
	f.Add("O'Brien", "' or 1 eq 1 or '", "''", "'", "x' and RowKey eq 'y", " and ")
	f.Add("", "", "", "\uffff", "%&+#?", "日本 🎉")
	f.Fuzz(func(t *testing.T, pk, from, to, prefix, v1, v2 string) {
		q := storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: to, RowKeyPrefix: prefix,
			Filters: []storage.Filter{{Name: "A", Op: storage.Eq, Value: v1}, {Name: "RowKey", Op: storage.Ne, Value: v2}}}
		var want []string
		for _, s := range []string{pk, from, to, prefix} {
			if s != "" {
				want = append(want, s)
			}
		}
		if prefix != "" {
			if end := storage.PrefixEnd(prefix); end != "" {
				want = append(want, end)
			}
		}
		want = append(want, v1, v2)

		filter, err := renderFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseStringFilter(filter)
		if err != nil {
			t.Fatalf("%v in %q", err, filter)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("literals %q, want %q\nfilter %q", got, want, filter)
		}
	})
}

// parseStringFilter parses a filter whose literals are all strings and
// returns the unquoted literals in order.
func parseStringFilter(s string) ([]string, error) {
	var out []string
	for i := 0; ; {
		// Name
		j := i
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i {
			return nil, fmt.Errorf("no property name at %d", i)
		}
		i = j
		// " op "
		if len(s) < i+5 || s[i] != ' ' || s[i+3] != ' ' || !strings.Contains(" eq ne lt le gt ge ", s[i:i+4]) {
			return nil, fmt.Errorf("no operator at %d", i)
		}
		i += 4
		// 'literal' with '' for a quote
		if i >= len(s) || s[i] != '\'' {
			return nil, fmt.Errorf("no string literal at %d", i)
		}
		var lit strings.Builder
		for i++; ; i++ {
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated literal")
			}
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					lit.WriteByte('\'')
					i++
					continue
				}
				i++
				break
			}
			lit.WriteByte(s[i])
		}
		out = append(out, lit.String())
		if i == len(s) {
			return out, nil
		}
		if !strings.HasPrefix(s[i:], " and ") {
			return nil, fmt.Errorf("expected ' and ' at %d", i)
		}
		i += len(" and ")
	}
}

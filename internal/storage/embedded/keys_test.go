package embedded

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harmony/harmony/internal/storage"
)

// keySamples sit on both sides of the places where UTF-8 byte order and UTF-16
// order disagree: U+E000–U+FFFF against supplementary characters.
var keySamples = []string{
	"", "a", "a!", "ab", "b", "z~", "é", "\u07ff", "\u0800", "\ud7ff",
	"\ue000", "\uefff", "\uf000", "\uffef", "\ufffd", "\U00010000", "\U0001f600", "\U0010ffff",
	"a\ue000", "a\U0001f600", "a\ufffd", "\U0001f600a", "\ue000a", "日本", "日本語",
}

func TestEncodedKeysSortLikeAzure(t *testing.T) {
	type pair struct{ pk, rk string }
	var pairs []pair
	for _, pk := range keySamples {
		for _, rk := range keySamples {
			pairs = append(pairs, pair{pk, rk})
		}
	}
	byAzure := slices.Clone(pairs)
	slices.SortFunc(byAzure, func(a, b pair) int {
		if c := storage.CompareKeys(a.pk, b.pk); c != 0 {
			return c
		}
		return storage.CompareKeys(a.rk, b.rk)
	})
	byBytes := slices.Clone(pairs)
	slices.SortFunc(byBytes, func(a, b pair) int {
		return bytes.Compare(rowKey(a.pk, a.rk), rowKey(b.pk, b.rk))
	})
	if !slices.Equal(byAzure, byBytes) {
		t.Fatalf("encoded order differs from UTF-16 order:\nazure %q\nbytes %q", byAzure, byBytes)
	}
}

func TestKeyEncodingRoundTrips(t *testing.T) {
	for _, pk := range keySamples {
		for _, rk := range keySamples {
			gotPK, gotRK := splitKey(rowKey(pk, rk))
			if decodeKey(gotPK) != pk || decodeKey(gotRK) != rk {
				t.Errorf("(%q, %q) came back as (%q, %q)", pk, rk, decodeKey(gotPK), decodeKey(gotRK))
			}
		}
	}
}

// FuzzKeyOrder checks that composite bbolt keys order exactly like Azure
// (PartitionKey, then RowKey, by UTF-16 code units) and decode back, and that
// compareText agrees with storage.CompareKeys.
func FuzzKeyOrder(f *testing.F) {
	for i, a := range keySamples {
		b := keySamples[(i*7+3)%len(keySamples)]
		f.Add(a, b, b, a)
	}
	f.Add("x\ue000", "", "x\U00010000", "")
	f.Fuzz(func(t *testing.T, pk1, rk1, pk2, rk2 string) {
		for _, k := range []string{pk1, rk1, pk2, rk2} {
			// Keys are valid UTF-8 without U+0000 (the front rejects the rest).
			if !utf8.ValidString(k) || strings.ContainsRune(k, 0) {
				return
			}
		}
		want := storage.CompareKeys(pk1, pk2)
		if want == 0 {
			want = storage.CompareKeys(rk1, rk2)
		}
		k1, k2 := rowKey(pk1, rk1), rowKey(pk2, rk2)
		if got := bytes.Compare(k1, k2); got != want {
			t.Fatalf("(%q,%q) vs (%q,%q): encoded order %d, Azure order %d", pk1, rk1, pk2, rk2, got, want)
		}
		if p, r := splitKey(k1); decodeKey(p) != pk1 || decodeKey(r) != rk1 {
			t.Fatalf("(%q,%q) decoded as (%q,%q)", pk1, rk1, decodeKey(p), decodeKey(r))
		}
		if got, want := compareText([]byte(pk1), pk2), storage.CompareKeys(pk1, pk2); got != want {
			t.Fatalf("compareText(%q, %q) = %d, CompareKeys = %d", pk1, pk2, got, want)
		}
	})
}

package storage

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

func TestEscapeKeyMakesValidKeys(t *testing.T) {
	cases := map[string]string{
		"plain":         "plain",
		"org/model":     "org~2Fmodel",
		"a|b":           "a~7Cb",
		"100%":          "100~25",
		"~":             "~7E",
		"~7E":           "~7E7E",
		"q?#\\":         "q~3F~23~5C",
		"tab\there":     "tab~09here",
		"Москва":        "Москва",
		"x\u0085y":      "x~C2~85y",
		"bad\xffbyte":   "bad~FFbyte",
		"emoji 😀 stays": "emoji 😀 stays",
	}
	for in, want := range cases {
		got := EscapeKey(in)
		if got != want {
			t.Errorf("EscapeKey(%q) = %q, want %q", in, got, want)
		}
		if err := ValidateKey(got); err != nil {
			t.Errorf("EscapeKey(%q) = %q is not a valid key: %v", in, got, err)
		}
		back, err := UnescapeKey(got)
		if err != nil || back != in {
			t.Errorf("UnescapeKey(%q) = %q, %v; want %q", got, back, err, in)
		}
	}
}

func TestUnescapeKeyRejectsBadEscapes(t *testing.T) {
	for _, s := range []string{"~", "~4", "~zz", "a~G1", "~2f"} {
		if _, err := UnescapeKey(s); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("UnescapeKey(%q) err = %v, want ErrInvalidKey", s, err)
		}
	}
}

func FuzzEscapeKey(f *testing.F) {
	for _, s := range []string{"", "a/b", "|", "%41", "\x00", "\xff\xfe", "Привет/мир"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := EscapeKey(s)
		if err := ValidateKey(k); err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("unexpected error kind: %v", err)
		} else if err != nil && s != "" && utf16Bytes(k) <= MaxKeyBytes {
			t.Fatalf("EscapeKey(%q) = %q invalid: %v", s, k, err)
		}
		if strings.ContainsAny(k, "%|") {
			t.Fatalf("EscapeKey(%q) = %q holds %% or |", s, k)
		}
		if len(s) > 1 && !strings.HasPrefix(k, EscapeKey(s[:len(s)/2])) && utf8.ValidString(s[:len(s)/2]) {
			t.Fatalf("EscapeKey(%q) = %q does not start with the escape of its first half", s, k)
		}
		if back, err := UnescapeKey(k); err != nil || back != s {
			t.Fatalf("round trip %q → %q → %q (%v)", s, k, back, err)
		}
		if utf8.ValidString(s) && CompareKeys(s, s) != 0 {
			t.Fatal("CompareKeys not reflexive")
		}
	})
}

// utf16Compare is the reference order: encode and compare code units.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareKeysIsUTF16Order(t *testing.T) {
	keys := []string{"", "a", "z", "é", "ж", "中", "\uE000", "\uFFFD", "😀", "a😀", "a\uFFFD", "ab", "\U0010FFFF", "\uD7FF"}
	for _, a := range keys {
		for _, b := range keys {
			if got, want := CompareKeys(a, b), utf16Compare(a, b); got != want {
				t.Errorf("CompareKeys(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if CompareKeys("😀", "\uE000") >= 0 {
		t.Error("a surrogate pair must sort before U+E000")
	}
}

func FuzzCompareKeys(f *testing.F) {
	f.Add("a", "b")
	f.Add("😀", "\uE000")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		if got, want := CompareKeys(a, b), utf16Compare(a, b); got != want {
			t.Fatalf("CompareKeys(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ prefix, want string }{
		{"abc", "abd"},
		{"a\uD7FF", "a\U00010000"},
		{"a\U0010FFFF", "a\uE000"},
		{"a\uFFFF", "b"},
		{"\uFFFF", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := PrefixEnd(c.prefix); got != c.want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", c.prefix, got, c.want)
		}
	}
	// Every extension of a prefix sorts below its end.
	for _, p := range []string{"ab", "ж", "a\uD7FF", "x😀"} {
		end := PrefixEnd(p)
		for _, tail := range []string{"", "\U0010FFFF", "\uFFFF\uFFFF", "zzz"} {
			if CompareKeys(p+tail, end) >= 0 {
				t.Errorf("%q sorts at or after PrefixEnd(%q) = %q", p+tail, p, end)
			}
		}
	}
}

func TestTicks(t *testing.T) {
	// .NET: new DateTime(2024,1,2,3,4,5,DateTimeKind.Utc).Ticks = 621355968000000000 + 1704164645e7
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if got := Ticks(at); got != 638397614450000000 {
		t.Errorf("Ticks = %d", got)
	}
	if got := TimeFromTicks(Ticks(at.Add(700))); !got.Equal(at.Add(700)) {
		t.Errorf("round trip = %v", got)
	}
	older, newer := at, at.Add(time.Second)
	if !(ForwardTicks(older) < ForwardTicks(newer)) || !(ReverseTicks(newer) < ReverseTicks(older)) {
		t.Error("tick keys do not sort as promised")
	}
	if len(ReverseTicks(at)) != 19 || len(ForwardTicks(at)) != 19 {
		t.Error("tick keys must be 19 digits")
	}
	back, err := TimeFromReverseTicks(ReverseTicks(at))
	if err != nil || !back.Equal(at) {
		t.Errorf("TimeFromReverseTicks = %v, %v", back, err)
	}
	if Pad(42, 5) != "00042" || Pad(-1, 3) != "000" || Pad(123456, 3) != "123456" {
		t.Error("Pad")
	}
}

func TestIsID(t *testing.T) {
	if !IsID("01HZY2G8Q3T9V7W6X5Y4Z3A2B1") {
		t.Error("a ULID is refused")
	}
	for _, bad := range []string{"", "01HZY2G8Q3T9V7W6X5Y4Z3A2B", "01HZY2G8Q3T9V7W6X5Y4Z3A2B1X", "01hzy2g8q3t9v7w6x5y4z3a2b!", "../../etc/passwd", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"} {
		if IsID(bad) {
			t.Errorf("IsID(%q) = true", bad)
		}
	}
}

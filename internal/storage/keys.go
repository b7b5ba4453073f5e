package storage

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// EscapeKey makes any user-derived text safe inside a PartitionKey or RowKey:
// it percent-encodes '%', the key delimiter '|', the characters Azure rejects
// (/ \ # ?) and control characters. Everything else, non-ASCII included, is
// kept, so keys stay readable and sort close to their text. Invalid UTF-8 bytes
// are encoded too, so the result is always a valid key fragment.
func EscapeKey(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, "%%%02X", s[i])
			i++
			continue
		}
		if escapedRune(r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	for _, r := range s {
		if escapedRune(r) {
			return true
		}
	}
	return false
}

func escapedRune(r rune) bool {
	return r == '%' || r == '|' || r == '/' || r == '\\' || r == '#' || r == '?' || isControl(r)
}

// UnescapeKey reverses EscapeKey.
func UnescapeKey(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("%w: truncated escape in %q", ErrInvalidKey, s)
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("%w: bad escape in %q", ErrInvalidKey, s)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// Ticks are .NET ticks: 100 ns intervals since 0001-01-01 UTC, as the source
// documents use them.
const (
	ticksAtUnixEpoch = 621355968000000000
	maxTicks         = 3155378975999999999 // DateTime.MaxValue.Ticks
)

// Ticks returns t as .NET ticks.
func Ticks(t time.Time) int64 {
	t = t.UTC()
	return ticksAtUnixEpoch + t.Unix()*10_000_000 + int64(t.Nanosecond())/100
}

// TimeFromTicks is the inverse of Ticks.
func TimeFromTicks(ticks int64) time.Time {
	d := ticks - ticksAtUnixEpoch
	return time.Unix(d/10_000_000, (d%10_000_000)*100).UTC()
}

// ForwardTicks is a key fragment that sorts oldest first: D19(ticks).
func ForwardTicks(t time.Time) string { return Pad(Ticks(t), 19) }

// ReverseTicks is a key fragment that sorts newest first: D19(maxTicks-ticks).
func ReverseTicks(t time.Time) string { return Pad(maxTicks-Ticks(t), 19) }

// TimeFromReverseTicks parses a ReverseTicks fragment.
func TimeFromReverseTicks(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || len(s) != 19 {
		return time.Time{}, fmt.Errorf("%w: bad reverse ticks %q", ErrInvalidKey, s)
	}
	return TimeFromTicks(maxTicks - n), nil
}

// Pad formats a non-negative number zero-padded to width digits, so numeric
// keys sort as strings. Negative numbers are clamped to zero.
func Pad(n int64, width int) string {
	if n < 0 {
		n = 0
	}
	s := strconv.FormatInt(n, 10)
	if len(s) >= width {
		return s
	}
	return strings.Repeat("0", width-len(s)) + s
}

// CompareKeys orders two keys as Azure does: by UTF-16 code units. This
// differs from Go's byte order only when one side has a character in
// U+E000–U+FFFF and the other a supplementary character at the same place.
func CompareKeys(a, b string) int {
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return compareUnits(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) == 0:
		return -1
	default:
		return 1
	}
}

// compareUnits compares the first UTF-16 code units of two different runes.
func compareUnits(a, b rune) int {
	ua, ub := firstUnit(a), firstUnit(b)
	if ua == ub { // both supplementary with the same high surrogate
		ua, ub = a, b
	}
	if ua < ub {
		return -1
	}
	return 1
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + ((r - 0x10000) >> 10)
	}
	return r
}

// PrefixEnd is the smallest key greater than every key that starts with
// prefix, in UTF-16 order, for rendering a prefix as a range. An empty result
// means unbounded.
func PrefixEnd(prefix string) string {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		if next, ok := nextInUTF16Order(rs[i]); ok {
			return string(rs[:i]) + string(next)
		}
	}
	return ""
}

// nextInUTF16Order is the rune that follows r when runes are ordered by their
// UTF-16 code units: supplementary characters (surrogates D800–DFFF) sort
// between U+D7FF and U+E000.
func nextInUTF16Order(r rune) (rune, bool) {
	switch r {
	case 0xD7FF:
		return 0x10000, true
	case utf8.MaxRune:
		return 0xE000, true
	case 0xFFFF:
		return 0, false
	}
	return r + 1, true
}

package storage

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

// EscapeKey makes user-derived text safe as one part of a PartitionKey or
// RowKey (a tag, a title, a model name, an OIDC subject).
//
// The scheme: every UTF-8 byte of a character that may not stand as itself
// is written as '~' and two upper-case hex digits ("org/model" becomes
// "org~2Fmodel"). Those characters are '~' (the escape itself), '|' (our key
// delimiter), '%' (the Table service decodes key paths twice, so no key may
// hold one), / \ # ? (Azure rejects them), control characters, and the bytes
// of invalid UTF-8. Everything else, non-ASCII included, is kept, so keys read
// like their text, sort close to it, and a prefix of the text escapes to a
// prefix of the key. The result never contains '%'.
//
// Apply it exactly once to each raw part. A memberKey is already key-safe
// (auth.AuthMemberKey escapes the subject) and goes into keys as it is;
// escaping it again would double the escapes.
func EscapeKey(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || escapedRune(r) {
			for _, c := range []byte(s[i : i+size]) {
				b.WriteByte(keyEscape)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// keyEscape starts an escape in EscapeKey's scheme.
const keyEscape = '~'

const hexDigits = "0123456789ABCDEF"

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
	return r == keyEscape || r == '|' || forbiddenKeyRune(r)
}

// UnescapeKey reverses EscapeKey; a '~' not followed by two upper-case hex
// digits is ErrInvalidKey.
func UnescapeKey(s string) (string, error) {
	if !strings.ContainsRune(s, keyEscape) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != keyEscape {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("%w: truncated escape in %q", ErrInvalidKey, s)
		}
		hi, lo := strings.IndexByte(hexDigits, s[i+1]), strings.IndexByte(hexDigits, s[i+2])
		if hi < 0 || lo < 0 {
			return "", fmt.Errorf("%w: bad escape in %q", ErrInvalidKey, s)
		}
		b.WriteByte(byte(hi<<4 | lo))
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

// IsID reports whether s is an id as the modules mint them (a ULID:
// groups, appointments, comments, prompts, topics, events). A request for
// anything else is refused before any storage call.
func IsID(s string) bool {
	_, err := ulid.ParseStrict(s)
	return err == nil
}

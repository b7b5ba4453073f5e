// Package formrule owns the rules that every form's input passes before it
// is stored: text is valid UTF-8, carries no control or bidi characters,
// is trimmed, fits a length counted in characters (runes), and keeps line
// breaks only where a field may span lines; dates fall in a sane range.
//
// A rule answers with a Problem. Modules turn it into a field error: their
// own wording for a missing or too-long value (Problem.Message), the
// shared one (Problem.Key) for everything else.
package formrule

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Problem is what is wrong with a value; OK means nothing.
type Problem int

// The problems a rule finds, in the order it looks for them.
const (
	OK Problem = iota
	// BadEncoding is text that is not valid UTF-8.
	BadEncoding
	// Missing is a required value left blank.
	Missing
	// LineBreak is a line break in a single-line field.
	LineBreak
	// ControlChar is a control character (NUL, ESC, BEL, backspace, C1
	// controls, a tab outside multi-line text, U+2028/U+2029).
	ControlChar
	// BidiControl is an invisible text-direction character (embeddings,
	// overrides, isolates and the LRM, RLM and ALM marks), which can make
	// text read differently from what it holds.
	BidiControl
	// TooLong is text over the rule's Max characters.
	TooLong
	// DateOutOfRange is a date before MinYear or after MaxYear.
	DateOutOfRange
)

// keys are the shared i18n keys of the problems.
var keys = map[Problem]string{
	BadEncoding:    "form.error.encoding",
	Missing:        "form.error.required",
	LineBreak:      "form.error.line_break",
	ControlChar:    "form.error.control",
	BidiControl:    "form.error.bidi",
	TooLong:        "form.error.too_long",
	DateOutOfRange: "form.error.date_range",
}

// Key is the i18n key of the shared message for p ("" for OK). The
// too-long message takes the limit as {max}.
func (p Problem) Key() string { return keys[p] }

// Message is the i18n key a field shows for p: missing or tooLong, the
// field's own wording, when p is Missing or TooLong and they are set,
// else the shared Key.
func (p Problem) Message(missing, tooLong string) string {
	switch {
	case p == Missing && missing != "":
		return missing
	case p == TooLong && tooLong != "":
		return tooLong
	}
	return p.Key()
}

// Text is the rule for one text field.
type Text struct {
	// Max is the most characters (runes) allowed after cleaning; 0 means
	// no limit beyond what the body limit lets through.
	Max int
	// Required refuses text that is blank after trimming.
	Required bool
	// Multiline keeps line breaks and tabs; CRLF and a lone CR become LF.
	Multiline bool
}

// Check cleans s (surrounding white space trimmed, line breaks
// normalised in multi-line text) and checks it. It returns the cleaned
// text even when there is a problem, so a form can show back what was
// typed; invalid UTF-8 comes back with U+FFFD in place of the bad bytes.
func (r Text) Check(s string) (string, Problem) {
	if !utf8.ValidString(s) {
		return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD")), BadEncoding
	}
	if r.Multiline {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = strings.TrimSpace(s)
	if s == "" {
		if r.Required {
			return s, Missing
		}
		return s, OK
	}
	if p := r.characters(s); p != OK {
		return s, p
	}
	if r.Max > 0 && utf8.RuneCountInString(s) > r.Max {
		return s, TooLong
	}
	return s, OK
}

// Clean makes text from elsewhere (an imported calendar) fit the rule
// rather than refusing it: bad bytes become U+FFFD, line breaks in
// single-line text become spaces, control and bidi characters go, and
// it is cut to Max characters. What Clean returns passes Check, unless
// it is blank and the rule requires text.
func (r Text) Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if r.Multiline {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = strings.Map(func(c rune) rune {
		switch {
		case (c == '\n' || c == '\t') && r.Multiline:
			return c
		case c == '\n' || c == '\r' || c == '\t':
			return ' '
		case unicode.IsControl(c), c == '\u2028', c == '\u2029', unicode.Is(unicode.Bidi_Control, c):
			return -1
		}
		return c
	}, s)
	s = strings.TrimSpace(s)
	if r.Max > 0 && utf8.RuneCountInString(s) > r.Max {
		s = strings.TrimSpace(string([]rune(s)[:r.Max]))
	}
	return s
}

// characters finds the first character s may not hold.
func (r Text) characters(s string) Problem {
	for _, c := range s {
		switch {
		case (c == '\n' || c == '\t') && r.Multiline:
		case c == '\n' || c == '\r':
			return LineBreak
		case unicode.IsControl(c), c == '\u2028', c == '\u2029':
			return ControlChar
		case unicode.Is(unicode.Bidi_Control, c):
			return BidiControl
		}
	}
	return OK
}

// Years a date may fall in: anything outside is a typo or a probe, and
// storage cannot hold years before 1601. The form.error.date_range
// messages name these years.
const (
	MinYear = 1900
	MaxYear = 2200
)

// CheckDate is DateOutOfRange for a date (in its own zone) before MinYear
// or after MaxYear, else OK.
func CheckDate(t time.Time) Problem {
	if y := t.Year(); y < MinYear || y > MaxYear {
		return DateOutOfRange
	}
	return OK
}

// slug is a slug's shape: lower-case letters and digits in words joined
// by single hyphens.
var slug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// IsSlug reports whether s is a slug of at most max characters (0: any
// length): the short names admins give rooms, sections, categories and
// tags, which sit in URLs and table keys as they are.
func IsSlug(s string, max int) bool {
	return slug.MatchString(s) && (max <= 0 || len(s) <= max)
}

// Lines is the rule for a list typed one item a line (an event
// question's choices, a poll's options): each line a single-line text of
// at most Item characters, at most Most items. Blank lines and repeats
// (in any case) are passed over.
type Lines struct {
	Item, Most int
}

// Check reads the items typed, cleaned as Text does, and the first
// problem of the text or of a line; more than Most items is TooLong.
func (r Lines) Check(typed string) ([]string, Problem) {
	typed, p := Text{Max: r.Most * (r.Item + 1), Multiline: true}.Check(typed)
	if p != OK {
		return nil, p
	}
	var out []string
	for _, line := range strings.Split(typed, "\n") {
		item, p := (Text{Max: r.Item}).Check(line)
		switch {
		case p != OK:
			return nil, p
		case item == "" || slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, item) }):
			continue
		}
		out = append(out, item)
	}
	if len(out) > r.Most {
		return nil, TooLong
	}
	return out, OK
}

// FieldErrors maps a form's field to the i18n key of what is wrong with
// it. Returned as an error it means the form was refused and nothing was
// written; the page shows each message by its field.
type FieldErrors map[string]string

func (e FieldErrors) Error() string { return fmt.Sprintf("form: %d bad fields", len(e)) }

// Check cleans v with rule and returns it; a problem is recorded as
// field's error in e: key (the field's own wording) when the text is
// missing or too long, the shared message for anything else (bad
// encoding, a control or direction character, a line break).
func (e FieldErrors) Check(field string, rule Text, v, key string) string {
	return e.CheckAs(field, rule, v, key, key)
}

// CheckAs is Check with a wording for a missing text and another for
// one too long ("" for the shared message).
func (e FieldErrors) CheckAs(field string, rule Text, v, missing, tooLong string) string {
	v, p := rule.Check(v)
	if p != OK {
		e[field] = p.Message(missing, tooLong)
	}
	return v
}

// CheckSlug trims v and returns it; one that is not a slug of at most max
// characters (IsSlug) is recorded as field's error key in e.
func (e FieldErrors) CheckSlug(field, v string, max int, key string) string {
	v = strings.TrimSpace(v)
	if !IsSlug(v, max) {
		e[field] = key
	}
	return v
}

// translit spells Russian letters in Latin ones for Slugify (the
// passport system's, without apostrophes).
var translit = map[rune]string{
	'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e", 'ж': "zh", 'з': "z", 'и': "i", 'й': "i",
	'к': "k", 'л': "l", 'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f",
	'х': "kh", 'ц': "ts", 'ч': "ch", 'ш': "sh", 'щ': "shch", 'ъ': "ie", 'ы': "y", 'ь': "", 'э': "e", 'ю': "iu", 'я': "ia",
}

// Slugify makes a slug (IsSlug) of at most max characters from text
// people wrote, such as a title: lower case, Russian letters spelled in
// Latin ones, every other run of what is not a letter or digit one
// hyphen. It may be "" (a title of emoji only); the caller then picks
// another.
func Slugify(text string, max int) string {
	var b strings.Builder
	hyphen := false
	// Decomposed, an accented Latin letter is its letter and a mark,
	// which is dropped: "é" is "e".
	for _, r := range norm.NFD.String(strings.ToLower(text)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		part, known := translit[r]
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			part = string(r)
		case known && part == "": // a soft sign: no letter, no break
			continue
		case !known:
			hyphen = b.Len() > 0
			continue
		}
		if hyphen {
			b.WriteByte('-')
			hyphen = false
		}
		b.WriteString(part)
	}
	s := b.String()
	if max > 0 && len(s) > max {
		s = s[:max]
		if i := strings.LastIndexByte(s, '-'); i > max/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	return s
}

// Money reads a price as typed ("12.50", "12,50"; "" is none, 0) of at
// most maxCents, and its currency (an ISO 4217 code, upper-cased; it is
// needed for a price above 0): amountOK and currencyOK say whether each
// is right.
func Money(amount, currency string, maxCents int64) (cents int64, code string, amountOK, currencyOK bool) {
	amountOK, currencyOK = true, true
	if v := strings.TrimSpace(amount); v != "" {
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", "."), 64)
		if err != nil || f < 0 || f*100 > float64(maxCents) || math.IsNaN(f) {
			return 0, "", false, true
		}
		cents = int64(math.Round(f * 100))
	}
	code = strings.ToUpper(strings.TrimSpace(currency))
	if cents > 0 && (len(code) != 3 || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "") {
		currencyOK = false
	}
	return cents, code, amountOK, currencyOK
}

package formrule

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestTextCheck(t *testing.T) {
	line := Text{Max: 5, Required: true}
	lines := Text{Max: 5, Multiline: true}
	cases := []struct {
		name    string
		rule    Text
		in      string
		want    string
		problem Problem
	}{
		{"plain", line, "abc", "abc", OK},
		{"trimmed", line, "  abc\t ", "abc", OK},
		{"runes not bytes", line, "пятьё", "пятьё", OK},
		{"too long", line, "abcdef", "abcdef", TooLong},
		{"too long in runes", line, "шестьё", "шестьё", TooLong},
		{"blank required", line, " \t ", "", Missing},
		{"blank optional", lines, "  ", "", OK},
		{"invalid utf-8", line, "a\xffb", "a\uFFFDb", BadEncoding},
		{"invalid utf-8 before length", line, "\xff" + strings.Repeat("a", 10), "\uFFFD" + strings.Repeat("a", 10), BadEncoding},
		{"nul", line, "a\x00b", "a\x00b", ControlChar},
		{"escape", lines, "a\x1b[31m", "a\x1b[31m", ControlChar},
		{"bell", lines, "a\ab", "a\ab", ControlChar},
		{"backspace", lines, "a\bb", "a\bb", ControlChar},
		{"delete", line, "a\x7fb", "a\x7fb", ControlChar},
		{"c1 control", line, "a\u0085b", "a\u0085b", ControlChar},
		{"line separator", lines, "a\u2028b", "a\u2028b", ControlChar},
		{"tab in a line", line, "a\tb", "a\tb", ControlChar},
		{"newline in a line", line, "a\nb", "a\nb", LineBreak},
		{"carriage return in a line", line, "a\rb", "a\rb", LineBreak},
		{"tab and newline in text", lines, "a\tb\nc", "a\tb\nc", OK},
		{"crlf becomes lf", lines, "a\r\nb\rc", "a\nb\nc", OK},
		{"crlf counts once", Text{Max: 3, Multiline: true}, "a\r\nb", "a\nb", OK},
		{"right-to-left override", line, "a\u202eb", "a\u202eb", BidiControl},
		{"left-to-right embedding", line, "\u202aab", "\u202aab", BidiControl},
		{"first strong isolate", line, "a\u2068b", "a\u2068b", BidiControl},
		{"pop directional isolate", line, "a\u2069b", "a\u2069b", BidiControl},
		{"right-to-left mark", line, "a\u200fb", "a\u200fb", BidiControl},
		{"left-to-right mark", line, "a\u200eb", "a\u200eb", BidiControl},
		{"arabic letter mark", line, "a\u061cb", "a\u061cb", BidiControl},
		{"right-to-left letters", line, "שלום", "שלום", OK},
		{"emoji with joiner", line, "👩\u200d💻", "👩\u200d💻", OK},
		{"no limit", Text{}, strings.Repeat("a", 10000), strings.Repeat("a", 10000), OK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, p := c.rule.Check(c.in)
			if got != c.want || p != c.problem {
				t.Errorf("Check(%q) = %q, %v; want %q, %v", c.in, got, p, c.want, c.problem)
			}
		})
	}
}

func TestProblemMessage(t *testing.T) {
	cases := []struct {
		p                      Problem
		missing, tooLong, want string
	}{
		{OK, "m", "t", ""},
		{Missing, "m", "t", "m"},
		{Missing, "", "t", "form.error.required"},
		{TooLong, "m", "t", "t"},
		{TooLong, "m", "", "form.error.too_long"},
		{BidiControl, "m", "t", "form.error.bidi"},
		{BadEncoding, "m", "t", "form.error.encoding"},
		{ControlChar, "m", "t", "form.error.control"},
		{LineBreak, "m", "t", "form.error.line_break"},
		{DateOutOfRange, "m", "t", "form.error.date_range"},
	}
	for _, c := range cases {
		if got := c.p.Message(c.missing, c.tooLong); got != c.want {
			t.Errorf("%v.Message(%q, %q) = %q, want %q", c.p, c.missing, c.tooLong, got, c.want)
		}
	}
}

func TestCheckDate(t *testing.T) {
	cases := []struct {
		date string
		want Problem
	}{
		{"1500-06-01", DateOutOfRange},
		{"1600-12-31", DateOutOfRange},
		{"1899-12-31", DateOutOfRange},
		{"1900-01-01", OK},
		{"2026-05-17", OK},
		{"2200-12-31", OK},
		{"2201-01-01", DateOutOfRange},
		{"2300-01-01", DateOutOfRange},
	}
	for _, c := range cases {
		d, err := time.Parse(time.DateOnly, c.date)
		if err != nil {
			t.Fatal(err)
		}
		if got := CheckDate(d); got != c.want {
			t.Errorf("CheckDate(%s) = %v, want %v", c.date, got, c.want)
		}
	}
}

// FuzzTextCheck holds the promises a stored value relies on: whatever
// passes is valid UTF-8, trimmed, within its length, free of control and
// bidi characters (line breaks and tabs only in multi-line text, never
// CR), and passes again unchanged.
func FuzzTextCheck(f *testing.F) {
	for _, s := range []string{"", "abc", " a\r\nb ", "a\x00b", "\xff", "a\u202eb", "שלום", "a\tb\n", strings.Repeat("я", 9)} {
		f.Add(s, 8, true)
		f.Add(s, 0, false)
	}
	f.Fuzz(func(t *testing.T, s string, max int, multiline bool) {
		if max < 0 {
			max = -max
		}
		rule := Text{Max: max % 64, Multiline: multiline, Required: max%2 == 1}
		got, p := rule.Check(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Check(%q) returned invalid UTF-8 %q", s, got)
		}
		if p != OK {
			return
		}
		if got != strings.TrimSpace(got) {
			t.Errorf("Check(%q) = %q, not trimmed", s, got)
		}
		if rule.Max > 0 && utf8.RuneCountInString(got) > rule.Max {
			t.Errorf("Check(%q) = %q, over %d characters", s, got, rule.Max)
		}
		if rule.Required && got == "" {
			t.Errorf("Check(%q) passed blank", s)
		}
		for _, c := range got {
			ok := !unicode.IsControl(c) || (multiline && (c == '\n' || c == '\t'))
			if !ok || unicode.Is(unicode.Bidi_Control, c) || c == '\u2028' || c == '\u2029' {
				t.Fatalf("Check(%q) = %q passed %U", s, got, c)
			}
		}
		if again, p := rule.Check(got); again != got || p != OK {
			t.Errorf("Check(%q) = %q, but checking that again gives %q, %v", s, got, again, p)
		}
	})
}

func TestIsSlug(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"general": true, "book-club": true, "a1-b2-c3": true, "x": true,
		"": false, "Book": false, "-a": false, "a-": false, "a--b": false, "a b": false, "клуб": false, "a_b": false,
	} {
		if got := IsSlug(s, 0); got != want {
			t.Errorf("IsSlug(%q) = %v", s, got)
		}
	}
	if IsSlug("abcd", 3) || !IsSlug("abc", 3) {
		t.Error("the length bound")
	}
}

// FieldErrors.Check returns the cleaned text and records, only for a field
// whose text breaks its rule, the field's own key for a missing or too
// long text and the shared message for anything else.
func TestFieldErrorsCheck(t *testing.T) {
	errs := FieldErrors{}
	rule := Text{Max: 5, Required: true}
	if got := errs.Check("name", rule, "  Anna \n", "bad.name"); got != "Anna" || len(errs) != 0 {
		t.Errorf("good text: %q, errors %v", got, errs)
	}
	errs.Check("long", rule, "Annabelle", "bad.long")
	errs.Check("empty", rule, "   ", "bad.empty")
	errs.Check("bidi", rule, "a\u202eb", "bad.bidi")
	want := FieldErrors{"long": "bad.long", "empty": "bad.empty", "bidi": BidiControl.Key()}
	if !maps.Equal(errs, want) {
		t.Errorf("errors %v, want %v", errs, want)
	}
}

func TestFieldErrorsCheckSlug(t *testing.T) {
	errs := FieldErrors{}
	if got := errs.CheckSlug("slug", "  book-club ", 10, "bad.slug"); got != "book-club" || len(errs) != 0 {
		t.Errorf("good slug: %q, errors %v", got, errs)
	}
	for _, bad := range []string{"", "Book", "book club", "-book", "book--club", "a-very-long-slug", "книги"} {
		errs := FieldErrors{}
		errs.CheckSlug("slug", bad, 10, "bad.slug")
		if errs["slug"] != "bad.slug" {
			t.Errorf("CheckSlug(%q): errors %v, want bad.slug", bad, errs)
		}
	}
}

// TestCleanFitsTheRule: what Clean makes of any text passes Check (but
// for blank required text), keeps the words, and keeps line breaks only
// in multi-line text.
func TestCleanFitsTheRule(t *testing.T) {
	t.Parallel()
	inputs := []string{"plain", " spaced\t", "two\nlines\r\nhere\rend", "bad \xff bytes", "bidi \u202egnp.exe", "bell\a nul\x00", "sep\u2028arated", strings.Repeat("long ", 40), ""}
	for _, r := range []Text{{Max: 20, Required: true}, {Max: 100, Multiline: true}, {}} {
		for _, in := range inputs {
			out := r.Clean(in)
			if _, p := r.Check(out); p != OK && !(p == Missing && out == "") {
				t.Errorf("%+v: Clean(%q) = %q, which Check finds %v", r, in, out, p)
			}
		}
	}
	if got := (Text{}).Clean("two\nlines"); got != "two lines" {
		t.Errorf("a line break in one-line text: %q", got)
	}
	if got := (Text{Multiline: true}).Clean("two\r\nlines"); got != "two\nlines" {
		t.Errorf("a line break in multi-line text: %q", got)
	}
}

func TestSlugify(t *testing.T) {
	for _, c := range []struct {
		text string
		max  int
		want string
	}{
		{"Hello, World!", 0, "hello-world"},
		{"  Tour 2027: the dates  ", 0, "tour-2027-the-dates"},
		{"Новый альбом «Ночь»", 0, "novyi-albom-noch"},
		{"Щука и ёжик", 0, "shchuka-i-ezhik"},
		{"🎸🎶", 0, ""},
		{"Café crème brûlée", 0, "cafe-creme-brulee"},
		{"one two three four", 12, "one-two"},
		{"abcdefghijklmnop", 10, "abcdefghij"},
	} {
		got := Slugify(c.text, c.max)
		if got != c.want {
			t.Errorf("Slugify(%q, %d) = %q, want %q", c.text, c.max, got, c.want)
		}
		if got != "" && !IsSlug(got, c.max) {
			t.Errorf("Slugify(%q) = %q is not a slug", c.text, got)
		}
	}
}

func TestMoney(t *testing.T) {
	for _, c := range []struct {
		amount, currency string
		cents            int64
		code             string
		amountOK, curOK  bool
	}{
		{"12.50", "gbp", 1250, "GBP", true, true},
		{"12,5", " EUR ", 1250, "EUR", true, true},
		{"", "", 0, "", true, true},
		{"0", "", 0, "", true, true},
		{"10", "", 1000, "", true, false},
		{"10", "EURO", 1000, "EURO", true, false},
		{"10", "€", 1000, "€", true, false},
		{"-1", "EUR", 0, "", false, true},
		{"ten", "EUR", 0, "", false, true},
		{"NaN", "EUR", 0, "", false, true},
		{"1000000.01", "EUR", 0, "", false, true},
	} {
		cents, code, aOK, cOK := Money(c.amount, c.currency, 100_000_000)
		if cents != c.cents || code != c.code || aOK != c.amountOK || cOK != c.curOK {
			t.Errorf("Money(%q, %q) = %d %q %v %v", c.amount, c.currency, cents, code, aOK, cOK)
		}
	}
}

func TestLinesCheck(t *testing.T) {
	rule := Lines{Item: 10, Most: 3}
	for _, c := range []struct {
		typed string
		want  []string
		p     Problem
	}{
		{"", nil, OK},
		{" Tea \r\n\r\ncoffee\n", []string{"Tea", "coffee"}, OK},
		{"Tea\ntea\nTEA\nJuice", []string{"Tea", "Juice"}, OK},
		{"a\nb\nc\nd", nil, TooLong},
		{"a\nb\nc\n\n\na", []string{"a", "b", "c"}, OK},
		{"short\nfar too long a line", nil, TooLong},
		{"a\x00b\nc", nil, ControlChar},
		{"a\u202eb\nc", nil, BidiControl},
		{"a\xffb", nil, BadEncoding},
		{strings.Repeat("a\n", 40), nil, TooLong},
	} {
		got, p := rule.Check(c.typed)
		if p != c.p || !slices.Equal(got, c.want) {
			t.Errorf("Check(%q) = %q, %v; want %q, %v", c.typed, got, p, c.want, c.p)
		}
	}
}

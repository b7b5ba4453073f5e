package i18n

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"
)

func newCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every key must exist in every language, with the same placeholders, and
// plural entries must carry the forms their language needs.
func TestCatalogsAgree(t *testing.T) {
	c := newCatalog(t)
	placeholders := regexp.MustCompile(`\{[a-z_]+\}`)
	needForms := map[Lang][]string{EN: {"one", "other"}, RU: {"one", "few", "many"}}

	en := c.messages[EN]
	for _, l := range Supported() {
		msgs := c.messages[l]
		for key := range en {
			if _, ok := msgs[key]; !ok {
				t.Errorf("%s lacks %q", l, key)
			}
		}
		for key, e := range msgs {
			ref, ok := en[key]
			if !ok {
				t.Errorf("%s has %q, which en lacks", l, key)
				continue
			}
			if (e.plural == nil) != (ref.plural == nil) {
				t.Errorf("%s: %q is plural in one language only", l, key)
				continue
			}
			texts := []string{e.text}
			if e.plural != nil {
				texts = nil
				for _, form := range needForms[l] {
					if e.plural[form] == "" {
						t.Errorf("%s: %q lacks plural form %q", l, key, form)
					}
					texts = append(texts, e.plural[form])
				}
			}
			refText := ref.text
			if ref.plural != nil {
				refText = ref.plural["other"]
			}
			want := placeholders.FindAllString(refText, -1)
			slices.Sort(want)
			for _, text := range texts {
				got := placeholders.FindAllString(text, -1)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s: %q has placeholders %v, en has %v", l, key, got, want)
				}
			}
		}
	}
}

func TestResolveOrder(t *testing.T) {
	c := newCatalog(t)
	tests := []struct {
		name                   string
		user, cookie, acceptLn string
		want                   Lang
	}{
		{"nothing known", "", "", "", EN},
		{"accept-language russian", "", "", "ru-RU,ru;q=0.9,en-US;q=0.8", RU},
		{"accept-language english first", "", "", "en-GB,en;q=0.9,ru;q=0.5", EN},
		{"accept-language unsupported", "", "", "de-DE,fr;q=0.8", EN},
		{"accept-language garbage", "", "", ";;;q=x", EN},
		{"cookie beats accept-language", "", "en", "ru", EN},
		{"cookie russian", "", "ru", "en-US", RU},
		{"unsupported cookie skipped", "", "de", "ru", RU},
		{"user setting beats cookie", "ru", "en", "en", RU},
		{"unsupported user setting skipped", "xx", "ru", "en", RU},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Resolve(tt.user, tt.cookie, tt.acceptLn); got != tt.want {
				t.Errorf("Resolve(%q, %q, %q) = %q, want %q", tt.user, tt.cookie, tt.acceptLn, got, tt.want)
			}
		})
	}
}

func TestRussianPlurals(t *testing.T) {
	c := newCatalog(t)
	ctx := WithLocalizer(context.Background(), c.For(RU))
	tests := []struct {
		n        int
		form     string
		rendered string
	}{
		{0, "many", "0 разделов"},
		{1, "one", "1 раздел"},
		{2, "few", "2 раздела"},
		{4, "few", "4 раздела"},
		{5, "many", "5 разделов"},
		{11, "many", "11 разделов"},
		{14, "many", "14 разделов"},
		{21, "one", "21 раздел"},
		{22, "few", "22 раздела"},
		{25, "many", "25 разделов"},
		{101, "one", "101 раздел"},
		{111, "many", "111 разделов"},
	}
	for _, tt := range tests {
		if got := PluralForm(RU, tt.n); got != tt.form {
			t.Errorf("PluralForm(ru, %d) = %q, want %q", tt.n, got, tt.form)
		}
		if got := N(ctx, "home.modules.count", tt.n); got != tt.rendered {
			t.Errorf("N(ru, %d) = %q, want %q", tt.n, got, tt.rendered)
		}
	}
}

func TestEnglishPlurals(t *testing.T) {
	ctx := WithLocalizer(context.Background(), newCatalog(t).For(EN))
	for n, want := range map[int]string{0: "0 modules", 1: "1 module", 2: "2 modules", 21: "21 modules"} {
		if got := N(ctx, "home.modules.count", n); got != want {
			t.Errorf("N(en, %d) = %q, want %q", n, got, want)
		}
	}
}

func TestTranslateFallsBackToEnglish(t *testing.T) {
	c := &Catalog{messages: map[Lang]map[string]entry{
		EN: {"only.en": {text: "English only"}, "both": {text: "Both"}},
		RU: {"both": {text: "Оба"}},
	}}
	ctx := WithLocalizer(context.Background(), c.For(RU))
	if got := T(ctx, "both"); got != "Оба" {
		t.Errorf("T(both) = %q", got)
	}
	if got := T(ctx, "only.en"); got != "English only" {
		t.Errorf("missing Russian key: got %q, want the English text", got)
	}
	if got := T(ctx, "nowhere"); got != "nowhere" {
		t.Errorf("missing everywhere: got %q, want the key", got)
	}
}

func TestTranslateFillsPlaceholders(t *testing.T) {
	ctx := WithLocalizer(context.Background(), newCatalog(t).For(RU))
	if got := T(ctx, "error.reference", "id", "abc123"); got != "Код ошибки: abc123" {
		t.Errorf("got %q", got)
	}
	if LangOf(ctx) != RU {
		t.Errorf("LangOf = %q", LangOf(ctx))
	}
}

func TestWithoutLocalizer(t *testing.T) {
	ctx := context.Background()
	if T(ctx, "home.title") != "home.title" || LangOf(ctx) != EN {
		t.Error("a context without a Localizer must show keys and default to English")
	}
}

// fill replaces each {name} with its arg in one pass: unknown placeholders
// stay, a value that looks like a placeholder is not filled again, numbers
// are formatted for the language, and text without args is returned as is.
func TestFillPlaceholders(t *testing.T) {
	z := newCatalog(t).For(EN)
	for _, c := range []struct {
		text string
		args []any
		want string
	}{
		{"Hello {name}!", []any{"name", "Ann"}, "Hello Ann!"},
		{"{a}{b}{a}", []any{"a", "1", "b", "2"}, "121"},
		{"{name} has {n} items", []any{"n", 12345, "name", "{n}"}, "{n} has 12,345 items"},
		{"keep {unknown} and {", []any{"name", "x"}, "keep {unknown} and {"},
		{"no braces", []any{"name", "x"}, "no braces"},
		{"odd {name", []any{"name", "x"}, "odd {name"},
	} {
		if got := z.fill(c.text, c.args); got != c.want {
			t.Errorf("fill(%q, %v) = %q, want %q", c.text, c.args, got, c.want)
		}
	}
}

func BenchmarkTranslate(b *testing.B) {
	ctx := WithLocalizer(context.Background(), newCatalog(b).For(RU))
	b.ReportAllocs()
	for b.Loop() {
		T(ctx, "error.reference", "id", "abc123")
	}
}

func TestDatesInTheReadersLanguage(t *testing.T) {
	c := newCatalog(t)
	at := time.Date(2030, 6, 2, 10, 5, 0, 0, time.UTC)
	en := WithLocalizer(context.Background(), c.For(EN))
	ru := WithLocalizer(context.Background(), c.For(RU))
	for _, tc := range []struct{ got, want string }{
		{Date(en, at), "2 June 2030"},
		{Date(ru, at), "2 июня 2030"},
		{DateTime(en, at), "Sun 2 Jun 2030, 10:05"},
		{DateTime(ru, at), "вс, 2 июн. 2030, 10:05"},
		{Date(context.Background(), at), "2 June 2030"},
		// A month on its own heads a calendar; after "since" it is the
		// genitive in Russian ("с июня 2030").
		{MonthYear(en, at), "June 2030"},
		{MonthYear(ru, at), "Июнь 2030"},
		{SinceMonth(en, at), "June 2030"},
		{SinceMonth(ru, at), "июня 2030"},
		{DayMonth(en, at), "2 Jun"},
		{DayMonth(ru, at), "2 июн."},
		// What happened, seen a moment, a day, days and a year later.
		{Recent(en, at, at.Add(time.Hour)), "Today, 10:05"},
		{Recent(ru, at, at.Add(time.Hour)), "Сегодня, 10:05"},
		{Recent(en, at, at.Add(14*time.Hour)), "Yesterday, 10:05"},
		{Recent(ru, at, at.Add(24*time.Hour)), "Вчера, 10:05"},
		{Recent(en, at, at.Add(72*time.Hour)), "Sun 2 Jun, 10:05"},
		{Recent(ru, at, at.Add(72*time.Hour)), "вс, 2 июн., 10:05"},
		{Recent(en, at, at.AddDate(0, 7, 0)), "Sun 2 Jun 2030, 10:05"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

package textsearch

import (
	"strings"
	"testing"
)

func TestTokensRussian(t *testing.T) {
	t.Parallel()
	got := strings.Join(Tokens("Пиши ПИСЬМО, go!"), " ")
	want := "пиш пиши пис пись письм письмо go"
	if got != want {
		t.Errorf("tokens = %q, want %q", got, want)
	}
	if got := strings.Join(Tokens("Ёлка"), " "); got != "елк елка" {
		t.Errorf("tokens of Ёлка = %q, want ё as е", got)
	}
}

// TestScore: every query word must match a title word, whole (2) or as
// a prefix (1); a word under three letters matches only whole; the
// driver is the longest word.
func TestScore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		title, q string
		want     int
	}{
		{"Пишем письмо бабушке", "письмо", 2},
		{"Пишем письмо бабушке", "пис баб", 2},
		{"Пишем письмо бабушке", "письмо дедушке", 0},
		{"Go tips", "go", 2},
		{"Gopher tips", "go", 0},
		{"Release notes", "rel", 1},
		{"Ёжик в тумане", "ежик", 2},
		{"Ежик в тумане", "ЁЖИК", 2},
		{"Ёлочные игрушки", "елоч", 1},
	}
	for _, c := range cases {
		if got := Score(c.title, Query(c.q)); got != c.want {
			t.Errorf("Score(%q, %q) = %d, want %d", c.title, c.q, got, c.want)
		}
	}
	if d := Driver(Query("a longest mid")); d.Word != "longest" || d.Token != "longe" {
		t.Errorf("driver %+v", d)
	}
}

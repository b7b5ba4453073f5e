package textsearch

import (
	"strings"
	"testing"
)

// marked is an excerpt written out, the matches in [brackets].
func marked(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.Match {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestSearchingWords(t *testing.T) {
	if got := Terms("  Ёлка ёлка  PLAN plan a b c", 4); strings.Join(got, ",") != "елка,plan,a,b" {
		t.Errorf("Terms: %q", got)
	}
	for _, c := range []struct {
		text  string
		q     string
		match bool
	}{
		{"Planning the jazz night", "plan jazz", true},
		{"Planning the jazz night", "plan blues", false},
		{"Зелёная ёлка", "ЗЕЛЕНАЯ елка", true},
		{"anything", "", false},
	} {
		if got := Contains(c.text, Terms(c.q, 10)); got != c.match {
			t.Errorf("Contains(%q, %q) = %v", c.text, c.q, got)
		}
	}
	long := "We met at the station early in the morning and then walked along the river to the old market where Anna bought bread and cheese for the picnic"
	for _, c := range []struct {
		text, q string
		max     int
		want    string
	}{
		{"Dinner at eight?", "eight", 40, "Dinner at [eight]?"},
		{"Ёлка у Ёжика", "ёлка ежика", 40, "[Ёлка] у [Ёжика]"},
		{long, "cheese", 40, "…bought bread and [cheese] for the picnic"},
		{long, "anna bread", 60, "…old market where [Anna] bought [bread] and cheese for the picnic"},
		{long, "nothing", 20, "We met at the…"},
		{long, "river", 30, "…along the [river] to the old…"},
		// A text shorter than max, the word past its first third: whole.
		{"Is anyone going to the jazz night?", "night", 40, "Is anyone going to the jazz [night]?"},
	} {
		if got := marked(Excerpt(c.text, Terms(c.q, 10), c.max)); got != c.want {
			t.Errorf("Excerpt(%q, %d):\n got %q\nwant %q", c.q, c.max, got, c.want)
		}
	}
}

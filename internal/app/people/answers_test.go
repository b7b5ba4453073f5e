package people_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestAnsweredQuestionsOnTheCard: a member answers questions on their
// card (as Hinge's prompts); the first shows on their Discover tile
// instead of the bio, all on their page, in the reader's language, at no
// read more for Discover; taking one back leaves the rest. A bad form
// (an unknown question, a question twice, a question without an answer,
// an answer without a question, a long answer) is refused with 422,
// says which field, keeps what was typed and writes nothing. Someone
// may like one answer, as on Hinge: the liked person sees which, as it
// was when liked.
func TestAnsweredQuestionsOnTheCard(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1995-03-02")
	if bob.Get("/people").Doc(t).Find(testID("people-questions-link")).Length() != 1 {
		t.Fatal("People offers no questions page")
	}
	before := bob.Get("/people").StorageOps(t)

	form := func(pairs ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(pairs); i += 2 {
			n := string(rune('1' + i/2))
			v.Set("question"+n, pairs[i])
			v.Set("answer"+n, pairs[i+1])
		}
		return v
	}
	for _, bad := range []struct {
		name, field string
		form        url.Values
	}{
		{"an unknown question", "question1", form("favourite_colour", "Blue")},
		{"a question twice", "question2", form("song", "One", "song", "Two")},
		{"a question without an answer", "answer1", form("song", "  ")},
		{"an answer without a question", "question2", form("song", "One", "", "Two")},
		{"a long answer", "answer1", form("song", strings.Repeat("la ", 70))},
	} {
		res := post(ann.Client, "/people/questions", bad.form)
		doc := res.Doc(t)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || doc.Find(`[data-testid="field-error"][data-field="`+bad.field+`"]`).Length() != 1 {
			t.Errorf("%s: %d, %d writes, errors on %v", bad.name, res.StatusCode, res.Writes(t), doc.Find(testID("field-error")).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-field", "") }))
		}
		if got := doc.Find("#answer1").Text(); got != bad.form.Get("answer1") {
			t.Errorf("%s: the form lost the answer typed, %q", bad.name, got)
		}
	}

	res := post(ann.Client, "/people/questions", form("song", "“Autumn Leaves”, in three keys.", "", "", "never", "a curry after a long ride."))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/people/questions" {
		t.Fatalf("saving the answers: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	page := ann.Get("/people/questions").Doc(t)
	if page.Find("#question1 option[selected]").AttrOr("value", "") != "song" || page.Find("#question2 option[selected]").AttrOr("value", "") != "never" || page.Find("#answer3").Text() != "" {
		t.Errorf("the page does not show the answers saved, in order")
	}

	tile := bob.Get("/people").Doc(t).Find(testID("person-tile")).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Find(testID("person-tile-link")).Text(), "Ann")
	})
	if got := tile.Find(testID("card-answer")).Text(); !strings.Contains(got, "A song I know every word of") || !strings.Contains(got, "Autumn Leaves") || strings.Contains(got, "curry") {
		t.Errorf("Ann's tile shows %q", got)
	}
	if tile.Find(".person-tile-bio").Length() != 0 {
		t.Error("the tile shows the bio beside the answer")
	}
	if after := bob.Get("/people").StorageOps(t); after["total"] != before["total"] {
		t.Errorf("Discover cost %v with an answered card, %v before", after, before)
	}
	answers := func(headers ...string) []string {
		return bob.Get("/people/"+ann.key, headers...).Doc(t).Find(testID("card-answer") + " .card-answer-question").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	}
	if got := answers(); !slices.Equal(got, []string{"A song I know every word of", "I'll never say no to"}) {
		t.Errorf("Ann's page shows the questions %q", got)
	}
	if got := answers("Accept-Language", "ru"); !slices.Equal(got, []string{"Песня, которую я знаю наизусть", "Я никогда не откажусь от"}) {
		t.Errorf("Ann's page in Russian shows %q", got)
	}

	// Taking the first back leaves the second, which the tile shows now.
	if res := post(ann.Client, "/people/questions", form("", "", "never", "a curry after a long ride.")); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("taking an answer back: %d", res.StatusCode)
	}
	if got := answers(); !slices.Equal(got, []string{"I'll never say no to"}) {
		t.Errorf("after taking one back, Ann's page shows %q", got)
	}
	// Saving the same again writes nothing.
	if res := post(ann.Client, "/people/questions", form("", "", "never", "a curry after a long ride.")); res.StatusCode != http.StatusSeeOther || res.Writes(t) != 0 {
		t.Errorf("saving the same answers: %d, %d writes", res.StatusCode, res.Writes(t))
	}

	// Bob likes that answer, with a word: Ann sees which answer, as it
	// was, even once she rewrites it. An answer the card no longer has
	// is refused and writes nothing.
	if n := bob.Get("/people/" + ann.key).Doc(t).Find(testID("answer-like-form")).Length(); n != 1 {
		t.Fatalf("Ann's page offers %d likes of an answer", n)
	}
	if res := post(bob.Client, "/people/"+ann.key+"/like", url.Values{"about": {"song"}, "comment": {"Me too"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("a like of an answer taken back: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := post(bob.Client, "/people/"+ann.key+"/like", url.Values{"about": {"never"}, "comment": {"Same here!"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a like of an answer: %d", res.StatusCode)
	}
	post(ann.Client, "/people/questions", form("never", "a long walk."))
	row := ann.Get("/people/likes").Doc(t).Find(testID("likes-you") + " " + testID("people-row"))
	if got := row.Find(testID("liked-answer")).Text(); !strings.Contains(got, "Liked your answer") || !strings.Contains(got, "I'll never say no to") || !strings.Contains(got, "a curry after a long ride.") {
		t.Errorf("Ann's likes page shows the liked answer as %q", got)
	}
	if got := row.Find(testID("like-comment")).Text(); got != "Same here!" {
		t.Errorf("the like's word: %q", got)
	}
	if got := ann.Get("/people/"+bob.key, "Accept-Language", "ru").Doc(t).Find(testID("liked-answer")).Text(); !strings.Contains(got, "Понравился ваш ответ") || !strings.Contains(got, "Я никогда не откажусь от") {
		t.Errorf("Bob's page to Ann in Russian shows %q", got)
	}
}

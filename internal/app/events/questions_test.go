package events_test

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/events"
)

// TestQuestionsForGuests: an event asks up to three questions (Luma's
// registration questions); its register form asks them, each required:
// a registration without an answer, or with one too long, is refused on
// its field with what was typed, and writes nothing. The organizers read
// each guest's answers beside their request to join, on the check-in
// list and in the CSV, as the question was asked then, also after the
// questions change. A bad question is refused on the event's form.
func TestQuestionsForGuests(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]

	// A bad question: refused on its field, nothing made.
	bad := url.Values{"title": {"Supper club"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "question2": {strings.Repeat("q", events.MaxQuestion+1)}}
	if res := post(org, "/events", bad); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Find(`[data-field="event-question2"]`).Text(), strconv.Itoa(events.MaxQuestion)) {
		t.Fatalf("a long question: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	page := newEvent(t, org, "capacity", "0", "approval", "on", "question1", "Any dietary needs?", "question3", "  Who invited you?  ")

	// The form asks both, in order; the edit form has them back.
	doc := ann.Get(page).Doc(t)
	var asked []string
	doc.Find(testID("register-questions") + " label").Each(func(_ int, s *goquery.Selection) { asked = append(asked, s.Text()) })
	if strings.Join(asked, "|") != "Any dietary needs?|Who invited you?" || doc.Find(testID("register-answer")+"[required]").Length() != 2 {
		t.Fatalf("the register form asks %q", asked)
	}
	if v := org.Get(page+"/edit").Doc(t).Find("#event-question2").AttrOr("value", "?"); v != "Who invited you?" {
		t.Errorf("the edit form's second question: %q", v)
	}

	// Missing and long answers: refused on their fields, nothing written.
	for _, c := range []struct {
		name   string
		form   url.Values
		field  string
		typed1 string
	}{
		{"no answers", url.Values{}, "event-answer1", ""},
		{"a blank answer", url.Values{"answer1": {"Vegan"}, "answer2": {"   "}}, "event-answer2", "Vegan"},
		{"a long answer", url.Values{"answer1": {strings.Repeat("a", events.MaxAnswer+1)}, "answer2": {"Org"}}, "event-answer1", strings.Repeat("a", events.MaxAnswer+1)},
		{"a line break", url.Values{"answer1": {"Vegan\nno nuts"}, "answer2": {"Org"}}, "event-answer1", "Vegan\nno nuts"},
	} {
		res := post(ann, page+"/register", c.form)
		d := res.Doc(t)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || d.Find(`[data-field="`+c.field+`"]`).Length() != 1 || d.Find(testID("register-page")).Length() != 1 {
			t.Errorf("%s: %d, %d writes", c.name, res.StatusCode, res.Writes(t))
		}
		if got := d.Find("#event-answer1").AttrOr("value", ""); c.typed1 != "" && got == "" {
			t.Errorf("%s: the form lost what was typed", c.name)
		}
	}
	if state(t, ann, page) != "" {
		t.Fatal("a refused registration registered")
	}
	// A missing answer and a long one say which they are.
	d := post(ann, page+"/register", url.Values{"answer2": {strings.Repeat("a", events.MaxAnswer+1)}}).Doc(t)
	if missing, long := d.Find(`[data-field="event-answer1"]`).Text(), d.Find(`[data-field="event-answer2"]`).Text(); missing != "Answer this question." || !strings.Contains(long, strconv.Itoa(events.MaxAnswer)) {
		t.Errorf("the refusals say %q and %q", missing, long)
	}
	if res := post(ann, page+"/register", url.Values{"answer1": {"Vegan, no nuts"}, "answer2": {"Bob"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("register: %d", res.StatusCode)
	}

	// The organizers read them with the request, then on the check-in
	// list once approved, and in the CSV.
	req := org.Get(page + "/check-in").Doc(t).Find(testID("request"))
	if got := req.Find(testID("guest-answers")).Text(); !strings.Contains(got, "Any dietary needs?Vegan, no nuts") || !strings.Contains(got, "Who invited you?Bob") {
		t.Fatalf("the request's answers: %q", got)
	}
	if res := post(org, approveURL(t, org, page, "ann"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approve: %d", res.StatusCode)
	}
	if got := org.Get(page + "/check-in").Doc(t).Find(testID("attendee") + " " + testID("guest-answers")).Text(); !strings.Contains(got, "Vegan, no nuts") {
		t.Errorf("the check-in list's answers: %q", got)
	}

	// The questions change: what ann answered stays with its question;
	// bob answers the new one.
	edit := url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "capacity": {"0"}, "place": {"The Crown"}, "approval": {"on"},
		"question1": {"Any dietary needs?"}, "question2": {"T-shirt size?"}}
	if res := post(org, page+"/edit", edit); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	post(bob, page+"/register", url.Values{"answer1": {"None"}, "answer2": {"M"}})
	rows, err := csv.NewReader(strings.NewReader(org.Get(page + "/attendees.csv").Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	if strings.Join(head[len(head)-2:], "|") != "Any dietary needs?|T-shirt size?" {
		t.Fatalf("the CSV's columns: %q", head)
	}
	byName := map[string][]string{}
	for _, r := range rows[1:] {
		byName[r[0]] = r[len(r)-2:]
	}
	if strings.Join(byName["ann"], "|") != "Vegan, no nuts|" || strings.Join(byName["bob"], "|") != "None|M" {
		t.Errorf("the CSV's answers: %q", byName)
	}
}

// TestChoicesAndOptionalQuestions: a question offers choices (one a
// line; blank lines and repeats left out) and another may be left
// unanswered. The register form offers the choices as radio buttons and
// marks the optional one; a choice not offered, or none, is refused on
// its field, writing nothing; leaving the optional one blank registers,
// and the organizers read only what was answered. Bad choices are
// refused on the event form; the edit form has them back.
func TestChoicesAndOptionalQuestions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com")
	org, ann := cast[0], cast[1]

	base := url.Values{"title": {"Potluck"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}}
	for _, c := range []struct {
		name, field, want string
		set               url.Values
	}{
		{"one choice", "event-choices1", "two choices at least", url.Values{"question1": {"Bring?"}, "choices1": {"Food"}}},
		{"too many", "event-choices1", "up to 10", url.Values{"question1": {"Bring?"}, "choices1": {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11"}}},
		{"a long choice", "event-choices1", "80 characters", url.Values{"question1": {"Bring?"}, "choices1": {"Food\n" + strings.Repeat("d", events.MaxChoice+1)}}},
		{"choices, no question", "event-question2", "Write the question", url.Values{"choices2": {"Yes\nNo"}}},
	} {
		form := url.Values{}
		for k, v := range base {
			form[k] = v
		}
		for k, v := range c.set {
			form[k] = v
		}
		res := post(org, "/events", form)
		if got := res.Doc(t).Find(`[data-field="` + c.field + `"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(got, c.want) {
			t.Errorf("%s: %d, %d writes, %q", c.name, res.StatusCode, res.Writes(t), got)
		}
	}
	page := newEvent(t, org, "capacity", "0",
		"question1", "What will you bring?", "choices1", "Food\n\nDrinks\nfood\n Music ",
		"question2", "Anything we should know?", "optional2", "on")

	doc := ann.Get(page).Doc(t)
	var offered []string
	doc.Find(testID("register-choice")).Each(func(_ int, s *goquery.Selection) { offered = append(offered, s.AttrOr("value", "")) })
	if strings.Join(offered, "|") != "Food|Drinks|Music" || doc.Find(testID("register-choices")+" legend").Text() != "What will you bring?" {
		t.Fatalf("the choices offered: %q", offered)
	}
	if l := doc.Find(`label[for="event-answer2"]`).Text(); l != "Anything we should know? (optional)" || doc.Find("#event-answer2[required]").Length() != 0 {
		t.Errorf("the optional question: %q", l)
	}
	edit := org.Get(page + "/edit").Doc(t)
	if got := edit.Find("#event-choices1").Text(); got != "Food\nDrinks\nMusic" || edit.Find(`[name="optional2"][checked]`).Length() != 1 || edit.Find(`[name="optional1"][checked]`).Length() != 0 {
		t.Errorf("the edit form's choices %q and optional marks", got)
	}
	if ru := ann.Get(page, "Accept-Language", "ru").Doc(t).Find(`label[for="event-answer2"]`).Text(); ru != "Anything we should know? (необязательно)" {
		t.Errorf("the optional mark in Russian: %q", ru)
	}

	for _, c := range []struct {
		name string
		form url.Values
	}{
		{"no choice", url.Values{"answer2": {"Late"}}},
		{"a choice not offered", url.Values{"answer1": {"Cake"}}},
		{"a choice in other letters", url.Values{"answer1": {"food"}}},
	} {
		res := post(ann, page+"/register", c.form)
		if got := res.Doc(t).Find(`[data-field="event-answer1"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || got != "Choose one of the answers." {
			t.Errorf("%s: %d, %d writes, %q", c.name, res.StatusCode, res.Writes(t), got)
		}
	}
	// A refused form keeps the choice made.
	res := post(ann, page+"/register", url.Values{"answer1": {"Drinks"}, "answer2": {strings.Repeat("a", events.MaxAnswer+1)}})
	if d := res.Doc(t); res.StatusCode != http.StatusUnprocessableEntity || d.Find(testID("register-choice")+"[value=Drinks][checked]").Length() != 1 || d.Find(`[data-field="event-answer2"]`).Length() != 1 {
		t.Errorf("a long optional answer: %d", res.StatusCode)
	}
	if res := post(ann, page+"/register", url.Values{"answer1": {"Drinks"}, "answer2": {"Late"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann with a choice and an answer: %d", res.StatusCode)
	}
	if state(t, ann, page) != "going" {
		t.Fatalf("ann with a choice and an answer: %q", state(t, ann, page))
	}
	// The optional one left blank: registered, and only the answer shows.
	bob := a.People("bob@example.com")[0]
	if res := post(bob, page+"/register", url.Values{"answer1": {"Music"}, "answer2": {"  "}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob, the optional question blank: %d", res.StatusCode)
	}
	var answers []string
	org.Get(page + "/check-in").Doc(t).Find(testID("attendee")).Each(func(_ int, s *goquery.Selection) {
		answers = append(answers, s.Find(testID("guest-answers")).Text())
	})
	slices.Sort(answers)
	if strings.Join(answers, "|") != "What will you bring?DrinksAnything we should know?Late|What will you bring?Music" {
		t.Errorf("the check-in list's answers: %q", answers)
	}
}

// TestQuestionsWithSeveralChoices: a question may let guests choose
// several of its choices (Luma's multi-select). The event form refuses
// it without choices; the register form offers checkboxes with a hint,
// refuses none (the question is required) or one not offered on its
// field, writing nothing and keeping what was ticked, and takes any of
// them, each once; the organizers read them as one answer.
func TestQuestionsWithSeveralChoices(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com")
	org, ann := cast[0], cast[1]

	bad := url.Values{"title": {"Potluck"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "question1": {"Bring?"}, "several1": {"on"}}
	if res := post(org, "/events", bad); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Find(`[data-field="event-choices1"]`).Text(), "List the choices") {
		t.Fatalf("several without choices: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	page := newEvent(t, org, "capacity", "0", "question1", "What will you bring?", "choices1", "Food\nDrinks\nMusic", "several1", "on")

	doc := ann.Get(page).Doc(t)
	boxes := doc.Find(testID("register-choices") + ` input[type="checkbox"][name="answer1"]`)
	if boxes.Length() != 3 || doc.Find(testID("register-choices")+" [required]").Length() != 0 || doc.Find("#event-answer1-hint").Text() != "Choose any that apply." {
		t.Fatalf("the register form offers %d checkboxes: %s", boxes.Length(), doc.Find(testID("register-choices")).Text())
	}
	if org.Get(page+"/edit").Doc(t).Find(`[name="several1"][checked]`).Length() != 1 {
		t.Error("the edit form lost the several mark")
	}
	if hint := ann.Get(page, "Accept-Language", "ru").Doc(t).Find("#event-answer1-hint").Text(); hint != "Можно выбрать несколько." {
		t.Errorf("the hint in Russian: %q", hint)
	}

	for _, c := range []struct {
		name string
		form url.Values
	}{
		{"none", url.Values{}},
		{"one not offered", url.Values{"answer1": {"Food", "Cake"}}},
		{"thousands", url.Values{"answer1": append([]string{"Food"}, strings.Fields(strings.Repeat("x ", 5000))...)}},
	} {
		res := post(ann, page+"/register", c.form)
		d := res.Doc(t)
		if got := d.Find(`[data-field="event-answer1"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || got != "Choose one or more of the answers." {
			t.Errorf("%s: %d, %d writes, %q", c.name, res.StatusCode, res.Writes(t), got)
		}
		if c.form.Has("answer1") && d.Find(testID("register-choice")+"[value=Food][checked]").Length() != 1 {
			t.Errorf("%s: the form lost what was ticked", c.name)
		}
	}
	if res := post(ann, page+"/register", url.Values{"answer1": {"Food", "Music", "Food"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann with two choices: %d", res.StatusCode)
	}
	got := org.Get(page + "/check-in").Doc(t).Find(testID("guest-answers")).Text()
	if got != "What will you bring?Food, Music" {
		t.Errorf("the check-in list's answer: %q", got)
	}
}

// TestQuestionsAnsweredByATick: a question may be answered by ticking a
// box (Luma's terms checkbox): the event form refuses it with choices;
// the register form offers one box that says the question, refuses a
// required one left unticked, or sent with anything but its value, on
// its field, writing nothing; ticked, it registers, and the organizers
// read "Yes" in their language, the CSV true. An optional one left
// unticked registers, shows nothing, and is false in the CSV.
func TestQuestionsAnsweredByATick(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]

	bad := url.Values{"title": {"Boat trip"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "question1": {"I can swim"}, "choices1": {"Yes\nNo"}, "tick1": {"on"}}
	if res := post(org, "/events", bad); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Find(`[data-field="event-choices1"]`).Text(), "takes no choices") {
		t.Fatalf("a tick with choices: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	page := newEvent(t, org, "capacity", "0",
		"question1", "I accept the skipper's rules", "tick1", "on",
		"question2", "Send me the photos afterwards", "tick2", "on", "optional2", "on")

	doc := ann.Get(page).Doc(t)
	box := doc.Find(testID("register-tick-box"))
	if box.Length() != 2 || box.First().AttrOr("name", "") != "answer1" || box.First().AttrOr("value", "") != "yes" || box.First().AttrOr("type", "") != "checkbox" ||
		!strings.Contains(doc.Find(testID("register-tick")).First().Text(), "I accept the skipper's rules") {
		t.Fatalf("the register form's tick boxes: %d %q", box.Length(), doc.Find(testID("register-questions")).Text())
	}
	if org.Get(page+"/edit").Doc(t).Find(`[name="tick1"][checked]`).Length() != 1 {
		t.Error("the edit form lost the tick mark")
	}
	for _, form := range []url.Values{{}, {"answer1": {"on"}}, {"answer1": {""}}} {
		res := post(ann, page+"/register", form)
		if got := res.Doc(t).Find(`[data-field="event-answer1"]`).Text(); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || got != "Tick the box to register." {
			t.Errorf("%v: %d, %d writes, %q", form, res.StatusCode, res.Writes(t), got)
		}
	}
	if got := ann.PostForm(page+"/register", ann.WithCSRF("/", url.Values{}), "Accept-Language", "ru").Doc(t).Find(`[data-field="event-answer1"]`).Text(); got != "Поставьте галочку, чтобы зарегистрироваться." {
		t.Errorf("the refusal in Russian: %q", got)
	}
	if res := post(ann, page+"/register", url.Values{"answer1": {"yes"}, "answer2": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann ticks both: %d", res.StatusCode)
	}
	if res := post(bob, page+"/register", url.Values{"answer1": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob ticks the required one: %d", res.StatusCode)
	}
	answers := map[string]string{}
	org.Get(page + "/check-in").Doc(t).Find(testID("attendee")).Each(func(_ int, s *goquery.Selection) {
		answers[strings.Fields(s.Text())[0]] = s.Find(testID("guest-answers")).Text()
	})
	if answers["ann"] != "I accept the skipper's rulesYes ✓Send me the photos afterwardsYes ✓" || answers["bob"] != "I accept the skipper's rulesYes ✓" {
		t.Errorf("the check-in list's answers: %q", answers)
	}
	if got := org.Get(page+"/check-in", "Accept-Language", "ru").Doc(t).Find(testID("guest-answers")).First().Text(); !strings.Contains(got, "Да ✓") {
		t.Errorf("the answers in Russian: %q", got)
	}
	csv := org.Get(page + "/attendees.csv").Body
	if !strings.Contains(csv, ",true,true\n") || !strings.Contains(csv, ",true,false\n") {
		t.Errorf("the CSV:\n%s", csv)
	}
}

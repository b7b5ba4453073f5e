package events_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestGuestsRateAnEventThatEnded: once an event has ended it takes no
// registration and says so; each guest who was going rates it from one
// to five stars with a few words, and may change them; the organizer
// sees the average, how many gave each rating and the words with their
// guests' names, which nobody else does. At its end the guests who have
// not rated it are asked to, once. Before the end, by someone not
// going, or with a rating or words that break the rules, a rating is
// refused and writes nothing. The guest's archive holds their rating.
func TestGuestsRateAnEventThatEnded(t *testing.T) {
	t.Parallel()
	a, svc := newAppAndService(t)
	cast := a.People("olga@example.com", "ann@example.com", "bob@example.com", "cat@example.com")
	olga, ann, bob, cat := cast[0], cast[1], cast[2], cast[3]
	if _, err := a.Accounts.SetRole(t.Context(), a.Who(olga), account.RoleOrganizer, true); err != nil {
		t.Fatal(err)
	}
	london, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) string { return a.Clock.Now().Add(d).In(london).Format("2006-01-02T15:04") }
	page := newEvent(t, olga, "title", "Quiz night", "start", at(2*time.Hour), "end", at(4*time.Hour), "timezone", "Europe/London", "capacity", "3")
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	post(olga, page+"/register", nil) // who runs it, on its guest list too
	// Another, cancelled before it would have ended, is rated by nobody.
	called := newEvent(t, olga, "title", "Called off", "start", at(2*time.Hour), "end", at(4*time.Hour), "timezone", "Europe/London")
	post(ann, called+"/register", nil)
	post(olga, called+"/cancel-event", url.Values{"confirm": {"yes"}})
	// A third has a seat offered to cat that she has not taken when it
	// ends (offers stop an hour before the start, so the offer stands
	// until then).
	tiny := newEvent(t, olga, "title", "Tiny", "start", at(2*time.Hour), "end", at(4*time.Hour), "timezone", "Europe/London",
		"offerHours", "2", "offerStopHours", "1")
	post(bob, tiny+"/register", nil)
	post(cat, tiny+"/register", nil)
	post(bob, tiny+"/cancel", url.Values{"confirm": {"yes"}})
	if got := state(t, cat, tiny); got != "offered" {
		t.Fatalf("cat on the tiny event: %q", got)
	}
	rate := func(c *webtest.Client, rating, words string) *webtest.Response {
		return post(c, page+"/feedback", url.Values{"rating": {rating}, "feedback": {words}})
	}
	if res := rate(ann, "5", "Great night"); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Fatalf("a rating before the end: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if ann.Get(page).Doc(t).Find(testID("event-feedback")).Length() != 0 || ann.Get(page+"/feedback").StatusCode != http.StatusConflict {
		t.Fatal("the rating form before the end")
	}

	a.Clock.Advance(4*time.Hour + time.Minute)
	if got := state(t, ann, page); got != "went" {
		t.Errorf("ann after the event: %q", got)
	}
	d := cat.Get(page).Doc(t)
	if d.Find(testID("registration-ended")).Length() != 1 || d.Find(testID("register-form")).Length() != 0 || d.Find(testID("event-feedback")).Length() != 0 {
		t.Errorf("cat, not registered, after the event: %q", d.Find(testID("registration")).Text())
	}
	if res := post(cat, page+"/register", nil); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("registering after the end: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res := post(cat, tiny+"/accept", nil); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Text(), "This event has ended") {
		t.Errorf("taking an offered seat after the end: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// "My events" asks ann to rate the event she went to, not the one
	// called off.
	mine := func() *goquery.Selection {
		return ann.Get("/events/mine").Doc(t).Find(testID("my-events-past") + " " + testID("my-event"))
	}
	if past := mine(); past.Length() != 2 || past.Find(testID("my-event-rate")).Length() != 1 ||
		past.Find(testID("my-event-rate")).AttrOr("href", "") != page+"/feedback" {
		t.Errorf("ann's past events before her rating: %d rows, %q", past.Length(), past.Text())
	}
	if text := mine().Text(); strings.Count(text, "You were on the guest list.") != 1 || strings.Contains(text, "You are going") {
		t.Errorf("ann's past events say: %q", text)
	}

	form := ann.Get(page).Doc(t).Find(testID("feedback-form"))
	if form.AttrOr("action", "") != page+"/feedback" || form.Find(`input[name="rating"]`).Length() != 5 {
		t.Fatalf("ann's rating form: %q", form.Text())
	}
	res := rate(ann, "5", "  Great night, well run.  ")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page+"#feedback" {
		t.Fatalf("ann rates: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	form = ann.Get(page).Doc(t).Find(testID("feedback-form"))
	if form.Find(`input[name="rating"][value="5"]`).AttrOr("checked", "no") == "no" || form.Find("textarea").Text() != "Great night, well run." || !strings.Contains(form.Find(testID("feedback-submit")).Text(), "Change") {
		t.Errorf("ann's form after her rating: %q", form.Text())
	}
	if res := rate(ann, "4", "Great night, well run."); res.StatusCode != http.StatusSeeOther {
		t.Errorf("ann changes her rating: %d", res.StatusCode)
	}
	if past := mine(); past.Find(testID("my-event-rate")).Length() != 0 ||
		!strings.Contains(past.Find(testID("my-event-rated")).Text(), "Your rating: 4 stars: very good") {
		t.Errorf("ann's past events after her rating: %q", past.Text())
	}
	// The ask, due at the end, reaches the guest who has not rated yet,
	// once, leading to the form.
	a.Tasks.RunDue(t.Context())
	a.Tasks.RunDue(t.Context())
	asked := func(c *webtest.Client) int {
		return strings.Count(a.Inbox(c).Text(), "How was “Quiz night”?")
	}
	if asked(bob) != 1 || asked(ann) != 0 || asked(cat) != 0 || asked(olga) != 0 {
		t.Errorf("asked: bob %d, ann (rated) %d, cat (not going) %d, olga (runs it) %d", asked(bob), asked(ann), asked(cat), asked(olga))
	}
	// Who runs it is not asked, offered the form or let rate: its guests
	// rate it.
	if d := olga.Get(page).Doc(t); d.Find(testID("feedback-form")).Length() != 0 {
		t.Error("the organizer, going, is offered the rating form")
	}
	if res := olga.Get(page + "/feedback"); res.StatusCode != http.StatusForbidden {
		t.Errorf("the organizer's rating form: %d", res.StatusCode)
	}
	if res := rate(olga, "5", ""); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Text(), "its guests rate it") {
		t.Errorf("the organizer rates: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if n := olga.Get("/events/mine").Doc(t).Find(testID("my-event-rate")).Length(); n != 0 {
		t.Error("the organizer's My events asks them to rate their own event")
	}
	link := a.Inbox(bob).Find("a").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "How was") }).AttrOr("href", "")
	if res := bob.Get(link); link == "" || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page+"#feedback" {
		t.Errorf("the ask leads to %q (%s)", link, res.Header.Get("Location"))
	}
	rate(bob, "2", "")
	if res := bob.Get(page + "/feedback"); res.StatusCode != http.StatusOK || res.Doc(t).Find(`input[name="rating"][value="2"]`).AttrOr("checked", "no") == "no" {
		t.Errorf("bob's rating form on its own page: %d", res.StatusCode)
	}
	if res := cat.Get(page + "/feedback"); res.StatusCode != http.StatusForbidden {
		t.Errorf("cat's rating form: %d", res.StatusCode)
	}

	for _, c := range []struct {
		who           *webtest.Client
		rating, words string
		want          int
	}{
		{ann, "6", "", http.StatusUnprocessableEntity},
		{ann, "0", "", http.StatusUnprocessableEntity},
		{ann, "", "Fine", http.StatusUnprocessableEntity},
		{ann, "x", "", http.StatusUnprocessableEntity},
		{ann, "3", strings.Repeat("a", 1001), http.StatusUnprocessableEntity},
		{ann, "3", "bad\x00byte", http.StatusUnprocessableEntity},
		{ann, "3", "sneaky\u202eword", http.StatusUnprocessableEntity},
		{cat, "5", "", http.StatusForbidden},
	} {
		res := rate(c.who, c.rating, c.words)
		if res.StatusCode != c.want || res.Writes(t) != 0 {
			t.Errorf("rating %q %q: %d, %d writes; want %d", c.rating, c.words, res.StatusCode, res.Writes(t), c.want)
		}
		if c.want == http.StatusUnprocessableEntity && res.Doc(t).Find(testID("feedback-form")).Length() != 1 {
			t.Errorf("rating %q %q: the form is not shown again", c.rating, c.words)
		}
	}

	ratings := olga.Get(page).Doc(t).Find(testID("event-ratings"))
	if avg := strings.TrimSpace(ratings.Find(testID("event-ratings-average")).Text()); !strings.Contains(avg, "3.0 of 5 from 2 guests") {
		t.Errorf("the organizer's average: %q", avg)
	}
	if words := ratings.Find(testID("event-ratings-words")).Text(); !strings.Contains(words, "ann") || !strings.Contains(words, "Great night, well run.") {
		t.Errorf("the organizer's words: %q", words)
	}
	if d := olga.Get(page).Doc(t); d.Find(testID("event-add-to-group")).Length() != 0 || d.Find(testID("event-google")).Length() != 0 {
		t.Error("an event that ended is offered to calendars")
	}
	if res := post(olga, page+"/cancel-event", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("cancelling an event that ended: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if avg := olga.Get(page, "Accept-Language", "ru").Doc(t).Find(testID("event-ratings-average")).Text(); !strings.Contains(avg, "3,0 из 5") {
		t.Errorf("the organizer's average in Russian: %q", avg)
	}
	if n := ann.Get(page).Doc(t).Find(testID("event-ratings")).Length(); n != 0 {
		t.Error("a guest sees the ratings")
	}

	if res := post(ann, called+"/feedback", url.Values{"rating": {"3"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("rating a cancelled event: %d, %d writes", res.StatusCode, res.Writes(t))
	}

	var archive memberdatatest.Archive
	if err := svc.ExportMember(t.Context(), memberdatatest.Member(a.Who(ann), "ann@example.com"), &archive); err != nil {
		t.Fatal(err)
	}
	if text := archive.Text(); !strings.Contains(text, `"rating": 4`) || !strings.Contains(text, "Great night, well run.") {
		t.Errorf("ann's archive lacks her rating:\n%s", text)
	}

}

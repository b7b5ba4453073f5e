package events_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/web/webtest"
)

// TestUpdatesToGuests: the organizer writes to the people going (the
// waitlist only when chosen), not to themselves; each gets it in their
// inbox, and the event's page keeps it for the people it was sent to
// and the organizers, not for others.
// A blank, overlong or control-character update, a fourth in a day, and
// one by someone who does not run the event are refused and write
// nothing.
func TestUpdatesToGuests(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com", "cat@example.com")
	org, ann, bob, cat, anon := cast[0], cast[1], cast[2], cast[3], a.Client()
	res := post(org, "/events", url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T22:00"}, "capacity": {"2"}})
	page := res.Header.Get("Location")
	if draft := org.Get(page).Doc(t); draft.Find(testID("event-send-update")).Length() != 0 {
		t.Error("a draft offers to write to guests it cannot have")
	}
	post(org, page+"/publish", nil)
	if got := org.Get(page + "/update").Doc(t).Find(testID("update-audience")).Text(); !strings.HasPrefix(got, "Nobody else is going yet") {
		t.Errorf("the form before anyone registers: %q", got)
	}
	post(org, page+"/register", nil) // going, and told nothing of their own update
	post(ann, page+"/register", nil) // going
	post(bob, page+"/register", nil) // waiting
	told := func(c *webtest.Client) bool {
		a.Tasks.RunDue(t.Context())
		return strings.Contains(c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "wrote to the guests of “Quiz night”")
	}

	form := org.Get(page + "/update").Doc(t)
	if form.Find(testID("update-form")).Length() != 1 || form.Find(testID("update-waitlist")).Length() != 1 {
		t.Fatal("the organizer's form, with the waitlist choice, is missing")
	}
	if got := form.Find(testID("update-audience")).Text(); got != "It goes to the 1 other person going." {
		t.Errorf("the form's audience: %q", got)
	}
	if res := post(org, page+"/updates", url.Values{"body": {"The quiz moves to **room 2**."}}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page+"#updates" {
		t.Fatalf("send: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if !told(ann) || told(bob) || told(cat) || told(org) {
		t.Fatalf("told: ann %v, bob %v, cat %v, org %v; want ann only", told(ann), told(bob), told(cat), told(org))
	}
	if got := org.Get(page).Doc(t).Find(testID("event-update")).Text(); !strings.Contains(got, "sent to 1 person") {
		t.Errorf("the organizer's page does not say how many it reached: %q", got)
	}
	a.Clock.Advance(time.Minute)
	if res := post(org, page+"/updates", url.Values{"body": {"Bring a pen."}, "waitlist": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send to the waitlist too: %d", res.StatusCode)
	}
	if !told(bob) || told(cat) {
		t.Error("the waitlist was not told, or someone else was")
	}

	shown := func(c *webtest.Client) int { return c.Get(page).Doc(t).Find(testID("event-update")).Length() }
	if shown(ann) != 2 || shown(bob) != 1 || shown(org) != 2 || shown(cat) != 0 || shown(anon) != 0 {
		t.Errorf("updates shown: ann %d, bob %d, org %d, cat %d, visitor %d", shown(ann), shown(bob), shown(org), shown(cat), shown(anon))
	}
	d := ann.Get(page).Doc(t)
	if got := d.Find(testID("event-update")).First().Text(); !strings.Contains(got, "Bring a pen.") {
		t.Errorf("the newest update is not first: %q", got)
	}
	if d.Find(testID("event-update")+" strong").Text() != "room 2" {
		t.Error("the update's Markdown is not rendered")
	}

	for _, bad := range []string{"", "   ", strings.Repeat("a", 2001), "ring\x07ring", "nul\x00", "\u202eevil", "bad \xff utf-8", "line\u2028break", strings.Repeat("я", 70000)} {
		res := post(org, page+"/updates", url.Values{"body": {bad}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || res.Doc(t).Find("#update-body-error").Length() != 1 {
			t.Errorf("body %.20q: %d, %d writes", bad, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(ann, page+"/updates", url.Values{"body": {"Hi all"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("a guest writes to the guests: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	post(org, page+"/updates", url.Values{"body": {"Third today."}})
	res = post(org, page+"/updates", url.Values{"body": {"A fourth today."}})
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 || !strings.Contains(res.Doc(t).Find("#update-body-error").Text(), "three updates a day") {
		t.Errorf("a fourth update in a day: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if res.Doc(t).Find("#update-body").Text() != "A fourth today." {
		t.Error("the refused update lost its text")
	}
	a.Clock.Advance(24 * time.Hour)
	if res := post(org, page+"/updates", url.Values{"body": {"A new day."}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the next day: %d", res.StatusCode)
	}
}

package events_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/media/mediatest"
)

// TestGuestList: an event that shows who is going names the first
// people going, in the order they registered, to anyone signed in, with
// how many more are going; the waitlist is not named, visitors see no
// names, and an event that does not show them names nobody. The form
// offers it, ticked for a new event.
func TestGuestList(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	emails := []string{"org@example.com"}
	for i := range 15 {
		emails = append(emails, fmt.Sprintf("p%02d@example.com", i))
	}
	cast := a.People(emails...)
	org, anon := cast[0], a.Client()
	if box := org.Get("/events/new").Doc(t).Find(testID("event-show-guests")); box.Length() != 1 || box.AttrOr("checked", "no") == "no" {
		t.Fatal("the new event form does not offer the guest list, ticked")
	}
	create := func(title string, show bool) string {
		form := url.Values{"title": {title}, "category": {"concert"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T23:00"}, "capacity": {"13"}}
		if show {
			form.Set("showGuests", "on")
		}
		res := post(org, "/events", form)
		page := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("create: %d", res.StatusCode)
		}
		post(org, page+"/publish", nil)
		return page
	}
	shown, hidden := create("Jazz night", true), create("Quiet night", false)
	for _, p := range cast[1:] {
		post(p, shown+"/register", nil)
		post(p, hidden+"/register", nil)
	}
	if box := org.Get(shown + "/edit").Doc(t).Find(testID("event-show-guests")); box.AttrOr("checked", "no") == "no" {
		t.Error("the edit form lost the guest list's tick")
	}
	// p00 has a photo: the list shows it; the others show initials.
	if _, err := a.Accounts.UploadPhoto(context.Background(), a.Who(cast[1]), mediatest.EncodedPNG(t, 64, 64)); err != nil {
		t.Fatal(err)
	}
	doc := cast[1].Get(shown).Doc(t)
	guests := doc.Find(testID("event-guest"))
	if src := guests.First().Find("img").AttrOr("src", ""); !strings.HasPrefix(src, "/media/profile/") {
		t.Errorf("the first guest's photo: %q", src)
	}
	if guests.Eq(1).Find("img").Length() != 0 {
		t.Error("a guest without a photo shows one")
	}
	if guests.Length() != 12 || !strings.Contains(guests.First().Text(), "p00") || !strings.Contains(guests.Last().Text(), "p11") {
		t.Fatalf("the guest list names %d: %q", guests.Length(), guests.Text())
	}
	// 13 seats: p12 is going and not named; p13 and p14 wait.
	if more := strings.TrimSpace(doc.Find(testID("event-guests-more")).Text()); more != "and 1 more" {
		t.Errorf("the rest: %q", more)
	}
	if strings.Contains(doc.Find(testID("event-guests")).Text(), "p13") {
		t.Error("the waitlist is named")
	}
	if anon.Get(shown).Doc(t).Find(testID("event-guests")).Length() != 0 {
		t.Error("a visitor sees the names")
	}
	if cast[1].Get(hidden).Doc(t).Find(testID("event-guests")).Length() != 0 {
		t.Error("an event that does not show its guests names them")
	}
}

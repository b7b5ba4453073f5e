package events_test

import (
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account"
)

// TestPlaceLinks: an event's place is looked up on a map from its page,
// and an online event's place, a web address, is a link to it; anything
// else that looks like an address is text with a map search, never a
// link.
func TestPlaceLinks(t *testing.T) {
	t.Parallel()
	a, _ := newAppAndService(t)
	cast := a.People("olga@example.com", "ann@example.com")
	olga, ann := cast[0], cast[1]
	if _, err := a.Accounts.SetRole(t.Context(), a.Who(olga), account.RoleOrganizer, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		place, mapURL, link string
	}{
		{"The Crown, 12 High St", "https://www.openstreetmap.org/search?query=The+Crown%2C+12+High+St", ""},
		{"Кафе «Пушкин», Москва", "https://www.openstreetmap.org/search?query=%D0%9A%D0%B0%D1%84%D0%B5+%C2%AB%D0%9F%D1%83%D1%88%D0%BA%D0%B8%D0%BD%C2%BB%2C+%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0", ""},
		{"https://meet.example.org/quiz-night", "", "https://meet.example.org/quiz-night"},
		{"javascript:alert(1)", "https://www.openstreetmap.org/search?query=javascript%3Aalert%281%29", ""},
		{"https://meet.example.org/quiz and the pub after", "https://www.openstreetmap.org/search?query=https%3A%2F%2Fmeet.example.org%2Fquiz+and+the+pub+after", ""},
	} {
		page := newEvent(t, olga, "place", c.place)
		d := ann.Get(page).Doc(t)
		place := d.Find(testID("event-place"))
		if got := place.Find(testID("event-map")).AttrOr("href", ""); got != c.mapURL {
			t.Errorf("%q: map %q, want %q", c.place, got, c.mapURL)
		}
		if got := place.Find(testID("event-place-link")).AttrOr("href", ""); got != c.link {
			t.Errorf("%q: link %q, want %q", c.place, got, c.link)
		}
		if place.Find("a").Length() > 1 || !strings.Contains(place.Text(), c.place) {
			t.Errorf("%q: the place reads %q", c.place, place.Text())
		}
	}
	if got := ann.Get(newEvent(t, olga, "place", "Park"), "Accept-Language", "ru").Doc(t).Find(testID("event-map")).Text(); !strings.Contains(got, "Карта") {
		t.Errorf("the map link in Russian: %q", got)
	}
}

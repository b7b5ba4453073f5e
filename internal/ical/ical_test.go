package ical_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/ical"
)

// The "add to calendar" addresses carry the event's title, times in
// UTC, place and details, escaped; an empty place or details is left
// out rather than sent blank.
func TestAddToCalendarLinks(t *testing.T) {
	t.Parallel()
	moscow := time.FixedZone("MSK", 3*60*60)
	e := ical.Entry{
		Title: "Ёлка & karaoke #2", Place: "Клуб «Север», Москва", Details: "Bring a friend.\n\nhttps://harmony.example/events/x",
		Start: time.Date(2026, 12, 20, 19, 0, 0, 0, moscow), End: time.Date(2026, 12, 20, 23, 30, 0, 0, moscow),
	}
	for _, c := range []struct {
		name, link, prefix string
		want               map[string]string
	}{
		{"google", ical.GoogleLink(e), "https://calendar.google.com/calendar/render?", map[string]string{
			"action": "TEMPLATE", "text": e.Title, "dates": "20261220T160000Z/20261220T203000Z", "location": e.Place, "details": e.Details,
		}},
		{"outlook", ical.OutlookLink(e), "https://outlook.live.com/calendar/0/action/compose?", map[string]string{
			"rru": "addevent", "subject": e.Title, "startdt": "2026-12-20T16:00:00Z", "enddt": "2026-12-20T20:30:00Z", "location": e.Place, "body": e.Details,
		}},
	} {
		u, err := url.Parse(c.link)
		if err != nil || u.Scheme+"://"+u.Host+u.Path+"?" != c.prefix {
			t.Fatalf("%s: %q, %v", c.name, c.link, err)
		}
		q := u.Query()
		for k, v := range c.want {
			if q.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", c.name, k, q.Get(k), v)
			}
		}
	}
	bare := ical.Entry{Title: "Walk", Start: e.Start, End: e.End}
	for _, link := range []string{ical.GoogleLink(bare), ical.OutlookLink(bare)} {
		u, _ := url.Parse(link)
		for _, k := range []string{"location", "details", "body"} {
			if u.Query().Has(k) {
				t.Errorf("%s carries an empty %s", link, k)
			}
		}
	}
}

package events

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
)

// Copy (Meetup's "Copy event", Luma's "Duplicate"): the new-event form
// filled from an event its organizers run, a week on; nothing is written
// until the form is submitted (POST /events), which makes a draft as any
// new event is.

// copyStart is when a copy of an event starting at start (in its zone)
// starts: the same weekday and time a week later, or, when that is past
// at now, the same time a week from today.
func copyStart(start, now time.Time) time.Time {
	next := start.AddDate(0, 0, 7)
	if next.After(now) {
		return next
	}
	today := now.In(start.Location())
	return time.Date(today.Year(), today.Month(), today.Day()+7, start.Hour(), start.Minute(), 0, 0, start.Location())
}

// copyInput is e's form as a copy starts it: its texts, place, seats,
// price and settings, in its own zone, a week on (copyStart); not its
// picture, co-organizers or registrations.
func copyInput(e EventRow, now time.Time) EventInput {
	zone := auth.Zone(e.Timezone)
	start := copyStart(e.Start.In(zone), now)
	in := e.input(zone)
	in.Start, in.End = start.Format("2006-01-02T15:04"), start.Add(e.End.Sub(e.Start)).In(zone).Format("2006-01-02T15:04")
	in.CoHosts, in.Timezone, in.CopyOf = "", zone.String(), e.RowKey
	return in
}

// copyEvent is GET /events/:id/copy (managed): the new-event form filled
// from the event (copyInput).
func (s *Service) copyEvent(c echo.Context) error {
	return s.renderForm(c, http.StatusOK, "/events", copyInput(eventOf(c), s.now()), nil)
}

package events

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/ical"
	"github.com/harmony/harmony/internal/richtext"
)

// calendarEntry is one event in a calendar: Confirmed adds the
// confirmed-only details (for someone going); Note, when set, is put
// before the title ("waitlisted #4") and makes the entry TENTATIVE.
type calendarEntry struct {
	Event     EventRow
	Confirmed bool
	Note      string
}

// EventICS is an event as an RFC 5545 calendar (writeCalendar).
func EventICS(e EventRow, host string, now time.Time, confirmed bool) []byte {
	return writeCalendar(host, now, "", []calendarEntry{{Event: e, Confirmed: confirmed}})
}

// writeCalendar writes entries as an RFC 5545 calendar: each event's
// SEQUENCE rises with every change of time or place, so calendars that
// imported it follow; a cancelled event says STATUS:CANCELLED. The
// confirmed-only details go only into an entry for someone going.
func writeCalendar(host string, now time.Time, name string, entries []calendarEntry) []byte {
	var b bytes.Buffer
	w := func(name, value string) { ical.Prop(&b, name, value) }
	w("BEGIN", "VCALENDAR")
	w("VERSION", "2.0")
	w("PRODID", "-//Harmony//Events//EN")
	w("METHOD", "PUBLISH")
	if name != "" {
		w("X-WR-CALNAME", ical.Text(name))
	}
	for _, en := range entries {
		e := en.Event
		w("BEGIN", "VEVENT")
		w("UID", e.RowKey+"@"+host)
		w("DTSTAMP", ical.Time(now))
		w("DTSTART", ical.Time(e.Start))
		w("DTEND", ical.Time(e.End))
		w("SEQUENCE", strconv.Itoa(e.Sequence))
		summary := e.Title
		if en.Note != "" {
			summary = "(" + en.Note + ") " + summary
		}
		w("SUMMARY", ical.Text(summary))
		if location := e.location(en.Confirmed); location != "" {
			w("LOCATION", ical.Text(location))
		}
		if e.Description != "" {
			w("DESCRIPTION", ical.Text(e.Description))
		}
		w("LAST-MODIFIED", ical.Time(e.UpdatedAt))
		switch {
		case e.IsCancelled:
			w("STATUS", "CANCELLED")
		case en.Note != "":
			w("STATUS", "TENTATIVE")
		default:
			w("STATUS", "CONFIRMED")
		}
		w("END", "VEVENT")
	}
	w("END", "VCALENDAR")
	return b.Bytes()
}

// ics is GET /events/:id/event.ics: the event for a calendar app, with
// the confirmed-only details for someone going.
func (s *Service) ics(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	e := eventOf(c)
	confirmed := manages(id, e)
	if id != nil && !confirmed {
		r, err := s.catalog.seats.Status(ctx, e.RowKey, id.MemberKey)
		if err != nil {
			return err
		}
		confirmed = r.Status == StatusGoing
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="event.ics"`)
	c.Response().Header().Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", EventICS(e, ical.UIDHost(s.baseURL), s.now(), confirmed))
}

// location is where e is, for a calendar: its place, and the
// confirmed-only details for someone going (confirmed).
func (e EventRow) location(confirmed bool) string {
	if !confirmed || e.ConfirmedOnly == "" {
		return e.Place
	}
	return strings.TrimSpace(strings.Join([]string{e.Place, e.ConfirmedOnly}, " — "))
}

// calendarDetails bounds the description an "add to calendar" link
// carries, in characters: the services take addresses of a few thousand.
const calendarDetails = 1000

// addToCalendar is e as "Add to Google Calendar" and Outlook's link
// carry it: where it is as its .ics says (location), its description
// as plain text, cut, with the address of its page.
func (s *Service) addToCalendar(e EventRow, confirmed bool) ical.Entry {
	details := richtext.Plain(e.Description, calendarDetails)
	if s.baseURL != "" {
		details = strings.TrimSpace(details + "\n\n" + s.baseURL + eventURL(e.RowKey))
	}
	return ical.Entry{Title: e.Title, Place: e.location(confirmed), Details: details, Start: e.Start, End: e.End}
}

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
)

// EventICS is an event as an RFC 5545 calendar: its SEQUENCE rises with
// every change of time or place, so calendars that imported it follow;
// a cancelled event says STATUS:CANCELLED. The confirmed-only details go
// only into a copy for someone going (confirmed).
func EventICS(e EventRow, host string, now time.Time, confirmed bool) []byte {
	var b bytes.Buffer
	w := func(name, value string) { ical.Prop(&b, name, value) }
	w("BEGIN", "VCALENDAR")
	w("VERSION", "2.0")
	w("PRODID", "-//Harmony//Events//EN")
	w("METHOD", "PUBLISH")
	w("BEGIN", "VEVENT")
	w("UID", e.RowKey+"@"+host)
	w("DTSTAMP", ical.Time(now))
	w("DTSTART", ical.Time(e.Start))
	w("DTEND", ical.Time(e.End))
	w("SEQUENCE", strconv.Itoa(e.Sequence))
	w("SUMMARY", ical.Text(e.Title))
	location := e.Place
	if confirmed && e.ConfirmedOnly != "" {
		location = strings.TrimSpace(strings.Join([]string{e.Place, e.ConfirmedOnly}, " — "))
	}
	if location != "" {
		w("LOCATION", ical.Text(location))
	}
	if e.Description != "" {
		w("DESCRIPTION", ical.Text(e.Description))
	}
	w("LAST-MODIFIED", ical.Time(e.UpdatedAt))
	if e.IsCancelled {
		w("STATUS", "CANCELLED")
	} else {
		w("STATUS", "CONFIRMED")
	}
	w("END", "VEVENT")
	w("END", "VCALENDAR")
	return b.Bytes()
}

// ics is GET /events/:id/event.ics: the event for a calendar app, with
// the confirmed-only details for someone going.
func (s *Service) ics(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	e, err := s.visibleEvent(c)
	if err != nil {
		return err
	}
	confirmed := organizer(id)
	if id != nil && !confirmed {
		r, err := s.catalog.seats.Status(ctx, e.RowKey, id.MemberKey)
		if err != nil {
			return err
		}
		confirmed = r.Status == StatusGoing
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="event.ics"`)
	c.Response().Header().Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/calendar; charset=utf-8", EventICS(e, c.Request().Host, s.now(), confirmed))
}

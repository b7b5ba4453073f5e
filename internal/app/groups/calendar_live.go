package groups

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// A group's calendar follows changes live, as TimeTree's and Cozi's do:
// each appointment write (one added, edited, cancelled, restored or
// deleted, a series or one of its dates, a calendar imported) publishes
// the group's calendar topic on the change feed once it succeeded, and
// the calendar's pages (the agenda, the month, the week and an
// appointment's page) follow it through GET /groups/:id/appointments/stream,
// behind the agenda's own access: "calendarchange", a named event with no
// appointment text, on which the page fetches itself again, with its own
// query and live=1 (a hidden form, htmx), and morphs its calendar region
// (#calendar-live) into what it is now, so focus, scroll and what is
// typed elsewhere stay. An appointment's page whose appointment went
// (deleted, or its date taken out of the series) shows a notice in the
// region instead (liveGone). The stream says "reset" when the viewer may
// no longer see the group (removed, the group deleted). Comments, scans
// and a member's own reminder publish nothing: their forms answer whoever
// sent them.

// MaxCalendarStreams is how many calendar streams one person may hold
// open on an instance (a tab each, generously), as MaxListStreams.
const MaxCalendarStreams = 20

// ErrTooManyCalendarStreams refuses a stream past MaxCalendarStreams
// (429).
var ErrTooManyCalendarStreams = fault.New(http.StatusTooManyRequests, "groups.calendar.error.streams", "groups: too many open calendar streams")

// untilParam is how far the agenda fetching itself goes (AgendaShown).
const untilParam = "until"

// calendarTopic is a group's calendar's topic in the change feed.
func calendarTopic(groupID string) string { return "calendar|" + groupID }

// calendarWrote tells the group's calendar's followers it changed when
// err, the write's answer, is nil (a signal only: they read the calendar
// again), and returns err.
func (s *Service) calendarWrote(ctx context.Context, groupID string, err error) error {
	if err == nil {
		s.live.feed.Publish(ctx, calendarTopic(groupID), nil)
	}
	return err
}

// pageURL is the page's own address, which it fetches again on a
// change: its path and query, less the fetch's own fields.
func pageURL(c echo.Context) string {
	u := *c.Request().URL
	q := u.Query()
	q.Del(web.LiveParam)
	q.Del(untilParam)
	u.RawQuery = q.Encode()
	return u.RequestURI()
}

// liveGone wraps an appointment page's access (RequireAppointment): when
// the page fetches itself on a change and the appointment, or the date
// of a series it shows, is no longer there, the answer is the region
// saying so, in place of the page's facts (404, which htmx swaps in).
func (h *handlers) liveGone(appt echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		opened := appt(next)
		return func(c echo.Context) error {
			err := opened(c)
			if err == nil || !web.LiveRefresh(c) || !(errors.Is(err, ErrNoAppointment) || errors.Is(err, ErrNoOccurrence)) {
				return err
			}
			_, g := Opened(c)
			return web.RenderFragment(c, http.StatusNotFound, views.AppointmentGone(groupURL(g.GroupID)))
		}
	}
}

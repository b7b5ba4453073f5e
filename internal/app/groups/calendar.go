package groups

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// MaxAppointmentDays bounds how long one appointment lasts (a visit, a
// holiday). A range read looks this far back for one that started
// earlier and still runs, so the bound keeps it to one range query.
const MaxAppointmentDays = 31

// maxRangeAppointments bounds one range read (a month is at most 42
// days on screen), occurrences of series included.
const maxRangeAppointments = 2000

// Between reads the appointments of m's group that overlap [from, to),
// in start order, recurring series expanded into their occurrences. Two
// queries, whatever the range holds: a range query of the group's
// time-keyed partition, from MaxAppointmentDays before from (an
// appointment may have begun earlier and still run), and one of its
// series partition for the series running then. Cancelled appointments
// are included; the views mark them.
func (s *Service) Between(ctx context.Context, m Membership, from, to time.Time) ([]AppointmentIndexRow, error) {
	var out []AppointmentIndexRow
	errStop := errors.New("stop")
	err := s.appointments.QueryAll(ctx, storage.Query{
		PartitionKey: m.GroupID,
		RowKeyFrom:   appointmentTimeKey(from.AddDate(0, 0, -MaxAppointmentDays)),
		RowKeyTo:     appointmentTimeKey(to),
		Filters: []storage.Filter{notDeleted,
			{Name: "endTime", Op: storage.Gt, Value: from.UTC()}},
	}, func(e storage.Entity) error {
		var row AppointmentIndexRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return err
		}
		out = append(out, row)
		if len(out) >= maxRangeAppointments {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	series, err := s.seriesRunning(ctx, m.GroupID, from, to)
	if err != nil {
		return nil, err
	}
	for _, row := range series {
		out = append(out, Occurrences(row, from, to)...)
		// Only the first maxRangeAppointments are kept: keeping no more
		// than twice that meanwhile bounds the memory however many
		// series a group holds.
		if len(out) > 2*maxRangeAppointments {
			out = earliest(out)
		}
	}
	return earliest(out), nil
}

// earliest sorts rows by start (a total order: stable pages) and keeps
// the first maxRangeAppointments.
func earliest(rows []AppointmentIndexRow) []AppointmentIndexRow {
	slices.SortFunc(rows, func(a, b AppointmentIndexRow) int {
		if c := a.StartTime.Compare(b.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.AppointmentID, b.AppointmentID)
	})
	return rows[:min(len(rows), maxRangeAppointments)]
}

// seriesRunning reads the group's series that have occurrences in
// [from, to): one query of its series partition.
func (s *Service) seriesRunning(ctx context.Context, groupID string, from, to time.Time) ([]AppointmentIndexRow, error) {
	return storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{
		PartitionKey: seriesPartition(groupID),
		Filters: []storage.Filter{notDeleted,
			{Name: "seriesEnd", Op: storage.Gt, Value: from.UTC()},
			{Name: "startTime", Op: storage.Lt, Value: to.UTC()}},
	})
}

// Span is one appointment's part on one calendar day.
type Span struct {
	Row AppointmentIndexRow
	// Day is the day's midnight in the viewer's zone.
	Day time.Time
	// Start and End are the part of the appointment on Day: clipped to
	// the day's midnights.
	Start, End time.Time
	// Continued says it began on an earlier day; Continues, that it runs
	// on into the next.
	Continued, Continues bool
}

// AllDay reports whether the span fills its day (an all-day
// appointment, or a middle day of a longer one): it has no time of its
// own to show.
func (sp Span) AllDay() bool {
	return sp.Row.AllDay || (sp.Continued && sp.Continues)
}

// Timed reports whether the span belongs on the week view's hour grid:
// one day, with a time.
func (sp Span) Timed() bool { return !sp.Row.AllDay && !sp.Continued && !sp.Continues }

// CalendarDays lays rows out over the days from first (a midnight in
// zone) for n days: each day gets the part of every appointment that
// covers it, longer ones first, then by start. A multi-day appointment
// shows on every day it covers.
func CalendarDays(rows []AppointmentIndexRow, first time.Time, n int, zone *time.Location) [][]Span {
	days := make([][]Span, n)
	first = midnight(first.In(zone))
	for _, r := range rows {
		start, end := r.StartTime.In(zone), r.EndTime.In(zone)
		if r.AllDay {
			start, end = sameDate(r.StartTime, zone), sameDate(r.EndTime, zone)
		}
		for i := max(0, daysBetween(first, midnight(start))); i < n; i++ {
			day := first.AddDate(0, 0, i)
			next := day.AddDate(0, 0, 1)
			if !end.After(day) || !start.Before(next) {
				break
			}
			sp := Span{Row: r, Day: day, Start: start, End: end}
			if start.Before(day) {
				sp.Start, sp.Continued = day, true
			}
			if end.After(next) {
				sp.End, sp.Continues = next, true
			}
			days[i] = append(days[i], sp)
		}
	}
	for _, d := range days {
		slices.SortStableFunc(d, func(a, b Span) int {
			if a.AllDay() != b.AllDay() || a.Timed() != b.Timed() {
				if !a.Timed() {
					return -1
				}
				return 1
			}
			return a.Row.StartTime.Compare(b.Row.StartTime)
		})
	}
	return days
}

// sameDate is the midnight in zone of the date t has in UTC: an
// all-day appointment's dates, wherever the viewer is.
func sameDate(t time.Time, zone *time.Location) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, zone)
}

// midnight is the start of t's day in t's zone.
func midnight(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// daysBetween counts calendar days from a to b (both midnights), right
// across a daylight-saving change.
func daysBetween(a, b time.Time) int {
	ua := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	ub := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(ub.Sub(ua).Hours() / 24)
}

// weekStart is the Monday on or before t, at midnight.
func weekStart(t time.Time) time.Time {
	d := midnight(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// MonthGrid is the first day on a month's grid and how many days it
// shows: whole Monday-first weeks covering the month of first.
func MonthGrid(first time.Time) (time.Time, int) {
	start := weekStart(first)
	last := first.AddDate(0, 1, -1)
	end := weekStart(last).AddDate(0, 0, 7)
	return start, daysBetween(start, end)
}

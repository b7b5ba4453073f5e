package groups

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// Layouts of the calendar's query parameters: ?m=2030-06, ?d=2030-06-02.
const (
	monthLayout = "2006-01"
	dayLayout   = time.DateOnly
)

// Week grid hours: at least dayFirstHour to dayLastHour, widened to fit
// what the week holds.
const (
	dayFirstHour = 7
	dayLastHour  = 21
	maxLanes     = 4
	// monthCellItems is how many appointments a month's day shows before
	// "+N more".
	monthCellItems = 3
)

// calendarContext is what both views start from.
type calendarContext struct {
	m     Membership
	g     GroupRow
	pal   palette
	zone  *time.Location
	today time.Time
	url   string
}

// calendarAt is what both views start from, and the day that ?name=
// names (in layout, in the viewer's zone; none is today). A date that
// cannot be read is a 400.
func (h *handlers) calendarAt(c echo.Context, name, layout string) (calendarContext, time.Time, error) {
	m, g := Opened(c)
	zone := h.svc.Zone(c.Request().Context(), auth.From(c))
	cc := calendarContext{m: m, g: g, pal: paletteOf(g), zone: zone, today: midnight(h.svc.now().In(zone)), url: groupURL(g.GroupID)}
	v := c.QueryParam(name)
	if v == "" {
		return cc, cc.today, nil
	}
	t, err := time.ParseInLocation(layout, v, zone)
	if err != nil || t.Year() < 1970 || t.Year() > 9998 {
		return cc, time.Time{}, web.BadRequest(i18n.T(c.Request().Context(), "groups.calendar.error."+name), err)
	}
	return cc, t, nil
}

// zoneNote names the viewer's zone, and the group's when it differs.
func zoneNote(ctx context.Context, g GroupRow, zone *time.Location, now time.Time) views.CalendarZone {
	z := views.CalendarZone{Viewer: i18n.ZoneName(ctx, zone.String(), now)}
	if g.Timezone != "" && g.Timezone != zone.String() {
		z.Group = i18n.ZoneName(ctx, g.Timezone, now)
	}
	return z
}

// month is GET /groups/:id/appointments/month[?m=YYYY-MM]: whole
// Monday-first weeks around the month, in the viewer's zone, each day
// with every appointment covering it. One range query.
func (h *handlers) month(c echo.Context) error {
	ctx := c.Request().Context()
	cc, first, err := h.calendarAt(c, "m", monthLayout)
	if err != nil {
		return err
	}
	first = time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, cc.zone)
	start, n := MonthGrid(first)
	rows, err := h.svc.Between(ctx, cc.m, start, start.AddDate(0, 0, n))
	if err != nil {
		return err
	}
	days := cc.days(ctx, start, CalendarDays(rows, start, n, cc.zone))
	u := cc.url + "/appointments/month"
	p := views.MonthProps{
		Nav: views.GroupNav{Name: cc.g.GroupName, URL: cc.url, Current: "month"},
		Move: views.CalendarNav{
			Caption:  i18n.MonthYear(ctx, first),
			PrevURL:  u + "?m=" + url.QueryEscape(first.AddDate(0, -1, 0).Format(monthLayout)),
			NextURL:  u + "?m=" + url.QueryEscape(first.AddDate(0, 1, 0).Format(monthLayout)),
			TodayURL: u, PrevLabel: "groups.month.prev", NextLabel: "groups.month.next",
		},
		Zone:   zoneNote(ctx, cc.g, cc.zone, h.svc.now()),
		NewURL: cc.url + "/appointments/new", PageURL: pageURL(c),
	}
	for i := range days {
		days[i].InMonth = start.AddDate(0, 0, i).Month() == first.Month()
		// A cell holds monthCellItems; "+N more" leads to the week.
		if n := len(days[i].Items); n > monthCellItems+1 {
			days[i].Items, days[i].More = days[i].Items[:monthCellItems], n-monthCellItems
		}
	}
	for i := 0; i < len(days); i += 7 {
		p.Weeks = append(p.Weeks, days[i:i+7])
	}
	for d := range 7 {
		p.Weekdays = append(p.Weekdays, i18n.Weekday(ctx, time.Weekday((d+1)%7)))
	}
	return web.RenderLive(c, http.StatusOK, web.Page{Title: p.Move.Caption + " · " + cc.g.GroupName, Section: "groups", Content: views.Month(p)})
}

// week is GET /groups/:id/appointments/week[?d=YYYY-MM-DD]: the
// Monday-first week holding the day, timed appointments on an hour grid
// and the ones filling days above it. One range query.
func (h *handlers) week(c echo.Context) error {
	ctx := c.Request().Context()
	cc, day, err := h.calendarAt(c, "d", dayLayout)
	if err != nil {
		return err
	}
	start := weekStart(day)
	rows, err := h.svc.Between(ctx, cc.m, start, start.AddDate(0, 0, 7))
	if err != nil {
		return err
	}
	spans := CalendarDays(rows, start, 7, cc.zone)
	from, to := dayFirstHour, dayLastHour+1
	for _, d := range spans {
		for _, sp := range d {
			if sp.Timed() {
				from = min(from, sp.Start.Hour())
				to = max(to, endHour(sp))
			}
		}
	}
	days := cc.days(ctx, start, spans)
	u := cc.url + "/appointments/week"
	end := start.AddDate(0, 0, 6)
	p := views.WeekProps{
		Nav: views.GroupNav{Name: cc.g.GroupName, URL: cc.url, Current: "week"},
		Move: views.CalendarNav{
			Caption:  i18n.Day(ctx, start) + " – " + i18n.Day(ctx, end) + " " + strconv.Itoa(end.Year()),
			PrevURL:  u + "?d=" + start.AddDate(0, 0, -7).Format(dayLayout),
			NextURL:  u + "?d=" + start.AddDate(0, 0, 7).Format(dayLayout),
			TodayURL: u, PrevLabel: "groups.week.prev", NextLabel: "groups.week.next",
		},
		Zone:   zoneNote(ctx, cc.g, cc.zone, h.svc.now()),
		NewURL: cc.url + "/appointments/new", PageURL: pageURL(c),
		Days: days,
	}
	for hour := from; hour < to; hour++ {
		p.Hours = append(p.Hours, views.HourSlot{Row: hour - from + 1, Label: fmt2(hour) + ":00"})
	}
	for i := range p.Days {
		d := &p.Days[i]
		for _, hs := range p.Hours {
			d.Slots = append(d.Slots, views.HourSlot{Row: hs.Row, Label: hs.Label, URL: newAppointmentAt(cc.url, d.Date, hs.Label)})
		}
		placeTimed(d, spans[i], from)
	}
	return web.RenderLive(c, http.StatusOK, web.Page{Title: p.Move.Caption + " · " + cc.g.GroupName, Section: "groups", Content: views.Week(p)})
}

// days turns laid-out spans into the views' days starting at start.
func (cc calendarContext) days(ctx context.Context, start time.Time, spans [][]Span) []views.CalendarDay {
	out := make([]views.CalendarDay, len(spans))
	for i, day := range spans {
		date := start.AddDate(0, 0, i)
		d := views.CalendarDay{
			Date: date.Format(dayLayout), Number: strconv.Itoa(date.Day()), Label: i18n.Day(ctx, date),
			Today:   date.Equal(cc.today),
			AddURL:  newAppointmentAt(cc.url, date.Format(dayLayout), ""),
			WeekURL: cc.url + "/appointments/week?d=" + date.Format(dayLayout),
		}
		for _, sp := range day {
			item := views.CalendarItem{
				ID: sp.Row.AppointmentID, Title: sp.Row.Title, Href: rowURL(cc.g.GroupID, sp.Row),
				Datetime: sp.Row.StartTime.UTC().Format(time.RFC3339),
				Canceled: sp.Row.Status == AppointmentCanceled, Continued: sp.Continued, Continues: sp.Continues,
				Timed: sp.Timed(), Colors: cc.pal.who(sp.Row),
			}
			if !sp.Row.AllDay && !sp.Continued {
				item.Time = sp.Start.Format("15:04")
			}
			d.Items = append(d.Items, item)
		}
		out[i] = d
	}
	return out
}

// placeTimed puts a week day's timed appointments on its hour grid
// (rows from the grid's first hour), side by side where they overlap:
// each takes the first lane free at its start.
func placeTimed(d *views.CalendarDay, spans []Span, firstHour int) {
	var laneEnds []int
	n := 0
	for i, sp := range spans {
		if !sp.Timed() {
			continue
		}
		item := &d.Items[i]
		item.Row = sp.Start.Hour() - firstHour + 1
		item.Span = max(1, endHour(sp)-sp.Start.Hour())
		item.Late, item.Early = quarters(sp)
		lane := -1
		for l, end := range laneEnds {
			if end <= item.Row {
				lane = l
				break
			}
		}
		if lane < 0 {
			if len(laneEnds) < maxLanes {
				laneEnds = append(laneEnds, 0)
			}
			lane = len(laneEnds) - 1
		}
		laneEnds[lane] = item.Row + item.Span
		item.Lane = lane
		n = max(n, lane+1)
	}
	d.Lanes = max(1, n)
}

// quarters are the quarter hours a timed span leaves free in its first
// hour row before it starts, and in its last after it ends: a start
// rounded down, an end up, to the quarter, so at least a quarter shows.
func quarters(sp Span) (late, early int) {
	late = sp.Start.Minute() / 15
	if m := sp.End.Minute(); m > 0 && sp.End.Before(sp.Day.AddDate(0, 0, 1)) {
		early = (60 - m) / 15
	}
	return late, early
}

// endHour is the hour a timed span ends in, rounded up: 10:30 ends in
// the 10 o'clock row, so 11; midnight at its end is 24.
func endHour(sp Span) int {
	if !sp.End.Before(sp.Day.AddDate(0, 0, 1)) {
		return 24
	}
	h := sp.End.Hour()
	if sp.End.Minute() > 0 {
		h++
	}
	return h
}

// newAppointmentAt is the new appointment form opened on a day, and at
// an hour ("10:00") when given.
func newAppointmentAt(groupURL, date, hour string) string {
	q := url.Values{"date": {date}}
	if hour != "" {
		q.Set("time", hour)
	}
	return groupURL + "/appointments/new?" + q.Encode()
}

func fmt2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

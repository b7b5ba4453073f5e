package groups

import (
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// monthLayout is the month view's ?m=YYYY-MM.
const monthLayout = "2006-01"

// month is GET /groups/:id/appointments/month[?m=YYYY-MM]: a Monday-first
// grid of the month in the person's zone; no m means this month.
func (h *handlers) month(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	zone := h.svc.Zone(ctx, id)
	now := h.svc.now().In(zone)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, zone)
	if v := c.QueryParam("m"); v != "" {
		t, err := time.ParseInLocation(monthLayout, v, zone)
		if err != nil || t.Year() < 1970 || t.Year() > 9998 {
			return web.BadRequest(i18n.T(ctx, "groups.month.error"), err)
		}
		first = t
	}
	rows, err := h.svc.Month(ctx, m, first)
	if err != nil {
		return err
	}
	byDay := map[int][]views.AppointmentItem{}
	for _, r := range rows {
		item := appointmentItem(ctx, r, g.GroupID, zone)
		item.When = r.StartTime.In(zone).Format("15:04")
		day := r.StartTime.In(zone).Day()
		byDay[day] = append(byDay[day], item)
	}
	u := groupURL(g.GroupID) + "/appointments/month?m="
	p := views.MonthProps{
		GroupName: g.GroupName, GroupURL: groupURL(g.GroupID),
		Caption: i18n.T(ctx, "groups.month.name."+first.Format("01")) + " " + first.Format("2006"),
		PrevURL: u + url.QueryEscape(first.AddDate(0, -1, 0).Format(monthLayout)),
		NextURL: u + url.QueryEscape(first.AddDate(0, 1, 0).Format(monthLayout)),
		Weeks:   monthWeeks(first, byDay),
	}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
		p.Weekdays = append(p.Weekdays, i18n.T(ctx, "groups.month.weekday."+d))
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Caption, Section: "groups", Content: views.Month(p)})
}

// monthWeeks lays the month starting at first out in Monday-first weeks,
// blank cells (Day 0) before the 1st and after the last day.
func monthWeeks(first time.Time, byDay map[int][]views.AppointmentItem) [][]views.MonthDay {
	lead := (int(first.Weekday()) + 6) % 7 // Monday is 0
	days := first.AddDate(0, 1, -1).Day()
	var weeks [][]views.MonthDay
	week := make([]views.MonthDay, lead, 7)
	for d := 1; d <= days; d++ {
		week = append(week, views.MonthDay{Day: d, Items: byDay[d]})
		if len(week) == 7 {
			weeks = append(weeks, week)
			week = make([]views.MonthDay, 0, 7)
		}
	}
	if len(week) > 0 {
		weeks = append(weeks, append(week, make([]views.MonthDay, 7-len(week))...))
	}
	return weeks
}

package events

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// The month view: the listed events starting in a month, on a grid of
// whole Monday-first weeks in the viewer's zone. One query of the
// listing partition by start (all categories, or one), bounded by the
// grid's first and last day.

// monthLayout is the month parameter's form: "2030-06".
const monthLayout = "2006-01"

// monthLimit bounds the events one month shows; monthCellItems how many
// a day's cell lists before "+N more".
const (
	monthLimit     = 500
	monthCellItems = 3
)

// Between lists the listed events starting in [from, to), of one
// category or all, by start: one query.
func (c *Catalog) Between(ctx context.Context, category string, from, to time.Time) ([]ListingRow, error) {
	return storage.All[ListingRow](ctx, c.byDate, storage.Query{
		PartitionKey: listingPart(false, category), RowKeyFrom: startKey(from), RowKeyTo: startKey(to), Limit: monthLimit,
	})
}

// monthURL is the month view of first's month and category.
func monthURL(first time.Time, category string) string {
	q := url.Values{"view": {"month"}, "month": {first.Format(monthLayout)}}
	if category != "" {
		q.Set("category", category)
	}
	return "/events?" + q.Encode()
}

// month is GET /events?view=month[&month=YYYY-MM][&category=…].
func (s *Service) month(c echo.Context, category string) error {
	ctx := c.Request().Context()
	zone := auth.From(c).Location()
	now := s.now().In(zone)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, zone)
	if v := c.QueryParam("month"); v != "" {
		t, err := time.ParseInLocation(monthLayout, v, zone)
		if err != nil || formrule.CheckDate(t) != formrule.OK {
			return web.BadRequest(i18n.T(ctx, "events.error.month"), err)
		}
		first = t
	}
	start, n := groups.MonthGrid(first)
	rows, err := s.catalog.Between(ctx, category, start, start.AddDate(0, 0, n))
	if err != nil {
		return err
	}
	byDay := map[string][]views.MonthItem{}
	for _, r := range rows {
		st := r.Start.In(zone)
		day := st.Format(time.DateOnly)
		byDay[day] = append(byDay[day], views.MonthItem{
			Href: eventURL(r.EventID), Title: r.Title, Time: st.Format("15:04"),
			Datetime: r.Start.UTC().Format(time.RFC3339), Cancelled: r.IsCancelled,
		})
	}
	p := views.MonthProps{
		Caption: i18n.MonthYear(ctx, first), Zone: i18n.ZoneName(ctx, zone.String(), now),
		PrevURL: monthURL(first.AddDate(0, -1, 0), category), NextURL: monthURL(first.AddDate(0, 1, 0), category),
		TodayURL: monthURL(time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, zone), category),
	}
	for i := range 7 {
		p.Weekdays = append(p.Weekdays, i18n.Weekday(ctx, time.Weekday((i+1)%7)))
	}
	var week []views.MonthDay
	for i := range n {
		d := start.AddDate(0, 0, i)
		key := d.Format(time.DateOnly)
		day := views.MonthDay{
			Date: key, Number: strconv.Itoa(d.Day()), Label: i18n.Day(ctx, d),
			InMonth: d.Month() == first.Month(), Today: key == now.Format(time.DateOnly), Items: byDay[key],
		}
		if len(day.Items) > monthCellItems+1 {
			day.More, day.Items = len(day.Items)-monthCellItems, day.Items[:monthCellItems]
		}
		if week = append(week, day); len(week) == 7 {
			p.Weeks, week = append(p.Weeks, week), nil
		}
	}
	return s.renderList(c, views.ListProps{Month: &p}, category, false)
}

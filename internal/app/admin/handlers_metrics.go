package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/admin"
)

// metricsPage is GET /admin/metrics: the last 30 days of DailyMetrics,
// one section per module that counts (a chart, with the numbers in a
// table under it), and the AI usage per model.
func (h *handlers) metricsPage(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.svc.RecentMetrics(ctx)
	if err != nil {
		return err
	}
	models, err := h.svc.RecentModelUsage(ctx)
	if err != nil {
		return err
	}
	props := metricsProps(ctx, rows, h.svc.metrics.Sections())
	for _, m := range models {
		props.Models = append(props.Models, views.ModelUsage{Model: m.Model, Calls: m.Calls, TokensIn: m.TokensIn, TokensOut: m.TokensOut, Errors: m.Errors})
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:   i18n.T(ctx, "admin.metrics.heading"),
		Section: "admin",
		Content: views.Metrics(props),
	})
}

// metricsProps turns the days (oldest first) of counters into each
// section's chart and table (newest first), dated in the reader's
// language.
func metricsProps(ctx context.Context, rows []metrics.Day, sections []metrics.Section) views.MetricsProps {
	p := views.MetricsProps{Span: len(rows)}
	if len(rows) > 0 {
		p.From, p.To = i18n.Date(ctx, rows[0].Date), i18n.Date(ctx, rows[len(rows)-1].Date)
	}
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = i18n.DayMonth(ctx, r.Date)
	}
	for _, sec := range sections {
		if len(sec.Counters) == 0 {
			continue
		}
		series := make([]views.SeriesInput, len(sec.Counters))
		for j, counter := range sec.Counters {
			series[j] = views.SeriesInput{Key: string(counter), Values: make([]int64, len(rows))}
		}
		days := make([]views.MetricsDay, len(rows))
		for i, r := range rows {
			values := make([]int64, len(sec.Counters))
			for j, counter := range sec.Counters {
				values[j] = r.Get(counter)
				series[j].Values[i] = values[j]
			}
			days[len(rows)-1-i] = views.MetricsDay{Date: r.Date.Format(time.DateOnly), Label: i18n.Day(ctx, r.Date), Values: values}
		}
		p.Sections = append(p.Sections, views.MetricsSection{Key: sec.Key, Chart: views.NewLineChart(labels, series, 7), Days: days})
	}
	return p
}

package admin

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/admin"
)

// reports is GET /admin/reports[?cursor=…]: the open reports, newest
// first; htmx's "load more" gets the next chunk.
func (h *handlers) reports(c echo.Context) error {
	cursor, err := web.ReadCursor(c, h.svc.cursors, reportsQuery)
	if err != nil {
		return err
	}
	return h.renderReports(c, http.StatusOK, cursor, nil)
}

// closedReports is GET /admin/reports/closed[?cursor=…]: the reports
// closed in the last year, with what was done and by whom.
func (h *handlers) closedReports(c echo.Context) error {
	ctx := c.Request().Context()
	cursor, err := web.ReadCursor(c, h.svc.cursors, closedReportsQuery)
	if err != nil {
		return err
	}
	page, err := h.svc.ClosedReports(ctx, cursor)
	if err != nil {
		return err
	}
	items := make([]views.ReportItem, 0, len(page.Reports))
	for _, r := range page.Reports {
		items = append(items, reportItem(c, r))
	}
	next := web.NextURL(reportsURL+"/closed", page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "admin.reports.closed_heading"),
		Section:  "admin",
		Content:  views.Reports(views.ReportsProps{Items: items, NextURL: next, First: cursor == nil, Closed: true}),
		Fragment: views.ReportsChunk(items, next),
	})
}

// renderReports shows the queue from cursor; failed, when set, is a
// report whose answer was refused: it replaces its item, or comes first.
func (h *handlers) renderReports(c echo.Context, status int, cursor *storage.Cursor, failed *views.ReportItem) error {
	ctx := c.Request().Context()
	page, err := h.svc.OpenReports(ctx, cursor)
	if err != nil {
		return err
	}
	items := make([]views.ReportItem, 0, len(page.Reports)+1)
	for _, r := range page.Reports {
		it := reportItem(c, r)
		if failed != nil && failed.ID == it.ID {
			it, failed = *failed, nil
		}
		items = append(items, it)
	}
	if failed != nil {
		items = append([]views.ReportItem{*failed}, items...)
	}
	next := web.NextURL(reportsURL, page.Next)
	return web.Render(c, status, web.Page{
		Title:    i18n.T(ctx, "admin.reports.heading"),
		Section:  "admin",
		Content:  views.Reports(views.ReportsProps{Items: items, NextURL: next, First: cursor == nil}),
		Fragment: views.ReportsChunk(items, next),
	})
}

// reportItem is r as the queue shows it, times in the admin's zone.
func reportItem(c echo.Context, r ReportRow) views.ReportItem {
	ctx, zone := c.Request().Context(), auth.From(c).Location()
	it := views.ReportItem{
		ID: r.RowKey, ActionURL: reportsURL + "/" + r.RowKey, Kind: r.Kind,
		Author: r.AuthorName, AuthorURL: auth.ProfileURL(r.Author), Excerpt: r.Excerpt, Link: r.Link, Count: r.Count,
		First: i18n.DateTime(ctx, r.FirstAt.In(zone)), FirstISO: r.FirstAt.In(zone).Format(time.RFC3339),
	}
	for _, x := range r.ReasonCounts() {
		it.Reasons = append(it.Reasons, views.ReasonItem{Reason: x.Reason, Count: x.Count})
	}
	for _, n := range r.NoteList() {
		it.Notes = append(it.Notes, views.NoteItem{Name: n.Name, Reason: n.Reason, Note: n.Note, When: i18n.DateTime(ctx, n.At.In(zone))})
	}
	if r.ResolvedAt != nil {
		it.Resolution, it.ResolvedBy, it.ResolveNote = r.Resolution, r.ResolvedByName, r.ResolveNote
		it.Resolved = i18n.DateTime(ctx, r.ResolvedAt.In(zone))
	}
	return it
}

// resolve is POST /admin/reports/:report/take-down (note) and
// …/dismiss: the answer, then back to the queue.
func (h *handlers) resolve(takeDown bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		id := auth.From(c)
		by, rk, note := Actor{MemberKey: id.MemberKey, Name: id.DisplayName}, c.Param("report"), c.FormValue("note")
		var err error
		flash := "admin.reports.flash.dismissed"
		if takeDown {
			err, flash = h.svc.TakeDown(ctx, by, rk, note), "admin.reports.flash.taken_down"
		} else {
			err = h.svc.Dismiss(ctx, by, rk, note)
		}
		return web.AnswerForm(c, err, flash, reportsURL, func(status int, errs formrule.FieldErrors) error {
			r, err := h.svc.openReport(ctx, rk)
			if err != nil {
				return err
			}
			it := reportItem(c, r)
			it.Note, it.NoteError = note, errs["note"]
			return h.renderReports(c, status, nil, &it)
		})
	}
}

// AdminBadge is the open reports, on the header's admin link for admins
// (web.AdminBadger): one query of the open partition's keys, up to 100.
// A failed read shows none and is logged.
func (s *Service) AdminBadge(c echo.Context) int {
	id := auth.Account(c)
	if id == nil || !id.Admin {
		return 0
	}
	n, err := s.OpenReportCount(c.Request().Context(), maxOpenShown+1)
	if err != nil {
		s.logger.WarnContext(c.Request().Context(), "admin: open reports not counted", "err", err)
		return 0
	}
	return n
}

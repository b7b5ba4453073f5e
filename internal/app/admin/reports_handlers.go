package admin

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
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
	return h.renderReports(c, adminDesk, http.StatusOK, cursor, nil)
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
		items = append(items, reportItem(c, r, reportsURL))
	}
	next := web.NextURL(reportsURL+"/closed", page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "admin.reports.closed_heading"),
		Section:  "admin",
		Content:  views.Reports(views.ReportsProps{Items: items, NextURL: next, First: cursor == nil, Closed: true}),
		Fragment: views.ReportsChunk(items, next),
	})
}

// desk is where reports are judged: the admins judge every report at
// /admin/reports; section moderators theirs at /review (review.go).
type desk struct {
	url    string
	review bool
}

var adminDesk = desk{url: reportsURL}

// renderReports shows d's open reports from cursor; failed, when set, is
// a report whose answer was refused: it replaces its item, or comes
// first.
func (h *handlers) renderReports(c echo.Context, d desk, status int, cursor *storage.Cursor, failed *views.ReportItem) error {
	ctx := c.Request().Context()
	page, err := h.openReports(c, d, cursor)
	if err != nil {
		return err
	}
	items := make([]views.ReportItem, 0, len(page.Reports)+1)
	for _, r := range page.Reports {
		it := reportItem(c, r, d.url)
		if failed != nil && failed.ID == it.ID {
			it, failed = *failed, nil
		}
		items = append(items, it)
	}
	if failed != nil {
		items = append([]views.ReportItem{*failed}, items...)
	}
	next := web.NextURL(d.url, page.Next)
	title, section := i18n.T(ctx, "admin.reports.heading"), "admin"
	if d.review {
		title, section = i18n.T(ctx, "admin.review.heading"), ""
	}
	return web.Render(c, status, web.Page{
		Title:    title,
		Section:  section,
		Content:  views.Reports(views.ReportsProps{Items: items, NextURL: next, First: cursor == nil, Review: d.review}),
		Fragment: views.ReportsChunk(items, next),
	})
}

// openReports are d's open reports from cursor: all of them, a page at
// a time, or those of the scopes the viewer reviews (one page).
func (h *handlers) openReports(c echo.Context, d desk, cursor *storage.Cursor) (ReportsPage, error) {
	if !d.review {
		return h.svc.OpenReports(c.Request().Context(), cursor)
	}
	scopes, err := h.svc.reviewScopes(c)
	if err != nil {
		return ReportsPage{}, err
	}
	rows, err := h.svc.ReviewReports(c.Request().Context(), scopes)
	return ReportsPage{Reports: rows}, err
}

// reportItem is r as the queue at desk shows it, times in the viewer's
// zone.
func reportItem(c echo.Context, r ReportRow, desk string) views.ReportItem {
	ctx, zone := c.Request().Context(), auth.From(c).Location()
	it := views.ReportItem{
		ID: r.RowKey, ActionURL: desk + "/" + r.RowKey, Kind: r.Kind,
		Author: memberdata.Name(ctx, r.Author, r.AuthorName), AuthorURL: auth.ProfileURL(r.Author), Excerpt: r.Excerpt, Link: r.Link, Count: r.Count,
		PictureURL: pictureURLOf(r),
		First:      i18n.DateTime(ctx, r.FirstAt.In(zone)), FirstISO: r.FirstAt.In(zone).Format(time.RFC3339),
	}
	for _, x := range r.ReasonCounts() {
		it.Reasons = append(it.Reasons, views.ReasonItem{Reason: x.Reason, Count: x.Count})
	}
	for _, n := range r.NoteList() {
		it.Notes = append(it.Notes, views.NoteItem{Name: memberdata.Name(ctx, n.Key, n.Name), Reason: n.Reason, Note: n.Note, When: i18n.DateTime(ctx, n.At.In(zone))})
	}
	if r.ResolvedAt != nil {
		it.Resolution, it.ResolvedBy, it.ResolveNote = r.Resolution, memberdata.Name(ctx, r.ResolvedBy, r.ResolvedByName), r.ResolveNote
		it.Resolved = i18n.DateTime(ctx, r.ResolvedAt.In(zone))
	}
	return it
}

// resolve is POST {desk}/:report/take-down (note) and …/dismiss: the
// answer, then back to the queue. At /review only a report of a scope
// the viewer reviews is found.
func (h *handlers) resolve(d desk, takeDown bool) echo.HandlerFunc {
	resolution, flash := ResolutionDismissed, "admin.reports.flash.dismissed"
	if takeDown {
		resolution, flash = ResolutionTakenDown, "admin.reports.flash.taken_down"
	}
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		id := auth.From(c)
		by, rk, note := Actor{MemberKey: id.MemberKey, Name: id.DisplayName}, c.Param("report"), c.FormValue("note")
		var scopes []string
		if d.review {
			var err error
			if scopes, err = h.svc.reviewScopes(c); err != nil {
				return err
			}
		}
		err := h.svc.resolve(ctx, by, scopes, rk, note, resolution)
		return web.AnswerForm(c, err, flash, d.url, func(status int, errs formrule.FieldErrors) error {
			r, err := h.svc.openReport(ctx, rk)
			if err != nil {
				return err
			}
			it := reportItem(c, r, d.url)
			it.Note, it.NoteError = note, errs["note"]
			return h.renderReports(c, d, status, nil, &it)
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

// pictureURLOf is where the queue shows report r's picture: an open
// report's that keeps one ("" otherwise).
func pictureURLOf(r ReportRow) string {
	if !r.HasPicture || r.PartitionKey != openPartition {
		return ""
	}
	return reportsURL + "/" + r.RowKey + "/picture"
}

// reportPicture is GET /admin/reports/:report/picture: the picture an
// open report keeps, for the admins alone (a private chat's picture is
// seen by nobody else).
func (h *handlers) reportPicture(c echo.Context) error {
	ctx, rk := c.Request().Context(), c.Param("report")
	if !validReportKey(rk) {
		return ErrNoReport
	}
	r, err := storage.Find[ReportRow](ctx, h.svc.reports, openPartition, rk, ErrNoReport)
	if err != nil {
		return err
	}
	if !r.HasPicture {
		return ErrNoReport
	}
	blob, err := h.svc.pictures.Get(ctx, pictureName(rk))
	if errors.Is(err, storage.ErrNotFound) {
		return ErrNoReport
	}
	if err != nil {
		return err
	}
	return web.ServePrivateImage(c, blob.Data)
}

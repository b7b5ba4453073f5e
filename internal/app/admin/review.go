package admin

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Review: staff besides the admins judge the reports of what they look
// after, as Discourse's category moderators review the flags of their
// category. A moderation.Staffed source (the forum) names a report's
// scope (a section) and who judges each scope (its moderators); those
// find the open reports of their scopes at /review, are told of a new
// one through the inbox, and take down or dismiss it as an admin does:
// the report closes into the same history, logged under their name.
// The admins still see every report at /admin/reports.

const (
	reviewURL = "/review"
	// reviewMost is how many open reports /review lists, a scope's
	// oldest first reported last (newest first, as the admins' queue).
	reviewMost = 50
)

var reviewDesk = desk{url: reviewURL, review: true}

// ErrNotReviewer refuses /review to someone who judges no scope (403).
var ErrNotReviewer = fault.New(http.StatusForbidden, "admin.review.error.none", "admin: reviews no reports")

// reviewerScopes carries the scopes requireReviewer read to the handler.
var reviewerScopes = web.NewScope[[]string]("admin.review")

// requireReviewer lets through someone who judges some scope, with
// their scopes for the handler (reviewScopes).
func (s *Service) requireReviewer() echo.MiddlewareFunc {
	return reviewerScopes.Require(func(c echo.Context) ([]string, error) {
		scopes, err := s.ReviewScopes(c.Request().Context(), auth.From(c).MemberKey)
		if err == nil && len(scopes) == 0 {
			err = ErrNotReviewer
		}
		return scopes, err
	})
}

// reviewScopes are the scopes of the request's reviewer.
func (s *Service) reviewScopes(c echo.Context) ([]string, error) {
	scopes := reviewerScopes.From(c)
	if len(scopes) == 0 {
		return nil, ErrNotReviewer
	}
	return scopes, nil
}

// ReviewScopes are the scopes memberKey judges, in every staffed source.
func (s *Service) ReviewScopes(ctx context.Context, memberKey string) ([]string, error) {
	var all []string
	for _, st := range s.staffed {
		scopes, err := st.ReviewScopes(ctx, memberKey)
		if err != nil {
			return nil, err
		}
		all = append(all, scopes...)
	}
	return all, nil
}

// ReviewReports are the open reports of scopes, newest first, at most
// reviewMost: one filtered query of the open partition a scope.
func (s *Service) ReviewReports(ctx context.Context, scopes []string) ([]ReportRow, error) {
	var rows []ReportRow
	for _, scope := range scopes {
		q := storage.Query{PartitionKey: openPartition, RowKeyTo: targetPrefix, Filters: []storage.Filter{{Name: "scope", Op: storage.Eq, Value: scope}}}
		some, _, err := storage.Take[ReportRow](ctx, s.reports, q, reviewMost)
		if err != nil {
			return nil, err
		}
		rows = append(rows, some...)
	}
	slices.SortFunc(rows, func(a, b ReportRow) int { return strings.Compare(a.RowKey, b.RowKey) })
	return rows[:min(len(rows), reviewMost)], nil
}

// review is GET /review: the open reports the viewer judges.
func (h *handlers) review(c echo.Context) error {
	return h.renderReports(c, reviewDesk, http.StatusOK, nil, nil)
}

// tellReviewers tells the reviewers of r's scope, but the reporter and
// the admins told already, that r opened a report (row).
func (s *Service) tellReviewers(ctx context.Context, r moderation.Report, row ReportRow, told map[string]bool) {
	if r.Scope == "" {
		return
	}
	var to []inbox.Recipient
	for _, st := range s.staffed {
		who, err := st.Reviewers(ctx, r.Scope)
		if err != nil {
			s.logger.WarnContext(ctx, "admin: reviewers not read for a report", "report", row.RowKey, "err", err)
			return
		}
		for _, key := range who {
			if key != r.By && !told[key] {
				to = append(to, inbox.Recipient{MemberKey: key})
			}
		}
	}
	if len(to) == 0 {
		return
	}
	// The notice is the scope's module's (its email area): the forum's
	// "forum.notify.review" for a forum section.
	area, _, _ := strings.Cut(r.Scope, ".")
	if err := s.notifier.Post(ctx, reportNotice(r, row, to, area+".notify.review", reviewURL, "admin.review|")); err != nil {
		s.logger.WarnContext(ctx, "admin: reviewers not told of a report", "report", row.RowKey, "err", err)
	}
}

package forum

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
)

// Reports: a member reports a post to the moderation queue (as
// Discourse's "flag"), which asks the forum to take it down: the post is
// hidden, as a moderator hides it. A report's scope is the post's
// section, whose moderators judge it beside the admins, at /review
// (moderation.Staffed).

// postKind is a post's kind in reports; its key is "{topicId}#{num}".
const postKind = "forum.post"

// excerptLength is how much of a post a report quotes.
const excerptLength = 500

// ReportKinds are what the forum takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{postKind} }

// TakeDown hides the reported post, as the moderator by.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, by moderation.Moderator, _ string) error {
	topicID, n, ok := strings.Cut(t.Key, "#")
	num, err := strconv.Atoi(n)
	if !ok || err != nil {
		return ErrNoPost
	}
	return s.Hide(ctx, Person{MemberKey: by.MemberKey, Name: by.Name, Admin: true}, topicID, num, true)
}

// reviewURL is where a section's moderators judge its reports (the
// admin section's page for staff), and adminReviewURL where admins do.
const (
	reviewURL      = "/review"
	adminReviewURL = "/admin/reports"
)

// sectionScope is a section's scope in reports.
func sectionScope(section string) string { return "forum.section|" + section }

// ReviewScopes are the sections memberKey moderates, as report scopes
// (moderation.Staffed): one query of the sections.
func (s *Service) ReviewScopes(ctx context.Context, memberKey string) ([]string, error) {
	if memberKey == "" {
		return nil, nil
	}
	sections, err := s.Sections(ctx, true)
	if err != nil {
		return nil, err
	}
	var scopes []string
	for _, sec := range sections {
		if slices.Contains(sec.ModeratorKeys(), memberKey) {
			scopes = append(scopes, sectionScope(sec.RowKey))
		}
	}
	return scopes, nil
}

// Reviewers are the moderators of the section scope names
// (moderation.Staffed); none for a scope not the forum's.
func (s *Service) Reviewers(ctx context.Context, scope string) ([]string, error) {
	section, ok := strings.CutPrefix(scope, sectionScope(""))
	if !ok {
		return nil, nil
	}
	pk, rk := sectionKey(section)
	sec, err := storage.Get[SectionRow](ctx, s.sections, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return sec.ModeratorKeys(), err
}

// mayReport says whether me may report p: a member, not its author, of a
// post still shown.
func (s *Service) mayReport(me Person, p PostRow) bool {
	return s.Reports != nil && me.MemberKey != "" && p.AuthorKey != me.MemberKey && p.DeletedAt == nil && !p.Hidden
}

// postReport is the report of the request's post, and its page.
func (s *Service) postReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	t, p, me := topicOf(c), postOf(c), person(c)
	if !s.mayReport(me, p) {
		return moderation.Report{}, moderation.Form{}, ErrNoPost
	}
	return reportOf(t, p, me), moderation.Form{
		Heading: "forum.report.heading", BackLabel: t.Title, Action: topicURL(t.PartitionKey) + "/posts/" + strconv.Itoa(p.Num) + "/report",
	}, nil
}

// reportOf is me's report of post p of t, its reason not yet given.
func reportOf(t TopicRow, p PostRow, me Person) moderation.Report {
	return moderation.Report{
		Target: moderation.Target{Kind: postKind, Key: t.PartitionKey + "#" + strconv.Itoa(p.Num)}, Link: postURL(t.PartitionKey, p.Num),
		Excerpt: richtext.Plain(p.Body, excerptLength), Author: p.AuthorKey, AuthorName: p.AuthorName,
		By: me.MemberKey, ByName: me.Name, Scope: sectionScope(t.Section),
	}
}

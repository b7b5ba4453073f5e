package forum

import (
	"context"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/views/components"
)

// Reports: a member reports a post to the admins' moderation queue (as
// Discourse's "flag"), which asks the forum to take it down: the post is
// hidden, as a moderator hides it.

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

// mayReport says whether me may report p: a member, not its author, of a
// post still shown.
func (s *Service) mayReport(me Person, p PostRow) bool {
	return s.Reports != nil && me.MemberKey != "" && p.AuthorKey != me.MemberKey && p.DeletedAt == nil && !p.Hidden
}

// postReport is the report of the request's post, and its page.
func (s *Service) postReport(c echo.Context) (moderation.Report, components.ReportProps, error) {
	t, p, me := topicOf(c), postOf(c), person(c)
	if !s.mayReport(me, p) {
		return moderation.Report{}, components.ReportProps{}, ErrNoPost
	}
	r := reportOf(t, p, me)
	props := components.ReportProps{
		Heading: i18n.T(c.Request().Context(), "forum.report.heading"), Back: r.Link, BackLabel: t.Title,
		Author: p.AuthorName, Excerpt: r.Excerpt, Action: topicURL(t.PartitionKey) + "/posts/" + strconv.Itoa(p.Num) + "/report",
	}
	return r, props, nil
}

// reportOf is me's report of post p of t, its reason not yet given.
func reportOf(t TopicRow, p PostRow, me Person) moderation.Report {
	return moderation.Report{
		Target: moderation.Target{Kind: postKind, Key: t.PartitionKey + "#" + strconv.Itoa(p.Num)}, Link: postURL(t.PartitionKey, p.Num),
		Excerpt: richtext.Plain(p.Body, excerptLength), Author: p.AuthorKey, AuthorName: p.AuthorName,
		By: me.MemberKey, ByName: me.Name,
	}
}

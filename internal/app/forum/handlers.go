package forum

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/forum"
)

// requireTopic reads the route's topic (:id), not deleted, and its
// section, open, and keeps both for the handler (topicOf, sectionOf); a
// deleted topic is ErrNoTopic and one in an archived section
// ErrNoSection (both 404), whatever the route: its page, a post's
// history, a quote.
func (s *Service) requireTopic() echo.MiddlewareFunc {
	return topicScope.Require(func(c echo.Context) (openTopic, error) {
		ctx := c.Request().Context()
		t, err := s.Head(ctx, c.Param("id"))
		if err != nil {
			return openTopic{}, err
		}
		sec, err := s.Section(ctx, t.Section)
		return openTopic{Topic: t, Section: sec}, err
	})
}

// openTopic is what requireTopic read: a topic and its section.
type openTopic struct {
	Topic   TopicRow
	Section SectionRow
}

// topicScope carries what requireTopic read to the handler.
var topicScope = web.NewScope[openTopic]("forum.topic")

// topicOf is the topic requireTopic read.
func topicOf(c echo.Context) TopicRow { return topicScope.From(c).Topic }

// sectionOf is the topic's section, which requireTopic read.
func sectionOf(c echo.Context) SectionRow { return topicScope.From(c).Section }

// person is who the request is from ("" memberKey for a visitor).
func person(c echo.Context) Person {
	id := auth.Account(c)
	if id == nil {
		return Person{}
	}
	return Person{MemberKey: id.MemberKey, Name: id.DisplayName, Admin: id.Admin}
}

// when is a time as the reader reads it.
func when(c echo.Context, t time.Time) string {
	loc := auth.From(c).Location()
	return i18n.Day(c.Request().Context(), t.In(loc)) + " " + t.In(loc).Format("15:04")
}

// home is GET /forum: the sections in their order.
func (s *Service) home(c echo.Context) error {
	ctx := c.Request().Context()
	me := person(c)
	sections, err := s.Sections(ctx, false)
	if err != nil {
		return err
	}
	var last []string
	for _, sec := range sections {
		if sec.LastTopicID != "" {
			last = append(last, sec.LastTopicID)
		}
	}
	rd, err := s.reader(ctx, me.MemberKey, last)
	if err != nil {
		return err
	}
	p := views.HomeProps{SignedIn: me.MemberKey != "", CanWrite: me.MemberKey != ""}
	now := s.now()
	for _, sec := range sections {
		it := views.SectionItem{URL: sectionURL(sec.RowKey), Name: sec.Label(ctx), Description: sec.About(ctx), Topics: sec.Topics, Muted: rd.MutedSections[sec.RowKey]}
		if sec.LastActivityAt != nil && sec.LastTopicID != "" {
			it.LastActivity, it.LastTopic, it.LastTopicURL = when(c, *sec.LastActivityAt), sec.LastTopicTitle, topicURL(sec.LastTopicID)
			m := rd.Markers[sec.LastTopicID]
			it.Unread = me.MemberKey != "" && now.Sub(*sec.LastActivityAt) <= cutoff && sec.LastActivityAt.After(rd.readUpTo(sec.RowKey)) &&
				(m.At == nil || m.At.Before(*sec.LastActivityAt)) && !rd.MutedSections[sec.RowKey]
		}
		p.Sections = append(p.Sections, it)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "forum.home.heading"), Section: "forum", Content: views.Home(p)})
}

// topicItem is a list row of a, for the reader rd.
func (s *Service) topicItem(c echo.Context, a ActivityRow, rd Reader, sectionName string) views.TopicItem {
	it := views.TopicItem{
		URL: topicURL(a.TopicID), Title: a.Title, Author: shownName(c.Request().Context(), a.AuthorName), Replies: a.Replies, LastActivity: when(c, a.LastActivityAt),
		LastAuthor: shownName(c.Request().Context(), a.LastAuthorName), Section: sectionName, Pinned: stillPinned(a.Summary, s.now()) && !rd.Markers[a.TopicID].Dismissed, Locked: a.Locked,
		Muted: rd.Muted[a.TopicID], Solved: a.Solved > 0, Poll: a.HasPoll,
	}
	switch u := rd.unreadOf(a, s.now()); {
	case u.New:
		it.New = "new"
	case u.More:
		it.New = strconv.Itoa(u.N) + "+"
	case u.N > 0:
		it.New = strconv.Itoa(u.N)
	}
	if u := it.URL; it.New != "" && it.New != "new" {
		it.URL = u + "#first-unread"
	}
	return it
}

// section is GET /forum/:section (?cursor=): a page of its topics.
func (s *Service) section(c echo.Context) error {
	ctx := c.Request().Context()
	me := person(c)
	sec, err := s.Section(ctx, c.Param("section"))
	if err != nil {
		return err
	}
	page, rd, err := s.ListSection(ctx, sec.RowKey, me.MemberKey, c.QueryParam("cursor"))
	if err != nil {
		return err
	}
	p := views.SectionProps{Slug: sec.RowKey, Name: sec.Label(ctx), Description: sec.About(ctx), SignedIn: me.MemberKey != "", CanWrite: me.MemberKey != "", FeedURL: sectionURL(sec.RowKey) + "/feed.xml"}
	if s.follows(me.MemberKey) && c.QueryParam("cursor") == "" {
		p.StreamURL = sectionURL(sec.RowKey) + "/stream"
	}
	if me.MemberKey != "" {
		level, err := s.SectionLevel(ctx, rd, sec.RowKey)
		if err != nil {
			return err
		}
		p.Level = string(level)
	}
	switch {
	case me.Admin:
		p.ReviewURL = adminReviewURL
	case isStaffOf(me, sec):
		p.ReviewURL = reviewURL
	}
	for _, a := range page.Pinned {
		it := s.topicItem(c, a, rd, "")
		if me.MemberKey != "" {
			it.DismissURL = topicURL(a.TopicID) + "/dismiss"
		}
		p.Pinned = append(p.Pinned, it)
	}
	for _, a := range page.Topics {
		p.Topics = append(p.Topics, s.topicItem(c, a, rd, ""))
	}
	if page.Next != "" {
		p.NextURL = sectionURL(sec.RowKey) + "?cursor=" + url.QueryEscape(page.Next)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Name, Section: "forum", Content: views.Section(p), Fragment: views.TopicRows(p.Topics, p.NextURL)})
}

// window is the posts a topic page shows, from its query: post=N (the
// page with N), before=N (older), after=N (newer), or by default the
// page that opens at the reader's first unread post.
func window(c echo.Context, posts, readNum int, opened bool) (from, to, firstUnread int, err error) {
	num := func(name string) (int, error) {
		n, err := strconv.Atoi(c.QueryParam(name))
		if err == nil && (n < 1 || n > posts+1) {
			err = strconv.ErrRange
		}
		return n, err
	}
	switch {
	case c.QueryParam("post") != "":
		n, err := num("post")
		if err != nil {
			return 0, 0, 0, err
		}
		from = max(min(n, posts)-2, 1)
	case c.QueryParam("before") != "":
		n, err := num("before")
		if err != nil {
			return 0, 0, 0, err
		}
		from = max(n-postsPerPage, 1)
		return from, min(n-1, posts), 0, nil
	case c.QueryParam("after") != "":
		n, err := num("after")
		if err != nil {
			return 0, 0, 0, err
		}
		from = min(n+1, posts)
	case opened && readNum < posts:
		firstUnread = readNum + 1
		from = max(firstUnread-2, 1)
	case opened:
		from = max(posts-postsPerPage+1, 1)
	default:
		from = 1
	}
	if firstUnread == 0 && opened && readNum < posts {
		firstUnread = readNum + 1
	}
	return from, min(from+postsPerPage-1, posts), firstUnread, nil
}

// topic is GET /forum/t/:id: a window of its posts, marked read. For
// a page following the topic live (live.go), ?live=bar is its "new
// replies" bar, and htmx's ?after=N the posts it appends.
func (s *Service) topic(c echo.Context) error {
	ctx := c.Request().Context()
	me := person(c)
	t, sec := topicOf(c), sectionOf(c)
	if c.QueryParam("live") == "bar" {
		return s.serveBar(c, t)
	}
	rd, err := s.reader(ctx, me.MemberKey, []string{t.PartitionKey})
	if err != nil {
		return err
	}
	// Only someone who read the topic before lands at their first
	// unread post; a marker moved by their own replies alone does not
	// count, or they would never see how the topic began.
	m, opened := rd.Markers[t.PartitionKey]
	opened = opened && m.At != nil && !m.PostedOnly
	from, to, firstUnread, err := window(c, t.Posts, m.ReadNum, opened)
	if err != nil {
		return ErrBadPosition
	}
	posts, err := s.Posts(ctx, t.PartitionKey, from, to)
	if err != nil {
		return err
	}
	liked, err := s.LikedBy(ctx, t.PartitionKey, me.MemberKey, from, to)
	if err != nil {
		return err
	}
	staff := isStaffOf(me, sec)
	u := topicURL(t.PartitionKey)
	p := views.TopicProps{
		ID: t.PartitionKey, URL: u, Title: t.Title, SectionName: sec.Label(ctx), SectionURL: sectionURL(sec.RowKey),
		Pinned: stillPinned(t.Summary, s.now()), Locked: t.Locked, SlowSeconds: t.SlowSeconds,
	}
	marked := map[int]bool{}
	for _, b := range bookmarksOf(m) {
		marked[b.Num] = true
	}
	// The poll stands under the opening post: read when the page holds it.
	var poll *views.PollProps
	if from == 1 {
		if poll, err = s.pollProps(c, t, me, staff, c.QueryParam("results") == "1"); err != nil {
			return err
		}
	}
	for _, post := range posts {
		item := s.postItem(c, t, post, me, staff, liked[post.Num], post.Num == firstUnread)
		if post.Num == 1 {
			item.Poll = poll
		}
		item.Bookmarked, item.Moderator = marked[post.Num], slices.Contains(sec.ModeratorKeys(), post.AuthorKey)
		p.Posts = append(p.Posts, item)
	}
	if a, ok := s.solution(ctx, t, posts); ok {
		p.Solution = &views.SolutionProps{URL: postURL(t.PartitionKey, a.Num), Num: a.Num, Author: postName(ctx, a), Excerpt: richtext.Plain(a.Body, 200)}
	}
	if from > 1 {
		p.OlderURL = u + "?before=" + strconv.Itoa(from)
	}
	if to < t.Posts {
		p.NewerURL = u + "?after=" + strconv.Itoa(to)
		p.LatestURL = postURL(t.PartitionKey, t.Posts)
	}
	switch {
	case me.MemberKey == "":
		p.SignInURL = auth.SignInPath(u)
	case !t.Locked || staff:
		p.Reply = &views.ReplyProps{Action: u + "/replies"}
	}
	if staff {
		p.Mod = s.modProps(ctx, t)
	}
	if p.Pinned && me.MemberKey != "" && !m.Dismissed {
		p.DismissURL = u + "/dismiss"
	}
	if me.MemberKey != "" {
		level, err := s.Level(ctx, rd, t.PartitionKey)
		if err != nil {
			return err
		}
		p.Level, p.LevelURL = string(level), u+"/watch"
	}
	if me.MemberKey != "" && web.Opened(c.Request()) {
		_, known := rd.Markers[t.PartitionKey]
		s.markReadKnown(ctx, me.MemberKey, t.PartitionKey, to, m, known)
	}
	if s.follows(me.MemberKey) {
		if web.HTMXFrom(c).Partial && c.QueryParam("after") != "" {
			return web.RenderFragment(c, http.StatusOK, views.Appended(p.Posts, liveBar(t, to)))
		}
		if to == t.Posts {
			p.Live = &views.LiveProps{StreamURL: topicURL(t.PartitionKey) + "/stream?after=" + strconv.Itoa(to), Bar: liveBar(t, to)}
		}
	}
	return web.Render(c, http.StatusOK, web.Page{Title: t.Title, Section: "forum", Content: views.Topic(p)})
}

// postItem is a post as me sees it.
func (s *Service) postItem(c echo.Context, t TopicRow, p PostRow, me Person, staff, liked, firstUnread bool) views.PostItem {
	loc := auth.From(c).Location()
	base := topicURL(t.PartitionKey) + "/posts/" + strconv.Itoa(p.Num)
	v := views.PostItem{
		Num: p.Num, Anchor: "p" + strconv.Itoa(p.Num), Author: postName(c.Request().Context(), p), AuthorURL: auth.ProfileURL(p.AuthorKey), Solution: t.Solved == p.Num && p.Num > 1,
		Time: when(c, p.CreatedAt), Datetime: p.CreatedAt.In(loc).Format(time.RFC3339), Edited: p.EditedAt != nil, HistoryURL: historyURL(t.PartitionKey, p.Num),
		Deleted: p.DeletedAt != nil, Hidden: p.Hidden, Likes: p.Likes, Liked: liked, FirstUnread: firstUnread,
	}
	if !p.Hidden || staff {
		v.Body = templ.Raw(string(richtext.Render(p.Body)))
	}
	if me.MemberKey == "" || v.Deleted {
		return v
	}
	if !p.Hidden {
		if p.AuthorKey != me.MemberKey {
			v.LikeURL = base + "/like"
		}
		v.BookmarkURL = base + "/bookmark"
		if !t.Locked || staff {
			v.QuoteURL = topicURL(t.PartitionKey) + "/reply?quote=" + strconv.Itoa(p.Num)
		}
	}
	if mayEdit(me, t, p, func() (bool, error) { return staff, nil }) == nil {
		v.EditURL = base + "/edit"
	}
	if p.AuthorKey == me.MemberKey && (p.Num > 1 || t.Replies == 0) || staff {
		v.DeleteURL = base + "/delete"
	}
	if p.AuthorKey != me.MemberKey {
		v.UnreadURL = base + "/unread"
	}
	if staff {
		v.HideURL = base + "/hide"
	}
	if s.mayReport(me, p) {
		v.ReportURL = base + "/report"
	}
	if p.Num > 1 && !p.Hidden && (staff || t.AuthorKey == me.MemberKey) {
		v.SolveURL = base + "/solve"
	}
	return v
}

// modProps are the staff's tools on t.
func (s *Service) modProps(ctx context.Context, t TopicRow) *views.ModProps {
	m := &views.ModProps{URL: topicURL(t.PartitionKey), Pinned: t.Pinned, Locked: t.Locked, SlowSeconds: t.SlowSeconds, Section: t.Section}
	if sections, err := s.Sections(ctx, false); err == nil {
		for _, sec := range sections {
			m.Sections = append(m.Sections, [2]string{sec.RowKey, sec.Label(ctx)})
		}
	}
	return m
}

// formErrors translates a form's problems.
func formErrors(ctx context.Context, errs FormErrors) map[string]string {
	out := map[string]string{}
	for k, v := range errs {
		out[k] = i18n.T(ctx, v, "min", titleMin, "max", 200, "body", 20000, "links", newcomerLinks)
	}
	return out
}

// previewOf answers a form that asked for a preview (status 0: it did
// not): body rendered (web.Preview), or why not on the body's field.
func (s *Service) previewOf(c echo.Context, body string) (status int, preview templ.Component, errs FormErrors) {
	if !web.PreviewAsked(c) {
		return 0, nil, nil
	}
	status, preview, refusal := s.previews.Render(c, body)
	if refusal != "" {
		return status, nil, FormErrors{"body": refusal}
	}
	return status, preview, nil
}

// sectionChoices are the open sections, for a form.
func (s *Service) sectionChoices(ctx context.Context) ([][2]string, error) {
	sections, err := s.Sections(ctx, false)
	var out [][2]string
	for _, sec := range sections {
		out = append(out, [2]string{sec.RowKey, sec.Label(ctx)})
	}
	return out, err
}

// compose is GET /forum/compose (?section=): the new topic form.
func (s *Service) compose(c echo.Context) error {
	return s.renderCompose(c, http.StatusOK, views.ComposeProps{Section: c.QueryParam("section")})
}

func (s *Service) renderCompose(c echo.Context, status int, p views.ComposeProps) error {
	ctx := c.Request().Context()
	var err error
	if p.Sections, err = s.sectionChoices(ctx); err != nil {
		return err
	}
	for _, pc := range PollCloses {
		p.PollCloseChoices = append(p.PollCloseChoices, pc.Value)
	}
	p.PollShowChoices = PollShows
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "forum.topic.new"), Section: "forum", Content: views.Compose(p)})
}

// createTopic is POST /forum/topics (section, title, body; preview).
func (s *Service) createTopic(c echo.Context) error {
	ctx := c.Request().Context()
	p := views.ComposeProps{Section: c.FormValue("section"), Title: c.FormValue("title"), Body: c.FormValue("body"),
		PollQuestion: c.FormValue("pollQuestion"), PollOptions: c.FormValue("pollOptions"), PollMultiple: c.FormValue("pollMultiple") != "", PollCloses: c.FormValue("pollCloses"), PollShow: c.FormValue("pollShow")}
	if status, preview, fe := s.previewOf(c, p.Body); status != 0 {
		p.Preview, p.Errors = preview, formErrors(ctx, fe)
		return s.renderCompose(c, status, p)
	}
	t, err := s.CreatePollTopic(ctx, person(c), p.Section, p.Title, p.Body, PollDraft{Question: p.PollQuestion, Options: p.PollOptions, Multiple: p.PollMultiple, Closes: p.PollCloses, Show: p.PollShow})
	return web.AnswerForm(c, err, "", topicURL(t.PartitionKey), func(status int, fe FormErrors) error {
		p.Errors = formErrors(ctx, fe)
		return s.renderCompose(c, status, p)
	},
		web.Refusal{Err: ErrNoSection, Field: "section", Status: http.StatusUnprocessableEntity, Key: "forum.error.section"},
		web.Refusal{Err: ErrTooMany, Field: "body"}, web.Refusal{Err: ErrPace, Field: "body"})
}

// replyPage is GET /forum/t/:id/reply (?quote=N): the reply form on its
// own, with the quoted post in it.
func (s *Service) replyPage(c echo.Context) error {
	ctx := c.Request().Context()
	t := topicOf(c)
	p := views.ReplyProps{Action: topicURL(t.PartitionKey) + "/replies"}
	if q := c.QueryParam("quote"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil {
			return ErrBadPosition
		}
		post, err := s.post(ctx, t.PartitionKey, n)
		if err != nil {
			return err
		}
		if post.DeletedAt == nil && !post.Hidden {
			p.Body = quote(ctx, post)
		}
	}
	return s.renderReply(c, http.StatusOK, t, p)
}

// quote is a post as a Markdown quote with its author, to reply under.
func quote(ctx context.Context, p PostRow) string {
	var b strings.Builder
	b.WriteString(i18n.T(ctx, "forum.quote_intro", "name", postName(ctx, p), "n", strconv.Itoa(p.Num)) + "\n")
	for _, line := range strings.Split(p.Body, "\n") {
		b.WriteString("> " + line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

func (s *Service) renderReply(c echo.Context, status int, t TopicRow, p views.ReplyProps) error {
	content := views.ReplyPage(t.Title, topicURL(t.PartitionKey), p)
	return web.Render(c, status, web.Page{Title: t.Title, Section: "forum", Content: content})
}

// reply is POST /forum/t/:id/replies (body; preview).
func (s *Service) reply(c echo.Context) error {
	ctx := c.Request().Context()
	t := topicOf(c)
	p := views.ReplyProps{Action: topicURL(t.PartitionKey) + "/replies", Body: c.FormValue("body")}
	if status, preview, fe := s.previewOf(c, p.Body); status != 0 {
		p.Preview, p.Error = preview, formErrors(ctx, fe)["body"]
		return s.renderReply(c, status, t, p)
	}
	post, err := s.Reply(ctx, person(c), t.PartitionKey, p.Body)
	var fe FormErrors
	var slow ErrSlowMode
	switch {
	case errors.As(err, &fe):
		p.Error = formErrors(ctx, fe)["body"]
		return s.renderReply(c, http.StatusUnprocessableEntity, t, p)
	case errors.As(err, &slow):
		secs := int(slow.Wait.Round(time.Second) / time.Second)
		p.Error = i18n.N(ctx, "forum.error.slow_wait", max(secs, 1))
		c.Response().Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		return s.renderReply(c, http.StatusTooManyRequests, t, p)
	}
	if status, msg, ok := web.Refused(ctx, err); ok {
		p.Error = msg // a new account's limit, a closed topic
		return s.renderReply(c, status, t, p)
	} else if err != nil {
		return err
	}
	return web.Redirect(c, postURL(t.PartitionKey, post.Num))
}

// requirePost reads the route's post (:num) of the topic requireTopic
// read, and keeps it for the handler (postOf); a number that is not one,
// or a post that is not there, is ErrNoPost (404).
func (s *Service) requirePost() echo.MiddlewareFunc {
	return postScope.Require(func(c echo.Context) (PostRow, error) {
		n, err := strconv.Atoi(c.Param("num"))
		if err != nil {
			return PostRow{}, ErrNoPost
		}
		return s.post(c.Request().Context(), topicOf(c).PartitionKey, n)
	})
}

// postScope carries the post requirePost read to the handler.
var postScope = web.NewScope[PostRow]("forum.post")

// postOf is the post requirePost read.
func postOf(c echo.Context) PostRow { return postScope.From(c) }

// editPage is GET /forum/t/:id/posts/:num/edit: the author's form.
func (s *Service) editPage(c echo.Context) error {
	t, p, me := topicOf(c), postOf(c), person(c)
	if err := mayEdit(me, t, p, func() (bool, error) { return s.IsStaff(c.Request().Context(), me, t.Section) }); err != nil {
		return err
	}
	return s.renderEdit(c, http.StatusOK, t, p, views.EditProps{Title: t.Title, Body: p.Body})
}

func (s *Service) renderEdit(c echo.Context, status int, t TopicRow, p PostRow, e views.EditProps) error {
	ctx := c.Request().Context()
	e.Action = topicURL(t.PartitionKey) + "/posts/" + strconv.Itoa(p.Num) + "/edit"
	e.ShowTitle, e.Back = p.Num == 1, postURL(t.PartitionKey, p.Num)
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "forum.edit.heading"), Section: "forum", Content: views.Edit(e)})
}

// edit is POST /forum/t/:id/posts/:num/edit (title, body; preview).
func (s *Service) edit(c echo.Context) error {
	ctx := c.Request().Context()
	t, p := topicOf(c), postOf(c)
	e := views.EditProps{Title: c.FormValue("title"), Body: c.FormValue("body")}
	if status, preview, fe := s.previewOf(c, e.Body); status != 0 {
		e.Preview, e.Errors = preview, formErrors(ctx, fe)
		return s.renderEdit(c, status, t, p, e)
	}
	err := s.Edit(ctx, person(c), t.PartitionKey, p.Num, e.Title, e.Body)
	return web.AnswerForm(c, err, "forum.flash.edited", postURL(t.PartitionKey, p.Num), func(status int, fe FormErrors) error {
		e.Errors = formErrors(ctx, fe)
		return s.renderEdit(c, status, t, p, e)
	}, web.Refusal{Err: ErrTooManyEdits, Field: "body"},
		web.Refusal{Err: ErrTooManyRevisions, Field: "body"})
}

// historyPage is how many earlier versions a page of a post's history
// shows.
const historyPage = 10

// history is GET /forum/t/:id/posts/:num/history (?before=N): a post's
// versions, newest first, a page at a time.
func (s *Service) history(c echo.Context) error {
	ctx := c.Request().Context()
	t, p := topicOf(c), postOf(c)
	if p.DeletedAt != nil || p.Hidden && !isStaffOf(person(c), sectionOf(c)) {
		return ErrNoPost
	}
	// A page shows historyPage earlier versions, newest first (the first
	// page the current one above them); ?before=N starts below version N.
	before := p.Revisions + 1
	if v := c.QueryParam("before"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > p.Revisions {
			return web.BadRequest(i18n.T(ctx, "forum.history.bad_page"), err)
		}
		before = n
	}
	from := max(1, before-historyPage)
	revs, err := s.Revisions(ctx, t.PartitionKey, p.Num, from, before)
	if err != nil {
		return err
	}
	var versions []views.Version
	if before > p.Revisions {
		at := p.CreatedAt
		if p.EditedAt != nil {
			at = *p.EditedAt
		}
		versions = append(versions, views.Version{When: when(c, at), Body: templ.Raw(string(richtext.Render(p.Body)))})
	}
	for i := len(revs) - 1; i >= 0; i-- {
		versions = append(versions, views.Version{When: when(c, revs[i].At), Body: templ.Raw(string(richtext.Render(revs[i].Body)))})
	}
	base := historyURL(t.PartitionKey, p.Num)
	older, newer := "", ""
	if from > 1 {
		older = base + "?before=" + strconv.Itoa(from)
	}
	if before <= p.Revisions {
		newer = base
		if before+historyPage <= p.Revisions {
			newer += "?before=" + strconv.Itoa(before+historyPage)
		}
	}
	title := i18n.T(ctx, "forum.history.of", "n", strconv.Itoa(p.Num), "name", postName(ctx, p))
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "forum.history.heading"), Section: "forum", Content: views.History(title, postURL(t.PartitionKey, p.Num), versions, newer, older)})
}

// remove is POST /forum/t/:id/posts/:num/delete, after confirmation.
func (s *Service) remove(c echo.Context) error {
	ctx := c.Request().Context()
	t, p := topicOf(c), postOf(c)
	if !web.Confirmed(c) {
		// Asked of a post theirs to delete alone.
		if _, err := s.MayDelete(ctx, person(c), t, p); err != nil {
			return err
		}
		return web.AskConfirm(c, components.ConfirmProps{
			Label: i18n.T(ctx, "forum.delete"), Question: i18n.T(ctx, "forum.delete_question"), Yes: i18n.T(ctx, "forum.delete"), Danger: true, TestID: "post-delete",
		})
	}
	if err := s.Delete(ctx, person(c), t.PartitionKey, p.Num); err != nil {
		return err
	}
	if p.Num == 1 {
		return web.FlashRedirect(c, "forum.flash.topic_deleted", sectionURL(t.Section))
	}
	return web.FlashRedirect(c, "forum.flash.deleted", postURL(t.PartitionKey, p.Num))
}

// toggle is a post's on/off action, POST with field=true|false (like,
// hide): set, then back to the post.
func (s *Service) toggle(field string, set func(ctx context.Context, by Person, topicID string, num int, on bool) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		t, p := topicOf(c), postOf(c)
		if err := set(c.Request().Context(), person(c), t.PartitionKey, p.Num, c.FormValue(field) != "false"); err != nil {
			return err
		}
		return web.Redirect(c, web.NextOr(c, postURL(t.PartitionKey, p.Num)))
	}
}

// markUnread is POST /forum/t/:id/posts/:num/unread: the reader's marker
// goes back to before this post; back to the section.
func (s *Service) markUnread(c echo.Context) error {
	t, p := topicOf(c), postOf(c)
	if err := s.MarkUnread(c.Request().Context(), person(c).MemberKey, t.PartitionKey, p.Num); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.unread", sectionURL(t.Section))
}

// dismiss is POST /forum/t/:id/dismiss: the pin goes for the reader.
func (s *Service) dismiss(c echo.Context) error {
	ctx := c.Request().Context()
	t := topicOf(c)
	if err := s.DismissPin(ctx, person(c).MemberKey, t.PartitionKey); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.dismissed", sectionURL(t.Section))
}

// pin is POST /forum/t/:id/pin (pinned, until YYYY-MM-DD in the
// reader's zone, the pin ending as that day starts).
func (s *Service) pin(c echo.Context) error {
	ctx := c.Request().Context()
	var until *time.Time
	if v := strings.TrimSpace(c.FormValue("until")); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, auth.From(c).Location())
		if err != nil || !d.After(s.now()) {
			return web.BadRequest(i18n.T(ctx, "forum.error.pin_until"), fmt.Errorf("forum: pin until %q", v))
		}
		until = &d
	}
	id := c.Param("id")
	if err := s.Pin(ctx, person(c), id, c.FormValue("pinned") != "false", until); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.moderated", topicURL(id))
}

// lock is POST /forum/t/:id/lock (locked=true|false).
func (s *Service) lock(c echo.Context) error {
	id := c.Param("id")
	if err := s.Lock(c.Request().Context(), person(c), id, c.FormValue("locked") != "false"); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.moderated", topicURL(id))
}

// slow is POST /forum/t/:id/slow (seconds).
func (s *Service) slow(c echo.Context) error {
	ctx := c.Request().Context()
	n, err := strconv.Atoi(strings.TrimSpace(c.FormValue("seconds")))
	if err != nil {
		return web.BadRequest(i18n.T(ctx, "forum.error.slow"), err)
	}
	id := c.Param("id")
	err = s.SlowMode(ctx, person(c), id, n)
	return web.AnswerAction(c, err, "forum.error.slow", "forum.flash.moderated", topicURL(id))
}

// move is POST /forum/t/:id/move (section).
func (s *Service) move(c echo.Context) error {
	id := c.Param("id")
	err := s.Move(c.Request().Context(), person(c), id, c.FormValue("section"))
	return web.AnswerAction(c, err, "forum.error.section", "forum.flash.moved", topicURL(id))
}

// readAll is POST /forum/read-all: everything read, one write.
func (s *Service) readAll(c echo.Context) error {
	if err := s.MarkAllRead(c.Request().Context(), person(c).MemberKey); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.all_read", "/forum")
}

// readSection is POST /forum/:section/read-all: everything in the
// section is read for the asker, back on the section's page.
func (s *Service) readSection(c echo.Context) error {
	slug := c.Param("section")
	if err := s.MarkSectionRead(c.Request().Context(), person(c).MemberKey, slug); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.section_read", sectionURL(slug))
}

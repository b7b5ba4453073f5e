package forum

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// New replies while one reads, as Discourse shows them: a signed-in
// reader whose page reaches a topic's last post follows it through an
// event stream (live.Feed). A reply publishes the topic's number of
// posts; the stream passes each change on as a "replies" event, and the
// page then asks for its "N new replies" bar (GET ?after=N&live=bar),
// whose button appends the new posts below the last one shown (the same
// window as the page's "Newer" link, which is also where the button goes
// without JavaScript). Anyone reading anonymously, or an older window
// of the topic, follows nothing: the page's own links lead on.

// Stream settings.
const (
	// maxTopicStreams bounds one person's open topic streams on one
	// instance (a tab each).
	maxTopicStreams = 8
	// streamBeat is how often an open stream sends a comment, and asks
	// whether its reader is still signed in.
	streamBeat = 25 * time.Second
)

// ErrBadPosition is a post number a topic page or stream cannot start
// from (400).
var ErrBadPosition = fault.New(http.StatusBadRequest, "forum.error.position", "forum: no such position in the topic")

// ErrTooManyStreams refuses one topic stream more than maxTopicStreams
// (429).
var ErrTooManyStreams = fault.New(http.StatusTooManyRequests, "forum.error.streams", "forum: too many open topic streams")

// UseLive lets readers follow topics live: f carries the changes, and
// sessions ends a stream whose reader signed out. Without it topic pages
// open no stream.
func (s *Service) UseLive(f *live.Feed, sessions live.Sessions) {
	s.live, s.sessions = f, sessions
}

// liveTopic is a topic's name in the feed.
func liveTopic(topicID string) string { return "forum|" + topicID }

// liveSection is a section's name in the feed.
func liveSection(slug string) string { return "forum-section|" + slug }

// published tells a topic's followers it has t.Posts posts now, and its
// section's that the topic is new or has news.
func (s *Service) published(ctx context.Context, t TopicRow) {
	if s.live == nil {
		return
	}
	if t.Posts > 1 {
		s.live.Publish(ctx, liveTopic(t.PartitionKey), []byte(strconv.Itoa(t.Posts)))
	}
	s.live.Publish(ctx, liveSection(t.Section), []byte(t.PartitionKey))
}

// follows reports whether a page for memberKey follows its topic live:
// a signed-in reader's, when the forum has a feed.
func (s *Service) follows(memberKey string) bool { return s.live != nil && memberKey != "" }

// liveBar is the "new replies" bar of a page showing t up to post shown.
func liveBar(t TopicRow, shown int) views.LiveBar {
	u := topicURL(t.PartitionKey)
	after := strconv.Itoa(shown)
	return views.LiveBar{URL: u + "?live=bar&after=" + after, ShowURL: u + "?after=" + after, New: t.Posts - shown}
}

// serveBar is GET /forum/t/:id?live=bar&after=N: the bar saying how many
// posts the topic has after N, which the page asks for at each
// "replies" event of its stream.
func (s *Service) serveBar(c echo.Context, t TopicRow) error {
	after, err := strconv.Atoi(c.QueryParam("after"))
	if err != nil || after < 1 || after > t.Posts || !s.follows(person(c).MemberKey) {
		return ErrBadPosition
	}
	return web.RenderFragment(c, http.StatusOK, views.Bar(liveBar(t, after), false))
}

// stream is GET /forum/t/:id/stream?after=N: a "replies" event when the
// topic has posts after N (at once, when some came between the page and
// the stream), and at each new reply; a comment every streamBeat.
func (s *Service) stream(c echo.Context) error {
	if s.live == nil {
		return echo.ErrNotFound
	}
	t := topicOf(c)
	after, err := strconv.Atoi(c.QueryParam("after"))
	if err != nil || after < 1 || after > t.Posts {
		return ErrBadPosition
	}
	ctx := c.Request().Context()
	id := auth.From(c)
	wake := make(chan struct{}, 1)
	sub := s.live.Subscribe(live.Notify(wake), liveTopic(t.PartitionKey))
	defer s.live.Unsubscribe(sub)
	w := live.Start(c)
	tell := func() error { return live.Ping(w, "event: replies\ndata: \n\n") }
	if t.Posts > after {
		if tell() != nil {
			return nil
		}
	}
	live.Follow{
		Every: streamBeat, Done: sub.Done, Wake: wake, OnWake: tell,
		Beat: s.beat(ctx, w, id),
	}.Run(ctx)
	return nil
}

// sectionStream is GET /forum/:section/stream: the section's bar, sent
// anew each time a topic of it not counted yet is opened or replied to.
func (s *Service) sectionStream(c echo.Context) error {
	if s.live == nil {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	sec, err := s.Section(ctx, c.Param("section"))
	if err != nil {
		return err
	}
	id := auth.From(c)
	var mu sync.Mutex
	news := map[string]bool{}
	wake := make(chan struct{}, 1)
	sub := s.live.Subscribe(func(changes []live.Change) {
		mu.Lock()
		defer mu.Unlock()
		for _, ch := range changes {
			news[string(ch.Payload)] = true
		}
		live.Signal(wake)
	}, liveSection(sec.RowKey))
	defer s.live.Unsubscribe(sub)
	w := live.Start(c)
	told := 0
	live.Follow{
		Every: streamBeat, Done: sub.Done, Wake: wake,
		OnWake: func() error {
			mu.Lock()
			n := len(news)
			mu.Unlock()
			if n == told {
				return nil
			}
			told = n
			if err := live.WriteEvent(ctx, w, "", views.SectionNews(sectionURL(sec.RowKey), n)); err != nil {
				return err
			}
			w.Flush()
			return nil
		},
		Beat: s.beat(ctx, w, id),
	}.Run(ctx)
	return nil
}

// beat is a forum stream's heartbeat: it ends the stream of a reader
// who signed out, and otherwise sends a comment.
func (s *Service) beat(ctx context.Context, w *echo.Response, id *auth.Identity) func() error {
	return func() error {
		if err := live.SignedOut(ctx, w, s.sessions, id); err != nil {
			return err
		}
		return live.Ping(w, ": beat\n\n")
	}
}

package groups

import (
	"context"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
)

// groupsLive is the groups' part of the change feed: a list's page
// (lists_live.go) and the calendar's pages (calendar_live.go) follow
// their topics through one kind of stream (live.Signals), each kind
// bounded per person on the instance.
type groupsLive struct {
	feed     *live.Feed
	sessions live.Sessions
	beat     time.Duration
	// listStreams and calendarStreams bound each person's open streams
	// here.
	listStreams, calendarStreams *ratelimit.Concurrent
}

// streamBeat is the groups' streams' heartbeat.
const streamBeat = 25 * time.Second

// newGroupsLive is the groups' feed until UseLive: one of their own on
// store.
func newGroupsLive(store *storage.Store, log *slog.Logger, now func() time.Time) groupsLive {
	return groupsLive{
		feed: live.New(store, log, now, live.Options{}), beat: streamBeat,
		listStreams: ratelimit.NewConcurrent(MaxListStreams), calendarStreams: ratelimit.NewConcurrent(MaxCalendarStreams),
	}
}

// UseLive has the lists and the calendar publish to and follow f, the
// app's change feed.
func (s *Service) UseLive(f *live.Feed) { s.live.feed = f }

// UseSessions has the groups' streams end when their viewer's session
// does.
func (s *Service) UseSessions(x live.Sessions) { s.live.sessions = x }

// signals serves the groups' streams.
func (s *Service) signals() live.Signals {
	return live.Signals{Feed: s.live.feed, Sessions: s.live.sessions, Every: s.live.beat}
}

// groupStream serves a stream of the group's topic (topic(groupID)):
// event at each change while the viewer may see the group, read again
// each time. The calendar's pages (calendarchange, calendarTopic) and
// the Lists tab (listschange, listsTopic) follow theirs so.
func (h *handlers) groupStream(event string, topic func(groupID string) string) echo.HandlerFunc {
	return func(c echo.Context) error {
		_, g := Opened(c)
		return h.svc.signals().Serve(c, event, func(ctx context.Context) error {
			_, _, err := h.svc.Open(ctx, g.GroupID, auth.From(c), AccessMember)
			return err
		}, topic(g.GroupID))
	}
}

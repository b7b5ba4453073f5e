package groups

import (
	"log/slog"
	"time"

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

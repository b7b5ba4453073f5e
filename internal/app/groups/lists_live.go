package groups

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
)

// A list's page follows the list live, as Cozi's shopping list does in
// the shop: each change to a list (an item added, ticked, put back,
// renamed or taken off, the ticked ones cleared, the list renamed or
// deleted) publishes the list's topic on the app's change feed, and the
// page's stream (GET /groups/:id/lists/:list/stream, behind the list
// page's own access) says "listchange", a named event with no item text,
// on which the page fetches its items again (htmx) and swaps them in. A
// list deleted says "reset", which reloads the page (to its 404). With
// each heartbeat the stream asks again whether the viewer may open the
// list (and is still signed in), and ends when not. The group's Lists
// tab stays static: its counts move on reload.

// listsLive is the lists' part of the change feed.
type listsLive struct {
	feed     *live.Feed
	sessions live.Sessions
	// streams bounds each person's open list streams here.
	streams *ratelimit.Concurrent
	beat    time.Duration
}

// MaxListStreams is how many list streams one person may hold open on an
// instance (a tab each, generously): each costs a goroutine and a check
// of their membership every heartbeat.
const MaxListStreams = 20

// listBeat is the list streams' heartbeat.
const listBeat = 25 * time.Second

// ErrTooManyListStreams refuses a stream past MaxListStreams (429).
var ErrTooManyListStreams = fault.New(http.StatusTooManyRequests, "groups.lists.error.streams", "groups: too many open list streams")

// newListsLive is the lists' feed until UseLive: one of their own on
// store.
func newListsLive(store *storage.Store, log *slog.Logger, now func() time.Time) listsLive {
	return listsLive{feed: live.New(store, log, now, live.Options{}), streams: ratelimit.NewConcurrent(MaxListStreams), beat: listBeat}
}

// UseLive has the lists publish to and follow f, the app's change feed.
func (s *Service) UseLive(f *live.Feed) { s.listsLive.feed = f }

// UseSessions has list streams end when their viewer's session does.
func (s *Service) UseSessions(x live.Sessions) { s.listsLive.sessions = x }

// listTopic is a list's topic in the change feed.
func listTopic(groupID, listID string) string { return "list|" + groupID + "|" + listID }

// listChanged tells the list's followers it changed: a signal only, they
// read the list again.
func (s *Service) listChanged(ctx context.Context, l ListRow) {
	s.listsLive.feed.Publish(ctx, listTopic(l.PartitionKey, l.ListID), nil)
}

// The stream's events.
const (
	listChangeEvent = "event: listchange\ndata: change\n\n"
	heartbeat       = ": ping\n\n"
)

// listStream is GET /groups/:id/lists/:list/stream.
func (h *handlers) listStream(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	l := openedList(c)
	lv := h.svc.listsLive
	wake := make(chan struct{}, 1)
	sub := lv.feed.Subscribe(live.Notify(wake), listTopic(l.PartitionKey, l.ListID))
	defer lv.feed.Unsubscribe(sub)
	w := live.Start(c)
	// refused ends the stream when the viewer may no longer open the
	// list: refused (a list gone, a member removed), the page reloads, to
	// what they may see now; a failed read only ends it, and the client
	// reconnects through the page's access again.
	refused := func(err error) error {
		if f, ok := errors.AsType[*fault.Error](err); ok && f.Status() < http.StatusInternalServerError {
			_ = live.Ping(w, live.Reset("gone"))
		}
		return live.ErrEnd
	}
	live.Follow{Every: lv.beat, Done: sub.Done, Wake: wake,
		Beat: func() error {
			if err := live.SignedOut(ctx, w, lv.sessions, id); err != nil {
				return err
			}
			m, _, err := h.svc.Open(ctx, l.PartitionKey, id, AccessMember)
			if err == nil {
				_, err = h.svc.List(ctx, m, l.ListID)
			}
			if err != nil {
				return refused(err)
			}
			return live.Ping(w, heartbeat)
		},
		// A change: the list read again, then the signal (the page reads
		// the items itself).
		OnWake: func() error {
			m, _ := Opened(c)
			if _, err := h.svc.List(ctx, m, l.ListID); err != nil {
				return refused(err)
			}
			return live.Ping(w, listChangeEvent)
		},
	}.Run(ctx)
	return nil
}

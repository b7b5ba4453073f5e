package groups

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
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
// list (and is still signed in), and ends when not.
//
// The group's Lists tab follows its lists the same way: each list change,
// and a list added, publishes the group's lists topic too, and the tab's
// stream (GET /groups/:id/lists/stream, the tab's own access) says
// "listschange", on which the tab fetches itself (live=1) and morphs its
// cards (#lists-live): names, counts and meters, a list added or gone.
// The new-list form is outside the region, so what is typed stays; a
// group reaching MaxLists shows its note in place of the form on reload
// (a list added past it is refused with the same words).

// MaxListStreams is how many list streams one person may hold open on an
// instance (a tab each, generously): each costs a goroutine and a check
// of their membership every heartbeat.
const MaxListStreams = 20

// ErrTooManyListStreams refuses a stream past MaxListStreams (429).
var ErrTooManyListStreams = fault.New(http.StatusTooManyRequests, "groups.lists.error.streams", "groups: too many open list streams")

// listTopic is a list's topic in the change feed.
func listTopic(groupID, listID string) string { return "list|" + groupID + "|" + listID }

// listsTopic is a group's Lists tab's topic in the change feed: one of
// its lists changed, or was added.
func listsTopic(groupID string) string { return "lists|" + groupID }

// listChanged tells the list's followers, and the group's Lists tab's,
// it changed: a signal only, they read the list again.
func (s *Service) listChanged(ctx context.Context, l ListRow) {
	s.live.feed.Publish(ctx, listTopic(l.PartitionKey, l.ListID), nil)
	s.live.feed.Publish(ctx, listsTopic(l.PartitionKey), nil)
}

// listStream is GET /groups/:id/lists/:list/stream: "listchange" at
// each change while the viewer may open the list (the group, then the
// list, read again).
func (h *handlers) listStream(c echo.Context) error {
	l := openedList(c)
	return h.svc.signals().Serve(c, "listchange", func(ctx context.Context) error {
		m, _, err := h.svc.Open(ctx, l.PartitionKey, auth.From(c), AccessMember)
		if err == nil {
			_, err = h.svc.List(ctx, m, l.ListID)
		}
		return err
	}, listTopic(l.PartitionKey, l.ListID))
}

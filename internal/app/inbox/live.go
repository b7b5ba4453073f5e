package inbox

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/layout"
)

// The inbox follows new notices live, as Discourse's, GitHub's and
// Zulip's bells do: a notice written for a member, or one whose quote
// changed or went, publishes their topic, inbox|{memberKey}, on the
// app's change feed once it is written, a signal with no text. Marking
// read publishes nothing, so that marking all read stays one write: the
// tab that marked gets its bell with the answer, and the member's other
// tabs count afresh with their next page or notice. GET /inbox/stream says
// "inboxchange" at each; one tab of a browser holds it for all its tabs
// (app.js: a Web Lock elects the tab, a BroadcastChannel tells the
// others), and every tab then fetches its bell (GET /inbox/bell, a fresh
// count) and, on /inbox, the list it shows (show, live=1). Without
// JavaScript the bell is as the page was served.

// MaxStreams is how many inbox streams one person may hold open on an
// instance: one per browser as app.js opens them (a tab each where the
// browser has no Web Locks), generously.
const MaxStreams = 20

// ErrTooManyStreams refuses a stream past MaxStreams (429).
var ErrTooManyStreams = fault.New(http.StatusTooManyRequests, "inbox.error.streams", "inbox: too many open inbox streams")

// streamBeat is the inbox stream's heartbeat.
const streamBeat = 25 * time.Second

// topic is memberKey's inbox's topic in the change feed.
func topic(memberKey string) string { return "inbox|" + memberKey }

// changed tells memberKey's open pages their inbox changed.
func (s *Service) changed(ctx context.Context, memberKey string) {
	s.feed.Publish(ctx, topic(memberKey), nil)
}

// Live is the change feed the inbox publishes to (for tests).
func (s *Service) Live() *live.Feed { return s.feed }

// stream is GET /inbox/stream: "inboxchange" at each change of the
// viewer's inbox while they stay signed in, and for an admin at each fall
// of the admin link's count (web.AdminBadgeTopic): the page fetches the
// bell, which brings the link.
func (h *handlers) stream(c echo.Context) error {
	signals := live.Signals{Feed: h.svc.feed, Sessions: h.svc.sessions, Every: h.svc.beat}
	id := auth.From(c)
	topics := []string{topic(id.MemberKey)}
	if id.Admin {
		topics = append(topics, web.AdminBadgeTopic)
	}
	return signals.Serve(c, "inboxchange", func(context.Context) error { return nil }, topics...)
}

// errBadShown refuses a bell fetch whose count shown is not a count.
var errBadShown = fault.New(http.StatusBadRequest, "inbox.error.shown", "inbox: the count shown is not a count")

// shownParam is the count the page's bell showed when it fetched the
// new one.
const shownParam = "shown"

// bell is GET /inbox/bell?shown=N: the header's bell with the viewer's
// unread count, counted afresh (a change on another instance is not in
// this one's kept count yet), swapped in out of band, with the count for
// the next fetch; a count above N is announced to screen readers. An
// admin gets the admin link too, with the open reports (a new report
// tells the admins in their inbox, which is how this fetch comes).
func (h *handlers) bell(c echo.Context) error {
	shown := 0
	if v := c.QueryParam(shownParam); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > badgeCap {
			return errBadShown
		}
		shown = n
	}
	id := auth.From(c)
	h.svc.badges.Delete(id.MemberKey)
	n := h.svc.UnreadBadge(c)
	adminOpen := -1
	if id.Admin {
		adminOpen = web.AdminBadge(c)
	}
	return web.RenderFragment(c, http.StatusOK, layout.InboxBellNews(n, n > shown, adminOpen))
}

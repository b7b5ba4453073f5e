package inbox

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/inbox"
)

// handlers are the inbox's HTTP handlers.
type handlers struct {
	svc *Service
}

// show is GET /inbox[?show=unread][&cursor=…]: the notifications,
// newest first, all or the unread ones; an htmx "load more" gets the
// next chunk only.
//
// With live=1 (htmx, the page following a change) it is the page's
// region again, down to the notice the page showed last (until), and
// "load more" going on from where it did (cursor).
func (h *handlers) show(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	unread, err := unreadOnly(c)
	if err != nil {
		return err
	}
	cursor, err := web.ReadCursor(c, h.svc.cursors, listQuery(id.MemberKey, unread))
	if err != nil {
		return err
	}
	var page Page
	if web.LiveRefresh(c) {
		page, err = h.svc.ListUntil(ctx, id.MemberKey, c.QueryParam(untilParam), cursor, unread)
	} else {
		page, err = h.svc.List(ctx, id.MemberKey, cursor, unread)
	}
	if err != nil {
		return err
	}
	zone := id.Location()
	rows := make([]views.Row, 0, len(page.Items))
	anyUnread := false
	for _, it := range page.Items {
		anyUnread = anyUnread || it.Unread
		rows = append(rows, h.rowOf(ctx, it, zone))
	}
	path := "/inbox"
	if unread {
		path = views.UnreadURL
	}
	next := web.NextURL(path, page.Next)
	shown := views.Shown{Cursor: page.Next}
	if len(rows) > 0 {
		shown.Until = rows[len(rows)-1].ID
	}
	props := views.Props{Rows: rows, NextURL: next, AnyUnread: anyUnread || cursor != nil, Shown: shown, UnreadOnly: unread, Unread: h.svc.UnreadBadge(c)}
	title := i18n.T(ctx, "inbox.title")
	if unread {
		title = i18n.T(ctx, "inbox.tab.unread") + " · " + title
	}
	return web.RenderLive(c, http.StatusOK, web.Page{
		Title:    title,
		Content:  views.Inbox(props),
		Fragment: views.More(rows, next, shown),
	})
}

// showParam picks the notices /inbox lists: all (""), or unread ones.
const showParam = "show"

// errBadShow refuses a list the inbox does not have.
var errBadShow = fault.New(http.StatusBadRequest, "inbox.error.show", "inbox: no such list")

// unreadOnly reports whether the request asks for the unread notices
// only (show=unread); another show is a 400.
func unreadOnly(c echo.Context) (bool, error) {
	switch c.QueryParam(showParam) {
	case "":
		return false, nil
	case "unread":
		return true, nil
	}
	return false, errBadShow
}

// rowOf is notification it as the page shows it, in zone: its words,
// when it came as a list of what happened says it ("Today, 10:00"), and
// the module it comes from (its kind's first word), whose icon leads it.
func (h *handlers) rowOf(ctx context.Context, it Item, zone *time.Location) views.Row {
	module, _, _ := strings.Cut(it.Kind, ".")
	return views.Row{
		ID:       it.ID,
		Text:     it.Text(ctx, zone),
		At:       i18n.Recent(ctx, it.At.In(zone), h.svc.now().In(zone)),
		Datetime: it.At.UTC().Format(time.RFC3339),
		Module:   module,
		Href:     "/inbox/" + url.PathEscape(it.ID),
		Unread:   it.Unread,
	}
}

// open is GET /inbox/:id: follows the notification, marking it read when
// it is the person's own opening (web.Opened).
func (h *handlers) open(c echo.Context) error {
	link, err := h.svc.Open(c.Request().Context(), auth.From(c).MemberKey, c.Param("id"), web.Opened(c.Request()))
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, web.LocalPath(link))
}

// markRead is POST /inbox/:id/read: back to the inbox, or, for htmx,
// the row now read, the focus on its link, and the header's bell with
// its new count.
func (h *handlers) markRead(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	if !web.HTMXFrom(c).Partial {
		if err := h.svc.MarkRead(ctx, id.MemberKey, c.Param("id")); err != nil {
			return err
		}
		return web.Redirect(c, "/inbox")
	}
	it, err := h.svc.MarkReadItem(ctx, id.MemberKey, c.Param("id"))
	if err != nil {
		return err
	}
	row := h.rowOf(ctx, it, id.Location())
	row.Focus = true
	return web.RenderFragment(c, http.StatusOK, views.Read(row, h.svc.UnreadBadge(c)))
}

// markAllRead is POST /inbox/read-all: one write.
func (h *handlers) markAllRead(c echo.Context) error {
	if err := h.svc.MarkAllRead(c.Request().Context(), auth.From(c).MemberKey); err != nil {
		return err
	}
	return web.FlashRedirect(c, "inbox.flash.all_read", "/inbox")
}

// UnreadBadge is the header's count for the signed-in account; -1 hides
// the bell (visitors and guests have no inbox).
func (s *Service) UnreadBadge(c echo.Context) int {
	id := auth.Account(c)
	if id == nil {
		return -1
	}
	n, err := s.Unread(c.Request().Context(), id.MemberKey)
	if err != nil {
		// The badge is decoration: a failed count must not fail the page.
		s.log.WarnContext(c.Request().Context(), "inbox: unread count failed", "err", err)
		return 0
	}
	return n
}

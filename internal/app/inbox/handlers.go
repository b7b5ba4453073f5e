package inbox

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
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
	l, err := listingOf(c)
	if err != nil {
		return err
	}
	cursor, err := web.ReadCursor(c, h.svc.cursors, listQuery(id.MemberKey, l))
	if err != nil {
		return err
	}
	var page Page
	if web.LiveRefresh(c) {
		page, err = h.svc.ListUntil(ctx, id.MemberKey, c.QueryParam(untilParam), cursor, l)
	} else {
		page, err = h.svc.List(ctx, id.MemberKey, cursor, l)
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
	next := web.NextURL(listURL(l), page.Next)
	shown := views.Shown{Cursor: page.Next}
	if len(rows) > 0 {
		shown.Until = rows[len(rows)-1].ID
	}
	props := views.Props{Rows: rows, NextURL: next, AnyUnread: anyUnread || cursor != nil, Shown: shown, UnreadOnly: l.Unread, Unread: h.svc.UnreadBadge(c),
		From: l.From, FromChips: fromChips(ctx, l, id.Admin), AllURL: listURL(Listing{From: l.From}), UnreadURL: listURL(Listing{Unread: true, From: l.From})}
	if l.From != "" {
		props.FromName = moduleName(ctx, l.From)
	}
	title := i18n.T(ctx, "inbox.title")
	if l.Unread {
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

// fromParam narrows /inbox to one module's notices (Froms).
const fromParam = "from"

// Froms are the modules whose notices the inbox narrows to, in the
// order of its chips; "admin" (the moderators' reports) is offered to
// admins alone.
var Froms = []string{"groups", "events", "forum", "chat", "people", "blog", "store", "admin"}

// errBadFrom refuses a module the inbox does not narrow to.
var errBadFrom = fault.New(http.StatusBadRequest, "inbox.error.from", "inbox: no such module")

// listingOf is the list the request asks for: all notices or the unread
// ones (show=unread), from every module or one (from); another show or
// from is a 400.
func listingOf(c echo.Context) (Listing, error) {
	var l Listing
	switch c.QueryParam(showParam) {
	case "":
	case "unread":
		l.Unread = true
	default:
		return l, errBadShow
	}
	if l.From = c.QueryParam(fromParam); l.From != "" && !slices.Contains(Froms, l.From) {
		return l, errBadFrom
	}
	return l, nil
}

// listURL is the address of listing l.
func listURL(l Listing) string {
	q := url.Values{}
	if l.Unread {
		q.Set(showParam, "unread")
	}
	if l.From != "" {
		q.Set(fromParam, l.From)
	}
	if len(q) == 0 {
		return "/inbox"
	}
	return "/inbox?" + q.Encode()
}

// moduleName is module's name for the reader ("Forum"); the admins'
// notices are the moderation's.
func moduleName(ctx context.Context, module string) string {
	if module == "admin" {
		return i18n.T(ctx, "inbox.from.admin")
	}
	return i18n.T(ctx, "module."+module+".name")
}

// fromChips narrow listing l (keeping it all or unread) to each module
// in turn, "Everything" first; the moderation's only for admins.
func fromChips(ctx context.Context, l Listing, admin bool) []components.Chip {
	out := []components.Chip{{Label: i18n.T(ctx, "inbox.from.all"), Href: listURL(Listing{Unread: l.Unread}), Current: l.From == ""}}
	for _, m := range Froms {
		if m == "admin" && !admin && l.From != m {
			continue
		}
		out = append(out, components.Chip{Label: moduleName(ctx, m), Href: listURL(Listing{Unread: l.Unread, From: m}), Current: l.From == m})
	}
	return out
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

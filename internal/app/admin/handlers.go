package admin

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/admin"
)

// recentLogSize is how many log entries the overview shows.
const recentLogSize = 20

// maxOpenShown bounds the open reports the overview counts (it shows
// "99 open" past it; the header's badge "99+").
const maxOpenShown = 99

// tools are the overview's areas.
var tools = []views.Tool{
	{Slug: "users", Href: "/admin/users", Module: "groups"},
	{Slug: "reports", Href: reportsURL, Module: "admin", Icon: "flag"},
	{Slug: "tags", Href: "/admin/tags", Module: "prompts"},
	{Slug: "event-categories", Href: "/admin/event-categories", Module: "events"},
	{Slug: "store-departments", Href: "/admin/store-departments", Module: "store"},
	{Slug: "chat-rooms", Href: "/admin/chat-rooms", Module: "chat"},
	{Slug: "forum", Href: "/admin/forum", Module: "forum"},
	{Slug: "metrics", Href: "/admin/metrics", Module: "admin", Icon: "chart"},
	{Slug: "tasks", Href: tasksURL, Module: "admin"},
}

// overview is GET /admin.
func (h *handlers) overview(c echo.Context) error {
	return h.renderOverview(c)
}

// rebuild is POST /admin/rebuild/:subject: it starts one of the app's
// rebuilds (the same list as "web reindex") in the background and
// returns to the overview, which shows it running, then how it went.
func (h *handlers) rebuild(c echo.Context) error {
	id := auth.From(c)
	if err := h.svc.StartRebuild(c.Request().Context(), c.Param("subject"), id.DisplayName); err != nil {
		return err
	}
	return web.FlashRedirect(c, "admin.rebuild.started", "/admin#rebuild-heading")
}

// rebuilds is GET /admin/rebuilds: the overview's repairs, which htmx
// asks for again while one runs; a plain request goes to the overview.
func (h *handlers) rebuilds(c echo.Context) error {
	if !web.HTMXFrom(c).Partial {
		return web.Redirect(c, "/admin#rebuild-heading")
	}
	items, err := h.rebuildItems(c)
	if err != nil {
		return err
	}
	return web.RenderFragment(c, http.StatusOK, views.Rebuilds(items))
}

// rebuildItems are the app's rebuilds with their last runs.
func (h *handlers) rebuildItems(c echo.Context) ([]views.RebuildItem, error) {
	ctx := c.Request().Context()
	runs, err := h.svc.Runs(ctx)
	if err != nil {
		return nil, err
	}
	now := h.svc.now()
	zone := auth.From(c).Location()
	var out []views.RebuildItem
	for _, subject := range h.svc.RebuildSubjects() {
		it := views.RebuildItem{Subject: subject}
		if r, ok := runs[subject]; ok {
			it.By, it.Report = r.By, r.Report
			switch {
			case r.Running(now):
				it.State, it.When = RunRunning, i18n.DateTime(ctx, r.StartedAt.In(zone))
			case r.State == RunRunning: // its instance stopped
				it.State, it.When = RunFailed, i18n.DateTime(ctx, r.AliveAt.In(zone))
				it.Report = i18n.T(ctx, "admin.rebuild.stopped")
			case r.FinishedAt != nil:
				it.State, it.When = r.State, i18n.DateTime(ctx, r.FinishedAt.In(zone))
			}
		}
		out = append(out, it)
	}
	return out, nil
}

// renderOverview shows the overview.
func (h *handlers) renderOverview(c echo.Context) error {
	ctx := c.Request().Context()
	rows, err := h.svc.RecentLog(ctx, recentLogSize)
	if err != nil {
		return err
	}
	rebuilds, err := h.rebuildItems(c)
	if err != nil {
		return err
	}
	entries := make([]views.LogEntry, 0, len(rows))
	for _, r := range rows {
		actor := memberdata.Name(ctx, r.Actor, r.ActorName)
		if r.Actor == "" {
			actor = i18n.T(ctx, "admin.log.operator") // a command (web tasks retry)
		}
		entries = append(entries, views.LogEntry{
			When:       i18n.DateTime(ctx, r.At.In(auth.From(c).Location())),
			ActorName:  actor,
			Action:     r.Action,
			TargetName: memberdata.Name(ctx, r.TargetKey, r.TargetName),
			Reason:     r.Reason,
		})
	}
	open, err := h.svc.OpenReportCount(ctx, maxOpenShown)
	if err != nil {
		return err
	}
	shown := slices.Clone(tools)
	for i := range shown {
		switch shown[i].Slug {
		case "reports":
			shown[i].Open = open
		case "tasks":
			if shown[i], err = h.svc.taskTool(ctx, shown[i]); err != nil {
				return err
			}
		}
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:   i18n.T(ctx, "module.admin.name"),
		Section: "admin",
		Content: views.Overview(views.OverviewProps{Tools: shown, Log: entries, Rebuilds: rebuilds}),
	})
}

// users is GET /admin/users[?cursor=…]. An htmx "load more" gets the next
// rows and sentinel only; a plain request gets the page from the cursor.
func (h *handlers) users(c echo.Context) error {
	cursor, err := web.ReadCursor(c, h.svc.cursors, usersListQuery)
	if err != nil {
		return err
	}
	back := c.Request().URL.RequestURI()
	if web.HTMXFrom(c).Request {
		// A chunk's actions return to the page the admin is reading.
		back = "/admin/users"
	}
	return h.renderUsers(c, http.StatusOK, cursor, back, nil)
}

// renderUsers shows the users list from cursor; back is where the rows'
// plain actions return, report the directory rebuild's outcome, if any.
// failed, when set, is a row whose action was refused: it replaces its
// row, or comes first when the page does not hold it.
func (h *handlers) renderUsers(c echo.Context, status int, cursor *storage.Cursor, back string, failed *views.UserRow) error {
	ctx := c.Request().Context()
	page, err := h.svc.ListUsers(ctx, cursor)
	if err != nil {
		return err
	}
	self := auth.From(c).MemberKey
	rows := make([]views.UserRow, 0, len(page.Users))
	for _, u := range page.Users {
		row := h.userRow(c, u, self, back)
		if failed != nil && failed.MemberKey == row.MemberKey {
			row, failed = *failed, nil
		}
		rows = append(rows, row)
	}
	if failed != nil {
		rows = append([]views.UserRow{*failed}, rows...)
	}
	next := web.NextURL("/admin/users", page.Next)
	return web.Render(c, status, web.Page{
		Title:    i18n.T(ctx, "admin.users.heading"),
		Section:  "admin",
		Content:  views.Users(views.UsersProps{Rows: rows, NextURL: next, First: cursor == nil}),
		Fragment: views.UsersChunk(rows, next),
	})
}

// userRow is u's row in the users list, as self sees it.
func (h *handlers) userRow(c echo.Context, u account.DirectoryRow, self, back string) views.UserRow {
	configured := h.svc.AdminByConfig(u.Email)
	return views.UserRow{
		MemberKey:    u.RowKey,
		Name:         u.DisplayName,
		Email:        u.Email,
		AvatarURL:    account.AvatarURL(u.RowKey, u.PhotoKey),
		Joined:       i18n.Date(c.Request().Context(), u.CreatedAt.In(auth.From(c).Location())),
		Enabled:      u.Enabled,
		Configured:   configured,
		Admin:        u.Role == account.RoleAdmin || configured,
		Organizer:    u.Role == account.RoleOrganizer,
		PeopleBarred: u.PeopleBarred,
		Self:         u.RowKey == self,
		ActionURL:    "/admin/users/" + url.PathEscape(u.RowKey),
		Back:         back,
	}
}

// moderate is POST /admin/users/:member/{disable,enable,grant-admin,
// revoke-admin}. htmx gets the updated row; a plain form goes back to the
// page it came from with a flash.
func (h *handlers) moderate(action Action) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		target := c.Param("member")
		if !account.ValidMemberKey(target) {
			return web.NotFound(errors.New("admin: not a member key"))
		}
		id := auth.From(c)
		if (action == ActionDisable || action == ActionGrantAdmin) && !web.Confirmed(c) {
			p, err := h.svc.Account(ctx, target)
			if err != nil { // storage.ErrNotFound is a 404
				return err
			}
			return web.AskConfirm(c, views.ModerateConfirm(ctx, string(action), p.DisplayName))
		}
		actor := Actor{MemberKey: id.MemberKey, Name: id.DisplayName}
		reason := c.FormValue("reason")
		p, err := h.svc.Moderate(ctx, actor, target, action, reason)
		back := backTo(c.FormValue("next"))
		if badReason, ok := errors.AsType[*ReasonError](err); ok {
			return h.reasonRefused(c, target, reason, badReason.Key, back)
		} else if err != nil {
			return err // ErrSelf, ErrConfiguredAdmin; a 404 for nobody
		}
		if web.HTMXFrom(c).Partial {
			row := h.userRow(c, p.Entry(), id.MemberKey, back)
			return web.RenderFragment(c, http.StatusOK, views.UserItem(row))
		}
		return web.FlashRedirect(c, "admin.flash."+string(action), back)
	}
}

// reasonRefused shows the row again with the reason typed and what is
// wrong with it (422): htmx gets the row, a plain form the users list.
func (h *handlers) reasonRefused(c echo.Context, target, reason, errKey, back string) error {
	ctx := c.Request().Context()
	p, err := h.svc.Account(ctx, target)
	if errors.Is(err, storage.ErrNotFound) {
		return web.NotFound(err)
	}
	if err != nil {
		return err
	}
	row := h.userRow(c, p.Entry(), auth.From(c).MemberKey, back)
	row.Reason, row.ReasonError = strings.ToValidUTF8(reason, "\uFFFD"), errKey
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusUnprocessableEntity, views.UserItem(row))
	}
	return h.renderUsers(c, http.StatusUnprocessableEntity, nil, back, &row)
}

// backTo keeps a plain action's return address on the users list.
func backTo(next string) string {
	next = web.LocalPath(next)
	if next != "/admin/users" && !strings.HasPrefix(next, "/admin/users?") {
		return "/admin/users"
	}
	return next
}

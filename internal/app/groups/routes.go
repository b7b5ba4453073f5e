package groups

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the group pages. Creating and the invitation page need
// an account; a group's own pages take any identity (guests join by link)
// and are authorized from the asker's GroupMembers row by Require, whose
// access level each route names here.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	member, owner, invitee := s.Require(AccessMember), s.Require(AccessOwner), s.RequireInvitee()
	e.GET("/api/me/groups", h.apiMyGroups)
	// The section's page: the dashboard, or an introduction for visitors.
	e.GET("/groups", h.groupsIndex, web.Shared)

	acct := e.Group("/groups", auth.RequireAccount)
	acct.GET("/new", h.newGroup)
	acct.POST("", h.create)
	// An invitation: by address to an account, or to a guest under their
	// guest key (a group started from a join link).
	e.GET("/groups/:id/invite", h.invitePage, auth.RequireMember, invitee)
	e.POST("/groups/:id/invite/accept", h.accept, auth.RequireMember, invitee)
	e.POST("/groups/:id/invite/decline", h.decline, auth.RequireMember, invitee)

	g := e.Group("/groups/:id", auth.RequireMember)
	// The group's home is its calendar's agenda; owners' forms (and
	// leaving) are on its settings tab.
	g.GET("", h.upcoming, member)
	g.GET("/settings", h.settingsPage, member)
	g.POST("/color", h.setColor, member)
	g.POST("/timezone", h.setTimezone, owner)
	g.GET("/import", h.importPage, member)
	g.POST("/import", h.previewImport, member)
	g.POST("/import/:token", h.importFile, member)
	g.POST("/rename", h.rename, owner)
	g.POST("/delete", h.deleteGroup, owner)
	g.POST("/leave", h.leave, member)
	g.POST("/invites", h.invite, owner)
	g.GET("/members", h.roster, member)
	for _, a := range memberActions {
		g.POST("/members/:user/"+a, h.memberAction(a), owner)
	}

	// Join links: the owner's pages, and the link itself for anyone
	// holding it (join*.go).
	g.POST("/join-sessions", h.openJoinSession, owner)
	g.GET("/join-sessions/:session", h.joinSessionPage, owner)
	g.POST("/join-sessions/:session/close", h.closeJoinSession, owner)
	g.POST("/join-sessions/:session/spinoff", h.spinOff, owner)
	link := h.requireLink()
	e.GET("/join/:id/:session", h.joinPage, link)
	e.POST("/join/:id/:session", h.join, link)

	// Appointments, their scans and the .ics feed (appointments*.go); the
	// feed is token-gated and needs no session.
	g.GET("/appointments", h.toAgenda, member)
	g.GET("/appointments/new", h.newAppointment, member)
	g.POST("/appointments", h.createAppointment, member)
	g.GET("/appointments/month", h.month, member)
	g.GET("/appointments/week", h.week, member)
	// The calendar's pages follow it through its stream (calendar_live.go),
	// a person holding at most MaxCalendarStreams open.
	g.GET("/appointments/stream", h.groupStream("calendarchange", calendarTopic), live.Bound(h.svc.live.calendarStreams, ErrTooManyCalendarStreams), member)
	appt := h.svc.RequireAppointment()
	g.GET("/appointments/:appt", h.appointment, member, h.liveGone(appt))
	g.GET("/appointments/:appt/edit", h.editAppointment, member, appt)
	g.POST("/appointments/:appt/edit", h.updateAppointment, member)
	g.POST("/appointments/:appt/cancel", h.cancelAppointment, member)
	g.POST("/appointments/:appt/restore", h.restoreAppointment, member)
	g.POST("/appointments/:appt/remind", h.setMyReminder, member)
	g.POST("/appointments/:appt/comments", h.addComment, member)
	g.POST("/appointments/:appt/comments/:comment/delete", h.deleteComment, member)
	edit := h.commentEditing()
	g.GET("/appointments/:appt/comments/:comment/edit", edit.Show, member)
	g.POST("/appointments/:appt/comments/:comment/edit", edit.Save, member)
	g.POST("/appointments/:appt/delete", h.deleteAppointment, member)
	g.GET("/appointments/:appt/scan", h.scan, member)
	g.POST("/appointments/:appt/scan", h.uploadScan, member)
	g.POST("/appointments/:appt/scan/read", h.readScan, member)
	g.POST("/calendar/token", h.regenerateCalendarToken, owner)
	e.GET("/groups/:id/calendar.ics", h.calendarFeed)

	// Shared lists (lists*.go): every member, guests who joined by link
	// too, reads, adds, ticks, renames and takes items off; a list's
	// delete is its creator's or an owner's (DeleteList says so, 403).
	// A list's page follows it through its stream (lists_live.go), a
	// person holding at most MaxListStreams open.
	list := h.svc.RequireList()
	g.GET("/lists", h.listsPage, member)
	g.GET("/lists/stream", h.groupStream("listschange", listsTopic), live.Bound(h.svc.live.listStreams, ErrTooManyListStreams), member)
	g.POST("/lists", h.createList, member)
	g.GET("/lists/:list", h.listPage, member, list)
	g.GET("/lists/:list/stream", h.listStream, live.Bound(h.svc.live.listStreams, ErrTooManyListStreams), member, list)
	g.POST("/lists/:list/rename", h.renameList, member, list)
	g.POST("/lists/:list/delete", h.deleteList, member, list)
	g.POST("/lists/:list/clear", h.clearTicked, member, list)
	g.POST("/lists/:list/items", h.addListItem, member, list)
	g.POST("/lists/:list/items/:item/tick", h.tickListItem, member, list)
	g.GET("/lists/:list/items/:item/edit", h.editListItem, member, list)
	g.POST("/lists/:list/items/:item/edit", h.renameListItem, member, list)
	g.POST("/lists/:list/items/:item/delete", h.deleteListItem, member, list)
}

// memberActions are an owner's actions on one roster row.
var memberActions = []string{"promote", "demote", "remove", "resend", "cancel"}

// handlers are the group pages' HTTP handlers: each parses the request,
// calls one Service method and renders.
type handlers struct {
	svc *Service
}

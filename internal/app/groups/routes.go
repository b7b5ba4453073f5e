package groups

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
)

// Routes registers the group pages. Creating and the invitation page need
// an account; the group's own pages take any identity (guests join by
// link in a later slice) and authorize from its GroupMembers row.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	e.GET("/api/me/groups", h.apiMyGroups)
	// The section's page: the dashboard, or an introduction for visitors.
	e.GET("/groups", h.groupsIndex)

	acct := e.Group("/groups", auth.RequireAccount)
	acct.GET("/new", h.newGroup)
	acct.POST("", h.create)
	acct.GET("/:id/invite", h.invitePage)
	acct.POST("/:id/invite/accept", h.accept)
	acct.POST("/:id/invite/decline", h.decline)

	g := e.Group("/groups/:id", auth.RequireMember)
	g.GET("", h.groupPage)
	g.POST("/rename", h.rename)
	g.POST("/delete", h.deleteGroup)
	g.POST("/leave", h.leave)
	g.POST("/invites", h.invite)
	g.GET("/members", h.roster)
	for _, a := range memberActions {
		g.POST("/members/:user/"+a, h.memberAction(a))
	}

	// Join links: the owner's pages, and the link itself for anyone
	// holding it (join*.go).
	g.POST("/join-sessions", h.openJoinSession)
	g.GET("/join-sessions/:session", h.joinSessionPage)
	g.POST("/join-sessions/:session/close", h.closeJoinSession)
	g.POST("/join-sessions/:session/spinoff", h.spinOff)
	e.GET("/join/:id/:session", h.joinPage)
	e.POST("/join/:id/:session", h.join)

	// Appointments, their scans and the .ics feed (appointments*.go).
	h.appointmentRoutes(e, g)
}

// memberActions are an owner's actions on one roster row.
var memberActions = []string{"promote", "remove", "resend", "cancel"}

// handlers are the group pages' HTTP handlers: each parses the request,
// calls one Service method and renders.
type handlers struct {
	svc *Service
}

package admin

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
)

// Routes registers the admin pages, every one behind auth.RequireAdmin.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	g := e.Group("/admin", auth.RequireAdmin)
	g.GET("", h.overview)
	g.GET("/users", h.users)
	g.GET("/metrics", h.metricsPage)
	g.GET("/rebuilds", h.rebuilds)
	g.POST("/rebuild/:subject", h.rebuild)
	for _, a := range Actions {
		g.POST("/users/:member/"+string(a), h.moderate(a))
	}

	// The background task queue (tasks.go).
	g.GET("/tasks", h.tasksPage)
	g.POST("/tasks/:task/retry", h.retryTask)
	g.POST("/tasks/kinds/:kind/retry", h.retryKind)
	g.POST("/tasks/:task/discard", h.discardTask)

	// The moderation queue (reports.go, reports_handlers.go).
	q := g.Group("/reports")
	q.GET("", h.reports)
	q.GET("/closed", h.closedReports)
	q.GET("/:report/picture", h.reportPicture)
	q.POST("/:report/take-down", h.resolve(adminDesk, true))
	q.POST("/:report/dismiss", h.resolve(adminDesk, false))

	// The reports staff besides the admins judge (review.go): a forum
	// section's moderators, theirs. Someone who reviews nothing is
	// refused there.
	r := e.Group(reviewURL, auth.RequireAccount, s.requireReviewer())
	r.GET("", h.review)
	r.POST("/:report/take-down", h.resolve(reviewDesk, true))
	r.POST("/:report/dismiss", h.resolve(reviewDesk, false))
}

// handlers are the admin pages' HTTP handlers: each parses the request,
// calls one Service method and renders.
type handlers struct {
	svc *Service
}

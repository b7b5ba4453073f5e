package inbox

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
)

// Routes registers the inbox pages; every one is the signed-in account's.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	acc := e.Group("/inbox", auth.RequireAccount)
	acc.GET("", h.show)
	// The bell and the page follow the inbox through its stream (live.go).
	acc.GET("/stream", h.stream, live.Bound(s.streams, ErrTooManyStreams))
	acc.GET("/bell", h.bell)
	acc.POST("/read-all", h.markAllRead)
	acc.GET("/:id", h.open)
	acc.POST("/:id/read", h.markRead)
}

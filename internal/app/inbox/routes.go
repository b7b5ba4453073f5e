package inbox

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
)

// Routes registers the inbox pages; every one is the signed-in account's.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	acc := e.Group("/inbox", auth.RequireAccount)
	acc.GET("", h.show)
	acc.POST("/read-all", h.markAllRead)
	acc.GET("/:id", h.open)
	acc.POST("/:id/read", h.markRead)
}

package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

type healthResponse struct {
	OK      bool   `json:"ok"`
	Time    string `json:"time"`
	Version string `json:"version"`
}

// health answers load balancers cheaply: it touches no storage, so a slow
// backend cannot make every instance look dead at once.
func (s *Server) health(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, healthResponse{
		OK:      true,
		Time:    s.now().UTC().Format(time.RFC3339),
		Version: s.version,
	})
}

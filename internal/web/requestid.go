package web

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/logctx"
)

const requestIDKey = "web.request_id"

// assignRequestID gives every request a fresh id, echoed in X-Request-ID
// and in every log line about it. An incoming X-Request-ID is ignored: a
// client could use it to make its requests look like someone else's.
func (s *Server) assignRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		b := make([]byte, 8)
		rand.Read(b) // never fails
		id := hex.EncodeToString(b)
		c.Set(requestIDKey, id)
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		req := c.Request()
		c.SetRequest(req.WithContext(logctx.WithRequestID(req.Context(), id)))
		return next(c)
	}
}

// RequestID returns the request's id, as logged and sent in X-Request-ID.
func RequestID(c echo.Context) string {
	id, _ := c.Get(requestIDKey).(string)
	return id
}

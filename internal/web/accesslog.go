package web

import (
	"log/slog"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/static"
)

// countStorageOps puts a storage counter in the request context. Outside
// production the counts also go out in X-Storage-Ops; echo's Before hook
// sets the header just before the status line is written, when the counts
// are final for anything that rendered into a buffer first.
func (s *Server) countStorageOps(next echo.HandlerFunc) echo.HandlerFunc {
	exposed := !s.cfg.IsProduction()
	return func(c echo.Context) error {
		req := c.Request()
		ctx, counter := storage.WithCounter(req.Context())
		c.SetRequest(req.WithContext(ctx))
		if exposed {
			res := c.Response()
			res.Before(func() {
				res.Header().Set("X-Storage-Ops", counter.Snapshot().String())
			})
		}
		return next(c)
	}
}

// secretParams are the route parameters that carry a secret: a join
// link's session, a token, a file name that is itself the key (a
// calendar feed's, a picture's). The access log writes "…" for them, so
// whoever reads the logs cannot use the links they saw.
var secretParams = map[string]bool{"session": true, "token": true, "file": true}

// loggedPath is the request's path as the access log writes it: with
// the values of secretParams left out.
func loggedPath(c echo.Context) string {
	names, values := c.ParamNames(), c.ParamValues()
	secret := false
	for _, n := range names {
		secret = secret || secretParams[n]
	}
	if !secret {
		return c.Request().URL.Path
	}
	value := make(map[string]string, len(names))
	for i, n := range names {
		if i < len(values) {
			value[n] = values[i]
		}
	}
	parts := strings.Split(c.Path(), "/")
	for i, p := range parts {
		if n, ok := strings.CutPrefix(p, ":"); ok {
			parts[i] = value[n]
			if secretParams[n] {
				parts[i] = "…"
			}
		}
	}
	return strings.Join(parts, "/")
}

// logAccess writes one line per request after the response is complete. It
// hands errors to the error handler itself, so the line has the final
// status and the storage cost of the error page too.
func (s *Server) logAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		req, res := c.Request(), c.Response()
		ctx := req.Context()
		level := slog.LevelInfo
		if strings.HasPrefix(req.URL.Path, static.Prefix) || req.URL.Path == "/api/health" {
			level = slog.LevelDebug // probes and assets would drown the log
		}
		if !s.log.Enabled(ctx, level) {
			return nil
		}
		s.log.LogAttrs(ctx, level, "request",
			slog.String("method", req.Method),
			slog.String("path", loggedPath(c)),
			slog.Int("status", res.Status),
			slog.Duration("duration", time.Since(start)),
			slog.Int64("bytes", res.Size),
			slog.String("request_id", RequestID(c)),
			slog.String("ip", c.RealIP()),
			slog.String("storage", storage.CounterFrom(ctx).Snapshot().String()),
		)
		return nil
	}
}

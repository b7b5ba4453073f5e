package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/labstack/echo/v4"
)

// BodyLimiter is a Module whose routes take bodies larger than BODY_LIMIT,
// such as photo uploads.
type BodyLimiter interface {
	// BodyLimits maps a route path, as registered ("/account/photo"), to
	// its body limit in bytes.
	BodyLimits() map[string]int64
}

// routeBodyLimits collects the modules' own limits.
func routeBodyLimits(modules []Module) map[string]int64 {
	limits := map[string]int64{}
	for _, m := range modules {
		if bl, ok := m.(BodyLimiter); ok {
			for path, n := range bl.BodyLimits() {
				limits[path] = n
			}
		}
	}
	return limits
}

// DefaultBodyTime is how long a request's body may take to arrive: a
// photo of some megabytes over a slow phone connection, not a body
// trickled a byte at a time to hold a connection open for ever (the
// server's ReadHeaderTimeout bounds the headers alone, and it has no
// ReadTimeout, which would cut the chat's streams).
const DefaultBodyTime = 2 * time.Minute

// limitBody refuses bodies over BODY_LIMIT, or the route's own limit: at
// once when Content-Length says so, else when reading passes the limit
// (http.MaxBytesError → 413). Echo has routed the request by now, so
// c.Path() is the route's pattern. A body must arrive within bodyTime:
// past it the connection's reads fail, and the request with them.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		limit := s.cfg.BodyLimit
		if n, ok := s.bodyLimits[c.Path()]; ok {
			limit = n
		}
		req := c.Request()
		if req.ContentLength > limit {
			return WithCode(http.StatusRequestEntityTooLarge,
				fmt.Errorf("body of %d bytes exceeds the %d-byte limit", req.ContentLength, limit))
		}
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		body := &timedBody{ReadCloser: http.MaxBytesReader(c.Response(), req.Body, limit)}
		req.Body = body
		// The real clock: the deadline is the connection's. net/http
		// clears it once the body is in (its background read), so a long
		// answer (a rebuild) is not cut.
		if err := http.NewResponseController(c.Response()).SetReadDeadline(time.Now().Add(s.bodyTime)); err != nil {
			s.log.WarnContext(req.Context(), "web: no read deadline for a body", "err", err)
		}
		err := next(c)
		if body.late && !c.Response().Committed {
			// Whatever the handler made of a body cut short, it was not
			// the request sent.
			return &Error{Status: http.StatusRequestTimeout, Cause: errBodyLate}
		}
		return err
	}
}

// errBodyLate is a body that did not arrive within bodyTime (408). The
// request's context ends with the connection's failed read, but the
// person is still there to read why (handleError).
var errBodyLate = errors.New("web: the request's body did not arrive in time")

// timedBody notes a read that failed at the connection's deadline.
type timedBody struct {
	io.ReadCloser
	late bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		b.late = true
	}
	return n, err
}

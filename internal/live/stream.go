package live

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/ratelimit"
)

// The streams: a page that follows changes opens a Server-Sent Events
// stream (htmx's hx-sse:connect), whose handler subscribes to the feed and
// runs Follow until the client goes, the server drains or the handler
// says it is done. A comment each heartbeat keeps proxies from dropping
// it, and is when the handler asks again whether the viewer may still
// see what it follows. An "event: reset" makes the page reload
// (static/js/app.js), to what the viewer may see now.

// ErrEnd ends a stream that has said all it will.
var ErrEnd = errors.New("live: stream ends")

// Reset is the event that reloads the page, with why as its data.
func Reset(why string) string { return "event: reset\ndata: " + why + "\n\n" }

// Start answers with an event stream: no caching, no proxy buffering,
// the headers sent at once.
func Start(c echo.Context) *echo.Response {
	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	w.Flush()
	return w
}

// Ping writes msg (a comment or a small event) and flushes it.
func Ping(w *echo.Response, msg string) error {
	if _, err := w.Write([]byte(msg)); err != nil {
		return err
	}
	w.Flush()
	return nil
}

// WriteEvent writes one event (not flushed): its id (none: the client's
// last id stays), and the component's HTML as data lines.
func WriteEvent(ctx context.Context, w *echo.Response, id string, comp interface {
	Render(context.Context, io.Writer) error
}) error {
	var b bytes.Buffer
	if err := comp.Render(ctx, &b); err != nil {
		return err
	}
	var out bytes.Buffer
	if id != "" {
		out.WriteString("id: " + id + "\n")
	}
	sc := bufio.NewScanner(&b)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		out.WriteString("data: ")
		out.WriteString(strings.TrimRight(sc.Text(), "\r"))
		out.WriteByte('\n')
	}
	out.WriteByte('\n')
	_, err := w.Write(out.Bytes())
	return err
}

// Follow is what an open stream does: Beat every Every, OnWake when Wake
// fires, OnRead when Read does, OnTyping when Typing does (chat: a read
// marker moved, someone is writing; a nil channel never fires). An error
// ends it, and so do the client going and Done closing (the feed
// drained).
type Follow struct {
	Every    time.Duration
	Done     <-chan struct{}
	Beat     func() error
	Wake     <-chan struct{}
	OnWake   func() error
	Read     <-chan struct{}
	OnRead   func() error
	Typing   <-chan struct{}
	OnTyping func() error
}

// Run follows until the stream ends.
func (f Follow) Run(ctx context.Context) {
	beat := time.NewTicker(f.Every)
	defer beat.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-f.Done:
			return
		case <-beat.C:
			err = f.Beat()
		case <-f.Wake:
			err = f.OnWake()
		case <-f.Read:
			err = f.OnRead()
		case <-f.Typing:
			err = f.OnTyping()
		}
		if err != nil {
			return
		}
	}
}

// Bound is the route middleware that admits a stream while its asker
// holds fewer than limit's bound open on this instance, before anything
// is read for it; past it, refuse (a 429 with its message).
func Bound(limit *ratelimit.Concurrent, refuse error) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key := auth.From(c).MemberKey
			if !limit.Acquire(key) {
				return refuse
			}
			defer limit.Release(key)
			return next(c)
		}
	}
}

// Sessions tells whether an identity's session still holds (auth).
type Sessions interface {
	StillSignedIn(ctx context.Context, id *auth.Identity) error
}

// SignedOut ends a stream whose viewer's session ended after it opened
// (signed out, signed out everywhere, disabled): a reset reloads the
// page, to the sign-in it now needs. A failed check ends it too: the
// client reconnects through the sign-in check. Nil sessions check
// nothing.
func SignedOut(ctx context.Context, w *echo.Response, sessions Sessions, id *auth.Identity) error {
	if sessions == nil {
		return nil
	}
	err := sessions.StillSignedIn(ctx, id)
	if err == nil {
		return nil
	}
	if errors.Is(err, auth.ErrSignedOut) {
		_ = Ping(w, Reset("signed-out"))
	}
	return ErrEnd
}

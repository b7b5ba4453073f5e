package live

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
)

// Signals serves the streams that only say "it changed": a named event
// with no content, on which the page fetches itself again (htmx) and
// swaps the part that changed. Pages that show something many writes
// touch (a group's list, its calendar) follow it this way: the page's
// own handler renders what is there now, so the stream never repeats
// the page's reads or its rules.
type Signals struct {
	Feed     *Feed
	Sessions Sessions
	// Every is the heartbeat.
	Every time.Duration
}

// heartbeat is the comment a signal stream sends each Every.
const heartbeat = ": ping\n\n"

// Serve answers c with a stream of topics: "event: {event}" at each
// change, once check (may the viewer still see it?) passes, which it
// is also asked with each heartbeat, after the session. A check refused
// with a 4xx (the thing deleted, the viewer removed) says "reset", and
// the page reloads to what they may see now; any other error only ends
// the stream, and the client reconnects through the page's access again.
func (s Signals) Serve(c echo.Context, event string, check func(context.Context) error, topics ...string) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	wake := make(chan struct{}, 1)
	sub := s.Feed.Subscribe(Notify(wake), topics...)
	defer s.Feed.Unsubscribe(sub)
	w := Start(c)
	checked := func() error {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if f, ok := errors.AsType[*fault.Error](err); ok && f.Status() < http.StatusInternalServerError {
			_ = Ping(w, Reset("gone"))
		}
		return ErrEnd
	}
	changed := "event: " + event + "\ndata: change\n\n"
	Follow{Every: s.Every, Done: sub.Done, Wake: wake,
		Beat: func() error {
			if err := SignedOut(ctx, w, s.Sessions, id); err != nil {
				return err
			}
			if err := checked(); err != nil {
				return err
			}
			return Ping(w, heartbeat)
		},
		OnWake: func() error {
			if err := checked(); err != nil {
				return err
			}
			return Ping(w, changed)
		},
	}.Run(ctx)
	return nil
}

// Package livetest reads a live stream (Server-Sent Events) in tests.
package livetest

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/web/webtest"
)

// Event is one event of a stream: its id, name and data.
type Event struct{ ID, Name, Data string }

// Open opens path's stream as c and returns the answer's status and, for
// a 200, its events until the test ends or stop is called.
func Open(t testing.TB, c *webtest.Client, path string) (status int, events <-chan Event, stop func()) {
	t.Helper()
	return OpenFrom(t, c, path, "")
}

// OpenFrom is Open resuming after the event lastID, as a browser's
// reconnect does (Last-Event-ID; none when "").
func OpenFrom(t testing.TB, c *webtest.Client, path, lastID string) (status int, events <-chan Event, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("stream %s: %v", path, err)
	}
	t.Cleanup(cancel)
	out := make(chan Event, 100)
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		close(out)
		return res.StatusCode, out, cancel
	}
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev Event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev != (Event{}) {
					out <- ev
				}
				ev = Event{}
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Name = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data += line[6:] + "\n"
			}
		}
	}()
	return res.StatusCode, out, cancel
}

// Next is the stream's next event; it fails when none comes within 10 s
// (a bound on the wait, not a timing).
func Next(t testing.TB, events <-chan Event) Event {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return Event{}
}

// Take is the stream's next n events; it fails when the stream ends
// first, or they take over 10 s (a bound on the wait, not a timing).
func Take(t testing.TB, events <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended after %d of %d events", len(got), n)
			}
			got = append(got, ev)
		case <-timeout:
			t.Fatalf("%d of %d events in 10 s: %+v", len(got), n, got)
		}
	}
	return got
}

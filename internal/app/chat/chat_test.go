package chat_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

type app struct {
	*accounttest.App
	svc *chat.Service
}

func newApp(t *testing.T, env ...string) *app {
	vars := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	a := &app{}
	a.App = accounttest.New(t, accounttest.Options{
		Env: vars,
		Modules: []platform.Factory{func(c *platform.Core) (web.Module, error) {
			a.svc = chat.New(c.Store, c.Log, c.Now, chat.Options{TTL: c.Config.MessagesTTL, Rooms: []string{"general", "random"}, SendsPer10s: 5})
			return a.svc, nil
		}},
	})
	return a
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func post(c *webtest.Client, path string, form url.Values) *webtest.Response {
	return c.PostForm(path, c.WithCSRF("/chat", form))
}

// TestRoomsPageAndSend: the fixed rooms are seeded and listed; a message
// sent with a plain form lands in the room (redirected to it), counts as
// unread for someone else until they open the room; a bad message and a
// burst past the limit are refused with their reasons and write nothing.
func TestRoomsPageAndSend(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	list := ann.Get("/chat").Doc(t)
	if n := list.Find(testID("chat-item")).Length(); n != 2 || !strings.Contains(list.Find(testID("chat-list")).Text(), "#general") {
		t.Fatalf("the rooms: %d %q", n, list.Find(testID("chat-list")).Text())
	}
	res := post(ann, "/chat/room-general/messages", url.Values{"body": {"Hello, **everyone**"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/chat/room-general#m-1" {
		t.Fatalf("send: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if u := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).First().Text(); !strings.HasPrefix(u, "1") {
		t.Fatalf("bob's unread: %q", u)
	}
	room := bob.Get("/chat/room-general").Doc(t)
	if msg := room.Find(testID("chat-message")); msg.Length() != 1 || msg.Find("strong").Text() != "everyone" || msg.AttrOr("data-seq", "") != "1" {
		t.Fatalf("the room shows %q", msg.Text())
	}
	if bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Length() != 0 {
		t.Fatal("bob still has unread after opening the room")
	}
	for _, bad := range []string{"", "   ", strings.Repeat("я", chat.MaxBody+1), "bad\x00byte"} {
		res := post(ann, "/chat/room-general/messages", url.Values{"body": {bad}})
		if ops := res.StorageOps(t); res.StatusCode != http.StatusUnprocessableEntity || ops["writes"]+ops["txs"] != 0 {
			t.Errorf("body %q: %d %s", bad[:min(len(bad), 10)], res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	for i := range 4 {
		post(ann, "/chat/room-general/messages", url.Values{"body": {fmt.Sprint("quick ", i)}})
	}
	res = post(ann, "/chat/room-general/messages", url.Values{"body": {"one too many"}})
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too fast") {
		t.Fatalf("the sixth in ten seconds: %d", res.StatusCode)
	}
	a.Clock.Advance(11 * time.Second)
	if res := post(ann, "/chat/room-general/messages", url.Values{"body": {"later"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ten seconds on: %d", res.StatusCode)
	}
	for _, bad := range []string{"/chat/room-nope", "/chat/nothing", "/chat/room-general?before=x"} {
		if res := ann.Get(bad); res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d", bad, res.StatusCode)
		}
	}
}

// sseEvent is one event read from a stream.
type sseEvent struct{ id, event, data string }

// openStream connects c to a chat's stream, with lastID as
// Last-Event-ID when set, and returns its events as they come.
func openStream(t *testing.T, c *webtest.Client, path, lastID string) (<-chan sseEvent, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+path, nil)
	req.Header.Set("Accept", "text/html, text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := c.HTTP.Do(req)
	if err != nil || res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("stream %s: %v %v", path, err, res)
	}
	out := make(chan sseEvent, 100)
	go func() {
		defer close(out)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.id != "" || ev.event != "" || ev.data != "" {
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[6:] + "\n"
			}
		}
	}()
	return out, cancel
}

// next reads events until n arrived, or fails after a while.
func next(t *testing.T, events <-chan sseEvent, n int) []sseEvent {
	t.Helper()
	var got []sseEvent
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

func ids(evs []sseEvent) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.id)
	}
	return strings.Join(out, ",")
}

// TestStreamResumesExactlyOnce: a stream delivers each message as an
// event whose id is its sequence number; a client that drops and comes
// back with Last-Event-ID gets exactly the messages it missed, in order,
// none twice; a cursor past the log gets a reset.
func TestStreamResumesExactlyOnce(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	send := func(body string) {
		t.Helper()
		if res := post(ann, "/chat/room-random/messages", url.Values{"body": {body}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("send %q: %d", body, res.StatusCode)
		}
	}
	send("before the stream")
	events, stop := openStream(t, bob, "/chat/room-random/stream?after=1", "")
	send("one")
	send("two")
	got := next(t, events, 2)
	if ids(got) != "2,3" || !strings.Contains(got[0].data, "one") || !strings.Contains(got[1].data, `data-seq="3"`) {
		t.Fatalf("live: %+v", got)
	}
	stop()
	a.Clock.Advance(11 * time.Second) // the send limit's window
	for _, b := range []string{"three", "four", "five"} {
		send(b)
	}
	events, stop = openStream(t, bob, "/chat/room-random/stream?after=1", "3")
	defer stop()
	got = next(t, events, 3)
	if ids(got) != "4,5,6" || !strings.Contains(got[2].data, "five") {
		t.Fatalf("resumed: %+v", got)
	}
	select {
	case ev := <-events:
		t.Fatalf("an event beyond the missed ones: %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
	reset, stopReset := openStream(t, bob, "/chat/room-random/stream?after=999", "")
	defer stopReset()
	if ev := next(t, reset, 1)[0]; ev.event != "reset" {
		t.Fatalf("a cursor past the log: %+v", ev)
	}
	if res := bob.Get("/chat/room-random/stream?after=-1"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a negative cursor: %d", res.StatusCode)
	}
}

// backends are the stores the log tests run on: the embedded one, and
// Azurite when HARMONY_AZURITE names it.
func backends(t *testing.T) map[string]func(t *testing.T) *storage.Store {
	out := map[string]func(t *testing.T) *storage.Store{
		"embedded": func(t *testing.T) *storage.Store {
			b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return storage.New(b, storage.Options{})
		},
	}
	if os.Getenv("HARMONY_AZURITE") != "" || os.Getenv("HARMONY_REQUIRE_AZURITE") != "" {
		out["azurite"] = func(t *testing.T) *storage.Store {
			b, err := azure.Open(t.Context(), storagetest.AzuriteConnectionString(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return storage.New(b, storage.Options{Prefix: fmt.Sprintf("c%d", time.Now().UnixNano()%1e12)})
		}
	}
	return out
}

// TestConcurrentSendsAndInstances: 100 concurrent sends into one room
// all arrive, numbered 1 to 100 without gaps or repeats (one order for
// every reader); and a watcher on a second instance on the same store
// is woken by the activity feed and reads them.
func TestConcurrentSendsAndInstances(t *testing.T) {
	t.Parallel()
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := open(t)
			a := chat.New(store, nil, nil, chat.Options{SendsPer10s: 1000})
			b := chat.New(store, nil, nil, chat.Options{SendsPer10s: 1000})
			if err := store.Provision(t.Context(), a.Tables(), nil); err != nil {
				t.Fatal(err)
			}
			if err := a.Seed(t.Context()); err != nil {
				t.Fatal(err)
			}
			room := chat.RoomID("general")
			sub := b.Hub().Subscribe(room)
			defer b.Hub().Unsubscribe(sub)
			var wg sync.WaitGroup
			for i := range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := a.Send(context.Background(), room, chat.Person{MemberKey: fmt.Sprintf("auth:p%03d", i), Name: "P"}, fmt.Sprint("message ", i)); err != nil {
						t.Errorf("send %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			deadline := time.After(10 * time.Second)
			var got []int64
			for len(got) < 100 {
				select {
				case <-sub.Wake:
				case <-deadline:
					t.Fatalf("the other instance has %d of 100", len(got))
				}
				var last int64
				if len(got) > 0 {
					last = got[len(got)-1]
				}
				msgs, reset, err := b.Hub().Since(t.Context(), room, last)
				if err != nil || reset {
					t.Fatalf("since %d: reset %v, %v", last, reset, err)
				}
				for _, m := range msgs {
					got = append(got, m.Seq)
				}
			}
			want := make([]int64, 100)
			for i := range want {
				want[i] = int64(i + 1)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("sequence %v", got)
			}
			if b.Hub().FeedReads.Load() == 0 {
				t.Error("the second instance never read the feed")
			}
		})
	}
}

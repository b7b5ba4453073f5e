package chat_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/live/livetest"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

type app struct {
	*accounttest.App
	svc    *chat.Service
	groups *groups.Service
}

func newApp(t *testing.T, env ...string) *app { return newAppOn(t, nil, env...) }

// annAndBob are two browsers signed in as ann and bob.
func (a *app) annAndBob() (ann, bob *webtest.Client) {
	ann, bob = a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	return ann, bob
}

// newAppOn is newApp on a backend wrap wraps (accounttest.Options.Wrap).
func newAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend, env ...string) *app {
	vars := map[string]string{}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	if _, ok := vars["ADMIN_EMAILS"]; !ok {
		vars["ADMIN_EMAILS"] = "org@example.com"
	}
	// TEST_HEARTBEAT shortens the streams' heartbeat (chat.Options).
	var beat time.Duration
	if v, ok := vars["TEST_HEARTBEAT"]; ok {
		beat, _ = time.ParseDuration(v)
		delete(vars, "TEST_HEARTBEAT")
	}
	// TEST_SEARCH_SCAN lowers how many messages a search reads.
	scan := 0
	if v, ok := vars["TEST_SEARCH_SCAN"]; ok {
		scan, _ = strconv.Atoi(v)
		delete(vars, "TEST_SEARCH_SCAN")
	}
	a := &app{}
	var g *groups.Service
	var ev *events.Service
	var in *inbox.Service
	a.App = accounttest.New(t, accounttest.Options{
		Env:  vars,
		Wrap: wrap,
		Modules: []platform.Factory{
			func(c *platform.Core) (web.Module, error) {
				var err error
				in, err = inbox.FromCore(c)
				return in, err
			},
			// The admin section: its moderation queue takes reports.
			func(c *platform.Core) (web.Module, error) {
				return admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now), nil
			},
			func(c *platform.Core) (web.Module, error) {
				g = groups.New(c.Store, c.Accounts, c.Cursors, c.Config.BaseURL.String(), c.Log, c.Now)
				a.groups = g
				return g, nil
			},
			func(c *platform.Core) (web.Module, error) {
				ev = events.New(c.Store, c.Cursors, c.Log, c.Now)
				return ev, nil
			},
			func(c *platform.Core) (web.Module, error) {
				a.svc = chat.New(c.Store, c.Log, c.Now, chat.Options{TTL: c.Config.MessagesTTL, Rooms: []string{"general", "random"}, SendsPer10s: 5, Heartbeat: beat, SearchScan: scan})
				a.svc.UseGroups(g)
				g.UseChat(a.svc)
				ev.UseChat(a.svc)
				a.svc.UseEvents(ev)
				a.svc.UsePeople(c.Accounts)
				a.svc.UseSessions(c.Auth)
				a.svc.UseNotifier(in)
				in.UseBlocks(a.svc)
				in.UseQuotes("chat", a.svc)
				return a.svc, a.svc.UseTasks(c.Tasks)
			},
		},
	})
	return a
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

// smiths is a group "The Smiths" that owner makes and the members (by
// address) join, invited and accepting; it returns the group's id.
func smiths(owner *webtest.Client, members map[string]*webtest.Client) string {
	home := post(owner, "/groups", url.Values{"name": {"The Smiths"}}).Header.Get("Location")
	groupID := strings.Split(home, "/")[2]
	for email, c := range members {
		post(owner, "/groups/"+groupID+"/invites", url.Values{"email": {email}})
		post(c, "/groups/"+groupID+"/invite/accept", nil)
	}
	return groupID
}

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
	ann, bob := a.annAndBob()
	list := ann.Get("/chat").Doc(t)
	if n := list.Find(testID("chat-item")).Length(); n != 2 || !strings.Contains(list.Find(testID("chat-list")).Text(), "#general") {
		t.Fatalf("the rooms: %d %q", n, list.Find(testID("chat-list")).Text())
	}
	res := post(ann, "/chat/room-general/messages", url.Values{"body": {"Hello, **everyone**"}})
	// Her first message there says she joined (entry 1), then the message.
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/chat/room-general#m-2" {
		t.Fatalf("send: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if u := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).First().Text(); !strings.HasPrefix(u, "1") {
		t.Fatalf("bob's unread: %q", u)
	}
	room := bob.Get("/chat/room-general").Doc(t)
	if msg := room.Find(testID("chat-message")); msg.Length() != 1 || msg.Find("strong").Text() != "everyone" || msg.AttrOr("data-seq", "") != "2" {
		t.Fatalf("the room shows %q", msg.Text())
	}
	if bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Length() != 0 {
		t.Fatal("bob still has unread after opening the room")
	}
	for _, bad := range []string{"", "   ", strings.Repeat("я", chat.MaxBody+1), "bad\x00byte"} {
		res := post(ann, "/chat/room-general/messages", url.Values{"body": {bad}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Body, "up to 1,000 characters") {
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
type sseEvent = livetest.Event

// openStream connects c to a chat's stream, with lastID as
// Last-Event-ID when set, and returns its events as they come.
func openStream(t *testing.T, c *webtest.Client, path, lastID string) (<-chan sseEvent, func()) {
	t.Helper()
	status, events, stop := livetest.OpenFrom(t, c, path, lastID)
	if status != http.StatusOK {
		t.Fatalf("stream %s: %d", path, status)
	}
	return events, stop
}

// next reads events until n arrived, or fails after a while.
func next(t *testing.T, events <-chan sseEvent, n int) []sseEvent {
	t.Helper()
	return livetest.Take(t, events, n)
}

func ids(evs []sseEvent) string {
	var out []string
	for _, e := range evs {
		out = append(out, e.ID)
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
	ann, bob := a.annAndBob()
	send := func(body string) {
		t.Helper()
		if res := post(ann, "/chat/room-random/messages", url.Values{"body": {body}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("send %q: %d", body, res.StatusCode)
		}
	}
	send("before the stream") // 1 says ann joined, 2 is this
	events, stop := openStream(t, bob, "/chat/room-random/stream?after=2", "")
	send("one")
	send("two")
	got := next(t, events, 2)
	if ids(got) != "3,4" || !strings.Contains(got[0].Data, "one") || !strings.Contains(got[1].Data, `data-seq="4"`) {
		t.Fatalf("live: %+v", got)
	}
	stop()
	a.Clock.Advance(11 * time.Second) // the send limit's window
	for _, b := range []string{"three", "four", "five"} {
		send(b)
	}
	events, stop = openStream(t, bob, "/chat/room-random/stream?after=2", "4")
	defer stop()
	got = next(t, events, 3)
	if ids(got) != "5,6,7" || !strings.Contains(got[2].Data, "five") {
		t.Fatalf("resumed: %+v", got)
	}
	select {
	case ev := <-events:
		t.Fatalf("an event beyond the missed ones: %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
	reset, stopReset := openStream(t, bob, "/chat/room-random/stream?after=999", "")
	defer stopReset()
	if ev := next(t, reset, 1)[0]; ev.Name != "reset" {
		t.Fatalf("a cursor past the log: %+v", ev)
	}
	if res := bob.Get("/chat/room-random/stream?after=-1"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a negative cursor: %d", res.StatusCode)
	}
}

// backends are the stores the log tests run on: the embedded one, and
// Azurite when HARMONY_AZURITE names it.

// TestConcurrentSendsAndInstances: 100 concurrent sends into one room
// all arrive, numbered 1 to 100 without gaps or repeats (one order for
// every reader); and a watcher on a second instance on the same store
// is woken by the activity feed and reads them.
func TestConcurrentSendsAndInstances(t *testing.T) {
	t.Parallel()
	for name, open := range storetest.Backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := open(t)
			a := chat.New(store, nil, time.Now, chat.Options{SendsPer10s: 1000})
			b := chat.New(store, nil, time.Now, chat.Options{SendsPer10s: 1000})
			if err := store.Provision(t.Context(), append(a.Tables(), live.Table), nil); err != nil {
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
					if _, err := a.Send(context.Background(), chat.ChatRow{PartitionKey: "chat|room", RowKey: room, Kind: chat.KindRoom}, chat.Person{MemberKey: fmt.Sprintf("auth:p%03d", i), Name: "P"}, fmt.Sprint("message ", i)); err != nil {
						t.Errorf("send %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			deadline := time.After(10 * time.Second)
			var got []int64
			texts := 0
			for {
				select {
				case <-sub.Wake:
				case <-deadline:
					t.Fatalf("the other instance has %d of 100 messages", texts)
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
					if m.Type == chat.TypeText {
						texts++
					}
				}
				if texts == 100 {
					break
				}
			}
			// Each sender's first message says they joined: 200 entries,
			// numbered 1..200 without gaps or repeats, in one order.
			want := make([]int64, len(got))
			for i := range want {
				want[i] = int64(i + 1)
			}
			if !slices.Equal(got, want) || len(got) != 200 {
				t.Fatalf("%d entries, sequence %v", len(got), got)
			}
			if b.Live().Reads.Load() == 0 {
				t.Error("the second instance never read the feed")
			}
			// A read marker moved on one instance reaches the other's
			// watchers too ("seen by" follows it).
			a.Hub().Read(t.Context(), room)
			select {
			case <-sub.Read:
			case <-time.After(10 * time.Second):
				t.Error("the other instance did not hear of the read marker")
			}
		})
	}
}

// TestPrivateGroupAndEventChats: a private chat opened from either side,
// twice, is one chat that only its two people see, and its first message
// puts it in the other's list; a group's chat is for its active members
// and a removed member loses it on the next request; an event's chat lets
// people going post, the waitlist read (unless the organizer closes it),
// and shuts out whoever cancels.
func TestPrivateGroupAndEventChats(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat, org := a.Client(), a.Client(), a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	a.SignIn(org, "org@example.com")

	open := func(c *webtest.Client, member string) string {
		t.Helper()
		res := post(c, "/chat/private", url.Values{"member": {member}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("private chat with %s: %d", member, res.StatusCode)
		}
		return res.Header.Get("Location")
	}
	dm := open(ann, bobKey)
	if again, back := open(ann, bobKey), open(bob, annKey); again != dm || back != dm {
		t.Fatalf("one private chat: %s %s %s", dm, again, back)
	}
	if res := post(ann, "/chat/private", url.Values{"member": {annKey}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a private chat with oneself: %d", res.StatusCode)
	}
	if res := post(ann, "/chat/private", url.Values{"member": {"auth:nobody"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("a private chat with nobody: %d", res.StatusCode)
	}
	if res := cat.Get(dm); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a third person opens the private chat: %d", res.StatusCode)
	}
	if title := strings.TrimSpace(ann.Get(dm).Doc(t).Find("#chat-name").Children().Remove().End().Text()); title != "bob" {
		t.Errorf("ann's private chat is titled %q", title)
	}
	post(ann, dm+"/messages", url.Values{"body": {"Coffee tomorrow?"}})
	item := bob.Get("/chat").Doc(t).Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "ann") })
	if item.Length() != 1 || !strings.HasPrefix(item.Find(testID("chat-unread")).Text(), "1") {
		t.Fatalf("bob's list: %q", bob.Get("/chat").Doc(t).Find(testID("chat-list")).Text())
	}

	// A group's chat.
	home := post(ann, "/groups", url.Values{"name": {"The Smiths"}}).Header.Get("Location")
	groupID := strings.Split(home, "/")[2]
	post(ann, "/groups/"+groupID+"/invites", url.Values{"email": {"bob@example.com"}})
	post(bob, "/groups/"+groupID+"/invite/accept", nil)
	gchat := "/chat/group-" + groupID
	if res := post(bob, gchat+"/messages", url.Values{"body": {"Hi family"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob posts in the group: %d", res.StatusCode)
	}
	if ann.Get(gchat).Doc(t).Find(testID("chat-message")).Length() != 1 {
		t.Fatal("ann does not see the group's message")
	}
	if res := cat.Get(gchat); res.StatusCode != http.StatusNotFound {
		t.Fatalf("someone outside the group: %d", res.StatusCode)
	}
	// Bob's open stream ends when he is removed, on any instance.
	bobStream, stopBob := openStream(t, bob, gchat+"/stream?after=99999", "")
	if ev := next(t, bobStream, 1)[0]; ev.Name != "reset" {
		t.Fatalf("a cursor past the log: %+v", ev)
	}
	stopBob()
	head, _ := storage.Get[chat.HeadRow](t.Context(), a.Store.Table(chat.MessagesTable), "group-"+groupID, "h")
	bobStream, stopBob = openStream(t, bob, gchat+"/stream?after="+strconv.FormatInt(head.Seq, 10), "")
	defer stopBob()
	roster := ann.Get("/groups/" + groupID + "/members").Doc(t)
	bobRow := roster.Find(testID("roster-row")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "bob") })
	if bobRow.Find(testID("member-message")).Length() != 1 {
		t.Error("the roster offers no private message to bob")
	}
	remove := post(ann, "/groups/"+groupID+"/members/"+bobRow.AttrOr("data-member", "")+"/remove", url.Values{"confirm": {"yes"}})
	if remove.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove bob: %d", remove.StatusCode)
	}
	if ev := next(t, bobStream, 1)[0]; ev.Name != "reset" || !strings.Contains(ev.Data, "left") {
		t.Fatalf("bob's open stream after his removal: %+v", ev)
	}
	if res := bob.Get(gchat); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a removed member opens the group's chat: %d", res.StatusCode)
	}
	if !strings.Contains(ann.Get(gchat).Doc(t).Find(testID("chat-system")).Text(), "left") {
		t.Error("the group's chat does not say bob left")
	}
	if res := post(bob, gchat+"/messages", url.Values{"body": {"still here?"}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a removed member posts: %d", res.StatusCode)
	}
	// Nor does his chat list's stream follow the group's chat: its news
	// would tell him when the group talks. A room's message still comes.
	news, stopNews := openStream(t, bob, "/chat/news", "")
	defer stopNews()
	quiet := func(d time.Duration) (heard []sseEvent) {
		for {
			select {
			case ev := <-news:
				heard = append(heard, ev)
			case <-time.After(d):
				return heard
			}
		}
	}
	// The feed's first poll may repeat the last seconds' sends (hints
	// that cost a refresh), later on a loaded machine: a room's message
	// heard shows the stream is past it; then wait until it is quiet.
	post(ann, "/chat/room-general/messages", url.Values{"body": {"are you there?"}})
	if ev := next(t, news, 1)[0]; ev.Name != "news" {
		t.Fatalf("bob's list after a room's message: %+v", ev)
	}
	quiet(2 * time.Second)
	post(ann, gchat+"/messages", url.Values{"body": {"bob is gone"}})
	if heard := quiet(2 * time.Second); len(heard) != 0 { // the stream waits a second to say news
		t.Fatalf("bob's list hears of the group he left: %+v", heard)
	}
	post(ann, "/chat/room-general/messages", url.Values{"body": {"hello all"}})
	if ev := next(t, news, 1)[0]; ev.Name != "news" {
		t.Fatalf("bob's list after a room's message: %+v", ev)
	}

	// An event's chat: one seat, ann going, cat waiting.
	page := post(org, "/events", url.Values{"title": {"Quiz"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "capacity": {"1"}}).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(cat, page+"/register", nil)
	echat := "/chat/event-" + strings.TrimPrefix(page, "/events/")
	if ann.Get(page).Doc(t).Find(testID("event-chat")).AttrOr("href", "") != echat {
		t.Fatal("the event page does not link its chat")
	}
	if res := post(ann, echat+"/messages", url.Values{"body": {"See you there"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann (going) posts: %d", res.StatusCode)
	}
	doc := cat.Get(echat).Doc(t)
	if doc.Find(testID("chat-message")).Length() != 1 || doc.Find(testID("chat-read-only")).Length() != 1 || doc.Find(testID("chat-form")).Length() != 0 {
		t.Fatal("the waitlisted cat does not read the chat read-only")
	}
	if res := post(cat, echat+"/messages", url.Values{"body": {"me too"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("cat (waiting) posts: %d", res.StatusCode)
	}
	if res := bob.Get(echat); res.StatusCode != http.StatusNotFound {
		t.Fatalf("someone not registered: %d", res.StatusCode)
	}
	post(ann, page+"/cancel", url.Values{"confirm": {"yes"}}) // cat gets the seat
	if res := ann.Get(echat); res.StatusCode != http.StatusNotFound {
		t.Fatalf("ann after cancelling: %d", res.StatusCode)
	}
	if res := post(cat, echat+"/messages", url.Values{"body": {"I'm in!"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cat, promoted, posts: %d", res.StatusCode)
	}
	// Ann registers again, and waits: she reads, and edits nothing, not
	// even her own message of a minute ago.
	post(ann, page+"/register", nil)
	doc = ann.Get(echat).Doc(t)
	if doc.Find(testID("chat-read-only")).Length() != 1 || doc.Find(testID("chat-edit")).Length() != 0 {
		t.Fatal("ann, waiting, is offered to edit her message")
	}
	if res := post(ann, echat+"/messages/1/edit", url.Values{"body": {"See you all there"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("ann, waiting, edits her message: %d", res.StatusCode)
	}
}

// TestEditAndDelete: a sender edits within 15 minutes (marked edited)
// and deletes (a tombstone); others cannot, an admin can delete anyone's;
// a deleted message leaves no unread count behind; a stream delivers
// each change as a replacement of the message it changed.
func TestEditAndDelete(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, org := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	a.SignIn(org, "org@example.com")
	room := "/chat/room-general"
	post(bob, room+"/messages", url.Values{"body": {"bob here"}})
	post(ann, room+"/messages", url.Values{"body": {"first draft"}})
	post(ann, room+"/messages", url.Values{"body": {"second"}})
	events, stop := openStream(t, org, room+"/stream?after=5", "")
	defer stop()

	if res := post(ann, room+"/messages/4/edit", url.Values{"body": {"final text"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	if ev := next(t, events, 1)[0]; ev.ID != "6" || !strings.Contains(ev.Data, `hx-swap-oob="outerMorph"`) || !strings.Contains(ev.Data, `id="m-4"`) || !strings.Contains(ev.Data, "final text") {
		t.Fatalf("the edit on the stream: %+v", ev)
	}
	msg := org.Get(room).Doc(t).Find("#m-4")
	if !strings.Contains(msg.Text(), "final text") || msg.Find(testID("chat-edited")).Length() != 1 {
		t.Fatalf("the edited message: %q", msg.Text())
	}
	if n := org.Get(room).Doc(t).Find(testID("chat-message")).Length(); n != 3 {
		t.Fatalf("the room lists %d messages (edits are not messages)", n)
	}
	for _, bad := range []struct {
		path string
		want int
	}{{room + "/messages/4/edit", http.StatusForbidden}, {room + "/messages/4/delete", http.StatusForbidden}, {room + "/messages/99/edit", http.StatusNotFound}, {room + "/messages/x/edit", http.StatusNotFound}} {
		if res := post(bob, bad.path, url.Values{"body": {"hijack"}, "confirm": {"yes"}}); res.StatusCode != bad.want {
			t.Errorf("bob: %s: %d, want %d", bad.path, res.StatusCode, bad.want)
		}
	}
	// Nor is anyone asked first to delete what is not theirs, or not there.
	for path, want := range map[string]int{room + "/messages/4/delete": http.StatusForbidden, room + "/messages/99/delete": http.StatusNotFound} {
		if res := post(bob, path, nil); res.StatusCode != want || res.Doc(t).Find(testID("chat-delete")).Length() != 0 {
			t.Errorf("bob asked: %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	// The refusal names the limit (it once showed "{max}").
	if res := post(ann, room+"/messages/4/edit", url.Values{"body": {""}}); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "up to 1,000 characters") {
		t.Errorf("an empty edit: %d", res.StatusCode)
	}
	a.Clock.Advance(16 * time.Minute)
	if res := post(ann, room+"/messages/5/edit", url.Values{"body": {"too late"}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("an edit after 15 minutes: %d", res.StatusCode)
	}
	// Bob has two unread from ann; she deletes one: one is left.
	bobs := func() string {
		return bob.Get("/chat").Doc(t).Find(testID("chat-item")).First().Find(testID("chat-unread")).Text()
	}
	if u := bobs(); !strings.HasPrefix(u, "2") {
		t.Fatalf("bob's unread before: %q", u)
	}
	if res := post(ann, room+"/messages/5/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if u := bobs(); !strings.HasPrefix(u, "1") {
		t.Fatalf("bob's unread after a deletion: %q", u)
	}
	if ev := next(t, events, 1)[0]; ev.ID != "7" || !strings.Contains(ev.Data, `data-deleted="true"`) {
		t.Fatalf("the deletion on the stream: %+v", ev)
	}
	if bob.Get(room).Doc(t).Find("#m-5 "+testID("chat-tombstone")).Length() != 1 {
		t.Fatal("no tombstone")
	}
	if res := post(org, room+"/messages/2/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an admin deletes bob's message: %d", res.StatusCode)
	}
	// A stream that resumes from before the changes gets the messages as
	// they are now, though this instance's hub held them as sent for
	// org's stream: 4 and 5 (edited, deleted), then the three changes.
	late, stopLate := openStream(t, bob, room+"/stream?after=3", "")
	defer stopLate()
	got := next(t, late, 5)
	if ids(got) != "4,5,6,7,8" {
		t.Fatalf("resumed after the changes: %+v", got)
	}
	for _, ev := range got {
		if strings.Contains(ev.Data, "first draft") || strings.Contains(ev.Data, "<p>second</p>") || strings.Contains(ev.Data, "bob here") {
			t.Errorf("the stream serves a message as it was before a change: %+v", ev)
		}
	}
}

// TestEditsCountAsSends: edits count against the send limit (5 in 10 s
// here), so a loop of edits cannot bury a room; the same text again
// writes nothing to the chat.
func TestEditsCountAsSends(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"v0"}})
	// Message 1 is the line saying Ann joined: its words are the app's.
	if res := post(ann, room+"/messages/1/edit", url.Values{"body": {"left in a huff"}}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("an edit of a system line: %d", res.StatusCode)
	}
	for i := 1; i <= 3; i++ {
		if res := post(ann, room+"/messages/2/edit", url.Values{"body": {fmt.Sprint("v", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit %d: %d", i, res.StatusCode)
		}
	}
	res := post(ann, room+"/messages/2/edit", url.Values{"body": {"v5"}})
	if res.StatusCode != http.StatusTooManyRequests || res.StorageOps(t)["txs"] != 0 {
		t.Fatalf("the sixth send or edit in 10 s: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	a.Clock.Advance(11 * time.Second)
	res = post(ann, room+"/messages/2/edit", url.Values{"body": {"v3"}})
	if res.StatusCode != http.StatusSeeOther || res.StorageOps(t)["txs"] != 0 {
		t.Fatalf("the same text again: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	if text := ann.Get(room).Doc(t).Find("#m-2").Text(); !strings.Contains(text, "v3") {
		t.Fatalf("the message reads %q", text)
	}
}

// TestMessagesExpire: with MESSAGES_TTL an expired message is never
// served (page, stream, unread count, the list's preview) even though
// the sweeper has not run; the sweeper then deletes the expired rows of
// every chat, idle ones too.
func TestMessagesExpire(t *testing.T) {
	t.Parallel()
	a := newApp(t, "MESSAGES_TTL", "1h")
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"old one"}})
	post(ann, room+"/messages", url.Values{"body": {"old two"}})
	post(ann, "/chat/room-random/messages", url.Values{"body": {"an idle room's only message"}})
	a.Clock.Advance(30 * time.Minute)
	post(ann, room+"/messages", url.Values{"body": {"fresh"}})
	a.Clock.Advance(31 * time.Minute)
	if n := bob.Get(room).Doc(t).Find(testID("chat-message")).Length(); n != 1 {
		t.Fatalf("the room shows %d messages, want only the fresh one", n)
	}
	events, stop := openStream(t, bob, room+"/stream?after=0", "")
	if got := next(t, events, 1); ids(got) != "4" {
		t.Fatalf("the stream from the start: %s", ids(got))
	}
	stop()
	list := bob.Get("/chat").Doc(t)
	random := list.Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "#random") })
	if strings.Contains(random.Text(), "idle room") || random.Find(testID("chat-unread")).Length() != 0 {
		t.Fatalf("an expired message in the list: %q", random.Text())
	}
	// The expired: general's join, two messages; random's join and one.
	n, err := a.svc.SweepExpired(t.Context())
	if err != nil || n != 5 {
		t.Fatalf("swept %d, %v; want 5", n, err)
	}
	left, _ := storage.All[chat.MessageRow](t.Context(), a.Store.Table(chat.MessagesTable), storage.Query{PartitionKey: chat.RoomID("general"), RowKeyPrefix: "m|"})
	if len(left) != 1 || left[0].Body != "fresh" {
		t.Fatalf("left after the sweep: %+v", left)
	}
}

// TestPresence: a private chat shows the other person's presence once
// they have written in it (starting a chat with someone tells nobody
// when they are online); someone is online for two minutes after a sign
// of life, their instance writes it at most once a minute, and appearing
// offline hides them whatever they do.
func TestPresence(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	dm := post(bob, "/chat/private", url.Values{"member": {annKey}}).Header.Get("Location")
	state := func() string {
		return bob.Get(dm).Doc(t).Find("#chat-presence "+testID("presence")).AttrOr("data-state", "")
	}
	ann.PostForm("/chat/presence", ann.WithCSRF("/chat", nil))
	post(bob, dm+"/messages", url.Values{"body": {"are you online?"}})
	listed := func() int {
		return bob.Get("/chat").Doc(t).Find(testID("chat-item") + " " + testID("presence")).Length()
	}
	if s, n := bob.Get(dm).Doc(t).Find("#chat-presence "+testID("presence")).Length(), listed(); s != 0 || n != 0 {
		t.Fatalf("ann, online, never wrote to bob, yet his chat shows %d dots and his list %d", s, n)
	}
	post(ann, dm+"/messages", url.Values{"body": {"yes"}})
	if s, n := state(), listed(); s != "online" || n != 1 {
		t.Fatalf("once ann wrote: %q, %d dots in the list", s, n)
	}
	a.Clock.Advance(2*time.Minute + time.Second)
	if s := state(); s != "offline" {
		t.Fatalf("before any sign of life: %q", s)
	}
	beat := func() int64 {
		res := ann.PostForm("/chat/presence", ann.WithCSRF("/chat", nil))
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("heartbeat: %d", res.StatusCode)
		}
		return res.Writes(t)
	}
	if w := beat(); w != 1 {
		t.Fatalf("the first heartbeat wrote %d", w)
	}
	if s := state(); s != "online" {
		t.Fatalf("after a heartbeat: %q", s)
	}
	a.Clock.Advance(30 * time.Second)
	if w := beat(); w != 0 {
		t.Fatalf("a heartbeat within the minute wrote %d", w)
	}
	a.Clock.Advance(2*time.Minute + time.Second)
	if s := state(); s != "offline" {
		t.Fatalf("two minutes later: %q", s)
	}
	post(ann, "/chat/appear-offline", url.Values{"hidden": {"true"}})
	beat()
	if s := state(); s != "offline" {
		t.Fatalf("appearing offline: %q", s)
	}
	if ann.Get("/chat").Doc(t).Find(testID("appear-online")).Length() != 1 {
		t.Error("ann's list does not offer to show her again")
	}
}

// TestPrivateMessageToSomeoneAway: a private message to someone offline
// reaches their inbox, at most once per chat per hour; to someone online
// it does not.
func TestPrivateMessageToSomeoneAway(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	notices := func() int { return a.Inbox(bob).Length() }
	for _, b := range []string{"are you there?", "hello?", "ping"} {
		post(ann, dm+"/messages", url.Values{"body": {b}})
	}
	if n := notices(); n != 1 {
		t.Fatalf("bob away: %d notices for three messages, want 1", n)
	}
	a.Clock.Advance(time.Hour)
	post(ann, dm+"/messages", url.Values{"body": {"an hour later"}})
	if n := notices(); n != 2 {
		t.Fatalf("an hour later: %d notices", n)
	}
	a.Clock.Advance(time.Hour)
	bob.PostForm("/chat/presence", bob.WithCSRF("/chat", nil))
	post(ann, dm+"/messages", url.Values{"body": {"now you are here"}})
	if n := notices(); n != 2 {
		t.Fatalf("bob online got a notice: %d", n)
	}
}

// TestOpensAtFirstUnread: a chat opens at the first unread message with
// a divider and a little context above it, pages older and newer by
// cursor, jumps to the latest, and "unread from here" moves the marker
// back on purpose.
func TestOpensAtFirstUnread(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	csrf := ann.WithCSRF("/chat", nil)
	for i := 1; i <= 80; i++ {
		if i%5 == 1 {
			a.Clock.Advance(11 * time.Second)
		}
		form := url.Values{"body": {fmt.Sprint("message ", i)}}
		for k, v := range csrf {
			form[k] = v
		}
		if res := ann.PostForm(room+"/messages", form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("send %d: %d", i, res.StatusCode)
		}
	}
	seqs := func(d *goquery.Document) (int, int) {
		m := d.Find(testID("chat-message"))
		first, _ := strconv.Atoi(m.First().AttrOr("data-seq", ""))
		last, _ := strconv.Atoi(m.Last().AttrOr("data-seq", ""))
		return first, last
	}
	bob.Get(room + "?before=21") // bob reads up to 20
	doc := bob.Get(room).Doc(t)
	if f, l := seqs(doc); f != 16 || l != 65 {
		t.Fatalf("the page opens at %d..%d, want 16..65", f, l)
	}
	if doc.Find(testID("first-unread")).Next().AttrOr("data-seq", "") != "21" {
		t.Fatal("the divider is not above message 21")
	}
	if doc.Find(testID("chat-stream")).Length() != 0 {
		t.Fatal("a page short of the newest streams")
	}
	newer := bob.Get(doc.Find(testID("chat-newer")).AttrOr("href", "")).Doc(t)
	// Entry 1 says ann joined: her 80 messages are 2..81.
	if f, l := seqs(newer); f != 66 || l != 81 || newer.Find(testID("chat-stream")).Length() != 1 {
		t.Fatalf("newer: %d..%d", f, l)
	}
	older := bob.Get(doc.Find(testID("chat-older")).AttrOr("href", "")).Doc(t)
	if f, l := seqs(older); f != 2 || l != 15 {
		t.Fatalf("older: %d..%d", f, l)
	}
	latest := bob.Get(room + "?latest=1").Doc(t)
	if f, l := seqs(latest); f != 32 || l != 81 {
		t.Fatalf("latest: %d..%d", f, l)
	}
	if res := post(bob, room+"/messages/30/unread", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unread from 30: %d", res.StatusCode)
	}
	if u := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).First().Text(); !strings.HasPrefix(u, "52") {
		t.Fatalf("unread after marking from 30: %q", u)
	}
	// Only a message the chat has: a number past its newest would mark
	// everyone's messages to come as read ("seen by" them).
	for _, bad := range []string{"500", "999999999"} {
		res := post(bob, room+"/messages/"+bad+"/unread", nil)
		if u := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).First().Text(); res.StatusCode != http.StatusNotFound || !strings.HasPrefix(u, "52") {
			t.Errorf("unread from %s: %d, then %q unread", bad, res.StatusCode, u)
		}
	}
	for _, bad := range []string{"?before=0", "?after=-1", "?before=x"} {
		if res := bob.Get(room + bad); res.StatusCode != http.StatusBadRequest {
			t.Errorf("GET %s: %d", bad, res.StatusCode)
		}
	}
}

// TestMentions: "@name" tells that participant in their inbox, once an
// hour per chat; a name nobody here has, or the sender's own, tells no
// one. In a private chat the private message's own notice is all.
func TestMentions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, cat := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	cat.Get(room) // cat is a participant once she has opened it
	post(ann, room+"/messages", url.Values{"body": {"@cat the slides are up, @ann too, @nobody"}})
	post(ann, room+"/messages", url.Values{"body": {"no mention for @catherine"}})
	post(ann, room+"/messages", url.Values{"body": {"@cat again"}})
	items := a.Inbox(cat)
	if items.Length() != 1 || !strings.Contains(items.Text(), "mentioned you") {
		t.Fatalf("cat's inbox: %d %q", items.Length(), items.Text())
	}
	a.Clock.Advance(time.Hour)
	post(ann, room+"/messages", url.Values{"body": {"@cat an hour later"}})
	dm := post(ann, "/chat/private", url.Values{"member": {catKey}}).Header.Get("Location")
	for i := range 3 {
		post(ann, dm+"/messages", url.Values{"body": {fmt.Sprint("@cat are you there? ", i)}})
	}
	if items := a.Inbox(cat); items.Length() != 3 {
		t.Fatalf("cat's inbox after an hour and three private mentions: %d %q", items.Length(), items.Text())
	}
	if n := a.Inbox(ann).Length(); n != 0 {
		t.Fatalf("ann is told of her own mention: %d", n)
	}
	general := func() *goquery.Selection {
		return cat.Get("/chat").Doc(t).Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "#general") })
	}
	if g := general(); g.Find(testID("chat-mentions")).Length() != 1 {
		t.Fatalf("cat's list shows no mention badge: %q", g.Text())
	}
	cat.Get(room)
	if general().Find(testID("chat-mentions")).Length() != 0 {
		t.Fatal("the mention badge stays after reading")
	}
}

// refusingParticipants fails, while on, every write of a participant
// row, as a store that stopped answering would.
type refusingParticipants struct {
	storage.Backend
	on *atomic.Bool
}

func (r refusingParticipants) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if r.on.Load() && strings.HasPrefix(e.RowKey, "p|") {
		return "", storage.ErrTransient
	}
	return r.Backend.Insert(ctx, table, e)
}

// A participant row that failed to be written is written on the next
// visit: until then nobody can mention that person.
func TestAFailedParticipantRowIsWrittenNextVisit(t *testing.T) {
	t.Parallel()
	var on atomic.Bool
	a := newAppOn(t, func(b storage.Backend) storage.Backend { return refusingParticipants{b, &on} })
	ann, cat := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	on.Store(true)
	if res := cat.Get(room); res.StatusCode != http.StatusOK {
		t.Fatalf("the room opens while its participant row fails: %d", res.StatusCode)
	}
	on.Store(false)
	cat.Get(room)
	post(ann, room+"/messages", url.Values{"body": {"@cat the slides are up"}})
	if items := a.Inbox(cat); items.Length() != 1 || !strings.Contains(items.Text(), "mentioned you") {
		t.Fatalf("cat's inbox: %d %q", items.Length(), items.Text())
	}
}

// A notice quotes the start of a message: an edit changes the quote,
// and a deletion takes it out (the notice then says the message was
// deleted), in a private chat and for a mention alike.
func TestNoticesFollowEditsAndDeletions(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, cat := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	cat.Get(room)
	post(ann, room+"/messages", url.Values{"body": {"@cat the door code is 4711"}}) // 1 says ann joined
	dm := post(ann, "/chat/private", url.Values{"member": {catKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"the key is under the mat"}})
	inbox := func() string {
		t.Helper()
		items := a.Inbox(cat)
		if items.Length() != 2 {
			t.Fatalf("cat's inbox: %d %q", items.Length(), items.Text())
		}
		return items.Text()
	}
	if got := inbox(); !strings.Contains(got, "4711") || !strings.Contains(got, "under the mat") {
		t.Fatalf("cat's inbox quotes neither message: %q", got)
	}

	if res := post(ann, room+"/messages/2/edit", url.Values{"body": {"@cat the door is open"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	if got := inbox(); strings.Contains(got, "4711") || !strings.Contains(got, "the door is open") {
		t.Fatalf("the mention's notice after the edit: %q", got)
	}
	if res := post(ann, dm+"/messages/1/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if got := inbox(); strings.Contains(got, "under the mat") || !strings.Contains(got, "ann wrote to you (the message is no longer there)") {
		t.Fatalf("the private notice after the deletion: %q", got)
	}
	if res := post(ann, room+"/messages/2/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if got := inbox(); strings.Contains(got, "the door") || !strings.Contains(got, "mentioned you in #general (the message is no longer there)") {
		t.Fatalf("the mention's notice after the deletion: %q", got)
	}
}

// A message deleted while its notice waits in the queue is quoted
// nowhere: not in the inbox nor in the email the delivery sends.
func TestAMessageDeletedBeforeItsNoticeIsDeliveredIsNotQuoted(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, cat := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	cat.Get(room)
	post(ann, room+"/messages", url.Values{"body": {"@cat the door code is 4711"}}) // 1 says ann joined
	dm := post(ann, "/chat/private", url.Values{"member": {catKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"the key is under the mat"}})
	for _, path := range []string{room + "/messages/2/delete", dm + "/messages/1/delete"} {
		if res := post(ann, path, url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete %s: %d", path, res.StatusCode)
		}
	}
	items := a.Inbox(cat)
	if got := items.Text(); items.Length() != 2 || strings.Contains(got, "4711") || strings.Contains(got, "under the mat") || !strings.Contains(got, "ann wrote to you (the message is no longer there)") {
		t.Fatalf("cat's inbox: %d %q", items.Length(), got)
	}
	for _, m := range a.Mail() {
		if m.To == "cat@example.com" && (strings.Contains(m.Text, "4711") || strings.Contains(m.Text, "under the mat")) {
			t.Fatalf("cat's email quotes a deleted message: %q", m.Text)
		}
	}
}

// A notice stops quoting a message once it expires (MESSAGES_TTL).
func TestNoticesStopQuotingExpiredMessages(t *testing.T) {
	t.Parallel()
	a := newApp(t, "MESSAGES_TTL", "1h")
	ann, cat := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {catKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"the key is under the mat"}})
	if items := a.Inbox(cat); items.Length() != 1 || !strings.Contains(items.Text(), "under the mat") {
		t.Fatalf("cat's inbox: %d %q", items.Length(), items.Text())
	}
	a.Clock.Advance(time.Hour)
	if items := a.Inbox(cat); items.Length() != 1 || strings.Contains(items.Text(), "under the mat") || !strings.Contains(items.Text(), "ann wrote to you (the message is no longer there)") {
		t.Fatalf("cat's inbox after the message expired: %d %q", items.Length(), items.Text())
	}
}

// TestBlock: someone blocked is folded away for the blocker in shared
// rooms, cannot be messaged privately by the blocker, and never notifies
// them (private messages, mentions); the blocked person sees no change
// and is not told; unblocking undoes it.
func TestBlock(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	room := "/chat/room-general"
	ann.Get(room)
	post(bob, room+"/messages", url.Values{"body": {"hello from bob"}})
	if res := post(ann, "/chat/block", url.Values{"member": {bobKey}, "name": {"bob"}}); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 {
		t.Fatalf("block without confirming: %d", res.StatusCode)
	}
	// Nobody is asked to block themselves or no one.
	for _, who := range []string{annKey, "", "not a key"} {
		if res := post(ann, "/chat/block", url.Values{"member": {who}}); res.StatusCode != http.StatusBadRequest || res.Doc(t).Find(testID("confirm-page")).Length() != 0 {
			t.Errorf("asked to block %q: %d", who, res.StatusCode)
		}
	}
	if res := post(ann, "/chat/block", url.Values{"member": {bobKey}, "name": {"bob"}, "confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("block: %d", res.StatusCode)
	}
	if d := ann.Get(room).Doc(t); d.Find(testID("chat-collapsed")).Length() != 1 {
		h, _ := d.Find(testID("chat-messages")).Html()
		t.Fatalf("bob's message is not folded away for ann: %s", h)
	}
	if d := bob.Get(room).Doc(t); d.Find(testID("chat-collapsed")).Length() != 0 || strings.Contains(d.Text(), "blocked") {
		t.Fatal("bob sees a difference")
	}
	if res := post(ann, "/chat/private", url.Values{"member": {bobKey}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("ann messages someone she blocked: %d", res.StatusCode)
	}
	dm := post(bob, "/chat/private", url.Values{"member": {annKey}})
	if dm.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob, who is not told, opens a private chat: %d", dm.StatusCode)
	}
	post(bob, dm.Header.Get("Location")+"/messages", url.Values{"body": {"are you there?"}})
	post(bob, room+"/messages", url.Values{"body": {"@ann look"}})
	if n := a.Inbox(ann).Length(); n != 0 {
		t.Fatalf("ann got %d notices from bob", n)
	}
	// His pictures are folded too, and her list shows their chat with
	// nothing of what he wrote.
	if res := bob.PostFile(room+"/messages", bob.WithCSRF("/chat", url.Values{"body": {"look at this"}}), "image", "x.png", mediatest.EncodedPNG(t, 64, 64)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob's picture: %d", res.StatusCode)
	}
	if n := ann.Get(room).Doc(t).Find(testID("chat-collapsed")).Length(); n != 3 {
		t.Fatalf("%d of bob's 3 messages in the room are folded for ann", n)
	}
	// What he writes next counts for nothing in her list: no unread
	// count, no mention.
	post(bob, room+"/messages", url.Values{"body": {"@ann one more"}})
	shown := 0
	for _, item := range ann.Get("/chat").Doc(t).Find(testID("chat-item")).EachIter() {
		switch text := item.Text(); {
		case strings.Contains(text, "#general"):
			if item.Find(testID("chat-item-folded")).Length() != 1 || strings.Contains(text, "one more") || item.Find(testID("chat-unread")).Length() != 0 || item.Find(testID("chat-mentions")).Length() != 0 {
				t.Fatalf("ann's list shows the room's last message, bob's, as %q", text)
			}
		case item.Find("a").AttrOr("href", "") == dm.Header.Get("Location"):
			if item.Find(testID("chat-item-blocked")).Length() != 1 || strings.Contains(text, "are you there") || item.Find(testID("chat-unread")).Length() != 0 {
				t.Fatalf("ann's list shows bob's private chat as %q", text)
			}
			shown++
		}
	}
	if shown != 1 {
		t.Fatalf("bob's private chat is %d times in ann's list", shown)
	}
	if res := post(ann, dm.Header.Get("Location")+"/messages", url.Values{"body": {"hi"}}); res.StatusCode != http.StatusConflict {
		t.Fatalf("ann writes in the private chat with bob: %d", res.StatusCode)
	}
	if ann.Get("/chat").Doc(t).Find(testID("blocked-person")).Length() != 1 {
		t.Fatal("ann's list does not show whom she blocked")
	}
	post(ann, "/chat/unblock", url.Values{"member": {bobKey}})
	if res := post(ann, "/chat/private", url.Values{"member": {bobKey}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("after unblocking: %d", res.StatusCode)
	}
	if ann.Get(room).Doc(t).Find(testID("chat-collapsed")).Length() != 0 {
		t.Fatal("still folded after unblocking")
	}
}

// TestSeenBy: under the newest message of a private chat its sender sees
// who read it, from the read markers; the reader is not told that they
// saw it; someone who turned read receipts off is left out.
func TestSeenBy(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"did you see this?"}})
	seen := func() string { return ann.Get(dm).Doc(t).Find(testID("chat-seen")).Text() }
	if s := seen(); s != "" {
		t.Fatalf("seen before bob opened it: %q", s)
	}
	bob.Get(dm)
	if s := seen(); s != "Seen by bob" {
		t.Fatalf("after bob read it: %q", s)
	}
	if s := bob.Get(dm).Doc(t).Find(testID("chat-seen")).Text(); s != "" {
		t.Fatalf("bob is told he saw ann's message: %q", s)
	}
	post(bob, "/chat/receipts", url.Values{"send": {"false"}})
	if s := seen(); s != "" {
		t.Fatalf("bob sends no receipts, yet: %q", s)
	}
}

// TestSeenByAndPresenceAreLive: an open stream of a private chat sends
// the "seen by" line again when the other person reads (no id, so the
// resume point stays), and the other person's presence as it changes.
func TestSeenByAndPresenceAreLive(t *testing.T) {
	t.Parallel()
	a := newApp(t, "TEST_HEARTBEAT", "100ms")
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(bob, dm+"/messages", url.Values{"body": {"hi ann"}}) // his presence shows from now on
	a.Clock.Advance(3 * time.Minute)
	post(ann, dm+"/messages", url.Values{"body": {"did you see this?"}})
	after := ann.Get(dm).Doc(t).Find(testID("chat-stream")).AttrOr("hx-sse:connect", "")
	if after == "" {
		t.Fatal("ann's page has no stream")
	}
	events, stop := openStream(t, ann, after, "")
	defer stop()
	within := func(what string, wait time.Duration, ok func(sseEvent) bool) bool {
		t.Helper()
		timeout := time.After(wait)
		for {
			select {
			case ev, open := <-events:
				if !open {
					t.Fatalf("the stream ended waiting for %s", what)
				}
				if ok(ev) {
					if ev.ID != "" {
						t.Errorf("%s came with id %q", what, ev.ID)
					}
					return true
				}
			case <-timeout:
				return false
			}
		}
	}
	until := func(what string, ok func(sseEvent) bool) {
		t.Helper()
		if !within(what, 10*time.Second, ok) {
			t.Fatalf("no %s in 10 s", what)
		}
	}
	// Bob is offline until his own stream opens.
	until("bob offline", func(ev sseEvent) bool {
		return strings.Contains(ev.Data, `id="chat-presence"`) && strings.Contains(ev.Data, `data-state="offline"`)
	})
	bobEvents, stopBob := openStream(t, bob, dm+"/stream?after=0", "")
	next(t, bobEvents, 1)
	// Bob's own stream shows him no "seen by" for ann's message (its
	// first status comes with his first heartbeat, with ann's presence).
	for ev := range bobEvents {
		if strings.Contains(ev.Data, `id="chat-seen"`) {
			if strings.Contains(ev.Data, "Seen by") {
				t.Fatalf("bob's stream tells him he saw it: %q", ev.Data)
			}
			break
		}
	}
	until("seen by bob", func(ev sseEvent) bool {
		return strings.Contains(ev.Data, `id="chat-seen"`) && strings.Contains(ev.Data, "Seen by bob")
	})
	until("bob online", func(ev sseEvent) bool { return strings.Contains(ev.Data, `data-state="online"`) })
	stopBob()
	// Bob's stream may beat once more before the server sees it closed
	// (a sign of life at the advanced time): the clock moves again then.
	for i := 0; ; i++ {
		a.Clock.Advance(3 * time.Minute)
		if within("bob offline again", time.Second, func(ev sseEvent) bool { return strings.Contains(ev.Data, `data-state="offline"`) }) {
			break
		}
		if i == 5 {
			t.Fatal("bob is still online five clock moves after his stream closed")
		}
	}
}

// TestNewPrivateChatsPerDay: a person starts at most 20 new private
// chats a day (each brings a first message, notice and mail, to someone
// new): the 21st is a 429 that writes nothing; one they have already
// opens as before; the next day they may start more.
func TestNewPrivateChatsPerDay(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	var people []string
	for i := range 22 {
		people = append(people, a.SignIn(a.Client(), fmt.Sprintf("p%d@example.com", i)))
	}
	start := func(member string) *webtest.Response {
		return post(ann, "/chat/private", url.Values{"member": {member}})
	}
	var first string
	for i, p := range people[:20] {
		res := start(p)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("new chat %d: %d", i, res.StatusCode)
		}
		if i == 0 {
			first = res.Header.Get("Location")
		}
	}
	res := start(people[20])
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 || !strings.Contains(res.Body, "many new chats today") {
		t.Fatalf("a 21st new chat in a day: %d", res.StatusCode)
	}
	if res := start(people[0]); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != first || res.Writes(t) != 0 {
		t.Fatalf("reopening a chat: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	a.Clock.Advance(24 * time.Hour)
	if res := start(people[21]); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a new chat the next day: %d", res.StatusCode)
	}
}

// TestSignedOutEndsStreams: streams opened before their viewer is
// signed out everywhere (what disabling an account does too) end at the
// next heartbeat with a "reset" that reloads the page, to the sign-in it
// now needs.
func TestSignedOutEndsStreams(t *testing.T) {
	t.Parallel()
	a := newApp(t, "TEST_HEARTBEAT", "100ms")
	ann, annPhone, bob := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(annPhone, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"hello"}})
	post(bob, dm+"/messages", url.Values{"body": {"hi ann"}})
	room, stopRoom := openStream(t, ann, dm+"/stream?after=1", "")
	defer stopRoom()
	news, stopNews := openStream(t, ann, "/chat/news", "")
	defer stopNews()
	// The chat's stream runs while the session stands: bob's message, and
	// his presence with the heartbeat.
	next(t, room, 2)
	if res := post(annPhone, "/account/sessions/revoke-all", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign out everywhere: %d", res.StatusCode)
	}
	for name, events := range map[string]<-chan sseEvent{"chat": room, "list": news} {
		reset, deadline := false, time.After(10*time.Second)
	read:
		for {
			select {
			case ev, open := <-events:
				if !open {
					break read
				}
				reset = reset || ev.Name == "reset" && strings.TrimSpace(ev.Data) == "signed-out"
			case <-deadline:
				t.Fatalf("the %s stream still runs 10 s after its viewer was signed out", name)
			}
		}
		if !reset {
			t.Errorf("the %s stream ended without a reset", name)
		}
	}
}

// TestAdminRooms: admins create, rename and archive rooms; an archived
// room leaves the list and its page; others cannot reach the page; bad
// names and taken slugs are refused and write nothing.
func TestAdminRooms(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	if res := ann.Get("/admin/chat-rooms"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member opens the rooms: %d", res.StatusCode)
	}
	create := func(slug, name string) *webtest.Response {
		return post(org, "/admin/chat-rooms", url.Values{"slug": {slug}, "name": {name}, "description": {"Books we read"}})
	}
	for _, bad := range [][2]string{{"Book Club", "Book club"}, {"book-club", ""}} {
		if res := create(bad[0], bad[1]); res.StatusCode != http.StatusUnprocessableEntity || res.StorageOps(t)["writes"] != 0 {
			t.Errorf("create %q: %d", bad, res.StatusCode)
		}
	}
	if res := create("general", "Again"); res.StatusCode != http.StatusConflict {
		t.Errorf("a taken slug: %d", res.StatusCode)
	}
	if !strings.Contains(ann.Get("/chat").Doc(t).Find(testID("chat-list")).Text(), "#general") {
		t.Error("the taken room changed")
	}
	if res := create("book-club", "Book club"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	if !strings.Contains(ann.Get("/chat/rooms").Doc(t).Find(testID("directory-rooms")).Text(), "#Book club") {
		t.Fatal("the new room is not in the directory")
	}
	if res := post(org, "/admin/chat-rooms/room-book-club", url.Values{"name": {"Readers"}, "archived": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("archive: %d", res.StatusCode)
	}
	if strings.Contains(ann.Get("/chat/rooms").Doc(t).Find(testID("directory-rooms")).Text(), "Readers") {
		t.Fatal("an archived room is in the directory")
	}
	if res := ann.Get("/chat/room-book-club"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("an archived room's page: %d", res.StatusCode)
	}
}

// TestRoomDirectoryAndPrivateRooms: a new public room is in the
// directory, not in anyone's list, until they join it (or post in it);
// leaving takes it out, fixed rooms included. A private room is its
// members' only: others get 404 everywhere, and join only by its invite
// link, which an admin can replace (the old one then opens nothing).
func TestRoomDirectoryAndPrivateRooms(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann, bob, cat := a.Client(), a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	post(org, "/admin/chat-rooms", url.Values{"slug": {"book-club"}, "name": {"Book club"}})
	post(org, "/admin/chat-rooms", url.Values{"slug": {"staff"}, "name": {"Staff"}, "private": {"true"}})
	list := func(c *webtest.Client) string { return c.Get("/chat").Doc(t).Find(testID("chat-list")).Text() }
	inDir := func(c *webtest.Client, room string) string {
		return c.Get("/chat/rooms").Doc(t).Find(testID("directory-room")+`[data-room="`+room+`"]`).AttrOr("data-in", "absent")
	}
	if got := inDir(ann, "room-book-club"); got != "false" || strings.Contains(list(ann), "Book club") {
		t.Fatalf("before joining: directory %q, list %q", got, list(ann))
	}
	if inDir(ann, "room-staff") != "absent" {
		t.Error("a private room is in an outsider's directory")
	}
	// A public room reads before joining, with a Join button.
	if d := ann.Get("/chat/room-book-club").Doc(t); d.Find(testID("room-join")).Length() != 1 {
		t.Error("the room page offers no Join")
	}
	if res := post(ann, "/chat/room-book-club/join", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("join: %d", res.StatusCode)
	}
	if inDir(ann, "room-book-club") != "true" || !strings.Contains(list(ann), "#Book club") {
		t.Fatal("joined, yet not in the list")
	}
	post(ann, "/chat/room-book-club/leave", nil)
	post(ann, "/chat/room-general/leave", nil)
	if l := list(ann); strings.Contains(l, "Book club") || strings.Contains(l, "#general") {
		t.Fatalf("after leaving: %q", l)
	}
	if !strings.Contains(list(bob), "#general") {
		t.Error("ann's leaving took general from bob")
	}
	// Posting in a public room joins it.
	post(bob, "/chat/room-book-club/messages", url.Values{"body": {"first!"}})
	if !strings.Contains(list(bob), "#Book club") {
		t.Error("posting did not join")
	}

	// The private room: 404 everywhere for an outsider, writes nothing.
	for _, path := range []string{"/chat/room-staff", "/chat/room-staff/stream", "/chat/room-staff/join", "/chat/room-staff/join?key=nope"} {
		if res := cat.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	for _, form := range []url.Values{nil, {"key": {"nope"}}} {
		if res := post(cat, "/chat/room-staff/join", form); res.StatusCode != http.StatusNotFound || res.StorageOps(t)["writes"] != 0 {
			t.Errorf("join with %v: %d", form, res.StatusCode)
		}
	}
	if res := post(cat, "/chat/room-staff/messages", url.Values{"body": {"hi"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("post to the private room: %d", res.StatusCode)
	}
	// The admin who made it is in it, and sees its link.
	link := org.Get("/chat/room-staff").Doc(t).Find("#chat-invite-url").AttrOr("value", "")
	if !strings.Contains(link, "/chat/room-staff/join?key=") {
		t.Fatalf("the invite link: %q", link)
	}
	u, _ := url.Parse(link)
	if d := ann.Get(u.RequestURI()).Doc(t); d.Find(testID("join-submit")).Length() != 1 {
		t.Fatal("the invite link shows no Join")
	}
	if res := post(ann, "/chat/room-staff/join", url.Values{"key": {u.Query().Get("key")}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("join by link: %d", res.StatusCode)
	}
	if res := ann.Get("/chat/room-staff"); res.StatusCode != http.StatusOK || !strings.Contains(list(ann), "#Staff") {
		t.Fatalf("a member: %d, list %q", res.StatusCode, list(ann))
	}
	// A new link: the old one opens nothing; members stay.
	post(org, "/admin/chat-rooms/room-staff", url.Values{"name": {"Staff"}, "private": {"true"}, "newLink": {"true"}})
	if res := cat.Get(u.RequestURI()); res.StatusCode != http.StatusNotFound {
		t.Errorf("the replaced link: %d", res.StatusCode)
	}
	if res := ann.Get("/chat/room-staff"); res.StatusCode != http.StatusOK {
		t.Errorf("a member after the new link: %d", res.StatusCode)
	}
	// Leaving a private room shuts it.
	post(ann, "/chat/room-staff/leave", nil)
	if res := ann.Get("/chat/room-staff"); res.StatusCode != http.StatusNotFound {
		t.Errorf("after leaving the private room: %d", res.StatusCode)
	}
	if res := post(ann, "/chat/room-nope/join", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("join a room that is not there: %d", res.StatusCode)
	}
}

// TestImageMessages: a picture (re-encoded by the media pipeline) with a
// caption is a message; it is served only to who may read the chat; a
// file that is not a picture is refused with a message and writes
// nothing.
func TestImageMessages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	res := ann.PostFile(dm+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"not a picture"}}), "image", "x.png", []byte("plain text"))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "field-error") || res.Writes(t) != 0 {
		t.Fatalf("a text file as a picture: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	res = ann.PostFile(dm+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"our garden"}}), "image", "garden.png", mediatest.EncodedPNG(t, 1600, 1200))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a picture: %d", res.StatusCode)
	}
	msg := bob.Get(dm).Doc(t).Find(testID("chat-message")).Last()
	src := msg.Find(testID("chat-image")+" img").AttrOr("src", "")
	if !strings.Contains(msg.Text(), "our garden") || !strings.HasSuffix(src, "_s.jpg") {
		t.Fatalf("the picture message: %q %q", msg.Text(), src)
	}
	if img := bob.Get(src); img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("bob gets the picture: %d", img.StatusCode)
	}
	if img := cat.Get(src); img.StatusCode != http.StatusNotFound {
		t.Fatalf("cat, outside the chat, gets the picture: %d", img.StatusCode)
	}
	if !strings.Contains(bob.Get("/chat").Doc(t).Find(testID("chat-list")).Text(), "📷 our garden") {
		t.Error("the list's preview does not say it is a picture")
	}
	// Deleted, the picture goes too: neither size is served, or stored.
	full := strings.TrimSuffix(src, "_s.jpg") + ".jpg"
	if res := post(ann, dm+"/messages/"+msg.AttrOr("data-seq", "")+"/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the picture message: %d", res.StatusCode)
	}
	for _, u := range []string{src, full} {
		if img := bob.Get(u); img.StatusCode != http.StatusNotFound {
			t.Errorf("a deleted message's picture %s: %d, want 404", u, img.StatusCode)
		}
	}
	if left, _ := a.Store.Container(chat.ImagesContainer).List(t.Context(), ""); len(left) != 0 {
		t.Errorf("pictures left after the delete: %v", left)
	}
}

// TestExpiredPicturesAreSwept: the sweeper deletes an expired picture
// message's blobs with the message.
func TestExpiredPicturesAreSwept(t *testing.T) {
	t.Parallel()
	a := newApp(t, "MESSAGES_TTL", "1h")
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	room := "/chat/room-general"
	res := ann.PostFile(room+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"sunset"}}), "image", "sunset.png", mediatest.EncodedPNG(t, 800, 600))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a picture: %d", res.StatusCode)
	}
	pictures := a.Store.Container(chat.ImagesContainer)
	if stored, _ := pictures.List(t.Context(), ""); len(stored) != 2 {
		t.Fatalf("%d blobs for one picture, want its two sizes", len(stored))
	}
	a.Clock.Advance(61 * time.Minute)
	if _, err := a.svc.SweepExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	if left, _ := pictures.List(t.Context(), ""); len(left) != 0 {
		t.Errorf("pictures left after their message expired and was swept: %v", left)
	}
}

// TestMarkReadIsRateLimited: a burst of page views moves the marker at
// most markReadBurst times before the limit holds it; a minute later it
// catches up.
func TestMarkReadIsRateLimited(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	bob := a.Client()
	a.SignIn(bob, "bob@example.com")
	var senders []*webtest.Client
	for _, e := range []string{"ann@example.com", "cat@example.com", "dan@example.com"} {
		c := a.Client()
		a.SignIn(c, e)
		senders = append(senders, c)
	}
	room := "/chat/room-general"
	bob.Get(room)
	writes := int64(0)
	for i := range 15 {
		post(senders[i%3], room+"/messages", url.Values{"body": {fmt.Sprint("m", i)}})
		writes += bob.Get(room).StorageOps(t)["writes"]
	}
	// Fifteen views that each had something new to mark: what is left of
	// the burst of 10 after the first view goes through, the rest wait.
	// Each move is two writes: the marker, and its row in the feed that
	// tells bob's lists open elsewhere (Hub.ReadBy).
	if writes != 2*9 {
		t.Fatalf("%d writes for 15 views, want 9 marker moves, 2 writes each", writes)
	}
	a.Clock.Advance(time.Minute)
	bob.Get(room)
	if u := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Length(); u != 0 {
		t.Fatal("the marker did not catch up")
	}
}

// TestRoomKeepsMessagesForItsDays: a room an admin set to keep messages
// for a day stops serving them after a day, without MESSAGES_TTL; a bad
// number of days is refused: the room's form comes back open, with the
// reason by the field and what was typed, and nothing is written.
func TestRoomKeepsMessagesForItsDays(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	res := post(org, "/admin/chat-rooms/room-random", url.Values{"name": {"Random things"}, "description": {"Typed"}, "keepDays": {"x"}, "archived": {"true"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Fatalf("keepDays=x: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	d := res.Doc(t)
	row := d.Find(`[data-room="room-random"]`)
	if row.Find("details[open]").Length() != 1 || d.Find("details[open]").Length() != 1 {
		t.Error("the refused room's form is not the one open")
	}
	if row.Find("#keep-room-random-error").Text() != "Give a number of days from 0 to 3650." {
		t.Errorf("the reason: %q", row.Find("#keep-room-random-error").Text())
	}
	if row.Find("#name-room-random").AttrOr("value", "") != "Random things" || row.Find("#desc-room-random").AttrOr("value", "") != "Typed" ||
		row.Find("#keep-room-random").AttrOr("value", "") != "x" || row.Find(`input[name="archived"]:checked`).Length() != 1 {
		t.Error("the form lost what was typed")
	}
	if got := row.Find(".row-title").Text(); !strings.Contains(got, "random") || strings.Contains(got, "Random things") || strings.Contains(got, "Archived") {
		t.Errorf("the row's head shows %q, not the room as saved", got)
	}
	if res := post(org, "/admin/chat-rooms/room-random", url.Values{"name": {"random"}, "keepDays": {"1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("keep a day: %d", res.StatusCode)
	}
	post(ann, "/chat/room-random/messages", url.Values{"body": {"gone tomorrow"}})
	post(ann, "/chat/room-general/messages", url.Values{"body": {"kept"}})
	a.Clock.Advance(25 * time.Hour)
	if n := ann.Get("/chat/room-random").Doc(t).Find(testID("chat-message")).Length(); n != 0 {
		t.Fatalf("a day later the room shows %d messages", n)
	}
	if n := ann.Get("/chat/room-general").Doc(t).Find(testID("chat-message")).Length(); n != 1 {
		t.Fatalf("the other room lost its message: %d", n)
	}
	if n, err := a.svc.SweepExpired(t.Context()); err != nil || n != 2 {
		t.Fatalf("swept %d, %v; want the message and its join", n, err)
	}
}

// TestDefaultRoom: everyone lands in the first fixed room until they
// choose another; a room that is not open cannot be chosen, and an
// archived choice falls back to the first.
func TestDefaultRoom(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	land := func() string { return ann.Get("/chat/default").Header.Get("Location") }
	if l := land(); l != "/chat/room-general" {
		t.Fatalf("by default: %s", l)
	}
	if res := post(ann, "/chat/default", url.Values{"room": {"room-random"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("choose: %d", res.StatusCode)
	}
	if l := land(); l != "/chat/room-random" {
		t.Fatalf("after choosing: %s", l)
	}
	if link := ann.Get("/chat").Doc(t).Find(testID("chat-default-link")); link.AttrOr("href", "") != "/chat/default" || !strings.Contains(link.Text(), "#random") {
		t.Fatalf("the list's way to the default room: %q", link.Text())
	}
	for _, bad := range []string{"room-nope", "dm-x", ""} {
		if res := post(ann, "/chat/default", url.Values{"room": {bad}}); res.StatusCode != http.StatusNotFound {
			t.Errorf("choose %q: %d", bad, res.StatusCode)
		}
	}
	post(org, "/admin/chat-rooms/room-random", url.Values{"name": {"random"}, "archived": {"true"}})
	if l := land(); l != "/chat/room-general" {
		t.Fatalf("with the choice archived: %s", l)
	}
}

// TestChatListNews: the chat list's stream says "news" when a chat in
// the list moves, so the page fetches itself again: once for one
// message, though the feed shows it on every poll for a few seconds (the
// test's clock stands still, so here it shows it on every poll).
func TestChatListNews(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	events, stop := openStream(t, bob, "/chat/news", "")
	defer stop()
	post(ann, "/chat/room-random/messages", url.Values{"body": {"anyone?"}})
	if ev := next(t, events, 1)[0]; ev.Name != "news" {
		t.Fatalf("the list's stream: %+v", ev)
	}
	select {
	case ev := <-events:
		t.Fatalf("one message, news again: %+v", ev)
	case <-time.After(3 * time.Second): // three polls of the feed
	}
}

// TestAPrefetchReadsNothing: a browser's prefetch of a chat, or another
// site's request for it, leaves its messages unread and is no visit (a
// room's visitor is someone one may mention there); opening it reads
// them, and makes the visitor one of the room's people.
func TestAPrefetchReadsNothing(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-random"
	post(ann, room+"/messages", url.Values{"body": {"anyone?"}})
	for _, h := range [][]string{{"Sec-Purpose", "prefetch"}, {"Sec-Fetch-Site", "cross-site"}} {
		if res := bob.Get(room, h...); res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", h[0], res.StatusCode)
		}
		if got := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Text(); !strings.Contains(got, "1") {
			t.Errorf("after a request with %s: unread %q", h[0], got)
		}
	}
	post(ann, room+"/messages", url.Values{"body": {"@bob are you there?"}})
	if items := a.Inbox(bob); items.Length() != 0 {
		t.Errorf("a mention of one who only prefetched the room: %q", items.Text())
	}
	bob.Get(room, "Sec-Fetch-Site", "same-origin")
	if n := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Length(); n != 0 {
		t.Errorf("after opening the chat: %d unread badges", n)
	}
	post(ann, room+"/messages", url.Values{"body": {"@bob now?"}})
	if items := a.Inbox(bob); items.Length() != 1 || !strings.Contains(items.Text(), "mentioned you") {
		t.Errorf("a mention of one who opened the room: %d %q", items.Length(), items.Text())
	}
}

// TestReadingOnAnotherDeviceIsLive: bob's chat list, open on his laptop,
// fetches itself again when he reads the chat on his phone (another
// session of his), and when he marks a message there unread, so its
// unread count follows; ann reading the room tells his list nothing.
func TestReadingOnAnotherDeviceIsLive(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	phone := a.Client()
	a.SignIn(phone, "bob@example.com")
	room := "/chat/room-random"
	events, stop := openStream(t, bob, "/chat/news", "")
	defer stop()
	post(ann, room+"/messages", url.Values{"body": {"anyone?"}})
	if ev := next(t, events, 1)[0]; ev.Name != "news" {
		t.Fatalf("the list's stream on a message: %+v", ev)
	}
	if got := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Text(); !strings.Contains(got, "1") {
		t.Fatalf("bob's unread before he reads: %q", got)
	}
	if ann.Get("/chat").Doc(t).Find(testID("chat-unread")).Length() != 0 {
		t.Fatal("ann has unread before cat writes")
	}
	// Cat writes, and ann reads it: her marker, not his.
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	post(cat, room+"/messages", url.Values{"body": {"me"}})
	if ev := next(t, events, 1)[0]; ev.Name != "news" {
		t.Fatalf("the list's stream on cat's message: %+v", ev)
	}
	ann.Get(room)
	select {
	case ev := <-events:
		t.Fatalf("someone else's reading, news: %+v", ev)
	case <-time.After(2 * time.Second):
	}
	phone.Get(room)
	if ev := next(t, events, 1)[0]; ev.Name != "news" {
		t.Fatalf("the list's stream when he read on his phone: %+v", ev)
	}
	if got := bob.Get("/chat").Doc(t).Find(testID("chat-unread")).Length(); got != 0 {
		t.Errorf("bob's list after he read on his phone: %d unread badges", got)
	}
	seq := seqOf(t, phone, room, "me")
	if res := post(phone, room+"/messages/"+seq+"/unread", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark unread: %d", res.StatusCode)
	}
	if ev := next(t, events, 1)[0]; ev.Name != "news" {
		t.Fatalf("the list's stream when he marked it unread on his phone: %+v", ev)
	}
}

// TestChatListPresenceIsLive: the list's stream says "news" when the
// other person of one of the reader's private chats comes online, and
// again when they go offline, with no message sent.
func TestChatListPresenceIsLive(t *testing.T) {
	t.Parallel()
	a := newApp(t, "TEST_HEARTBEAT", "100ms")
	ann, bob := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	dm := post(bob, "/chat/private", url.Values{"member": {annKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"hi bob"}}) // her presence shows from now on
	a.Clock.Advance(3 * time.Minute)
	bob.Get(dm)
	events, stop := openStream(t, bob, "/chat/news", "")
	defer stop()
	ann.PostForm("/chat/presence", ann.WithCSRF("/chat", nil))
	if ev := next(t, events, 1)[0]; ev.Name != "news" || ev.Data != "presence\n" {
		t.Fatalf("ann came online: %+v", ev)
	}
	a.Clock.Advance(3 * time.Minute)
	if ev := next(t, events, 1)[0]; ev.Name != "news" || ev.Data != "presence\n" {
		t.Fatalf("ann went offline: %+v", ev)
	}
}

// mentionNotices are the "mentioned you" notices in c's inbox, after
// the queued notices ran.
func mentionNotices(t *testing.T, a *app, c *webtest.Client) []string {
	t.Helper()
	var out []string
	a.Inbox(c).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), "mentioned you") {
			out = append(out, strings.TrimSpace(s.Text()))
		}
	})
	return out
}

// TestMentionsReachOnlyWhoMayOpenTheChat: someone who opened a chat and
// then lost it (removed from the group, out of the private room) is not
// told of a mention there, and never sees the message's start; someone
// who still may open it is.
func TestMentionsReachOnlyWhoMayOpenTheChat(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann, bob, cat := a.Client(), a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")

	// A group: bob and cat open its chat (participants), bob is removed.
	groupID := smiths(ann, map[string]*webtest.Client{"bob@example.com": bob, "cat@example.com": cat})
	gchat := "/chat/group-" + groupID
	for _, c := range []*webtest.Client{bob, cat} {
		if res := c.Get(gchat); res.StatusCode != http.StatusOK {
			t.Fatalf("a member opens the group's chat: %d", res.StatusCode)
		}
	}
	bobRow := ann.Get("/groups/" + groupID + "/members").Doc(t).Find(testID("roster-row")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "bob") })
	if res := post(ann, "/groups/"+groupID+"/members/"+bobRow.AttrOr("data-member", "")+"/remove", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove bob: %d", res.StatusCode)
	}
	if res := post(ann, gchat+"/messages", url.Values{"body": {"@bob @cat the family secret"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann mentions them: %d", res.StatusCode)
	}
	if got := mentionNotices(t, a, cat); len(got) != 1 || !strings.Contains(got[0], "family secret") {
		t.Fatalf("cat, still a member: %q", got)
	}
	if got := mentionNotices(t, a, bob); len(got) != 0 {
		t.Fatalf("bob, removed from the group, is told: %q", got)
	}

	// A private room ann joined, read and left.
	post(org, "/admin/chat-rooms", url.Values{"slug": {"staff"}, "name": {"Staff"}, "private": {"true"}})
	link, _ := url.Parse(org.Get("/chat/room-staff").Doc(t).Find("#chat-invite-url").AttrOr("value", ""))
	post(ann, "/chat/room-staff/join", url.Values{"key": {link.Query().Get("key")}})
	if res := ann.Get("/chat/room-staff"); res.StatusCode != http.StatusOK {
		t.Fatalf("ann opens the private room: %d", res.StatusCode)
	}
	post(ann, "/chat/room-staff/leave", nil)
	if res := post(org, "/chat/room-staff/messages", url.Values{"body": {"@ann the staff secret"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("org mentions ann: %d", res.StatusCode)
	}
	if got := mentionNotices(t, a, ann); len(got) != 0 {
		t.Fatalf("ann, out of the private room, is told: %q", got)
	}
}

// TestVisitorsSeeNoPrivateRooms: a visitor's /chat names the public
// rooms and not a private one; neither does the list of someone signed
// in who is not in it.
func TestVisitorsSeeNoPrivateRooms(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann, visitor := a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	post(org, "/admin/chat-rooms", url.Values{"slug": {"board"}, "name": {"Board whispers"}, "private": {"true"}})
	post(org, "/admin/chat-rooms", url.Values{"slug": {"book-club"}, "name": {"Book club"}})
	res := visitor.Get("/chat")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("a visitor's /chat: %d", res.StatusCode)
	}
	welcome := res.Doc(t).Find(testID("chat-welcome")).Text()
	if !strings.Contains(welcome, "#general") || !strings.Contains(welcome, "#Book club") {
		t.Fatalf("the public rooms are not named: %q", welcome)
	}
	if strings.Contains(res.Body, "Board whispers") {
		t.Fatal("a visitor sees the private room's name")
	}
	if strings.Contains(ann.Get("/chat").Body, "Board whispers") {
		t.Fatal("someone not in the private room sees its name")
	}
}

// TestStreamEndsWhenAccessIsLost: an open stream is asked again with each
// heartbeat; it ends (with a reset, so the page reloads) once its viewer
// may no longer open the chat in a way that writes no "left" entry:
// leaving a private room, or an admin making a room private. A viewer
// who still may open it keeps the stream.
func TestStreamEndsWhenAccessIsLost(t *testing.T) {
	t.Parallel()
	a := newApp(t, "TEST_HEARTBEAT", "50ms")
	org, ann, bob := a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	post(org, "/admin/chat-rooms", url.Values{"slug": {"staff"}, "name": {"Staff"}, "private": {"true"}})
	post(org, "/admin/chat-rooms", url.Values{"slug": {"book-club"}, "name": {"Book club"}})
	link, _ := url.Parse(org.Get("/chat/room-staff").Doc(t).Find("#chat-invite-url").AttrOr("value", ""))
	post(ann, "/chat/room-staff/join", url.Values{"key": {link.Query().Get("key")}})

	ended := func(who string, events <-chan sseEvent) {
		t.Helper()
		if ev := next(t, events, 1)[0]; ev.Name != "reset" || ev.Data != "left\n" {
			t.Fatalf("%s's stream: %+v, want a reset", who, ev)
		}
		select {
		case ev, open := <-events:
			if open {
				t.Fatalf("%s's stream goes on after the reset: %+v", who, ev)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s's stream is still open", who)
		}
	}
	orgEvents, stopOrg := openStream(t, org, "/chat/room-staff/stream", "")
	defer stopOrg()
	annEvents, stopAnn := openStream(t, ann, "/chat/room-staff/stream", "")
	defer stopAnn()
	bobEvents, stopBob := openStream(t, bob, "/chat/room-book-club/stream", "")
	defer stopBob()

	if res := post(ann, "/chat/room-staff/leave", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann leaves: %d", res.StatusCode)
	}
	ended("ann", annEvents)
	if res := post(org, "/admin/chat-rooms/room-book-club", url.Values{"name": {"Book club"}, "private": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("make the room private: %d", res.StatusCode)
	}
	ended("bob", bobEvents)

	// Org, still in the room, has had heartbeats all along: the stream is
	// open and brings the next message.
	select {
	case ev, open := <-orgEvents:
		if !open {
			t.Fatal("org's stream ended")
		}
		t.Fatalf("org's stream: %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
	post(org, "/chat/room-staff/messages", url.Values{"body": {"still here"}})
	// Org's first message there says org joined (entry 1), then the message.
	if evs := next(t, orgEvents, 2); ids(evs) != "1,2" || !strings.Contains(evs[1].Data, "still here") {
		t.Fatalf("org's stream after the checks: %+v", evs)
	}
}

// TestImageOverTheLimitIsNotProcessed: a picture sent past the send
// limit is refused as too fast before it is decoded, and writes
// nothing: a damaged PNG, which decoding would refuse, gets the rate
// limit's answer, and the damaged answer only once the limit allows.
func TestImageOverTheLimitIsNotProcessed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	room := "/chat/room-general"
	damaged := append([]byte("\x89PNG\r\n\x1a\n"), []byte(strings.Repeat("not a picture at all ", 50))...)
	for i := range 5 { // the test app's limit
		if res := post(ann, room+"/messages", url.Values{"body": {fmt.Sprint("quick ", i)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("send %d: %d", i, res.StatusCode)
		}
	}
	res := ann.PostFile(room+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"a picture"}}), "image", "x.png", damaged)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too fast") || res.Writes(t) != 0 {
		t.Fatalf("a picture past the limit: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	a.Clock.Advance(11 * time.Second)
	res = ann.PostFile(room+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"a picture"}}), "image", "x.png", damaged)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "couldn&#39;t be read") {
		t.Fatalf("the damaged picture within the limit: %d", res.StatusCode)
	}
}

// Messages people send are counted for the admin metrics page; the line
// saying someone joined is not, nor a refused message.
func TestMessagesAreCounted(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	for _, body := range []string{"one", "two", ""} {
		post(ann, "/chat/room-general/messages", url.Values{"body": {body}})
	}
	days, err := a.Metrics.Last(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := days[0].Get(chat.MessagesSent); n != 2 {
		t.Fatalf("counted %d messages, want 2", n)
	}
}

// TestStreamsPerPersonAreBounded: one person holds at most MaxStreams
// streams open (the list's and chats' together); the next is refused
// with its reason, reading nothing, while someone else's still opens;
// closing one frees its place.
func TestStreamsPerPersonAreBounded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	var cancels []func()
	for i := range chat.MaxStreams {
		path := "/chat/news"
		if i%2 == 1 {
			path = "/chat/room-general/stream"
		}
		_, cancel := openStream(t, ann, path, "")
		cancels = append(cancels, cancel)
	}
	var costs []map[string]int64
	// (The first refusal also fills the page header's caches.)
	for _, path := range []string{"/chat/news", "/chat/news", "/chat/room-general/stream"} {
		res := ann.Get(path)
		if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too many chat windows") {
			t.Fatalf("stream %d of %s: %d", chat.MaxStreams+1, path, res.StatusCode)
		}
		costs = append(costs, res.StorageOps(t))
	}
	// Refused before the chat is read: a chat's stream costs what the
	// list's does (the session and the error page's header).
	if !maps.Equal(costs[1], costs[2]) {
		t.Errorf("a refused chat stream cost %v, the list's %v", costs[2], costs[1])
	}
	openStream(t, bob, "/chat/news", "")
	cancels[0]()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ann.URL+"/chat/news", nil)
		req.Header.Set("Accept", "text/html, text/event-stream")
		res, err := ann.HTTP.Do(req)
		status := 0
		if err == nil {
			status = res.StatusCode
		}
		cancel()
		if status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's place is not freed: %d %v", status, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRebuildPutsPrivateChatsBackInLists: a private chat whose second
// list entry was never written (a send's addToList failed) is missing
// from that person's list; the repair puts it back, unread, leaves the
// sender's read marker and every other row as it was, adds nothing for a
// chat nobody wrote in, and finds nothing to do a second time.
func TestRebuildPutsPrivateChatsBackInLists(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"lunch tomorrow?"}})
	post(ann, dm+"/messages", url.Values{"body": {"12:30 at the usual place"}})
	post(ann, "/chat/private", url.Values{"member": {catKey}}) // started, nothing sent

	chatID := strings.TrimPrefix(dm, "/chat/")
	lists := a.Store.Table(chat.UserChatsTable)
	before, err := storage.Get[chat.UserChatRow](t.Context(), lists, annKey, chatID)
	if err != nil || before.ReadSeq != 2 {
		t.Fatalf("ann's entry: %+v %v", before, err)
	}
	if err := lists.Delete(t.Context(), bobKey, chatID, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	inList := func(c *webtest.Client) *goquery.Selection {
		return c.Get("/chat").Doc(t).Find(testID("chat-item")).FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.HasPrefix(s.Find("a").AttrOr("href", ""), dm)
		})
	}
	if inList(bob).Length() != 0 {
		t.Fatal("the chat is in bob's list without its entry")
	}

	report, err := a.svc.Rebuild(t.Context())
	if err != nil || !strings.HasPrefix(report.String(), "private chats with messages: 1; list entries put back: 1;") {
		t.Fatalf("rebuild: %v %v", report, err)
	}
	if it := inList(bob); it.Length() != 1 || !strings.Contains(it.Find(testID("chat-unread")).Text(), "2") {
		t.Fatalf("bob's list after the repair: %q", it.Text())
	}
	if after, _ := storage.Get[chat.UserChatRow](t.Context(), lists, annKey, chatID); after.ReadSeq != before.ReadSeq || after.ETag != before.ETag {
		t.Errorf("ann's entry changed: %+v, was %+v", after, before)
	}
	if rows, _ := storage.All[chat.UserChatRow](t.Context(), lists, storage.Query{PartitionKey: catKey}); len(rows) != 0 {
		t.Errorf("cat has %d list entries for a chat nobody wrote in", len(rows))
	}
	if report, err := a.svc.Rebuild(t.Context()); err != nil || !strings.Contains(report.String(), "; list entries put back: 0;") {
		t.Fatalf("second rebuild: %v %v", report, err)
	}
}

// TestADeletedGroupsChatGoes: a group deleted and then purged takes its
// chat along: the messages, the pictures, the chat's row and its place
// in every member's list, a removed member's too.
func TestADeletedGroupsChatGoes(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	catKey := a.SignIn(cat, "cat@example.com")
	groupID := smiths(ann, map[string]*webtest.Client{"bob@example.com": bob, "cat@example.com": cat})
	chatID := "group-" + groupID
	gchat := "/chat/" + chatID
	post(bob, gchat+"/messages", url.Values{"body": {"Hi family"}})
	post(cat, gchat+"/messages", url.Values{"body": {"Hello"}})
	if res := ann.PostFile(gchat+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"our garden"}}), "image", "garden.png", mediatest.EncodedPNG(t, 400, 300)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a picture: %d", res.StatusCode)
	}
	// Cat leaves before the group goes; her list still names the chat.
	roster := ann.Get("/groups/" + groupID + "/members").Doc(t)
	catRow := roster.Find(testID("roster-row")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "cat") })
	post(ann, "/groups/"+groupID+"/members/"+catRow.AttrOr("data-member", "")+"/remove", url.Values{"confirm": {"yes"}})

	ctx := t.Context()
	messages := a.Store.Table(chat.MessagesTable)
	pictures := a.Store.Container(chat.ImagesContainer)
	if rows, _ := storage.All[chat.MessageRow](ctx, messages, storage.Query{PartitionKey: chatID}); len(rows) < 3 {
		t.Fatalf("the set-up: %d rows in the chat", len(rows))
	}
	if post(ann, "/groups/"+groupID+"/delete", url.Values{"confirm": {"yes"}}).StatusCode != http.StatusSeeOther {
		t.Fatal("the group's delete")
	}
	a.Clock.Advance(groups.PurgeAfter + time.Hour)
	if err := a.groups.Purge(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, _ := storage.All[chat.MessageRow](ctx, messages, storage.Query{PartitionKey: chatID}); len(rows) != 0 {
		t.Errorf("%d rows of the chat left", len(rows))
	}
	if left, _ := pictures.List(ctx, chatID+"/"); len(left) != 0 {
		t.Errorf("pictures left: %v", left)
	}
	if _, err := a.Store.Table(chat.ChatsTable).Get(ctx, "chat|"+chat.KindGroup, chatID); err == nil {
		t.Error("the chat's row is left")
	}
	for _, key := range []string{annKey, bobKey, catKey} {
		if _, err := a.Store.Table(chat.UserChatsTable).Get(ctx, key, chatID); err == nil {
			t.Errorf("%s's list still names the chat", key)
		}
	}
	if res := bob.Get(gchat); res.StatusCode == http.StatusOK {
		t.Error("the chat's page still opens")
	}
}

// TestPicturesArePacedPerClient: one client (one address, whatever its
// accounts and chats) has at most ten pictures decoded at once, then one
// every thirty seconds, as profile photos and scans; past that a picture
// is refused with a message and nothing is written, while words alone
// still go.
func TestPicturesArePacedPerClient(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	picture := func(c *webtest.Client, room string) *webtest.Response {
		return c.PostFile(room+"/messages", c.WithCSRF("/chat", url.Values{"body": {"look"}}), "image", "x.png", mediatest.EncodedPNG(t, 64, 48))
	}
	for i := range 10 {
		who, room := ann, "/chat/room-general"
		if i%2 == 1 {
			who, room = bob, "/chat/room-random"
		}
		if res := picture(who, room); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("picture %d: %d", i, res.StatusCode)
		}
	}
	res := picture(bob, "/chat/room-general")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "uploaded many files in a row") || res.Writes(t) != 0 {
		t.Fatalf("the eleventh picture: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	if res := post(cat, "/chat/room-general/messages", url.Values{"body": {"words alone"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("words past the pictures' pace: %d", res.StatusCode)
	}
	a.Clock.Advance(31 * time.Second)
	if res := picture(bob, "/chat/room-general"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a picture thirty seconds on: %d", res.StatusCode)
	}
}

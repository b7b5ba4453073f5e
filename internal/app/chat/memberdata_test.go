package chat_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// seqOf is the sequence number of the message of c's page at path whose
// text has body.
func seqOf(t *testing.T, c *webtest.Client, path, body string) string {
	t.Helper()
	seq := ""
	c.Get(path).Doc(t).Find(testID("chat-message")).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), body) {
			seq = s.AttrOr("data-seq", "")
		}
	})
	if seq == "" {
		t.Fatalf("no message %q on %s", body, path)
	}
	return seq
}

// TestDeletingAnAccountInTheChats: ann's archive holds her messages,
// chats and blocks, not bob's messages. Her deletion, cut short, is
// finished by the next run: her messages stay in the room and in her
// private chat with bob, by "Deleted member" with no link; bob keeps
// the private chat, titled "Deleted member", to read and no more; her
// reaction to bob's message is gone; nothing in the chat's tables
// names her; the rebuild puts nothing back; and one more run changes
// nothing.
func TestDeletingAnAccountInTheChats(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	faults := &memberdatatest.Faults{}
	a := newAppOn(t, faults.Wrap)
	ann, bob := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	room := "/chat/room-general"
	ann.Get(room)
	post(ann, room+"/messages", url.Values{"body": {"hello room"}})
	post(bob, room+"/messages", url.Values{"body": {"hi ann"}})
	if res := post(ann, room+"/messages/"+seqOf(t, ann, room, "hi ann")+"/react", url.Values{"emoji": {"👍"}}); res.StatusCode >= 400 {
		t.Fatalf("react: %d", res.StatusCode)
	}
	hi := seqOf(t, ann, room, "hi ann")
	post(ann, room+"/messages", url.Values{"body": {"and you"}, "reply": {hi}})
	post(ann, room+"/messages/"+hi+"/save", nil)
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"Coffee tomorrow?"}})
	post(bob, dm+"/messages", url.Values{"body": {"Sure"}})
	post(bob, "/chat/block", url.Values{"member": {annKey}, "name": {"ann"}, "confirm": {"yes"}})
	post(bob, "/chat/unblock", url.Values{"member": {annKey}})
	post(ann, "/chat/block", url.Values{"member": {bobKey}, "name": {"bob"}, "confirm": {"yes"}})
	m := memberdatatest.Member(annKey, "ann@example.com")
	tables := a.svc.Tables()
	if len(memberdatatest.Traces(t, a.Store, m, tables...)) < 6 {
		t.Fatalf("the chat keeps too little of ann: %v", memberdatatest.Traces(t, a.Store, m, tables...))
	}

	arch := &memberdatatest.Archive{}
	if err := a.svc.ExportMember(ctx, m, arch); err != nil {
		t.Fatal(err)
	}
	text := arch.Text()
	for _, want := range []string{"chat/messages.json", "hello room", "Coffee tomorrow?", "chat/chats.json", "chat/blocked.json", `"bob"`, `"reply_to": ` + hi, `"saved": [`, `"n": ` + hi} {
		if !strings.Contains(text, want) {
			t.Errorf("the archive lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hi ann") || strings.Contains(text, "Sure") || strings.Contains(text, bobKey) {
		t.Errorf("the archive holds bob's:\n%s", text)
	}

	faults.FailAfter(1)
	if err := a.svc.ForgetMember(ctx, m); !errors.Is(err, memberdatatest.ErrInjected) {
		t.Fatalf("a forget cut short: %v", err)
	}
	faults.Heal()
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}

	senders := func(path string) (names []string, links int) {
		d := bob.Get(path).Doc(t)
		msgs := d.Find(testID("chat-message"))
		msgs.Find(".chat-sender").Each(func(_ int, s *goquery.Selection) { names = append(names, strings.TrimSpace(s.Text())) })
		return names, msgs.Find("a.chat-sender").Length()
	}
	if names, links := senders(room); strings.Join(names, ",") != "Deleted member,bob,Deleted member" || links != 1 {
		t.Errorf("the room's senders: %q, %d links", names, links)
	}
	if d := bob.Get(room).Doc(t); d.Find(testID("chat-reaction")).Length() != 0 {
		t.Error("ann's reaction is still shown")
	}
	d := bob.Get(dm).Doc(t)
	if title := strings.TrimSpace(d.Find("#chat-name").Children().Remove().End().Text()); title != "Deleted member" || d.Find(testID("chat-read-only")).Length() != 1 || d.Find("form[action='"+dm+"/messages']").Length() != 0 {
		t.Errorf("bob's private chat: titled %q, read only %d", title, d.Find(testID("chat-read-only")).Length())
	}
	if names, links := senders(dm); strings.Join(names, ",") != "Deleted member,bob" || links != 1 {
		t.Errorf("the private chat's senders: %q, %d links", names, links)
	}
	if res := post(bob, dm+"/messages", url.Values{"body": {"hello?"}}); res.StatusCode < 400 {
		t.Errorf("a message to a deleted member: %d", res.StatusCode)
	}
	if list := bob.Get("/chat").Doc(t).Find(testID("chat-list")).Text(); !strings.Contains(list, "Deleted member") {
		t.Errorf("bob's chat list: %q", list)
	}

	rep, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(rep.String(), "list entries put back: 0;") || !strings.HasSuffix(rep.String(), "written again: 0") {
		t.Errorf("the rebuild after the deletion: %v, %v", rep, err)
	}
	before := memberdatatest.Snapshot(t, a.Store, tables...)
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
}

// TestADeletedAccountsReactionsGoLive: ann's and cat's 👍 on bob's
// message; ann's account deleted, bob's open page gets the message with
// one 👍 down its stream, as when she takes hers back by hand, and
// the page says so after a reload too.
func TestADeletedAccountsReactionsGoLive(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	post(bob, room+"/messages", url.Values{"body": {"bob here"}}) // 1 joined, 2
	post(ann, room+"/messages", url.Values{"body": {"ann here"}}) // 3 joined, 4
	post(cat, room+"/messages", url.Values{"body": {"cat here"}}) // 5 joined, 6
	for _, c := range []*webtest.Client{ann, cat} {               // 7, 8
		if res := post(c, room+"/messages/2/react", url.Values{"emoji": {"👍"}}); res.StatusCode >= 400 {
			t.Fatalf("react: %d", res.StatusCode)
		}
	}
	events, stop := openStream(t, bob, room+"/stream?after=8", "")
	defer stop()

	if err := a.svc.ForgetMember(t.Context(), memberdatatest.Member(annKey, "ann@example.com")); err != nil {
		t.Fatal(err)
	}
	ev := next(t, events, 1)[0]
	if ev.ID != "9" || !strings.Contains(ev.Data, `id="m-2"`) || !strings.Contains(ev.Data, "👍 1") || strings.Contains(ev.Data, "👍 2") {
		t.Fatalf("the change on the stream: %+v", ev)
	}
	pill := bob.Get(room).Doc(t).Find("#m-2 " + testID("chat-reaction"))
	if pill.Length() != 1 || !strings.Contains(pill.Text(), "1") {
		t.Errorf("bob's page after a reload: %q", pill.Text())
	}
}

// TestAnExpiredMessageLosesADeletedAccountsReactions: a message expired
// (MESSAGES_TTL) but not yet swept, shown to no one, loses ann's
// reaction (to her own) with her account all the same.
func TestAnExpiredMessageLosesADeletedAccountsReactions(t *testing.T) {
	t.Parallel()
	a := newApp(t, "MESSAGES_TTL", "1h")
	ann := a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"ann here"}}) // 1 joined, 2
	if res := post(ann, room+"/messages/2/react", url.Values{"emoji": {"👍"}}); res.StatusCode >= 400 {
		t.Fatalf("react: %d", res.StatusCode)
	}
	a.Clock.Advance(61 * time.Minute)
	m := memberdatatest.Member(annKey, "ann@example.com")
	if err := a.svc.ForgetMember(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.Traces(t, a.Store, m, a.svc.Tables()...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
}

// watched counts the queries that scan the Messages table or search
// the private chats (a filtered query of their partition), and refuses
// footprints' writes on cue.
type watched struct {
	storage.Backend
	scans  atomic.Int64
	refuse atomic.Bool
}

func (w *watched) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if q.Scan && strings.HasSuffix(table, chat.MessagesTable) || strings.HasSuffix(table, chat.ChatsTable) && len(q.Filters) > 0 {
		w.scans.Add(1)
	}
	return w.Backend.Query(ctx, table, q)
}

func (w *watched) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if w.refuse.Load() && strings.HasSuffix(table, memberdata.FootprintsTable) {
		return "", memberdatatest.ErrInjected
	}
	return w.Backend.Insert(ctx, table, e)
}

// TestADeletionReadsOnlyTheChatsWrittenIn: ann's messages, reaction,
// reply and participant rows in a room, a group's chat and a private
// chat, and a private chat cat started with her, are found through her
// footprints: her archive and her deletion read no chat's log but
// those, search no private chats, and leave nothing naming her. A
// start on a store whose messages came before the footprints records
// them (and until then a deletion reads the whole table, finding them
// all the same).
func TestADeletionReadsOnlyTheChatsWrittenIn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := &watched{}
	a := newAppOn(t, func(b storage.Backend) storage.Backend { w.Backend = b; return w })
	ann, bob, cat := a.Client(), a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	room := "/chat/room-general"
	post(bob, room+"/messages", url.Values{"body": {"morning"}})
	ann.Get(room)
	post(ann, room+"/messages/"+seqOf(t, ann, room, "morning")+"/react", url.Values{"emoji": {"👍"}})
	post(ann, room+"/messages", url.Values{"body": {"hello room"}, "reply": {seqOf(t, ann, room, "morning")}})
	groupID := smiths(ann, map[string]*webtest.Client{"bob@example.com": bob})
	groupChat := "/chat/group-" + groupID
	post(ann, groupChat+"/messages", url.Values{"body": {"dinner at 8"}})
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"Coffee?"}})
	// A private chat cat started with her, where she never wrote.
	catDM := post(cat, "/chat/private", url.Values{"member": {annKey}}).Header.Get("Location")
	post(cat, catDM+"/messages", url.Values{"body": {"Are you there?"}})
	// Chats ann never wrote in.
	post(cat, "/chat/room-random/messages", url.Values{"body": {"quiet here"}})
	post(bob, "/chat/room-random/messages", url.Values{"body": {"indeed"}})

	footprints := a.Store.Table(memberdata.FootprintsTable)
	rows, err := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: annKey})
	if err != nil || len(rows) != 4 {
		t.Fatalf("ann's footprints: %+v, %v", rows, err)
	}
	m := memberdatatest.Member(annKey, "ann@example.com")
	tables := a.svc.Tables()
	before := w.scans.Load()
	arch := &memberdatatest.Archive{}
	if err := a.svc.ExportMember(ctx, m, arch); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hello room", "dinner at 8", "Coffee?"} {
		if !strings.Contains(arch.Text(), want) {
			t.Errorf("the archive lacks %q", want)
		}
	}
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if n := w.scans.Load() - before; n != 0 {
		t.Errorf("the export and the deletion scanned the messages %d times", n)
	}
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
	if d := bob.Get(room).Doc(t); d.Find(testID("chat-reaction")).Length() != 0 {
		t.Error("ann's reaction is still shown")
	}
	if title := cat.Get(catDM).Doc(t).Find("#chat-name").Text(); !strings.Contains(title, "Deleted member") {
		t.Errorf("cat's private chat with her: %q", title)
	}

	// Messages from before the footprints: cat's and bob's footprints
	// and the mark that they are complete gone, as on a store of before.
	catKey := a.SignIn(a.Client(), "cat@example.com")
	for _, k := range []string{catKey, bobKey, "~complete"} {
		if err := storage.DeletePartition(ctx, footprints, k); err != nil {
			t.Fatal(err)
		}
	}
	fresh := chat.New(a.Store, nil, time.Now, chat.Options{})
	cm := memberdatatest.Member(catKey, "cat@example.com")
	arch = &memberdatatest.Archive{}
	if err := fresh.ExportMember(ctx, cm, arch); err != nil || !strings.Contains(arch.Text(), "quiet here") {
		t.Errorf("cat's archive before the footprints are recorded: %v\n%s", err, arch.Text())
	}
	// A start does not wait for them: the job reads the chats.
	if err := fresh.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, _ := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: catKey}); len(rows) != 0 {
		t.Errorf("cat's footprints after a start, before the job: %+v", rows)
	}
	runJob(t, fresh.Jobs(), "chat-footprints")
	// cat: the room she wrote in and her private chat with ann; bob:
	// both rooms and his private chat with ann.
	if rows, _ := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: catKey}); len(rows) != 2 {
		t.Errorf("cat's footprints after a start: %+v", rows)
	}
	if rows, _ := storage.All[memberdata.FootprintRow](ctx, footprints, storage.Query{PartitionKey: bobKey}); len(rows) != 3 {
		t.Errorf("bob's footprints after a start: %+v", rows)
	}
	before = w.scans.Load()
	if err := fresh.ForgetMember(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if n := w.scans.Load() - before; n != 0 {
		t.Errorf("cat's deletion scanned the messages %d times", n)
	}
	if left := memberdatatest.Traces(t, a.Store, cm, tables...); len(left) > 0 {
		t.Fatalf("rows still naming cat: %v", left)
	}
}

// runJob runs the job named name of jobs.
func runJob(t *testing.T, all []jobs.Job, name string) {
	t.Helper()
	for _, j := range all {
		if j.Name == name {
			if err := j.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no job %s", name)
}

// TestASendWithoutItsFootprintIsRefused: a message whose footprint the
// store refuses is not sent (an error page, nothing written), so no
// message stands where a deletion would not look; the next try sends.
func TestASendWithoutItsFootprintIsRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := &watched{}
	a := newAppOn(t, func(b storage.Backend) storage.Backend { w.Backend = b; return w })
	ann := a.Client()
	a.SignIn(ann, "ann@example.com")
	room := "/chat/room-general"
	ann.Get(room)
	// ann's visit recorded her footprint; a new chat has none.
	w.refuse.Store(true)
	res := post(ann, "/chat/room-random/messages", url.Values{"body": {"first words"}})
	if res.StatusCode != http.StatusInternalServerError || strings.Contains(res.Body, "memberdata") {
		t.Errorf("a send without its footprint: %d\n%s", res.StatusCode, res.Body)
	}
	if rows, _ := storage.All[chat.MessageRow](ctx, a.Store.Table(chat.MessagesTable), storage.Query{PartitionKey: "room-random", RowKeyPrefix: "m|"}); len(rows) != 0 {
		t.Errorf("written without a footprint: %+v", rows)
	}
	// The room she visited has hers already: its messages go.
	if res := post(ann, room+"/messages", url.Values{"body": {"still here"}}); res.StatusCode >= 400 {
		t.Errorf("a send where her footprint is: %d", res.StatusCode)
	}
	w.refuse.Store(false)
	if res := post(ann, "/chat/room-random/messages", url.Values{"body": {"first words"}}); res.StatusCode >= 400 {
		t.Errorf("the retry: %d", res.StatusCode)
	}
	if !strings.Contains(ann.Get("/chat/room-random").Body, "first words") {
		t.Error("the retry is not in the room")
	}
}

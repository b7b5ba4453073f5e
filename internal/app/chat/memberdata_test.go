package chat_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
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
	for _, want := range []string{"chat/messages.json", "hello room", "Coffee tomorrow?", "chat/chats.json", "chat/blocked.json", `"bob"`, `"reply_to": ` + hi} {
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
	if err != nil || !strings.HasSuffix(rep.String(), "list entries put back: 0") {
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

package chat_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// TestSavedMessages: bob saves ann's message for later; only he sees it
// marked, and "Saved messages" lists it as it is now (her edit shows),
// leading to it in its chat. Saving it again writes nothing. Once she
// deletes it the list says so and keeps its Remove, which takes it off.
// A saved message of a chat he may no longer open shows nothing of it.
func TestSavedMessages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-random"
	post(ann, room+"/messages", url.Values{"body": {"The **slides** are up"}}) // 1 says ann joined
	post(ann, room+"/messages", url.Values{"body": {"Questions welcome"}})
	bob.Get(room)
	plain := bob.Get(room).StorageOps(t) // a visit again: no first-visit writes
	saved := func(c *webtest.Client) *goquery.Selection {
		t.Helper()
		return c.Get(chat.SavedURL).Doc(t).Find(testID("chat-saved-item"))
	}
	if items := saved(bob); items.Length() != 0 || bob.Get(chat.SavedURL).Doc(t).Find(testID("chat-saved-empty")).Length() != 1 {
		t.Fatalf("bob's saved messages before he saves any: %d", items.Length())
	}
	empty := bob.Get(chat.SavedURL).StorageOps(t)

	// Saved with htmx: the message comes back marked, its menu offering
	// to take it off.
	res := bob.PostForm(room+"/messages/2/save", bob.WithCSRF(room, nil), "HX-Request", "true", "HX-Request-Type", "partial")
	doc := res.Doc(t)
	if res.StatusCode != http.StatusOK || doc.Find(testID("chat-saved")).Length() != 1 || strings.TrimSpace(doc.Find(testID("chat-save")).Text()) != "Remove from saved" {
		t.Fatalf("save with htmx: %d %q", res.StatusCode, doc.Text())
	}
	htmxReads := res.StorageOps(t)["reads"]
	if again := post(bob, room+"/messages/2/save", nil); again.StatusCode != http.StatusSeeOther || again.Writes(t) != 0 {
		t.Errorf("saving it again: %d, %d writes", again.StatusCode, again.Writes(t))
	}
	// Without htmx: back to the message.
	a.Clock.Advance(time.Second)
	if res := post(bob, room+"/messages/3/save", nil); res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "#m-3") {
		t.Fatalf("save with a plain form: %d %s", res.StatusCode, res.Header.Get("Location"))
	} else if plainReads := res.StorageOps(t)["reads"]; htmxReads != plainReads {
		t.Errorf("the message htmx gets back costs %d reads more than a plain save's", htmxReads-plainReads)
	}
	marked := func(c *webtest.Client) []string {
		var seqs []string
		c.Get(room).Doc(t).Find(testID("chat-message")).Each(func(_ int, s *goquery.Selection) {
			if s.Find(testID("chat-saved")).Length() == 1 {
				seqs = append(seqs, s.AttrOr("data-seq", ""))
			}
		})
		return seqs
	}
	if got := marked(bob); fmt.Sprint(got) != "[2 3]" {
		t.Errorf("bob's marks in the room: %v", got)
	}
	if got := marked(ann); len(got) != 0 {
		t.Errorf("ann sees bob's saved marks: %v", got)
	}
	// The marks cost the chat's page nothing; the list, one query, then
	// its room's authorization (its row and bob's) and a read a message.
	if ops := bob.Get(room).StorageOps(t); ops["queries"] != plain["queries"] || ops["reads"] != plain["reads"] {
		t.Errorf("the room's page with saved marks: %v, without: %v", ops, plain)
	}
	if ops := bob.Get(chat.SavedURL).StorageOps(t); ops["queries"] != empty["queries"] || ops["reads"]-empty["reads"] != 2+2 || ops["writes"] != 0 {
		t.Errorf("the list of two saved messages of a room: %v, empty: %v", ops, empty)
	}

	// Her edit reaches his open page with his mark kept; a new message
	// comes unmarked.
	events, stop := openStream(t, bob, room+"/stream?after=3", "")
	defer stop()
	a.Clock.Advance(time.Minute)
	post(ann, room+"/messages/2/edit", url.Values{"body": {"The **slides** and notes are up"}})
	if ev := next(t, events, 1)[0]; !strings.Contains(ev.Data, `id="m-2"`) || !strings.Contains(ev.Data, `data-testid="chat-saved"`) || !strings.Contains(ev.Data, "/messages/2/unsave") {
		t.Errorf("the edit streamed to bob: %s", ev.Data)
	}
	post(ann, room+"/messages", url.Values{"body": {"One more thing"}})
	if ev := next(t, events, 1)[0]; !strings.Contains(ev.Data, "One more thing") || strings.Contains(ev.Data, `data-testid="chat-saved"`) || !strings.Contains(ev.Data, "/save") {
		t.Errorf("a new message streamed to bob: %s", ev.Data)
	}

	// The list: the latest saved first, each with its chat, sender and
	// words as they are now, leading to it.
	items := saved(bob)
	if items.Length() != 2 {
		t.Fatalf("bob's saved messages: %d", items.Length())
	}
	first, second := items.Eq(0), items.Eq(1)
	if !strings.Contains(first.Text(), "Questions welcome") || !strings.Contains(second.Text(), "The slides and notes are up") ||
		!strings.Contains(second.Text(), "#random") || !strings.Contains(second.Text(), "ann") {
		t.Errorf("the list: %q / %q", first.Text(), second.Text())
	}
	if href := second.Find(testID("chat-saved-open")).AttrOr("href", ""); href != room+"?after=1#m-2" {
		t.Errorf("the link to the first message: %q", href)
	}
	if got := bob.Get(chat.SavedURL).Doc(t).Find(testID("chat-saved-count")).Text(); got != "2 saved messages" {
		t.Errorf("the count: %q", got)
	}
	if items := saved(ann); items.Length() != 0 {
		t.Errorf("ann's list holds bob's: %d", items.Length())
	}

	// Deleted: the list says so, and Remove takes it off.
	post(ann, room+"/messages/3/delete", url.Values{"confirm": {"yes"}})
	first = saved(bob).Eq(0)
	if first.Find(testID("chat-saved-gone")).Length() != 1 || strings.Contains(first.Text(), "Questions welcome") || first.Find(testID("chat-saved-open")).Length() != 0 {
		t.Errorf("a deleted saved message: %q", first.Text())
	}
	res = post(bob, chat.SavedURL+"/remove", url.Values{"chat": {"room-random"}, "seq": {"3"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != chat.SavedURL {
		t.Fatalf("remove: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if items := saved(bob); items.Length() != 1 || !strings.Contains(items.Text(), "notes are up") {
		t.Errorf("after removing the deleted one: %d %q", items.Length(), items.Text())
	}
	// Taken off in the chat's menu.
	post(bob, room+"/messages/2/unsave", nil)
	if items := saved(bob); items.Length() != 0 {
		t.Errorf("after unsaving in the chat: %d", items.Length())
	}

	// A chat he may no longer open: nothing of it shows.
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	groupID := smiths(ann, map[string]*webtest.Client{"cat@example.com": cat})
	gchat := "/chat/group-" + groupID
	post(ann, gchat+"/messages", url.Values{"body": {"Family secret recipe"}})
	cat.Get(gchat)
	post(cat, gchat+"/messages/1/save", nil)
	post(cat, gchat+"/messages/2/save", nil)
	if items := saved(cat); items.Length() != 1 || !strings.Contains(items.Text(), "Family secret recipe") {
		t.Fatalf("cat's saved message of the group: %q", items.Text())
	}
	roster := ann.Get("/groups/" + groupID + "/members").Doc(t)
	catRow := roster.Find(testID("roster-row")).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "cat") })
	post(ann, "/groups/"+groupID+"/members/"+catRow.AttrOr("data-member", "")+"/remove", url.Values{"confirm": {"yes"}})
	items = saved(cat)
	if items.Length() != 1 || items.Find(testID("chat-saved-closed")).Length() != 1 || strings.Contains(items.Text(), "Family") || strings.Contains(items.Text(), "Smiths") {
		t.Errorf("a saved message of a chat cat left: %q", items.Text())
	}
	if res := post(cat, chat.SavedURL+"/remove", url.Values{"chat": {"group-" + groupID}, "seq": {"2"}}); res.StatusCode != http.StatusSeeOther || saved(cat).Length() != 0 {
		t.Errorf("removing it: %d, %d left", res.StatusCode, saved(cat).Length())
	}
}

// TestSavedMessagesRefuseBadInput: saving what is no message, or is
// deleted, one more than the bound, a cursor or a removal that names
// nothing, are refused and write nothing; the list pages.
func TestSavedMessagesRefuseBadInput(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-random"
	for i := range 3 {
		post(ann, room+"/messages", url.Values{"body": {fmt.Sprint("note ", i+1)}})
	}
	post(ann, room+"/messages/4/delete", url.Values{"confirm": {"yes"}}) // 1 says ann joined
	for _, tc := range []struct {
		path string
		form url.Values
		want int
	}{
		{room + "/messages/99/save", nil, http.StatusNotFound},
		{room + "/messages/0/save", nil, http.StatusNotFound},
		{room + "/messages/x/save", nil, http.StatusNotFound},
		{room + "/messages/4/save", nil, http.StatusNotFound}, // deleted
		{room + "/messages/1/save", nil, http.StatusNotFound}, // ann joined
		{"/chat/room-nowhere/messages/1/save", nil, http.StatusNotFound},
		{chat.SavedURL + "/remove", url.Values{"chat": {"room-random"}, "seq": {"x"}}, http.StatusBadRequest},
		{chat.SavedURL + "/remove", url.Values{"chat": {"nowhere/../x"}, "seq": {"1"}}, http.StatusBadRequest},
		{chat.SavedURL + "/remove", url.Values{"seq": {"1"}}, http.StatusBadRequest},
	} {
		if res := post(bob, tc.path, tc.form); res.StatusCode != tc.want || res.Writes(t) != 0 {
			t.Errorf("%s %v: %d, %d writes; want %d", tc.path, tc.form, res.StatusCode, res.Writes(t), tc.want)
		}
	}
	for _, after := range []string{"x", "1|room-random", "1|nowhere|1", "z|room-random|1", "1|room-random|0"} {
		if res := bob.Get(chat.SavedURL + "?after=" + url.QueryEscape(after)); res.StatusCode != http.StatusBadRequest {
			t.Errorf("?after=%s: %d", after, res.StatusCode)
		}
	}
	if res := a.Client().Get(chat.SavedURL); res.StatusCode != http.StatusSeeOther {
		t.Errorf("signed out: %d", res.StatusCode)
	}

	// One more than the bound in a chat is refused.
	bobKey := a.Who(bob)
	full := make([]chat.SavedMark, chat.MaxSavedPerChat)
	for i := range full {
		full[i] = chat.SavedMark{Seq: int64(1000 + i), At: a.Clock.Now()}
	}
	text, _ := storage.ListText(full)
	if _, err := storage.Upsert(t.Context(), a.Store.Table(chat.UserChatsTable), chat.UserChatRow{PartitionKey: bobKey, RowKey: "room-random", Kind: "room", JoinedAt: a.Clock.Now(), Saved: text, HasSaved: true}); err != nil {
		t.Fatal(err)
	}
	if res := post(bob, room+"/messages/2/save", nil); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("one more than the bound: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// A full chat's list pages: 20, then the rest.
	doc := bob.Get(chat.SavedURL).Doc(t)
	next := doc.Find(testID("load-more")).AttrOr("href", "")
	if n := doc.Find(testID("chat-saved-item")).Length(); n != 20 || next == "" {
		t.Fatalf("the first page: %d items, next %q", n, next)
	}
	seen := 20
	for next != "" {
		page := bob.Get(next, "HX-Request", "true", "HX-Request-Type", "partial").Doc(t)
		seen += page.Find(testID("chat-saved-item")).Length()
		next = page.Find(testID("load-more")).AttrOr("href", "")
	}
	if seen != chat.MaxSavedPerChat {
		t.Errorf("the pages held %d saved messages, want %d", seen, chat.MaxSavedPerChat)
	}
}

// TestSavedMessageReminders: bob asks to be reminded of a message he
// saved; the list shows when, and when it is due a notice reaches his
// inbox, once, naming the message, and the reminder goes. One taken off,
// or of a message deleted before it is due, sends nothing. A choice that
// is none of the four, or a reminder of a message not saved, is refused
// and writes nothing.
func TestSavedMessageReminders(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-random"
	post(ann, room+"/messages", url.Values{"body": {"Slides are in the shared folder"}}) // 1 says ann joined
	post(ann, room+"/messages", url.Values{"body": {"And the recording"}})
	post(ann, room+"/messages", url.Values{"body": {"Ignore that"}})
	for _, seq := range []string{"2", "3", "4"} {
		post(bob, room+"/messages/"+seq+"/save", nil)
	}
	remind := func(seq, when string) *webtest.Response {
		return post(bob, chat.SavedURL+"/remind", url.Values{"chat": {"room-random"}, "seq": {seq}, "when": {when}})
	}
	reminders := func() int {
		t.Helper()
		return strings.Count(a.Inbox(bob).Text(), "Reminder: ann’s message in #random")
	}
	if res := remind("2", "2h"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != chat.SavedURL {
		t.Fatalf("remind: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	remind("3", "tomorrow")
	remind("3", "none") // taken off
	remind("4", "2h")
	post(ann, room+"/messages/4/delete", url.Values{"confirm": {"yes"}})
	if got := saved(t, bob).Find(testID("chat-saved-reminder")).Length(); got != 2 {
		t.Fatalf("the list shows %d reminders", got)
	}
	if n := reminders(); n != 0 {
		t.Fatalf("a reminder before it was due: %d", n)
	}
	a.Clock.Advance(2*time.Hour + time.Minute)
	if n := reminders(); n != 1 {
		t.Fatalf("two hours later: %d reminders", n)
	}
	if link := a.Inbox(bob).Find("a").FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "Reminder") }).AttrOr("href", ""); link == "" {
		t.Error("the reminder leads nowhere")
	}
	if got := saved(t, bob).Find(testID("chat-saved-reminder")).Length(); got != 0 {
		t.Errorf("sent reminders still show: %d", got)
	}
	a.Clock.Advance(48 * time.Hour)
	if n := reminders(); n != 1 {
		t.Errorf("the reminder taken off, or of the deleted message, was sent: %d reminders", n)
	}

	for _, c := range []struct {
		seq, when string
		want      int
	}{{"2", "someday", http.StatusBadRequest}, {"9", "2h", http.StatusNotFound}, {"x", "2h", http.StatusBadRequest}} {
		if res := remind(c.seq, c.when); res.StatusCode != c.want || res.Writes(t) != 0 {
			t.Errorf("remind %s %s: %d, %d writes; want %d", c.seq, c.when, res.StatusCode, res.Writes(t), c.want)
		}
	}
}

// TestRemindMeFromAMessage: "Remind me" in a message's menu saves the
// message with its reminder in the one write a reminder of a saved
// message costs, and the message then shows it saved with the reminder's
// time; the reminder reaches the inbox when due. Bad input, a message
// that cannot be saved, a reminder taken off a message not saved and a
// chat one may not read are refused and write nothing.
func TestRemindMeFromAMessage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	room := "/chat/room-random"
	post(ann, room+"/messages", url.Values{"body": {"Rehearsal moved to Thursday"}}) // 1 says ann joined
	post(ann, room+"/messages", url.Values{"body": {"Bring the tuner"}})
	message := func(seq string) *goquery.Selection {
		t.Helper()
		return bob.Get(room).Doc(t).Find("#m-" + seq)
	}
	form := message("2").Find(testID("chat-remind-form"))
	if form.AttrOr("action", "") != room+"/messages/2/remind" || form.Find(`option[value="tomorrow"]`).Length() != 1 || form.Find(`option[value="none"]`).Length() != 0 {
		t.Fatalf("the menu's reminder form: %q", form.Text())
	}

	post(bob, room+"/messages/3/save", nil)
	a.Clock.Advance(time.Second)
	listRemind := url.Values{"chat": {"room-random"}, "seq": {"3"}, "when": {"2h"}}
	listed := post(bob, chat.SavedURL+"/remind", listRemind).Writes(t)
	flashOnly := post(bob, chat.SavedURL+"/remind", listRemind).Writes(t) // as it is: the flash's session alone
	res := post(bob, room+"/messages/2/remind", url.Values{"when": {"tomorrow"}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "#m-2") {
		t.Fatalf("remind from the menu: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if w := res.Writes(t); w != listed {
		t.Errorf("saving with a reminder costs %d writes, a reminder of a saved message %d", w, listed)
	}
	m := message("2")
	if m.Find(testID("chat-saved")).Length() != 1 || !strings.Contains(m.Find(testID("chat-reminder")).Text(), "Reminder") {
		t.Fatalf("the message after its reminder: %q", m.Text())
	}
	if m.Find(testID("chat-remind-form")).Find(`option[value="none"]`).Length() != 1 {
		t.Error("a reminder set is not offered to be taken off")
	}
	if items := saved(t, bob); items.Length() != 2 || items.Find(testID("chat-saved-reminder")).Length() != 2 {
		t.Fatalf("the saved list: %d items, %d reminders", items.Length(), items.Find(testID("chat-saved-reminder")).Length())
	}
	if again := post(bob, room+"/messages/2/remind", url.Values{"when": {"tomorrow"}}); again.StatusCode != http.StatusSeeOther || again.Writes(t) != flashOnly || flashOnly >= listed {
		t.Errorf("the same reminder again: %d, %d writes (the flash alone: %d)", again.StatusCode, again.Writes(t), flashOnly)
	}
	if res := post(bob, room+"/messages/3/remind", url.Values{"when": {"none"}}); res.StatusCode != http.StatusSeeOther || message("3").Find(testID("chat-reminder")).Length() != 0 || message("3").Find(testID("chat-saved")).Length() != 1 {
		t.Errorf("taking a reminder off in the menu: %d", res.StatusCode)
	}

	a.Clock.Advance(48 * time.Hour)
	if n := strings.Count(a.Inbox(bob).Text(), "Reminder: ann’s message in #random"); n != 1 {
		t.Errorf("%d reminders after two days, want 1", n)
	}
	if message("2").Find(testID("chat-reminder")).Length() != 0 {
		t.Error("a sent reminder still shows on its message")
	}

	post(ann, room+"/messages", url.Values{"body": {"Never mind"}})
	post(ann, room+"/messages/4/delete", url.Values{"confirm": {"yes"}})
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"Just us"}})
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	for _, tc := range []struct {
		who  *webtest.Client
		path string
		when string
		want int
	}{
		{bob, room + "/messages/2/remind", "someday", http.StatusBadRequest},
		{bob, room + "/messages/2/remind", "", http.StatusBadRequest},
		{bob, room + "/messages/4/remind", "2h", http.StatusNotFound},   // deleted
		{bob, room + "/messages/1/remind", "2h", http.StatusNotFound},   // ann joined
		{bob, room + "/messages/99/remind", "2h", http.StatusNotFound},  // none
		{ann, room + "/messages/2/remind", "none", http.StatusNotFound}, // not saved
		{cat, dm + "/messages/1/remind", "2h", http.StatusNotFound},
	} {
		if res := post(tc.who, tc.path, url.Values{"when": {tc.when}}); res.StatusCode != tc.want || res.Writes(t) != 0 {
			t.Errorf("%s %q: %d, %d writes; want %d", tc.path, tc.when, res.StatusCode, res.Writes(t), tc.want)
		}
	}
}

// saved are c's saved messages, the first page.
func saved(t *testing.T, c *webtest.Client) *goquery.Selection {
	t.Helper()
	return c.Get(chat.SavedURL).Doc(t).Find(testID("chat-saved-item"))
}

package chat_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/web/webtest"
)

// A member reports someone else's message in a room and in a private
// chat: the page quotes it, a refusal writes nothing, and the admins'
// queue shows it (a private chat's with no link, since they cannot open
// it, but with its picture, kept for the admins alone while the report
// is open); taking it down deletes the message for everyone.
func TestReportingAMessage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob, org := a.Client(), a.Client(), a.Client()
	a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(org, "org@example.com")
	post(bob, "/chat/room-general/messages", url.Values{"body": {"hello"}})
	post(ann, "/chat/room-general/messages", url.Values{"body": {"Buy followers at example.com"}})
	seq := func(c *webtest.Client, chat, text string) string {
		t.Helper()
		m := c.Get(chat).Doc(t).Find(testID("chat-message") + `:contains("` + text + `")`)
		if m.Length() != 1 {
			t.Fatalf("%q not in %s", text, chat)
		}
		return m.AttrOr("data-seq", "")
	}
	room := "/chat/room-general"
	n := seq(bob, room, "Buy followers")
	num, _ := strconv.Atoi(n)
	// The report's link opens the chat at the message, however old.
	at := room + "?after=" + strconv.Itoa(num-1) + "#m-" + n
	if bob.Get(room).Doc(t).Find(`[data-seq="`+n+`"] `+testID("chat-report")).Length() != 1 {
		t.Error("no report on someone else's message")
	}
	if ann.Get(room).Doc(t).Find(`[data-seq="`+n+`"] `+testID("chat-report")).Length() != 0 {
		t.Error("a report on one's own message")
	}
	path := room + "/messages/" + n + "/report"
	if res := bob.Get(path); res.StatusCode != http.StatusOK || !strings.Contains(res.Doc(t).Find(testID("report-excerpt")).Text(), "Buy followers") {
		t.Fatalf("the report page: %d", res.StatusCode)
	}
	if res := ann.Get(path); res.StatusCode != http.StatusNotFound {
		t.Errorf("the sender's report page: %d", res.StatusCode)
	}
	if res := post(bob, path, url.Values{"reason": {"nonsense"}}); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("a bad reason: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := post(bob, room+"/messages/999/report", url.Values{"reason": {"spam"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a message that is not there: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := post(bob, path, url.Values{"reason": {"spam"}}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != at {
		t.Fatalf("report: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	// In a private chat.
	dm := post(ann, "/chat/private", url.Values{"member": {bobKey}}).Header.Get("Location")
	post(ann, dm+"/messages", url.Values{"body": {"You will regret it"}})
	dn := seq(bob, dm, "regret")
	if res := post(bob, dm+"/messages/"+dn+"/report", url.Values{"reason": {"harassment"}, "note": {"A threat."}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("report in a private chat: %d", res.StatusCode)
	}
	if res := ann.PostFile(dm+"/messages", ann.WithCSRF("/chat", url.Values{"body": {"look"}}), "image", "x.png", mediatest.EncodedPNG(t, 640, 480)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a picture: %d", res.StatusCode)
	}
	pn := seq(bob, dm, "look")
	if res := post(bob, dm+"/messages/"+pn+"/report", url.Values{"reason": {"inappropriate"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("report a picture: %d", res.StatusCode)
	}

	queue := org.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if queue.Length() != 3 {
		t.Fatalf("the queue has %d items", queue.Length())
	}
	picture := queue.Filter(`:contains("look")`)
	pic := picture.Find(testID("report-picture")).AttrOr("src", "")
	if res := org.Get(pic); pic == "" || res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("the reported picture %q: %d", pic, res.StatusCode)
	}
	if queue.Filter(`:contains("regret")`).Find(testID("report-picture")).Length() != 0 {
		t.Error("a report of words shows a picture")
	}
	for _, c := range []*webtest.Client{bob, ann} {
		if res := c.Get(pic); res.StatusCode != http.StatusForbidden {
			t.Errorf("a member opens the reported picture: %d", res.StatusCode)
		}
	}
	if res := org.PostForm("/admin/reports/"+picture.AttrOr("data-report", "")+"/take-down", org.WithCSRF("/admin/reports", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take the picture down: %d", res.StatusCode)
	}
	if res := org.Get(pic); res.StatusCode != http.StatusNotFound {
		t.Errorf("the picture after its report closed: %d", res.StatusCode)
	}
	if kept, err := a.Store.Container(admin.PicturesContainer).List(t.Context(), ""); err != nil || len(kept) != 0 {
		t.Errorf("pictures kept after their reports closed: %v, %v", kept, err)
	}
	queue = org.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	private, public := queue.Filter(`:contains("regret")`), queue.Filter(`:contains("Buy followers")`)
	if !strings.Contains(private.Text(), "Chat message") || !strings.Contains(private.Find(testID("report-excerpt")).Text(), "You will regret it") || private.Find(testID("report-link")).Length() != 0 {
		t.Errorf("the private message's report: %q", private.Text())
	}
	if link, _ := public.Find(testID("report-link")).Attr("href"); link != at {
		t.Errorf("the room message's link: %q", link)
	}
	for _, item := range []string{private.AttrOr("data-report", ""), public.AttrOr("data-report", "")} {
		if res := org.PostForm("/admin/reports/"+item+"/take-down", org.WithCSRF("/admin/reports", nil)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("take down: %d", res.StatusCode)
		}
	}
	for chat, seq := range map[string]string{room: n, dm: dn} {
		if bob.Get(chat).Doc(t).Find(`[data-seq="`+seq+`"] `+testID("chat-tombstone")).Length() != 1 {
			t.Errorf("the message taken down in %s still shows", chat)
		}
	}
}

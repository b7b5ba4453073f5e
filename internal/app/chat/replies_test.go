package chat_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestReplies: "Reply" on a message opens the form answering it (a
// fragment for htmx, a page without JavaScript); the reply quotes the
// message as it is now, on the page and down the stream, also when the
// page does not show the message itself; an edit of it reaches every
// quote live, and a deletion takes its words out of them. A reply to
// what is not a live message of the chat is refused on the form, which
// keeps what was typed, and writes nothing.
func TestReplies(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann, bob := a.annAndBob()
	room := "/chat/room-general"
	post(ann, room+"/messages", url.Values{"body": {"Dinner at **eight**?"}})
	last := func() (seq int64, msg *goquery.Selection) {
		msgs := bob.Get(room).Doc(t).Find(testID("chat-message"))
		msg = msgs.Last()
		seq, _ = strconv.ParseInt(msg.AttrOr("data-seq", ""), 10, 64)
		return seq, msg
	}
	dinner, _ := last()
	of := strconv.FormatInt(dinner, 10)

	// "Reply" is in the message's menu; it opens the form answering it.
	if href := bob.Get(room).Doc(t).Find("#m-"+of+" "+testID("chat-reply")).AttrOr("href", ""); href != room+"/form?reply="+of {
		t.Fatalf("the reply link: %q", href)
	}
	page := bob.Get(room + "/form?reply=" + of)
	doc := page.Doc(t)
	if page.StatusCode != http.StatusOK || doc.Find("h1").Text() != "Your reply" || doc.Find(`#chat-form input[name="reply"]`).AttrOr("value", "") != of {
		t.Fatalf("the reply page: %d %q", page.StatusCode, doc.Find("h1").Text())
	}
	if q := doc.Find(testID("chat-replying") + " " + testID("chat-quote")).Text(); !strings.Contains(q, "Dinner at eight?") || strings.Contains(q, "**") {
		t.Fatalf("the form's quote: %q", q)
	}
	frag := bob.Get(room+"/form?reply="+of, "HX-Request", "true", "HX-Request-Type", "partial")
	if frag.StatusCode != http.StatusOK || strings.Contains(frag.Body, "<html") || frag.Doc(t).Find(testID("chat-replying")).Length() != 1 || frag.Doc(t).Find(testID("chat-reply-cancel")).AttrOr("hx-get", "") != room+"/form" {
		t.Fatalf("the reply form for htmx: %d %s", frag.StatusCode, frag.Body)
	}
	if ru := bob.Get(room+"/form?reply="+of, "Accept-Language", "ru").Doc(t); ru.Find("h1").Text() != "Ваш ответ" {
		t.Fatalf("the reply page in Russian: %q", ru.Find("h1").Text())
	}

	// A reply to what is not a live message of the chat: refused on the
	// form, with what was typed, and nothing written.
	post(ann, room+"/messages", url.Values{"body": {"gone soon"}})
	gone, _ := last()
	if res := post(ann, room+"/messages/"+strconv.FormatInt(gone, 10)+"/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	for _, bad := range []string{"x", "0", "-3", "99", strconv.FormatInt(gone, 10), "1"} {
		// 1 is ann's "joined" line: the app's words, not hers.
		res := post(bob, room+"/messages", url.Values{"body": {"Sounds good"}, "reply": {bad}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || !strings.Contains(res.Body, "replying to is no longer there") || res.Doc(t).Find("#chat-body").Text() != "Sounds good" {
			t.Errorf("a reply to %q: %d, %d writes", bad, res.StatusCode, res.Writes(t))
		}
		if res := bob.Get(room + "/form?reply=" + bad); res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(testID("chat-replying")).Length() != 0 || res.Writes(t) != 0 {
			t.Errorf("the form answering %q: %d", bad, res.StatusCode)
		}
	}

	// Bob replies; org watches the stream.
	org := a.Client()
	a.SignIn(org, "org@example.com")
	head, _ := last()
	events, stop := openStream(t, org, room+"/stream?after="+strconv.FormatInt(head, 10), "")
	defer stop()
	if res := post(bob, room+"/messages", url.Values{"body": {"Sounds good"}, "reply": {of}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the reply: %d %s", res.StatusCode, res.Body)
	}
	reply, msg := last()
	quoted := func(msg *goquery.Selection) string {
		return msg.Find(testID("chat-quote")).Text()
	}
	if q := quoted(msg); !strings.Contains(q, "Dinner at eight?") || msg.Find(testID("chat-quote")).AttrOr("data-quote-of", "") != of {
		t.Fatalf("the reply's quote: %q", q)
	}
	// Before it: the deletion above, and bob's "joined" line.
	if ev := next(t, events, 3)[2]; ev.ID != strconv.FormatInt(reply, 10) || !strings.Contains(ev.Data, "Dinner at eight?") || !strings.Contains(ev.Data, `data-quote-of="`+of+`"`) {
		t.Fatalf("the reply on the stream: %+v", ev)
	}
	// A page that starts after the message still quotes it (read for it).
	later := bob.Get(room + "?after=" + of).Doc(t)
	if later.Find("#m-"+of).Length() != 0 || !strings.Contains(quoted(later.Find("#m-"+strconv.FormatInt(reply, 10))), "Dinner at eight?") {
		t.Fatal("a page without the message does not quote it")
	}

	// Ann edits it: the quote follows, on the page and live.
	if res := post(ann, room+"/messages/"+of+"/edit", url.Values{"body": {"Dinner at nine?"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	if _, msg := last(); !strings.Contains(quoted(msg), "Dinner at nine?") {
		t.Fatalf("the quote after the edit: %q", quoted(msg))
	}
	if ev := next(t, events, 1)[0]; !strings.Contains(ev.Data, `hx-swap-oob="outerHTML:[data-quote-of=&#34;`+of+`&#34;]"`) || !strings.Contains(ev.Data, "Dinner at nine?") {
		t.Fatalf("the edit on the stream does not requote: %+v", ev)
	}
	// Ann deletes it: no quote says her words any more.
	if res := post(ann, room+"/messages/"+of+"/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	page = bob.Get(room)
	if _, msg := last(); quoted(msg) != "In reply to Message deleted" || strings.Contains(page.Body, "Dinner") {
		t.Fatalf("the quote after the deletion: %q", quoted(msg))
	}
	if ev := next(t, events, 1)[0]; !strings.Contains(ev.Data, "data-quote-of") || strings.Contains(ev.Data, "Dinner") || !strings.Contains(ev.Data, "Message deleted") {
		t.Fatalf("the deletion on the stream does not requote: %+v", ev)
	}
}

package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// A block reaches every module's notices, through the inbox: once Anna
// blocks Tom, his forum reply and mention, his comment on their family's
// appointment, his private message and his invitation to a group tell
// her nothing; once she unblocks him, his next comment does.
func TestABlockSilencesNoticesInEveryModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := newTestAppOnStore(t, nil)
	if _, err := a.Built.SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	anna, tom := webtest.NewClient(t, a.Handler()), webtest.NewClient(t, a.Handler())
	signIn(t, anna, "anna@demo.example")
	signIn(t, tom, "tom@demo.example")
	annaKey, err := a.Built.Core.Auth.MemberByEmail(ctx, "anna@demo.example")
	if err != nil {
		t.Fatal(err)
	}
	tomKey, err := a.Built.Core.Auth.MemberByEmail(ctx, "tom@demo.example")
	if err != nil {
		t.Fatal(err)
	}
	post := func(c *webtest.Client, path string, form url.Values) *webtest.Response {
		t.Helper()
		res := c.PostForm(path, c.WithCSRF("/", form))
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d", path, res.StatusCode)
		}
		return res
	}
	notices := func() *goquery.Selection {
		if _, err := a.Built.Core.Tasks.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		return anna.Get("/inbox").Doc(t).Find(`[data-testid="inbox-item"]`)
	}
	// What Tom does, each time telling Anna unless she blocked him: a
	// reply mentioning her in a new topic of hers, a comment on their
	// family's dinner (everyone goes), an invitation to a new group of his,
	// and (blocked only: its notice is once an hour) a private message.
	smiths, _ := anna.Get("/").Doc(t).Find(`[data-testid="group-card"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "The Smiths")
	}).Find("a").First().Attr("href")
	dinner, _ := anna.Get(smiths).Doc(t).Find(`[data-testid="appointment-row"] a:contains("Grandma's birthday dinner")`).First().Attr("href")
	if dinner == "" {
		t.Fatal("the demo has no family dinner")
	}
	act := func(round string, message bool) {
		t.Helper()
		topic := post(anna, "/forum/topics", url.Values{"section": {"general"}, "title": {"Picnic " + round}, "body": {"Who is in?"}}).Header.Get("Location")
		post(tom, topic+"/replies", url.Values{"body": {"@Anna count me in " + round}})
		post(tom, dinner+"/comments", url.Values{"comment": {"I'll bring flowers " + round}})
		group := strings.TrimSuffix(post(tom, "/groups", url.Values{"name": {"Five-a-side " + round}}).Header.Get("Location"), "/settings")
		post(tom, group+"/invites", url.Values{"email": {"anna@demo.example"}})
		if message {
			dm := post(tom, "/chat/private", url.Values{"member": {annaKey}}).Header.Get("Location")
			post(tom, dm+"/messages", url.Values{"body": {"are you there? " + round}})
		}
	}
	before := notices().Length()

	post(anna, "/chat/block", url.Values{"member": {tomKey}, "name": {"Tom Smith"}, "confirm": {"yes"}})
	act("first", true)
	if got := notices(); got.Length() != before {
		t.Fatalf("Anna has %d notices after blocking Tom, %d before: %q", got.Length(), before, got.Text())
	}

	post(anna, "/chat/unblock", url.Values{"member": {tomKey}})
	act("again", false)
	// Three notices: the mention and the invitation are lines of their
	// own; the comment gathers into Anna's unread line of the dinner's
	// comments (the demo's), which it now leads.
	var got *goquery.Selection
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = notices(); got.Length() >= before+2 && strings.Contains(got.Text(), "I'll bring flowers again") {
			break
		}
	}
	if got.Length() != before+2 || !strings.Contains(got.Text(), "I'll bring flowers again") || strings.Contains(got.Text(), "first") {
		t.Fatalf("after unblocking, Anna has %d notices, %d before: %q", got.Length(), before, got.Text())
	}
}

package inbox_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

type inboxApp struct {
	*accounttest.App
	svc *inbox.Service
}

func newInboxApp(t *testing.T) *inboxApp {
	t.Helper()
	app := &inboxApp{}
	app.App = accounttest.New(t, accounttest.Options{Modules: []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			var err error
			app.svc, err = inbox.FromCore(c)
			return app.svc, err
		},
	}})
	return app
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

// post posts an appointment-style notice to memberKey and runs the queue.
func (a *inboxApp) post(t *testing.T, n inbox.Notice) {
	t.Helper()
	if err := a.svc.Post(ctx, n); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
}

func changed(memberKey, title string) inbox.Notice {
	return inbox.Notice{
		To:   []inbox.Recipient{{MemberKey: memberKey}},
		Kind: "groups.notify.appointment_changed",
		Args: map[string]string{"name": "Anna", "group": "Smiths", "title": title},
		When: time.Date(2030, 6, 3, 16, 30, 0, 0, time.UTC),
		Link: "/groups/g1/appointments/a1",
	}
}

func mailsTo(a *inboxApp, email string) int {
	n := 0
	for _, m := range a.Mail() {
		if m.To == email && !strings.Contains(m.Subject, "code") {
			n++
		}
	}
	return n
}

// A notice reaches the inbox page and the bell in the reader's language,
// its time in the reader's zone, and their email.
func TestANoticeReachesTheInboxTheBellAndTheEmail(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", url.Values{
		"language": {"ru"}, "profileVisibility": {"public"}, "notificationsEnabled": {"on"}, "emailNotifications": {"on"},
	})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	if res := c.PostForm("/account/profile", c.WithCSRF("/account", url.Values{"displayName": {"Bob"}, "timezone": {"Europe/Moscow"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("profile: %d", res.StatusCode)
	}
	page := c.Get("/").Doc(t)
	if page.Find(testID("inbox-bell")).Length() != 1 || page.Find(testID("inbox-count")).Length() != 0 {
		t.Fatal("a member with nothing unread should see the bell without a count")
	}

	a.post(t, changed(bob, "Ужин"))
	page = c.Get("/inbox").Doc(t)
	items := page.Find(testID("inbox-item"))
	if items.Length() != 1 {
		t.Fatalf("%d items", items.Length())
	}
	text := items.Find(testID("inbox-open")).Text()
	// 16:30 UTC is 19:30 in Moscow; the month is in Russian.
	if !strings.Contains(text, "Anna меняет «Ужин»") || !strings.Contains(text, "июн") || !strings.Contains(text, "19:30") {
		t.Errorf("item text %q", text)
	}
	if v, _ := items.Attr("data-unread"); v != "true" {
		t.Error("a new notice is not unread")
	}
	if got := page.Find(testID("inbox-count")).Text(); got != "1" {
		t.Errorf("bell count %q, want 1", got)
	}
	// It came today, in Bob's zone; its group's icon leads it.
	moscow, _ := time.LoadLocation("Europe/Moscow")
	came := a.Clock.Now().In(moscow).Format("15:04")
	if got := items.Find("time").Text(); got != "Сегодня, "+came || items.Find(`[data-module="groups"] svg`).Length() != 1 {
		t.Errorf("when it came: %q, the groups icon %d", got, items.Find(`[data-module="groups"] svg`).Length())
	}
	a.Clock.Advance(24 * time.Hour)
	if got := c.Get("/inbox").Doc(t).Find(testID("inbox-item") + " time").Text(); got != "Вчера, "+came {
		t.Errorf("a day later: %q", got)
	}
	mails := a.Mail()
	if len(mails) == 0 || mails[0].To != "bob@example.com" || !strings.Contains(mails[0].Subject, "Изменение в группе «Smiths»") ||
		!strings.Contains(mails[0].Text, a.Config.BaseURL.String()+"/groups/g1/appointments/a1") {
		t.Errorf("mail %+v", mails[0])
	}

	// A browser's prefetch of it, or another site's request for it, follows
	// the link but leaves it unread; opening it marks it read.
	href, _ := items.Find(testID("inbox-open")).Attr("href")
	for _, h := range [][]string{{"Sec-Purpose", "prefetch;prerender"}, {"Purpose", "prefetch"}, {"Sec-Fetch-Site", "cross-site"}} {
		res := c.Get(href, h...)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups/g1/appointments/a1" || res.Writes(t) != 0 {
			t.Errorf("%s: %d %s, %d writes", h[0], res.StatusCode, res.Header.Get("Location"), res.Writes(t))
		}
	}
	if c.Get("/inbox").Doc(t).Find(testID("inbox-count")).Text() != "1" {
		t.Error("a prefetch marked the notice read")
	}
	res := c.Get(href, "Sec-Fetch-Site", "same-origin")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups/g1/appointments/a1" {
		t.Fatalf("open: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if c.Get("/inbox").Doc(t).Find(testID("inbox-count")).Length() != 0 {
		t.Error("the bell still counts an opened notice")
	}
}

// Marking all read is one write, whatever the number of notices.
func TestMarkAllReadIsOneWrite(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	for i := range 5 {
		a.post(t, changed(bob, fmt.Sprintf("Plan %d", i)))
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 5 {
		t.Fatalf("unread %d, want 5", n)
	}
	res := c.PostForm("/inbox/read-all", c.WithCSRF("/inbox", nil))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("read-all: %d", res.StatusCode)
	}
	if ops := res.StorageOps(t); ops["writes"]+ops["txs"] != 1 {
		t.Errorf("mark all read took %s, want one write", res.Header.Get("X-Storage-Ops"))
	}
	page := c.Get("/inbox").Doc(t)
	if page.Find(`[data-unread="true"]`).Length() != 0 || page.Find(testID("inbox-count")).Length() != 0 {
		t.Error("notices still unread after mark all read")
	}
	// A notice after that is unread again.
	a.Clock.Advance(time.Second)
	a.post(t, changed(bob, "Later"))
	if n, _ := a.svc.Unread(ctx, bob); n != 1 {
		t.Errorf("unread %d after a new notice, want 1", n)
	}
	// Marking one read is one write too.
	id, _ := c.Get("/inbox").Doc(t).Find(`[data-unread="true"]`).Find(testID("inbox-open")).Attr("href")
	res = c.PostForm(id+"/read", c.WithCSRF("/inbox", nil))
	if ops := res.StorageOps(t); res.StatusCode != http.StatusSeeOther || ops["writes"] != 1 {
		t.Errorf("mark read: %d, %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 0 {
		t.Errorf("unread %d, want 0", n)
	}
}

// With htmx, marking one notice read swaps in its row, now read, with the
// focus on its link, and the header's bell with the count left; the other
// notices stay unread.
func TestMarkReadInPlace(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	a.post(t, changed(bob, "Lunch"))
	a.Clock.Advance(time.Second)
	a.post(t, changed(bob, "Dinner"))
	page := c.Get("/inbox").Doc(t)
	button := page.Find(testID("inbox-mark-read")).First()
	if button.Length() != 1 || strings.TrimSpace(button.Text()) != "Mark as read" {
		t.Fatalf("the mark-read button is not named: %q", button.Text())
	}
	form := button.Closest("form")
	action, _ := form.Attr("action")
	if hx, _ := form.Attr("hx-post"); hx != action {
		t.Fatalf("the mark-read form does not post by htmx: %q vs %q", hx, action)
	}
	res := c.PostForm(action, c.WithCSRF("/inbox", nil), "HX-Request", "true", "HX-Request-Type", "partial")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("mark read by htmx: %d", res.StatusCode)
	}
	frag := res.Doc(t)
	item := frag.Find(testID("inbox-item"))
	if v, _ := item.Attr("data-unread"); item.Length() != 1 || v != "false" {
		t.Fatalf("the row swapped in is not read: %d rows, unread=%q", item.Length(), v)
	}
	if !strings.Contains(item.Text(), "Dinner") || item.Find(testID("inbox-mark-read")).Length() != 0 {
		t.Errorf("the row swapped in: %q", item.Text())
	}
	if _, ok := item.Find(testID("inbox-open")).Attr("autofocus"); !ok {
		t.Error("the focus does not go to the row's link once its button went")
	}
	bell := frag.Find(testID("inbox-bell"))
	if oob, _ := bell.Attr("hx-swap-oob"); oob != "true" || bell.Find(testID("inbox-count")).Text() != "1" {
		t.Errorf("the bell swapped in: oob=%q count=%q", oob, bell.Find(testID("inbox-count")).Text())
	}
	if frag.Find("header, main").Length() != 0 {
		t.Error("htmx got a whole page")
	}
	page = c.Get("/inbox").Doc(t)
	if page.Find(`[data-unread="true"]`).Length() != 1 || !strings.Contains(page.Find(`[data-unread="true"]`).Text(), "Lunch") {
		t.Error("the other notice is no longer the one unread")
	}
	// Without JS the form goes back to the inbox.
	action, _ = page.Find(testID("inbox-mark-read")).Closest("form").Attr("action")
	if res := c.PostForm(action, c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/inbox" {
		t.Errorf("mark read without JS: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 0 {
		t.Errorf("unread %d, want 0", n)
	}
}

// The member's settings decide the email; the inbox row is written
// either way.
func TestEmailFollowsTheNotificationSettings(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", url.Values{
		"language": {"en"}, "profileVisibility": {"public"}, "notificationsEnabled": {"on"},
	})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	a.post(t, changed(bob, "Dinner"))
	if n := mailsTo(a, "bob@example.com"); n != 0 {
		t.Errorf("%d notification mails with email notifications off", n)
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 1 {
		t.Errorf("unread %d, want 1", n)
	}
}

// A part of the app left out of "Email me about" reaches the inbox only;
// the others still come by email.
func TestEmailFollowsThePartsChosen(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", url.Values{
		"language": {"en"}, "profileVisibility": {"public"}, "notificationsEnabled": {"on"}, "emailNotifications": {"on"},
		"emailAreasShown": {"on"}, "emailAbout": {"groups", "events", "chat"},
	})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	reply := inbox.Notice{
		To: []inbox.Recipient{{MemberKey: bob}}, Kind: "forum.notify.reply", Link: "/forum/t/x",
		Args: map[string]string{"name": "Ann", "topic": "Trains", "preview": "Yes"}, When: time.Date(2030, 6, 3, 16, 30, 0, 0, time.UTC),
	}
	a.post(t, reply)
	if n := mailsTo(a, "bob@example.com"); n != 0 {
		t.Errorf("%d mails of a forum notice with the forum left out", n)
	}
	a.post(t, changed(bob, "Dinner"))
	if n := mailsTo(a, "bob@example.com"); n != 1 {
		t.Errorf("%d mails of a group notice, want 1", n)
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 2 {
		t.Errorf("unread %d, want both notices in the inbox", n)
	}
}

// "Show notifications on the site" off: no inbox row, no badge, no
// email, whatever the email setting says.
func TestNotificationsOffWritesNothing(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", url.Values{
		"language": {"en"}, "profileVisibility": {"public"}, "emailNotifications": {"on"},
	})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	a.post(t, changed(bob, "Dinner"))
	if n := mailsTo(a, "bob@example.com"); n != 0 {
		t.Errorf("%d notification mails with notifications off", n)
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 0 {
		t.Errorf("unread %d with notifications off", n)
	}
	if c.Get("/").Doc(t).Find(`[data-testid="inbox-count"]`).Length() != 0 {
		t.Error("the bell shows a count with notifications off")
	}
}

// Someone without an account gets the email (an invitation is how they
// learn of the site), in the poster's language; with an account the
// address finds their inbox.
func TestARecipientByAddress(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	invite := func(to string) inbox.Notice {
		return inbox.Notice{
			To:   []inbox.Recipient{{Email: to}},
			Kind: "groups.notify.invited",
			Args: map[string]string{"name": "Anna", "group": "Smiths", "email": to},
			Link: "/groups/g1/invite",
		}
	}
	a.post(t, invite("new@example.com"))
	if n := mailsTo(a, "new@example.com"); n != 1 {
		t.Errorf("%d mails to an address without an account, want 1", n)
	}
	c := a.Client()
	carol := a.SignIn(c, "carol@example.com")
	a.post(t, invite("Carol@Example.com"))
	if n, _ := a.svc.Unread(ctx, carol); n != 1 {
		t.Errorf("the address did not find the account's inbox: unread %d", n)
	}
}

// Several recipients fan out, each gets one copy, and a key makes a
// repeated post a no-op.
func TestFanOutAndIdempotency(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	var keys []string
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		keys = append(keys, a.SignIn(a.Client(), e))
	}
	n := changed("", "Trip")
	n.To = nil
	for _, k := range keys {
		n.To = append(n.To, inbox.Recipient{MemberKey: k})
	}
	n.Key = "trip|changed|1"
	for range 2 {
		if err := a.svc.Post(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	// The fan-out, then the deliveries it enqueued.
	for range 2 {
		if _, err := a.Tasks.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys {
		if got, _ := a.svc.Unread(ctx, k); got != 1 {
			t.Errorf("%s: %d unread, want 1", k, got)
		}
	}
	if err := a.svc.Post(ctx, inbox.Notice{To: n.To, Kind: "no.such.kind"}); !errors.Is(err, inbox.ErrBadNotice) {
		t.Errorf("a kind without a message: %v", err)
	}
}

// Bad ids and other people's notices are 404 and change nothing; the
// inbox is for accounts only.
func TestBadRequestsChangeNothing(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	a.post(t, changed(bob, "Dinner"))
	mine, _ := c.Get("/inbox").Doc(t).Find(testID("inbox-open")).Attr("href")

	eve := a.Client()
	a.SignIn(eve, "eve@example.com")
	for _, path := range []string{mine, "/inbox/state", "/inbox/%27%3B--", "/inbox/0640408377317906726%7Cnot-a-ulid"} {
		if res := eve.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
		if res := eve.PostForm(path+"/read", eve.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s/read: %d, want 404", path, res.StatusCode)
		}
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 1 {
		t.Errorf("bob's notice changed: unread %d", n)
	}
	if res := c.Get("/inbox?cursor=garbage"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d", res.StatusCode)
	}
	anon := webtest.NewClient(t, a.Handler)
	if res := anon.Get("/inbox"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
		t.Errorf("anonymous: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
}

// A long inbox pages by cursor, newest first.
func TestTheInboxPages(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	for i := range 35 {
		a.Clock.Advance(time.Minute)
		if err := a.svc.Post(ctx, changed(bob, fmt.Sprintf("Plan %02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	a.Tasks.RunDue(ctx)
	page := c.Get("/inbox").Doc(t)
	items := page.Find(testID("inbox-open"))
	if items.Length() != 30 || !strings.Contains(items.First().Text(), "Plan 34") {
		t.Fatalf("first page: %d items, first %q", items.Length(), items.First().Text())
	}
	more, ok := page.Find(testID("load-more")).Attr("href")
	if !ok {
		t.Fatal("no load-more link")
	}
	rest := c.Get(more).Doc(t).Find(testID("inbox-open"))
	if rest.Length() != 5 || !strings.Contains(rest.Last().Text(), "Plan 00") {
		t.Errorf("second page: %d items, last %q", rest.Length(), rest.Last().Text())
	}
}

// A person gets at most MailsPerHour notification emails an hour: past
// that a notice still reaches the inbox, but not the mailbox; the next
// hour mails again.
func TestEmailsAreCappedPerHour(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	for i := range inbox.MailsPerHour + 5 {
		a.post(t, changed(bob, fmt.Sprint("Dinner ", i)))
	}
	if n := c.Get("/inbox").Doc(t).Find(testID("inbox-item")).Length(); n != inbox.MailsPerHour+5 {
		t.Fatalf("%d notices in the inbox, want %d", n, inbox.MailsPerHour+5)
	}
	if n := mailsTo(a, "bob@example.com"); n != inbox.MailsPerHour {
		t.Fatalf("%d emails, want %d", n, inbox.MailsPerHour)
	}
	a.Clock.Advance(time.Hour)
	a.post(t, changed(bob, "Dinner, an hour later"))
	if n := mailsTo(a, "bob@example.com"); n != inbox.MailsPerHour+1 {
		t.Fatalf("%d emails after an hour, want %d", n, inbox.MailsPerHour+1)
	}
}

// TestNoticesGather: notices of one kind about one thing (Gather) from
// several people are one unread line, moved to the top with the newest
// one's words and how many others did the same, in the reader's
// language; a line read, or everything marked read, starts a new one;
// another thing, or a notice that does not gather, is a line of its
// own. A delivery tried again, after its line gathered more or not,
// changes nothing.
func TestNoticesGather(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	comment := func(from, name, post string) inbox.Notice {
		return inbox.Notice{
			To: []inbox.Recipient{{MemberKey: bob}}, Kind: "blog.notify.comment", From: from, Gather: post,
			Args: map[string]string{"name": name, "title": "Tour " + post, "preview": "Hi from " + name},
			Link: "/blog/" + post,
		}
	}
	lines := func(lang string) []string {
		var out []string
		c.Get("/inbox", "Accept-Language", lang).Doc(t).Find(testID("inbox-open")).Each(func(_ int, s *goquery.Selection) {
			s = s.Clone()
			s.Find(".visually-hidden").Remove() // "Unread:"
			out = append(out, strings.Join(strings.Fields(s.Text()), " "))
		})
		return out
	}
	a.post(t, comment("auth:ann", "Ann", "p1"))
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:cat", "Cat", "p2"))
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:cat", "Cat", "p1"))
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:ann", "Ann", "p1")) // Ann again: still one other
	want := []string{"Ann and 1 other commented on “Tour p1”: “Hi from Ann”", "Cat commented on “Tour p2”: “Hi from Cat”"}
	if got := lines("en"); !slices.Equal(got, want) {
		t.Fatalf("the inbox: %q, want %q", got, want)
	}
	if got := lines("ru"); got[0] != "Ann и ещё 1 человек прокомментировали «Tour p1»: «Hi from Ann»" {
		t.Errorf("in Russian: %q", got[0])
	}
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:dan", "Dan", "p1"))
	if got := lines("en"); got[0] != "Dan and 2 others commented on “Tour p1”: “Hi from Dan”" || len(got) != 2 {
		t.Errorf("after Dan's: %q", got)
	}
	if n, _ := a.svc.Unread(ctx, bob); n != 2 {
		t.Errorf("unread: %d, want 2 lines", n)
	}

	// Read, the line stays as it is; the next comment starts a new one.
	id := c.Get("/inbox").Doc(t).Find(testID("inbox-item")).First().AttrOr("id", "")
	if res := c.PostForm("/inbox/"+strings.TrimPrefix(id, "notice-")+"/read", c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark read: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:eve", "Eve", "p1"))
	if got := lines("en"); len(got) != 3 || got[0] != "Eve commented on “Tour p1”: “Hi from Eve”" || !strings.HasPrefix(got[1], "Dan and 2 others") {
		t.Errorf("after a read line: %q", got)
	}
	// Everything marked read: the next starts a new line too.
	if res := c.PostForm("/inbox/read-all", c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("read all: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Minute)
	a.post(t, comment("auth:fay", "Fay", "p1"))
	if got := lines("en"); len(got) != 4 || got[0] != "Fay commented on “Tour p1”: “Hi from Fay”" {
		t.Errorf("after read all: %q", got)
	}

	// A delivery tried again, the first try's line gathered since or not,
	// writes nothing.
	at := a.Clock.Now().Add(time.Minute)
	gay, hal := comment("auth:gay", "Gay", "p3"), comment("auth:hal", "Hal", "p3")
	for _, d := range []struct {
		n  inbox.Notice
		id string
		at time.Time
	}{{gay, "01TESTGAY0000000000000000", at}, {hal, "01TESTHAL0000000000000000", at.Add(time.Second)}, {hal, "01TESTHAL0000000000000000", at.Add(time.Second)}, {gay, "01TESTGAY0000000000000000", at}} {
		if err := a.svc.WriteAgain(ctx, bob, d.n, d.id, d.at); err != nil {
			t.Fatal(err)
		}
	}
	a.Clock.Advance(2 * time.Minute)
	if got := lines("en"); len(got) != 5 || got[0] != "Hal and 1 other commented on “Tour p3”: “Hi from Hal”" {
		t.Errorf("deliveries tried again: %q", got)
	}
	// A delivery late (retried) gathers where its line stands, not below
	// a notice that came between.
	at = a.Clock.Now()
	for _, d := range []struct {
		n  inbox.Notice
		id string
		at time.Time
	}{{comment("auth:kim", "Kim", "p5"), "01TESTKIM0000000000000000", at.Add(20 * time.Second)}, {comment("auth:ivy", "Ivy", "p4"), "01TESTIVY0000000000000000", at.Add(30 * time.Second)}, {comment("auth:jo", "Jo", "p4"), "01TESTJO00000000000000000", at.Add(15 * time.Second)}} {
		if err := a.svc.WriteAgain(ctx, bob, d.n, d.id, d.at); err != nil {
			t.Fatal(err)
		}
	}
	a.Clock.Advance(time.Minute)
	if got := lines("en"); len(got) != 7 || !strings.HasPrefix(got[0], "Jo and 1 other commented on “Tour p4”") || !strings.HasPrefix(got[1], "Kim commented") {
		t.Errorf("a late delivery: %q", got[:2])
	}
}

// TestTheInboxNarrowsToAModule: chips narrow the inbox, all or unread,
// to one module's notices (the first word of their kinds), paged with
// their own cursors and fetched again on a change as they are; a module
// with none says so; the moderation's chip is the admins'; a module the
// inbox does not know is a 400.
func TestTheInboxNarrowsToAModule(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	for i := range 31 {
		a.post(t, changed(bob, fmt.Sprintf("Plan %02d", i)))
	}
	a.post(t, inbox.Notice{To: []inbox.Recipient{{MemberKey: bob}}, Kind: "forum.notify.mention",
		Args: map[string]string{"name": "Ann", "topic": "Picnic", "preview": "@Bob bring the ball"}, Link: "/forum/t/1"})
	items := func(path string) *goquery.Selection { return c.Get(path).Doc(t).Find(testID("inbox-item")) }

	page := c.Get("/inbox?from=forum").Doc(t)
	if got := page.Find(testID("inbox-item")); got.Length() != 1 || !strings.Contains(got.Text(), "Picnic") {
		t.Errorf("the forum's notices: %d %q", got.Length(), got.Text())
	}
	var chips []string
	page.Find(testID("inbox-from")).Each(func(_ int, s *goquery.Selection) {
		chips = append(chips, s.Text()+map[bool]string{true: "*"}[s.AttrOr("aria-current", "") == "page"])
	})
	if want := []string{"Everything", "Groups", "Events", "Forum*", "Chat", "People", "Blog", "Store"}; !slices.Equal(chips, want) {
		t.Errorf("chips %q, want %q", chips, want)
	}
	if href := page.Find(testID("inbox-tab-unread")).AttrOr("href", ""); href != "/inbox?from=forum&show=unread" {
		t.Errorf("the Unread tab keeps the module: %q", href)
	}
	if page.Find(`#inbox-refresh input[name="from"][value="forum"]`).Length() != 1 {
		t.Error("the fetch on a change would bring every module's notices")
	}

	// The groups' 31 notices, unread: a page, then the next by its link.
	groups := c.Get("/inbox?show=unread&from=groups").Doc(t)
	next := groups.Find(testID("load-more")).AttrOr("href", "")
	if groups.Find(testID("inbox-item")).Length() != 30 || !strings.HasPrefix(next, "/inbox?from=groups&show=unread&cursor=") {
		t.Fatalf("the groups' unread notices: %d, next %q", groups.Find(testID("inbox-item")).Length(), next)
	}
	if more := items(next); more.Length() != 1 || !strings.Contains(more.Text(), "Plan") {
		t.Errorf("the next page: %d %q", more.Length(), more.Text())
	}
	// Its token does not open another module's list.
	if res := c.Get(strings.Replace(next, "from=groups", "from=forum", 1)); res.StatusCode != http.StatusBadRequest {
		t.Errorf("the groups' token on the forum's list: %d", res.StatusCode)
	}
	empty := c.Get("/inbox?from=store").Doc(t)
	if !strings.Contains(empty.Find(testID("inbox-empty")).Text(), "Nothing from Store here.") {
		t.Errorf("the store's: %q", empty.Find(testID("inbox-empty")).Text())
	}
	if res := c.Get("/inbox?from=nowhere"); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Errorf("a module the inbox does not know: %d", res.StatusCode)
	}
}

package inbox_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/live/livetest"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// hx are the headers of an htmx fetch of part of a page.
var hx = []string{"HX-Request", "true", "HX-Request-Type", "partial"}

// TestTheInboxStreamSaysEachNotice: a member's stream says "inboxchange"
// when a notice reaches their inbox; the feed carries it on their topic
// alone (not another member's); marking read says nothing (one write);
// a visitor has no stream.
func TestTheInboxStreamSaysEachNotice(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	bobC, annC := a.Client(), a.Client()
	bob, ann := a.SignIn(bobC, "bob@example.com"), a.SignIn(annC, "ann@example.com")

	var mu sync.Mutex
	var topics []string
	sub := a.svc.Live().Subscribe(func(cs []live.Change) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range cs {
			topics = append(topics, c.Topic)
		}
	}, "inbox|"+bob, "inbox|"+ann)
	defer a.svc.Live().Unsubscribe(sub)
	told := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(topics)
	}

	status, events, _ := livetest.Open(t, bobC, "/inbox/stream")
	if status != http.StatusOK {
		t.Fatalf("bob opens his stream: %d", status)
	}
	a.post(t, changed(bob, "Dentist"))
	if ev := livetest.Next(t, events); ev.Name != "inboxchange" || strings.TrimSpace(ev.Data) != "change" {
		t.Fatalf("after a notice bob's stream says %+v, want a bare inboxchange", ev)
	}
	if got := told(); !slices.Equal(got, []string{"inbox|" + bob}) {
		t.Fatalf("a notice for bob told %v", got)
	}
	a.post(t, changed(ann, "Picnic"))
	if got := told(); !slices.Equal(got, []string{"inbox|" + bob, "inbox|" + ann}) {
		t.Fatalf("a notice for ann told %v, want ann's topic alone", got)
	}

	res := bobC.PostForm("/inbox/read-all", bobC.WithCSRF("/inbox", nil))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("read all: %d", res.StatusCode)
	}
	if got := told(); len(got) != 2 {
		t.Errorf("marking all read told %v: it should stay one write", got[2:])
	}

	visitor := a.Client()
	if status, _, _ := livetest.Open(t, visitor, "/inbox/stream"); status == http.StatusOK {
		t.Error("a visitor opened an inbox stream")
	}
}

// TestInboxStreamsAreBounded: one person holds at most MaxStreams inbox
// streams on an instance; the next is refused with a 429 and a message.
func TestInboxStreamsAreBounded(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	a.SignIn(c, "bob@example.com")
	for i := range inbox.MaxStreams {
		if status, _, _ := livetest.Open(t, c, "/inbox/stream"); status != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, status)
		}
	}
	res := c.Get("/inbox/stream")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too many windows") {
		t.Fatalf("one stream more: %d %q", res.StatusCode, res.Body)
	}
}

// TestTheBellCountsAfresh: the bell a page fetches on a change counts
// the inbox again (a notice written by another instance is not in this
// one's kept count), and tells screen readers of a count above the one
// shown, not of the same; the page's title starts with the count; a
// shown count that is no count is a 400.
func TestTheBellCountsAfresh(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	if n := c.Get("/").Doc(t).Find(testID("inbox-count")).Length(); n != 0 {
		t.Fatal("a new member's bell counts something")
	}
	// Another instance writes a notice: this one's kept count is 0.
	at := a.Clock.Now()
	row := inbox.NoticeRow{MemberKey: bob, RowKey: storage.ReverseTicks(at) + "|01JB00000000000000000000AA", Kind: "groups.notify.appointment_changed",
		Args: `{"name":"Anna","group":"Smiths","title":"Lunch"}`, Link: "/groups/g1", At: at}
	if _, err := storage.Insert(ctx, a.Store.Table(inbox.Table), row); err != nil {
		t.Fatal(err)
	}
	if got := c.Get("/").Doc(t).Find(testID("inbox-count")).Length(); got != 0 {
		t.Fatal("the test needs the page's count kept: it counted again")
	}
	res := c.Get("/inbox/bell?shown=0", hx...)
	// What each open tab pays on a change: the session's and the read
	// state's point reads, and one query of at most badgeCap keys.
	if ops := res.StorageOps(t); ops["queries"] != 1 || ops["reads"] != 2 || ops["total"] != 3 {
		t.Errorf("the bell's fetch cost %s, want two reads and one query", res.Header.Get("X-Storage-Ops"))
	}
	frag := res.Doc(t)
	if got := frag.Find(testID("inbox-count")).Text(); got != "1" {
		t.Fatalf("the bell fetched counts %q, want 1", got)
	}
	if v, _ := frag.Find("#inbox-shown").Attr("value"); v != "1" {
		t.Errorf("the count for the next fetch: %q", v)
	}
	if news := frag.Find("#inbox-news").Text(); news != "New notification: 1 unread" {
		t.Errorf("the news said: %q", news)
	}
	if frag.Find("#inbox-news").Length() != 1 || c.Get("/inbox/bell?shown=1", hx...).Doc(t).Find("#inbox-news").Length() != 0 {
		t.Error("the same count should not be said again")
	}
	if res = c.Get("/inbox/bell?shown=1", append(hx, "Accept-Language", "ru")...); !strings.Contains(res.Body, "Уведомления, 1 непрочитанное") {
		t.Errorf("the bell in Russian: %s", res.Body)
	}
	// The tab's title says the count too.
	if got := c.Get("/inbox").Doc(t).Find("title").Text(); got != "(1) Inbox · Harmony" {
		t.Errorf("the page's title: %q", got)
	}
	for _, bad := range []string{"x", "-1", "101", "1.5"} {
		res := c.Get("/inbox/bell?shown="+url.QueryEscape(bad), hx...)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "whole number") {
			t.Errorf("shown=%s: %d %q", bad, res.StatusCode, res.Body)
		}
	}
	if res := a.Client().Get("/inbox/bell", hx...); res.StatusCode == http.StatusOK {
		t.Error("a visitor fetched a bell")
	}
}

// TestTheInboxPageFetchesItselfOnAChange: the page following a change
// brings its notices again down to the last it shows, the new ones on
// top, and "load more" goes on where it did; read state there is fresh;
// a page that showed none gets the first page; a bad until or cursor is
// a 400.
func TestTheInboxPageFetchesItselfOnAChange(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	empty := c.Get("/inbox").Doc(t)
	if v, _ := empty.Find("#inbox-until").Attr("value"); v != "" || empty.Find(testID("inbox-empty")).Length() != 1 {
		t.Fatalf("an empty inbox's page: until %q", v)
	}
	for i := range 35 {
		a.Clock.Advance(time.Second)
		a.post(t, changed(bob, fmt.Sprintf("Plan %02d", i)))
	}
	// A page that showed nothing gets the first page.
	region := c.Get("/inbox?live=1&until=&cursor=", hx...).Doc(t)
	if n := region.Find(testID("inbox-item")).Length(); n != 30 || region.Find("#inbox-live").Length() != 1 || region.Find("header.site-header").Length() != 0 {
		t.Fatalf("the empty page's refresh: %d items", n)
	}

	page := c.Get("/inbox").Doc(t)
	until, _ := page.Find("#inbox-until").Attr("value")
	cursor, _ := page.Find("#inbox-cursor").Attr("value")
	last, _ := page.Find(testID("inbox-item")).Last().Attr("id")
	if until == "" || cursor == "" || "notice-"+until != last {
		t.Fatalf("the page shows down to %q (its last row %q), then %q", until, last, cursor)
	}
	a.Clock.Advance(time.Second)
	a.post(t, changed(bob, "Plan new"))
	open, _ := page.Find(testID("inbox-open")).Eq(3).Attr("href")
	if res := c.PostForm(open+"/read", c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark read: %d", res.StatusCode)
	}
	q := url.Values{"live": {"1"}, "until": {until}, "cursor": {cursor}}
	region = c.Get("/inbox?"+q.Encode(), hx...).Doc(t)
	items := region.Find(testID("inbox-item"))
	if items.Length() != 31 || !strings.Contains(items.First().Text(), "Plan new") || !strings.Contains(items.Last().Text(), "Plan 05") {
		t.Fatalf("the refresh: %d items, first %q, last %q", items.Length(), items.First().Text(), items.Last().Text())
	}
	if v, _ := items.Eq(4).Attr("data-unread"); v != "false" {
		t.Errorf("the notice marked read shows unread=%q", v)
	}
	next, _ := region.Find(testID("load-more")).Attr("href")
	if next == "" {
		t.Fatal("the refresh lost load more")
	}
	more := c.Get(next, hx...).Doc(t)
	if got := more.Find(testID("inbox-item")); got.Length() != 5 || !strings.Contains(got.First().Text(), "Plan 04") {
		t.Errorf("load more after the refresh: %d items, first %q", got.Length(), got.First().Text())
	}
	if v, _ := more.Find("#inbox-until").Attr("value"); v == "" {
		t.Error("load more does not say how far the page now goes")
	}

	for _, bad := range []url.Values{
		{"live": {"1"}, "until": {"state"}},
		{"live": {"1"}, "until": {until + "x"}},
		{"live": {"1"}, "until": {until}, "cursor": {"nonsense"}},
	} {
		if res := c.Get("/inbox?"+bad.Encode(), hx...); res.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d", bad, res.StatusCode)
		}
	}
}

// TestTheUnreadTab: /inbox?show=unread lists the unread notices only,
// newest first, paged with its filter kept, its tab saying the count;
// a notice marked read, or all marked read, leaves it; it says so when
// nothing is unread; its fetch on a change keeps to unread ones; a show
// the inbox does not have is a 400.
func TestTheUnreadTab(t *testing.T) {
	t.Parallel()
	a := newInboxApp(t)
	c := a.Client()
	bob := a.SignIn(c, "bob@example.com")
	for i := range 33 {
		a.Clock.Advance(time.Second)
		a.post(t, changed(bob, fmt.Sprintf("Plan %02d", i)))
	}
	all := c.Get("/inbox").Doc(t)
	open, _ := all.Find(testID("inbox-open")).Eq(1).Attr("href") // Plan 31
	if res := c.PostForm(open+"/read", c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mark read: %d", res.StatusCode)
	}

	page := c.Get("/inbox?show=unread").Doc(t)
	items := page.Find(testID("inbox-item"))
	if items.Length() != 30 || !strings.Contains(items.First().Text(), "Plan 32") || strings.Contains(page.Find(testID("inbox-list")).Text(), "Plan 31") {
		t.Fatalf("the Unread tab: %d items, first %q", items.Length(), items.First().Text())
	}
	if tab := page.Find(testID("inbox-tab-unread")); tab.AttrOr("aria-current", "") != "page" || strings.TrimSpace(tab.Text()) != "Unread (32)" {
		t.Errorf("the Unread tab's link: %q current=%q", tab.Text(), tab.AttrOr("aria-current", ""))
	}
	if title := page.Find("title").Text(); title != "(32) Unread · Inbox · Harmony" {
		t.Errorf("the Unread tab's title: %q", title)
	}
	next, _ := page.Find(testID("load-more")).Attr("href")
	if !strings.HasPrefix(next, "/inbox?show=unread&cursor=") {
		t.Fatalf("load more: %q", next)
	}
	more := c.Get(next, hx...).Doc(t).Find(testID("inbox-item"))
	if more.Length() != 2 || !strings.Contains(more.Last().Text(), "Plan 00") {
		t.Errorf("the Unread tab's next page: %d items", more.Length())
	}
	// A token of the whole list does not open the Unread one.
	allNext, _ := all.Find(testID("load-more")).Attr("href")
	token := strings.TrimPrefix(allNext, "/inbox?cursor=")
	if res := c.Get("/inbox?show=unread&cursor=" + token); res.StatusCode != http.StatusBadRequest {
		t.Errorf("the list's token on the Unread tab: %d", res.StatusCode)
	}

	// Its fetch on a change keeps to unread notices.
	until, _ := page.Find("#inbox-until").Attr("value")
	if page.Find(`#inbox-refresh input[name="show"][value="unread"]`).Length() != 1 {
		t.Error("the Unread tab's fetch on a change would bring every notice")
	}
	region := c.Get("/inbox?"+url.Values{"live": {"1"}, "show": {"unread"}, "until": {until}}.Encode(), hx...).Doc(t)
	if n := region.Find(testID("inbox-item")).Length(); n != 30 || strings.Contains(region.Text(), "Plan 31") {
		t.Errorf("the Unread tab's refresh: %d items", n)
	}

	if res := c.PostForm("/inbox/read-all", c.WithCSRF("/inbox", nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("read all: %d", res.StatusCode)
	}
	empty := c.Get("/inbox?show=unread", "Accept-Language", "ru").Doc(t)
	if got := empty.Find(testID("inbox-empty")).Text(); !strings.Contains(got, "непрочитанных нет") || empty.Find(testID("inbox-see-all")).Length() != 1 {
		t.Errorf("the Unread tab with nothing unread: %q", got)
	}
	a.Clock.Advance(time.Second)
	a.post(t, changed(bob, "Later"))
	if got := c.Get("/inbox?show=unread").Doc(t).Find(testID("inbox-item")); got.Length() != 1 || !strings.Contains(got.Text(), "Later") {
		t.Errorf("after a new notice the Unread tab: %d items", got.Length())
	}
	for _, bad := range []string{"read", "UNREAD", "all"} {
		if res := c.Get("/inbox?show=" + bad); res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "unread ones only") {
			t.Errorf("show=%s: %d", bad, res.StatusCode)
		}
	}
}

// TestAnAdminsBellBringsTheOpenReports: a new report tells the admins in
// their inbox, and the bell an admin's page fetches on that change brings
// the admin link with the open reports, out of band; a member's brings no
// admin link. A report another admin closes tells the admin's open pages
// too, whose bell then brings the link without it; a member's stream
// hears nothing of it.
func TestAnAdminsBellBringsTheOpenReports(t *testing.T) {
	t.Parallel()
	var adm *admin.Service
	a := &inboxApp{}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			adm = admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			adm.UseFeed(c.Live)
			return adm, nil
		},
		func(c *platform.Core) (web.Module, error) {
			var err error
			a.svc, err = inbox.FromCore(c)
			if err == nil {
				adm.UseNotifier(a.svc, c.Config.AdminEmails)
			}
			return a.svc, err
		},
	}})
	boss, ann := a.Client(), a.Client()
	a.SignIn(boss, "boss@example.com")
	annKey := a.SignIn(ann, "ann@example.com")
	if n := boss.Get("/").Doc(t).Find(testID("admin-count")).Length(); n != 0 {
		t.Fatal("the admin link counts reports before any")
	}
	report := moderation.Report{Target: moderation.Target{Kind: "test.item", Key: "x"}, Link: "/items/x", Excerpt: "item x", Author: "author", AuthorName: "Author", By: annKey, ByName: "Ann", Reason: moderation.Spam}
	if err := adm.Report(ctx, report); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	frag := boss.Get("/inbox/bell?shown=0", hx...).Doc(t)
	link := frag.Find(`#admin-link[hx-swap-oob="true"]`)
	if got := frag.Find(testID("inbox-count")).Text(); got != "1" || link.Length() != 1 || link.Find(testID("admin-count")).Text() != "1" {
		t.Fatalf("the admin's bell: count %q, admin link %d with %q", got, link.Length(), link.Find(testID("admin-count")).Text())
	}
	if n := ann.Get("/inbox/bell", hx...).Doc(t).Find("#admin-link").Length(); n != 0 {
		t.Error("a member's bell brings an admin link")
	}

	_, bossEvents, stopBoss := livetest.Open(t, boss, "/inbox/stream")
	defer stopBoss()
	_, annEvents, stopAnn := livetest.Open(t, ann, "/inbox/stream")
	defer stopAnn()
	open, err := adm.OpenReports(ctx, nil)
	if err != nil || len(open.Reports) != 1 {
		t.Fatalf("open reports: %d, %v", len(open.Reports), err)
	}
	if err := adm.Dismiss(ctx, admin.Actor{MemberKey: "m_olga", Name: "Olga"}, open.Reports[0].RowKey, ""); err != nil {
		t.Fatal(err)
	}
	if ev := livetest.Next(t, bossEvents); ev.Name != "inboxchange" {
		t.Fatalf("the admin's stream when another closed the report: %+v", ev)
	}
	frag = boss.Get("/inbox/bell?shown=1", hx...).Doc(t)
	if link := frag.Find(`#admin-link[hx-swap-oob="true"]`); link.Length() != 1 || link.Find(testID("admin-count")).Length() != 0 {
		t.Errorf("the admin's bell after the close: admin link %d, count %q", link.Length(), link.Find(testID("admin-count")).Text())
	}
	select {
	case ev := <-annEvents:
		t.Errorf("a member's stream heard of a closed report: %+v", ev)
	case <-time.After(time.Second):
	}
}

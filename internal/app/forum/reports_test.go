package forum_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

// newReportsApp is the forum with the admin section, whose moderation
// queue the platform hands the forum.
func newReportsApp(t *testing.T) *app {
	return newReportsAppOn(t, nil)
}

// newReportsAppOn is newReportsApp on a backend wrap wraps.
func newReportsAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend) *app {
	a := &app{}
	var in *inbox.Service
	modules := withInbox(&in, []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			svc := admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			svc.UseNotifier(in, c.Config.AdminEmails)
			return svc, nil
		},
		a.forum(&in),
	})
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Modules: modules, Wrap: wrap})
	return a
}

// A member reports a post: the post's menu offers it to others but its
// author; the page quotes the post and asks why; refusals (no reason,
// "other" without a note, a bad note, a second report, one's own post)
// keep what was typed and write nothing. The admins' queue shows the
// post once with every report's reason and note, and the overview counts
// it; taking it down hides the post and closes the report, which the
// log records, and thanks the reporters in their inbox (no email); a
// dismissed report changes nothing and tells nobody.
func TestReportingAPost(t *testing.T) {
	t.Parallel()
	a := newReportsApp(t)
	boss, ann, bob := a.talkSection(t, "")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Cheap watches"}, "body": {"Buy cheap watches at example.com!"}}).Header.Get("Location")
	first := topic + "/posts/1"
	reportLink := func(c *webtest.Client) int {
		return c.Get(topic).Doc(t).Find(testID("post-report")).Length()
	}
	if reportLink(ann) != 0 || reportLink(bob) != 1 || reportLink(a.Client()) != 0 {
		t.Fatalf("report links: author %d, member %d, visitor %d", reportLink(ann), reportLink(bob), reportLink(a.Client()))
	}
	page := bob.Get(first + "/report")
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Doc(t).Find(testID("report-excerpt")).Text(), "Buy cheap watches") {
		t.Fatalf("the report page: %d", page.StatusCode)
	}
	if res := ann.Get(first + "/report"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the author's own report page: %d", res.StatusCode)
	}
	if res := a.Client().Get(first + "/report"); res.StatusCode < 300 || res.StatusCode == http.StatusOK {
		t.Errorf("a visitor's report page: %d", res.StatusCode)
	}

	report := func(c *webtest.Client, path string, form url.Values) *webtest.Response {
		return c.PostForm(path, c.WithCSRF(first+"/report", form))
	}
	refused := []struct {
		name   string
		c      *webtest.Client
		form   url.Values
		status int
		field  string
	}{
		{"no reason", bob, url.Values{"note": {"look"}}, http.StatusUnprocessableEntity, "reason"},
		{"a reason not offered", bob, url.Values{"reason": {"boring"}}, http.StatusUnprocessableEntity, "reason"},
		{"other without a note", bob, url.Values{"reason": {"other"}, "note": {"  "}}, http.StatusUnprocessableEntity, "report-note"},
		{"a note too long", bob, url.Values{"reason": {"spam"}, "note": {strings.Repeat("x", 501)}}, http.StatusUnprocessableEntity, "report-note"},
		{"a note with a control character", bob, url.Values{"reason": {"spam"}, "note": {"a\x00b"}}, http.StatusUnprocessableEntity, "report-note"},
	}
	for _, tc := range refused {
		res := report(tc.c, first+"/report", tc.form)
		doc := res.Doc(t)
		if res.StatusCode != tc.status || res.Writes(t) != 0 {
			t.Errorf("%s: %d (%d writes)", tc.name, res.StatusCode, res.Writes(t))
		}
		if tc.field == "reason" && doc.Find("#report-reason-error").Length() != 1 || tc.field != "reason" && doc.Find(`[data-field="`+tc.field+`"]`).Length() != 1 {
			t.Errorf("%s: no error by %s", tc.name, tc.field)
		}
		if note := tc.form.Get("note"); note == "look" && doc.Find("#report-note").Text() != "look" {
			t.Errorf("%s: the note typed is lost", tc.name)
		}
	}
	if res := report(ann, first+"/report", url.Values{"reason": {"spam"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("the author reports her post: %d (%d writes)", res.StatusCode, res.Writes(t))
	}

	res := report(bob, first+"/report", url.Values{"reason": {"spam"}, "note": {"An advert."}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), topic) {
		t.Fatalf("bob reports: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res := report(bob, first+"/report", url.Values{"reason": {"harassment"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("bob reports again: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	report(cat, first+"/report", url.Values{"reason": {"spam"}})
	// The admin is told once, of what was reported and by whom it was
	// written, not who reported it.
	told := a.Inbox(boss).Filter(`:contains("Reported to the moderators")`)
	if told.Length() != 1 || !strings.Contains(told.Text(), "Buy cheap watches") || strings.Contains(told.Text(), "bob") {
		t.Errorf("the admin's notices: %q", told.Text())
	}

	// The queue: one item, two reports, both reasons counted, the notes.
	queue := boss.Get("/admin/reports")
	if queue.StatusCode != http.StatusOK {
		t.Fatalf("the queue: %d", queue.StatusCode)
	}
	rows := queue.Doc(t).Find(testID("report-row"))
	if rows.Length() != 1 {
		t.Fatalf("the queue has %d items", rows.Length())
	}
	if got := rows.Find(testID("report-count")).Text(); got != "2 reports" {
		t.Errorf("count: %q", got)
	}
	if got := rows.Find(testID("report-reason")).Text(); !strings.Contains(got, "Spam ×2") {
		t.Errorf("reasons: %q", got)
	}
	if got := rows.Find(testID("report-note")).Text(); !strings.Contains(got, "An advert.") || !strings.Contains(got, "bob") {
		t.Errorf("notes: %q", got)
	}
	if got := boss.Get("/admin").Doc(t).Find(testID("admin-tool-reports") + " " + testID("admin-tool-open")).Text(); got != "1 open" {
		t.Errorf("the overview's count: %q", got)
	}
	// Every page an admin opens counts it on the header's admin link.
	if link := boss.Get("/forum").Doc(t).Find(testID("admin-link")); link.Find(testID("admin-count")).Text() != "1" || !strings.Contains(link.Text(), "1 open report") {
		t.Errorf("the header's admin link: %q", link.Text())
	}
	if res := bob.Get("/admin/reports"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member opens the queue: %d", res.StatusCode)
	}
	id, _ := rows.Attr("data-report")
	resolve := func(c *webtest.Client, path string, form url.Values) *webtest.Response {
		return c.PostForm(path, c.WithCSRF("/admin/reports", form))
	}
	if res := resolve(boss, "/admin/reports/"+id+"/take-down", url.Values{"note": {strings.Repeat("y", 501)}}); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("a take-down with a note too long: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := resolve(boss, "/admin/reports/not-a-report/dismiss", nil); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a made-up report: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := resolve(bob, "/admin/reports/"+id+"/take-down", nil); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("a member takes down: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := resolve(boss, "/admin/reports/"+id+"/take-down", url.Values{"note": {"Advertising"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take down: %d", res.StatusCode)
	}
	if doc := bob.Get(topic).Doc(t); doc.Find("#p1 "+testID("post-hidden")).Length() != 1 || strings.Contains(doc.Find("#p1").Text(), "cheap watches at") {
		t.Error("the post taken down still shows to members")
	}
	// Both reporters are told, in their inbox alone (no email).
	for _, c := range []*webtest.Client{bob, cat} {
		if got := a.Inbox(c).Filter(`:contains("Thanks for your report")`); got.Length() != 1 || !strings.Contains(got.Text(), "Buy cheap watches") {
			t.Errorf("a reporter's inbox: %q", a.Inbox(c).Text())
		}
	}
	for _, m := range a.Mail() {
		if (m.To == "bob@example.com" || m.To == "cat@example.com") && !strings.Contains(m.Subject, "code") {
			t.Errorf("a reporter was emailed: %q to %s", m.Subject, m.To)
		}
	}
	if boss.Get("/admin/reports").Doc(t).Find(testID("report-row")).Length() != 0 {
		t.Error("the report is still open")
	}
	if boss.Get("/forum").Doc(t).Find(testID("admin-count")).Length() != 0 {
		t.Error("the header still counts the closed report")
	}
	if res := resolve(boss, "/admin/reports/"+id+"/dismiss", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("closing it again: %d", res.StatusCode)
	}
	log := boss.Get("/admin").Doc(t).Find(testID("admin-log-row") + `[data-action="report.taken_down"]`)
	if log.Length() != 1 || !strings.Contains(log.Text(), "Advertising") {
		t.Errorf("the log: %q", log.Text())
	}

	// A dismissed report leaves the post as it was; the target can be
	// reported again later, as a new report.
	reply := post(ann, topic+"/replies", url.Values{"body": {"Honest question about watches."}})
	if reply.StatusCode != http.StatusSeeOther {
		t.Fatalf("reply: %d", reply.StatusCode)
	}
	second := topic + "/posts/2"
	report(bob, second+"/report", url.Values{"reason": {"other"}, "note": {"Off topic?"}})
	id2, _ := boss.Get("/admin/reports").Doc(t).Find(testID("report-row")).Attr("data-report")
	if res := resolve(boss, "/admin/reports/"+id2+"/dismiss", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dismiss: %d", res.StatusCode)
	}
	if !strings.Contains(bob.Get(topic).Doc(t).Find("#p2").Text(), "Honest question") {
		t.Error("a dismissed report hid the post")
	}
	if n := a.Inbox(bob).Filter(`:contains("Thanks for your report")`).Length(); n != 1 {
		t.Errorf("after a dismissal Bob has %d thanks, not the one of the take-down", n)
	}
	if res := report(bob, second+"/report", url.Values{"reason": {"spam"}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("reporting again after a dismissal: %d", res.StatusCode)
	}
	if n := boss.Get("/admin/reports").Doc(t).Find(testID("report-row")).Length(); n != 1 {
		t.Errorf("after the new report the queue has %d items", n)
	}

	// The closed reports: what was done, by whom and why; no answers.
	closed := boss.Get("/admin/reports/closed").Doc(t).Find(testID("report-row"))
	if closed.Length() != 2 || closed.Find(testID("report-take-down")).Length() != 0 {
		t.Fatalf("the closed reports: %d", closed.Length())
	}
	down := closed.Filter(`:contains("Buy cheap watches")`).Find(testID("report-resolution"))
	if down.AttrOr("data-resolution", "") != "taken_down" || !strings.Contains(down.Text(), "Advertising") || !strings.Contains(down.Text(), "boss") {
		t.Errorf("the taken-down report: %q", down.Text())
	}
	if got := closed.Filter(`:contains("Honest question")`).Find(testID("report-resolution")).AttrOr("data-resolution", ""); got != "dismissed" {
		t.Errorf("the dismissed report: %q", got)
	}
	if res := boss.Get("/admin/reports/closed?cursor=junk"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d", res.StatusCode)
	}
	if res := bob.Get("/admin/reports/closed"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member opens the closed reports: %d", res.StatusCode)
	}
}

// TestSectionModeratorsReviewTheirReports: a report of a post names its
// section, whose moderators (not only the admins) are told of it and
// judge it at /review, as Discourse's category moderators review flags:
// they see their sections' reports and no other, take one down or
// dismiss it as an admin does (into the same history, under their
// name), and cannot act on another section's report; someone who
// moderates nothing is refused the page.
func TestSectionModeratorsReviewTheirReports(t *testing.T) {
	t.Parallel()
	a := newReportsApp(t)
	boss, ann, bob := a.talkSection(t, "ann@example.com")
	addSection(t, boss, "news", "News")
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	talk := post(cat, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Cheap watches"}, "body": {"Buy cheap watches at example.com!"}}).Header.Get("Location")
	news := post(cat, "/forum/topics", url.Values{"section": {"news"}, "title": {"Cheap phones"}, "body": {"Buy cheap phones at example.com!"}}).Header.Get("Location")
	for _, topic := range []string{talk, news} {
		form := bob.WithCSRF(topic+"/posts/1/report", url.Values{"reason": {"spam"}})
		if res := bob.PostForm(topic+"/posts/1/report", form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("bob reports %s: %d", topic, res.StatusCode)
		}
	}

	// Ann, who moderates Talk, is told of Talk's report, not of News'.
	told := a.Inbox(ann).Filter(`:contains("Reported in a section you moderate")`)
	if told.Length() != 1 || !strings.Contains(told.Text(), "cheap watches") {
		t.Errorf("Ann's notices: %q", a.Inbox(ann).Text())
	}
	if a.Inbox(boss).Filter(`:contains("Reported to the moderators")`).Length() != 2 {
		t.Error("the admin is not told of both reports")
	}

	// Talk's page leads its staff to their reports.
	link := func(c *webtest.Client) string {
		return c.Get("/forum/talk").Doc(t).Find(testID("section-review-link")).AttrOr("href", "")
	}
	if link(ann) != "/review" || link(boss) != "/admin/reports" || link(bob) != "" || link(a.Client()) != "" {
		t.Errorf("the review links: Ann %q, the admin %q, Bob %q", link(ann), link(boss), link(bob))
	}

	queue := ann.Get("/review")
	rows := queue.Doc(t).Find(testID("report-row"))
	if queue.StatusCode != http.StatusOK || rows.Length() != 1 || !strings.Contains(rows.Text(), "cheap watches") {
		t.Fatalf("Ann's review: %d, %d items %q", queue.StatusCode, rows.Length(), rows.Text())
	}
	if res := bob.Get("/review"); res.StatusCode != http.StatusForbidden || !strings.Contains(string(res.Body), "only the moderators") {
		t.Errorf("Bob, who moderates nothing, opens /review: %d", res.StatusCode)
	}
	if res := a.Client().Get("/review"); res.StatusCode == http.StatusOK {
		t.Error("a visitor opens /review")
	}

	all := boss.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	talkID, _ := all.Filter(`:contains("cheap watches")`).Attr("data-report")
	newsID, _ := all.Filter(`:contains("cheap phones")`).Attr("data-report")
	resolve := func(c *webtest.Client, path string, form url.Values) *webtest.Response {
		return c.PostForm(path, c.WithCSRF("/review", form))
	}
	for _, tc := range []struct {
		name   string
		c      *webtest.Client
		path   string
		form   url.Values
		status int
	}{
		{"Ann takes down News' report", ann, "/review/" + newsID + "/take-down", nil, http.StatusNotFound},
		{"Ann's note too long on News' report", ann, "/review/" + newsID + "/take-down", url.Values{"note": {strings.Repeat("y", 501)}}, http.StatusNotFound},
		{"Ann dismisses News' report", ann, "/review/" + newsID + "/dismiss", nil, http.StatusNotFound},
		{"Bob takes down Talk's report", bob, "/review/" + talkID + "/take-down", nil, http.StatusForbidden},
		{"a note too long", ann, "/review/" + talkID + "/take-down", url.Values{"note": {strings.Repeat("y", 501)}}, http.StatusUnprocessableEntity},
		{"a made-up report", ann, "/review/not-a-report/dismiss", nil, http.StatusNotFound},
	} {
		if res := resolve(tc.c, tc.path, tc.form); res.StatusCode != tc.status || res.Writes(t) != 0 {
			t.Errorf("%s: %d (%d writes)", tc.name, res.StatusCode, res.Writes(t))
		}
	}
	if !strings.Contains(bob.Get(news).Doc(t).Find("#p1").Text(), "cheap phones") {
		t.Error("News' post was hidden by Talk's moderator")
	}

	res := resolve(ann, "/review/"+talkID+"/take-down", url.Values{"note": {"Advertising"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/review" {
		t.Fatalf("Ann takes Talk's report down: %d → %s", res.StatusCode, res.Header.Get("Location"))
	}
	if doc := bob.Get(talk).Doc(t); doc.Find("#p1 "+testID("post-hidden")).Length() != 1 {
		t.Error("the post Ann took down still shows")
	}
	if n := ann.Get("/review").Doc(t).Find(testID("report-row")).Length(); n != 0 {
		t.Errorf("Ann's review after the take-down: %d items", n)
	}
	open := boss.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if open.Length() != 1 || !strings.Contains(open.Text(), "cheap phones") {
		t.Errorf("the admins' queue after Ann's take-down: %q", open.Text())
	}
	down := boss.Get("/admin/reports/closed").Doc(t).Find(testID("report-resolution"))
	if down.AttrOr("data-resolution", "") != "taken_down" || !strings.Contains(down.Text(), "ann") || !strings.Contains(down.Text(), "Advertising") {
		t.Errorf("the closed report: %q", down.Text())
	}
}

// TestAMovedTopicTakesItsReportsAlong: a topic moved to another section
// takes its posts' open reports to that section's moderators: they see
// and judge them, and the old section's moderators no longer may; a
// report after the move names the new section too.
func TestAMovedTopicTakesItsReportsAlong(t *testing.T) {
	t.Parallel()
	a := newReportsApp(t)
	boss, ann, bob := a.talkSection(t, "ann@example.com")
	dan := a.Client()
	a.SignIn(dan, "dan@example.com")
	if res := post(boss, "/admin/forum", url.Values{"slug": {"news"}, "name": {"News"}, "moderators": {"dan@example.com"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the section news: %d", res.StatusCode)
	}
	cat := a.Client()
	a.SignIn(cat, "cat@example.com")
	topic := post(cat, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Cheap watches"}, "body": {"Buy cheap watches at example.com!"}}).Header.Get("Location")
	post(cat, topic+"/replies", url.Values{"body": {"And cheap rings, too."}})
	report := func(by *webtest.Client, num int) {
		t.Helper()
		path := fmt.Sprintf("%s/posts/%d/report", topic, num)
		if res := by.PostForm(path, by.WithCSRF(path, url.Values{"reason": {"spam"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("a report of post %d: %d", num, res.StatusCode)
		}
	}
	report(bob, 1)
	queue := func(c *webtest.Client) *goquery.Selection {
		t.Helper()
		return c.Get("/review").Doc(t).Find(testID("report-row"))
	}
	if queue(ann).Length() != 1 || queue(dan).Length() != 0 {
		t.Fatalf("before the move: Ann sees %d reports, Dan %d", queue(ann).Length(), queue(dan).Length())
	}
	id, _ := queue(ann).Attr("data-report")

	if res := post(boss, topic+"/move", url.Values{"section": {"news"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the move: %d", res.StatusCode)
	}
	if queue(ann).Length() != 0 || queue(dan).Length() != 1 {
		t.Errorf("after the move: Ann sees %d reports, Dan %d", queue(ann).Length(), queue(dan).Length())
	}
	if res := ann.PostForm("/review/"+id+"/take-down", ann.WithCSRF("/review", nil)); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("Ann takes down a report of News: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	report(bob, 2)
	if rows := queue(dan); rows.Length() != 2 || queue(ann).Length() != 0 {
		t.Errorf("a report after the move: Dan sees %d, Ann %d", rows.Length(), queue(ann).Length())
	}
	if res := dan.PostForm("/review/"+id+"/take-down", dan.WithCSRF("/review", nil)); res.StatusCode != http.StatusSeeOther {
		t.Errorf("Dan takes the moved report down: %d", res.StatusCode)
	}
}

// unreadableReports is a store whose Reports table does not answer one
// query for reports of a kind once armed: the moment a moved topic's
// reports are to follow it.
type unreadableReports struct {
	storage.Backend
	armed *atomic.Bool
}

func (u unreadableReports) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	kinds := len(q.Filters) > 0 && q.Filters[0].Name == "kind" // a query for reports of a kind
	if strings.HasSuffix(table, "Reports") && kinds && u.armed.CompareAndSwap(true, false) {
		return storage.Page{}, storage.ErrTransient
	}
	return u.Backend.Query(ctx, table, q)
}

// TestAMovedTopicsReportsFollowItLaterIfNotAtOnce: when the reports of a
// moved topic cannot be moved with it, the move still stands, and a
// queued task takes them to the new section's moderators a minute later.
func TestAMovedTopicsReportsFollowItLaterIfNotAtOnce(t *testing.T) {
	t.Parallel()
	armed := new(atomic.Bool)
	a := newReportsAppOn(t, func(b storage.Backend) storage.Backend { return unreadableReports{b, armed} })
	boss, ann, bob := a.talkSection(t, "ann@example.com")
	dan := a.Client()
	a.SignIn(dan, "dan@example.com")
	if res := post(boss, "/admin/forum", url.Values{"slug": {"news"}, "name": {"News"}, "moderators": {"dan@example.com"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add the section news: %d", res.StatusCode)
	}
	topic := post(ann, "/forum/topics", url.Values{"section": {"talk"}, "title": {"Cheap watches"}, "body": {"Buy cheap watches at example.com!"}}).Header.Get("Location")
	path := topic + "/posts/1/report"
	if res := bob.PostForm(path, bob.WithCSRF(path, url.Values{"reason": {"spam"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the report: %d", res.StatusCode)
	}
	queue := func(c *webtest.Client) int { return c.Get("/review").Doc(t).Find(testID("report-row")).Length() }
	armed.Store(true)
	if res := post(boss, topic+"/move", url.Values{"section": {"news"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the move: %d", res.StatusCode)
	}
	if queue(dan) != 0 {
		t.Fatal("the reports moved though they could not be read")
	}
	a.Clock.Advance(time.Minute)
	if _, err := a.Tasks.RunDue(t.Context()); err != nil {
		t.Fatal(err)
	}
	if queue(ann) != 0 || queue(dan) != 1 {
		t.Errorf("a minute after the move: Ann sees %d reports, Dan %d", queue(ann), queue(dan))
	}
}

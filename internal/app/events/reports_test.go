package events_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
)

// TestReportingAnEvent: a member reports an event from its page (its
// organizers and visitors are offered no report); the report quotes the
// event; the admins' take-down unpublishes it, so it leaves the listing
// and its page is a 404 to members, whoever registered is told, and its
// organizer reads why and cannot publish it again; an admin who
// publishes it reinstates it.
func TestReportingAnEvent(t *testing.T) {
	t.Parallel()
	var in *inbox.Service
	a := accounttest.New(t, accounttest.Options{
		Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"},
		Modules: []platform.Factory{
			func(c *platform.Core) (web.Module, error) {
				var err error
				in, err = inbox.FromCore(c)
				return in, err
			},
			func(c *platform.Core) (web.Module, error) {
				svc := admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
				svc.UseNotifier(in, c.Config.AdminEmails)
				return svc, nil
			},
			func(c *platform.Core) (web.Module, error) {
				ev := events.New(c.Store, c.Cursors, c.Log, c.Now)
				ev.UseNotifier(in)
				ev.UsePeople(c.Auth, c.Accounts)
				return ev, ev.UseTasks(c.Tasks)
			},
		},
	})
	host, ann, bob, boss, visitor := a.Client(), a.Client(), a.Client(), a.Client(), a.Client()
	hostKey := a.SignIn(host, "host@example.com")
	a.SignIn(bob, "bob@example.com")
	a.SignIn(ann, "ann@example.com")
	a.SignIn(boss, "boss@example.com")
	if _, err := a.Accounts.SetRole(t.Context(), hostKey, account.RoleOrganizer, true); err != nil {
		t.Fatal(err)
	}
	res := post(host, "/events", url.Values{"title": {"Crypto riches seminar"}, "category": {"meetup"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T22:00"}, "place": {"Online"}, "description": {"Double your money **guaranteed**."}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	page := res.Header.Get("Location")
	if res := post(host, page+"/publish", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	if res := post(bob, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob registers: %d", res.StatusCode)
	}
	if got := ann.Get(page).Doc(t).Find(testID("event-report")).AttrOr("href", ""); got != page+"/report" {
		t.Errorf("Ann's report link: %q", got)
	}
	if host.Get(page).Doc(t).Find(testID("event-report")).Length() != 0 || visitor.Get(page).Doc(t).Find(testID("event-report")).Length() != 0 {
		t.Error("the organizer or a visitor is offered to report the event")
	}
	if res := host.Get(page + "/report"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the organizer's report page: %d", res.StatusCode)
	}
	form := ann.Get(page + "/report")
	if form.StatusCode != http.StatusOK || !strings.Contains(form.Doc(t).Find(testID("report-excerpt")).Text(), "Double your money guaranteed.") {
		t.Fatalf("the report page: %d %q", form.StatusCode, form.Doc(t).Find(testID("report-excerpt")).Text())
	}
	if res := ann.PostForm(page+"/report", ann.WithCSRF(page+"/report", url.Values{"reason": {"boring"}})); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("a reason not offered: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := ann.PostForm(page+"/report", ann.WithCSRF(page+"/report", url.Values{"reason": {"spam"}, "note": {"A scam."}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Ann reports: %d", res.StatusCode)
	}

	row := boss.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if row.Length() != 1 || !strings.Contains(row.Text(), "Event") || !strings.Contains(row.Text(), "Crypto riches seminar") {
		t.Fatalf("the queue: %q", row.Text())
	}
	id, _ := row.Attr("data-report")
	if res := boss.PostForm("/admin/reports/"+id+"/take-down", boss.WithCSRF("/admin/reports", url.Values{"note": {"Scam"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take down: %d", res.StatusCode)
	}
	listed := func() bool {
		return strings.Contains(visitor.Get("/events").Doc(t).Find(testID("event-card")).Text(), "Crypto riches")
	}
	if listed() {
		t.Error("the listing still shows the event taken down")
	}
	if res := ann.Get(page); res.StatusCode != http.StatusNotFound {
		t.Errorf("Ann opens the event taken down: %d", res.StatusCode)
	}
	told := a.Inbox(bob).Filter(`:contains("was taken down by the moderators")`)
	if told.Length() != 1 {
		t.Errorf("Bob, registered, is told: %q", a.Inbox(bob).Text())
	}
	mine := host.Get(page).Doc(t)
	if mine.Find(testID("event-taken-down")).Length() != 1 || mine.Find(testID("publish-form")).Length() != 0 {
		t.Errorf("the organizer's page: taken-down %d, publish %d", mine.Find(testID("event-taken-down")).Length(), mine.Find(testID("publish-form")).Length())
	}
	if res := post(host, page+"/publish", nil); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("the organizer publishes it again: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if listed() {
		t.Error("the organizer's refused publish listed it")
	}

	if boss.Get(page).Doc(t).Find(testID("publish-form")).Length() != 1 {
		t.Error("an admin is offered no way to publish it again")
	}
	if res := post(boss, page+"/publish", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an admin publishes it again: %d", res.StatusCode)
	}
	if res := ann.Get(page); res.StatusCode != http.StatusOK || !listed() {
		t.Errorf("once reinstated: Ann %d, listed %v", res.StatusCode, listed())
	}
	if host.Get(page).Doc(t).Find(testID("event-taken-down")).Length() != 0 {
		t.Error("the organizer still reads it is taken down")
	}
}

package prompts

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web"
)

// newModeratedApp is the catalog with the admin section, whose queue the
// platform hands it and whose log records take-downs.
func newModeratedApp(t *testing.T) *promptsApp {
	t.Helper()
	app := &promptsApp{}
	var queue *admin.Service
	app.App = accounttest.New(t, accounttest.Options{
		Env: map[string]string{"ADMIN_EMAILS": bossEmail},
		Modules: []platform.Factory{
			func(c *platform.Core) (web.Module, error) {
				queue = admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
				return queue, nil
			},
			func(c *platform.Core) (web.Module, error) {
				app.svc = New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
				app.svc.UseModerationLog(queue)
				return app.svc, nil
			},
		},
	})
	return app
}

// A member reports a public prompt; the admin takes it down from the
// queue: it leaves the catalog and its search at once, its page is a 404
// for everyone but its author (told so) and the admins, My prompts marks
// it, and it takes no votes; the author's edits do not list it again. The
// admin shows it again and it is back. The author cannot report their
// own; a private prompt offers no report; bad input writes nothing.
func TestReportingAPromptTakesItDown(t *testing.T) {
	t.Parallel()
	a := newModeratedApp(t)
	ann, bob, boss := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com"), a.signIn(t, bossEmail)
	id := a.createPrompt(t, ann, promptForm("Cheap essays", "Buy essays at example.com", "public", "writing"))
	private := a.createPrompt(t, ann, promptForm("My notes", "Private words", "private", "writing"))
	page := "/prompts/" + id
	inCatalog := func() bool {
		return bob.c.Get("/prompts").Doc(t).Find(`[data-prompt="`+id+`"]`).Length() == 1 &&
			bob.c.Get("/prompts?q=essays").Doc(t).Find(`[data-prompt="`+id+`"]`).Length() == 1
	}
	if !inCatalog() {
		t.Fatal("the prompt is not in the catalog")
	}
	if bob.c.Get(page).Doc(t).Find(testID("prompt-report")).Length() != 1 || ann.c.Get(page).Doc(t).Find(testID("prompt-report")).Length() != 0 {
		t.Error("the report link: shown to the author, or not to a member")
	}
	if res := ann.c.Get(page + "/report"); res.StatusCode != http.StatusNotFound {
		t.Errorf("the author's report page: %d", res.StatusCode)
	}
	if res := bob.c.Get("/prompts/" + private + "/report"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a private prompt's report page: %d", res.StatusCode)
	}
	if res := post(t, bob.c, page+"/report", url.Values{"reason": {"other"}}); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("other without a note: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := post(t, bob.c, page+"/report", url.Values{"reason": {"spam"}, "note": {"An advert"}}); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Fatalf("report: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	row := boss.c.Get("/admin/reports").Doc(t).Find(testID("report-row"))
	if !strings.Contains(row.Text(), "Prompt") || !strings.Contains(row.Find(testID("report-excerpt")).Text(), "Buy essays") {
		t.Fatalf("the queue: %q", row.Text())
	}
	if res := post(t, boss.c, "/admin/reports/"+row.AttrOr("data-report", "")+"/take-down", url.Values{"note": {"Advertising"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("take down: %d", res.StatusCode)
	}
	if inCatalog() {
		t.Error("the prompt taken down is still in the catalog")
	}
	if res := bob.c.Get(page); res.StatusCode != http.StatusNotFound {
		t.Errorf("a member opens it: %d", res.StatusCode)
	}
	if res := a.Client().Get(page); res.StatusCode != http.StatusNotFound {
		t.Errorf("a visitor opens it: %d", res.StatusCode)
	}
	if doc := ann.c.Get(page).Doc(t); doc.Find(testID("prompt-hidden")).Length() != 1 {
		t.Error("the author is not told")
	}
	if doc := boss.c.Get(page).Doc(t); doc.Find(testID("prompt-show")).Length() != 1 || doc.Find(testID("vote-widget")+" form").Length() != 0 {
		t.Error("the admin cannot show it again, or is offered a vote it would refuse")
	}
	if ann.c.Get("/prompts/mine").Doc(t).Find(`[data-prompt="`+id+`"] `+testID("hidden-badge")).Length() != 1 {
		t.Error("My prompts does not mark it")
	}
	if res := post(t, bob.c, page+"/vote", url.Values{"value": {"like"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a vote on it: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	edit := ann.c.Get(page + "/edit").Doc(t)
	rev := edit.Find(`input[name="revision"]`).AttrOr("value", "")
	form := promptForm("Essays", "Buy essays elsewhere", "public", "writing")
	form.Set("revision", rev)
	if res := post(t, ann.c, page, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the author edits it: %d", res.StatusCode)
	}
	if inCatalog() || bob.c.Get("/prompts?q=essays").Doc(t).Find(`[data-prompt="`+id+`"]`).Length() != 0 {
		t.Error("an edit listed it again")
	}
	log := boss.c.Get("/admin").Doc(t).Find(testID("admin-log-row"))
	if log.Filter(`[data-action="prompts.hide"]`).Length() != 1 || log.Filter(`[data-action="report.taken_down"]`).Length() != 1 {
		t.Errorf("the log: %q", log.Text())
	}

	for _, bad := range []string{"", "maybe"} {
		if res := post(t, boss.c, page+"/hide", url.Values{"hidden": {bad}}); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
			t.Errorf("hidden=%q: %d (%d writes)", bad, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(t, bob.c, page+"/hide", url.Values{"hidden": {"false"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Errorf("a member shows it: %d (%d writes)", res.StatusCode, res.Writes(t))
	}
	if res := post(t, boss.c, page+"/hide", url.Values{"hidden": {"false"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("show again: %d", res.StatusCode)
	}
	if !inCatalog() || bob.c.Get(page).StatusCode != http.StatusOK {
		t.Error("shown again, it is not back")
	}
}

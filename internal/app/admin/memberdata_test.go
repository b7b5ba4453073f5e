package admin

import (
	"errors"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
)

// TestDeletingAnAccountInModeration: ann, an admin, filed a report,
// wrote something reported, dismissed a report and was the target of a
// logged action; she used the AI. Her archive holds her report and her
// usage, not bob's. Her deletion, cut short, is finished by the next
// run: every report and log line stays, with her Forgotten in it and the
// pages saying "Deleted member"; her usage rows go and the day's totals
// stay; nothing in the admin's tables names her (by memberKey, userKey
// or email); and one more run changes nothing.
func TestDeletingAnAccountInModeration(t *testing.T) {
	t.Parallel()
	faults := &memberdatatest.Faults{}
	a := newAdminAppOn(t, map[string]string{"ADMIN_EMAILS": bossEmail + ",ann@example.com"}, faults.Wrap)
	a.svc.UseReportSources([]moderation.Source{&fakeSource{}})
	boss, annC := a.Client(), a.Client()
	bossKey := a.SignIn(boss, bossEmail)
	annKey := a.SignIn(annC, "ann@example.com")
	m := memberdatatest.Member(annKey, "ann@example.com")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	filed := itemReport("spam-1", annKey)
	filed.ByName, filed.Note = "Ann", "Clearly spam"
	must(a.svc.Report(ctx, filed))
	must(a.svc.Report(ctx, itemReport("spam-1", "bob")))
	about := itemReport("post-of-"+annKey, "bob")
	about.Author, about.AuthorName, about.Link, about.Excerpt = annKey, "Ann", "/people/"+annKey, "Buy cheap watches"
	must(a.svc.Report(ctx, about))
	dismissed := itemReport("other", "bob")
	must(a.svc.Report(ctx, dismissed))
	for _, r := range openReports(t, a.svc) {
		if r.Key == "other" {
			must(a.svc.Dismiss(ctx, Actor{MemberKey: annKey, Name: "Ann"}, r.RowKey, "fine"))
		}
	}
	must(a.svc.LogAction(ctx, bossKey, "Boss", "disable", targetUser, annKey, "Ann", "spam"))
	for _, who := range []string{m.UserKey, "bobs-user-key"} {
		must(a.svc.Usage().Record(ctx, metrics.UsageEvent{UserKey: who, Model: "org/model", At: a.Clock.Now(), TokensIn: 10, TokensOut: 20}))
	}
	tables := a.svc.Tables()

	arch := &memberdatatest.Archive{}
	must(a.svc.ExportMember(ctx, m, arch))
	text := arch.Text()
	for _, want := range []string{"admin/reports.json", "Clearly spam", "admin/ai_usage.json", `"tokens_in": 10`} {
		if !strings.Contains(text, want) {
			t.Errorf("the archive lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "item other") || strings.Contains(text, "bob") {
		t.Errorf("the archive holds others' reports:\n%s", text)
	}

	faults.FailAfter(1)
	if err := a.svc.ForgetMember(ctx, m); !errors.Is(err, memberdatatest.ErrInjected) {
		t.Fatalf("a forget cut short: %v", err)
	}
	faults.Heal()
	must(a.svc.ForgetMember(ctx, m))
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
	if totals, err := storage.All[ModelUsageRow](ctx, a.svc.usage.models, storage.Query{Scan: true}); err != nil || len(totals) != 1 || totals[0].TokensIn != 20 {
		t.Errorf("the day's totals: %+v, %v", totals, err)
	}
	open := openReports(t, a.svc)
	if len(open) != 2 {
		t.Fatalf("open reports after the deletion: %d", len(open))
	}
	for path, want := range map[string]int{"/admin/reports": 2, "/admin/reports/closed": 1, "/admin": 1} {
		page := boss.Get(path)
		if n := strings.Count(page.Doc(t).Find("main").Text(), "Deleted member"); n < want {
			t.Errorf("%s names the deleted member %d times, want %d", path, n, want)
		}
	}

	before := memberdatatest.Snapshot(t, a.Store, tables...)
	must(a.svc.ForgetMember(ctx, m))
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
}

package admin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
)

// fakeSource takes down "test.item" targets, remembering which; a key
// "gone" is a target deleted since.
type fakeSource struct{ taken []string }

func (f *fakeSource) ReportKinds() []string { return []string{"test.item"} }

func (f *fakeSource) TakeDown(_ context.Context, t moderation.Target, _ moderation.Moderator, _ string) error {
	if t.Key == "gone" {
		return fmt.Errorf("test: %w", storage.ErrNotFound)
	}
	f.taken = append(f.taken, t.Key)
	return nil
}

func itemReport(key, by string) moderation.Report {
	return moderation.Report{Target: moderation.Target{Kind: "test.item", Key: key}, Link: "/items/" + key, Excerpt: "item " + key, Author: "author", AuthorName: "Author", By: by, ByName: by, Reason: moderation.Spam}
}

func openReports(t *testing.T, s *Service) []ReportRow {
	t.Helper()
	page, err := s.OpenReports(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return page.Reports
}

// One person files at most reportsPerDay reports a day: the next is
// refused with ErrTooMany and opens nothing; the next day it is taken.
func TestReportsPerDayAreLimited(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	for i := range reportsPerDay {
		if err := a.svc.Report(ctx, itemReport(fmt.Sprint(i), "ann")); err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
	}
	if err := a.svc.Report(ctx, itemReport("one-more", "ann")); !errors.Is(err, moderation.ErrTooMany) {
		t.Fatalf("report %d: %v", reportsPerDay+1, err)
	}
	if n := len(openReports(t, a.svc)); n != reportsPerDay {
		t.Errorf("%d open reports after the refusal", n)
	}
	if err := a.svc.Report(ctx, itemReport("one-more", "bob")); err != nil {
		t.Errorf("someone else's report: %v", err)
	}
	a.Clock.Advance(24 * time.Hour)
	if err := a.svc.Report(ctx, itemReport("next-day", "ann")); err != nil {
		t.Errorf("the next day: %v", err)
	}
}

// A target row left naming no report (no path of the app leaves one;
// another tool might) is dropped by the next report of the target, which
// opens a new one; a close that stopped after its closed copy is finished
// by closing again, and the target row goes with the report.
func TestAStaleTargetRowOrAHalfFinishedCloseIsRepaired(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	src := &fakeSource{}
	a.svc.UseReportSources([]moderation.Source{src})
	target := moderation.Target{Kind: "test.item", Key: "x"}
	id := targetID(target)
	stale := storage.ReverseTicks(a.Clock.Now().Add(-time.Hour)) + "|" + id
	if _, err := storage.Insert(ctx, a.svc.reports, targetRow{PartitionKey: openPartition, RowKey: targetPrefix + id, Report: stale}); err != nil {
		t.Fatal(err)
	}
	if len(openReports(t, a.svc)) != 0 {
		t.Fatal("a target row lists as a report")
	}
	if err := a.svc.Report(ctx, itemReport("x", "ann")); err != nil {
		t.Fatalf("the report after the stale row: %v", err)
	}
	open := openReports(t, a.svc)
	if len(open) != 1 || open[0].RowKey == stale || open[0].Count != 1 {
		t.Fatalf("open: %+v", open)
	}
	rk := open[0].RowKey

	// The close stops after writing the closed copy.
	closed := open[0]
	closed.PartitionKey, closed.ETag, closed.Resolution = closedPrefix+storage.MonthBucket(closed.FirstAt), "", ResolutionDismissed
	if _, err := storage.Upsert(ctx, a.svc.reports, closed); err != nil {
		t.Fatal(err)
	}
	if len(openReports(t, a.svc)) != 1 {
		t.Fatal("a half-finished close is not open still")
	}
	boss := Actor{MemberKey: "boss", Name: "Boss"}
	if err := a.svc.TakeDown(ctx, boss, rk, "spam"); err != nil {
		t.Fatalf("closing again: %v", err)
	}
	if len(openReports(t, a.svc)) != 0 || len(src.taken) != 1 {
		t.Errorf("after closing again: %d open, taken %v", len(openReports(t, a.svc)), src.taken)
	}
	if _, err := a.svc.reports.Get(ctx, openPartition, targetPrefix+id); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the target row stays: %v", err)
	}
	got, err := storage.Get[ReportRow](ctx, a.svc.reports, closed.PartitionKey, rk)
	if err != nil || got.Resolution != ResolutionTakenDown || got.ResolvedBy != "boss" {
		t.Errorf("the closed report: %+v %v", got, err)
	}
	// Reported again, it is a new report.
	if err := a.svc.Report(ctx, itemReport("x", "ann")); err != nil || len(openReports(t, a.svc)) != 1 {
		t.Errorf("reported again: %v", err)
	}
}

// Taking down what is gone closes its report; a kind no module takes
// down is refused and changes nothing.
func TestTakingDownWhatIsGoneOrCannotBe(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.svc.UseReportSources([]moderation.Source{&fakeSource{}})
	boss := Actor{MemberKey: "boss", Name: "Boss"}
	if err := a.svc.Report(ctx, itemReport("gone", "ann")); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.TakeDown(ctx, boss, openReports(t, a.svc)[0].RowKey, ""); err != nil || len(openReports(t, a.svc)) != 0 {
		t.Errorf("taking down what is gone: %v", err)
	}
	other := itemReport("y", "ann")
	other.Kind = "test.other"
	if err := a.svc.Report(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.TakeDown(ctx, boss, openReports(t, a.svc)[0].RowKey, ""); !errors.Is(err, ErrNoSource) || len(openReports(t, a.svc)) != 1 {
		t.Errorf("taking down a kind nobody takes down: %v", err)
	}
	if err := a.svc.Report(ctx, moderation.Report{Target: other.Target, By: "author", Author: "author", Reason: moderation.Spam}); !errors.Is(err, moderation.ErrOwn) {
		t.Errorf("reporting one's own: %v", err)
	}
}

// posted keeps the notices posted.
type posted struct{ notices []inbox.Notice }

func (p *posted) Post(_ context.Context, n inbox.Notice) error {
	p.notices = append(p.notices, n)
	return nil
}

// A newly reported target tells the admins once: those who hold the role
// (not the one who reported it) by account, and the configured ones not
// among them by address. A second report of it tells no one.
func TestANewReportTellsTheAdmins(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	n := &posted{}
	a.svc.UseNotifier(n, []string{bossEmail, "ops@example.com"})
	ann, dan := a.Client(), a.Client()
	annKey := a.SignIn(ann, "ann@example.com")
	danKey := a.SignIn(dan, "dan@example.com")
	boss := a.Client()
	bossKey := a.SignIn(boss, bossEmail)
	for _, key := range []string{annKey, danKey, bossKey} {
		if _, err := a.Accounts.SetRole(ctx, key, account.RoleAdmin, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.svc.Report(ctx, itemReport("x", annKey)); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.Report(ctx, itemReport("x", danKey)); err != nil {
		t.Fatal(err)
	}
	if len(n.notices) != 1 {
		t.Fatalf("%d notices", len(n.notices))
	}
	got := map[inbox.Recipient]bool{}
	for _, r := range n.notices[0].To {
		got[r] = true
	}
	want := map[inbox.Recipient]bool{{MemberKey: danKey}: true, {MemberKey: bossKey}: true, {Email: "ops@example.com"}: true}
	if len(got) != len(want) || len(n.notices[0].To) != len(want) {
		t.Fatalf("told %v, want %v", n.notices[0].To, want)
	}
	for r := range want {
		if !got[r] {
			t.Errorf("%+v not told", r)
		}
	}
	if n.notices[0].Args["author"] != "Author" || n.notices[0].Link != "/admin/reports" {
		t.Errorf("the notice: %+v", n.notices[0])
	}
}

// A report's scope follows its target: Rescope takes the open reports of
// a kind and key prefix to a new scope (and no other report), and a
// report that joins an open one brings the target's scope as it is now.
func TestAReportsScopeFollowsItsTarget(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	for _, key := range []string{"t1#1", "t1#2", "t10#1", "t2#1"} {
		r := itemReport(key, "ann")
		r.Scope = "test.section|a"
		if err := a.svc.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	scopes := func() map[string]string {
		out := map[string]string{}
		for _, r := range openReports(t, a.svc) {
			out[r.Key] = r.Scope
		}
		return out
	}
	if err := a.svc.Rescope(ctx, "test.item", "t1#", "test.section|b"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"t1#1": "test.section|b", "t1#2": "test.section|b", "t10#1": "test.section|a", "t2#1": "test.section|a"}
	if got := scopes(); !maps.Equal(got, want) {
		t.Errorf("after Rescope: %v, want %v", got, want)
	}
	r := itemReport("t2#1", "bob")
	r.Scope = "test.section|c"
	if err := a.svc.Report(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got := scopes()["t2#1"]; got != "test.section|c" {
		t.Errorf("a joined report's scope: %q", got)
	}
}

// A report that joins an open one while a moderator closes it (read
// before the join, closed after) is in the closed history with the
// others, and nothing of it stays open.
func TestAReportJoinedDuringTheCloseIsKept(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	if err := a.svc.Report(ctx, itemReport("x", "ann")); err != nil {
		t.Fatal(err)
	}
	read := openReports(t, a.svc)[0]
	if err := a.svc.Report(ctx, itemReport("x", "bob")); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.closeReport(ctx, Actor{MemberKey: "auth:mod", Name: "Mod"}, read, ResolutionDismissed, ""); err != nil {
		t.Fatal(err)
	}
	if left := openReports(t, a.svc); len(left) != 0 {
		t.Fatalf("%d reports left open", len(left))
	}
	closed, err := storage.All[ReportRow](ctx, a.svc.reports, storage.Query{PartitionKey: closedPrefix + storage.MonthBucket(a.svc.now().UTC())})
	if err != nil || len(closed) != 1 {
		t.Fatalf("closed: %d, %v", len(closed), err)
	}
	if who := reporters(closed[0]); len(who) != 2 || closed[0].Count != 2 {
		t.Errorf("the closed report's reporters: %v (%d reports)", who, closed[0].Count)
	}
}

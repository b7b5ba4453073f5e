package admin

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

func newUsage(t *testing.T, now func() time.Time) (*Usage, *storage.Store) {
	t.Helper()
	store := storetest.Open(t, UsageTables...)
	return NewUsage(store, now), store
}

// Model names may hold key delimiters: they are escaped in keys and come
// back whole.
func TestRecordEscapesModelNames(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 5, 17, 23, 30, 0, 0, time.UTC)
	u, store := newUsage(t, func() time.Time { return at })
	const model = "org/vision|v2#beta?"
	if err := u.Record(ctx, metrics.UsageEvent{UserKey: "u1", Model: model, At: at, TokensIn: 10, TokensOut: 3}); err != nil {
		t.Fatal(err)
	}
	e, err := store.Table(modelUsageTable).Get(ctx, "2030-05", "2030-05-17|org~2Fvision~7Cv2~23beta~3F")
	if err != nil {
		t.Fatal(err)
	}
	if e.Props["calls"] != int64(1) || e.Props["tokensIn"] != int64(10) || e.Props["errors"] != int64(0) {
		t.Errorf("row %v", e.Props)
	}
	if _, err := store.Table(userModelUsageTable).Get(ctx, "u1|2030-05-17", "org~2Fvision~7Cv2~23beta~3F"); err != nil {
		t.Error(err)
	}
	models, err := u.ByModel(ctx, 1)
	if err != nil || len(models) != 1 || models[0].Model != model {
		t.Errorf("models %+v, err %v", models, err)
	}
	for _, ev := range []metrics.UsageEvent{{Model: model, At: at}, {UserKey: "u1", At: at}} {
		if err := u.Record(ctx, ev); !errors.Is(err, ErrUsageEvent) {
			t.Errorf("%+v: %v", ev, err)
		}
	}
}

// Thirty days back from the 10th reach into last month: the per-model
// totals are two range queries, a person's one.
func TestUsageWindows(t *testing.T) {
	t.Parallel()
	clock := webtest.NewClock(time.Date(2030, 3, 10, 8, 0, 0, 0, time.UTC))
	u, _ := newUsage(t, clock.Now)
	day := func(m time.Month, d int) time.Time { return time.Date(2030, m, d, 12, 0, 0, 0, time.UTC) }
	for _, ev := range []metrics.UsageEvent{
		{UserKey: "u1", Model: "a", At: day(2, 8), TokensIn: 1000},               // before the window
		{UserKey: "u1", Model: "a", At: day(2, 9), TokensIn: 100, TokensOut: 10}, // the first day shown
		{UserKey: "u1", Model: "b", At: day(2, 28), TokensIn: 5, Failed: true},
		{UserKey: "u2", Model: "b", At: day(3, 10), TokensIn: 7, TokensOut: 1},
		{UserKey: "u2", Model: "b", At: day(3, 10), Failed: true},
		{UserKey: "u1", Model: "a", At: day(3, 11)}, // tomorrow (a skewed clock)
	} {
		if err := u.Record(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}

	rctx, counter := storage.WithCounter(context.Background())
	models, err := u.ByModel(rctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	if q := counter.Snapshot(); q.Queries != 2 || q.Reads != 0 {
		t.Errorf("per model: %s, want 2 queries", q)
	}
	want := []ModelUsage{
		{Model: "b", UsageCounts: account.UsageCounts{Calls: 3, TokensIn: 12, TokensOut: 1, Errors: 2}},
		{Model: "a", UsageCounts: account.UsageCounts{Calls: 1, TokensIn: 100, TokensOut: 10}},
	}
	if len(models) != len(want) || models[0] != want[0] || models[1] != want[1] {
		t.Errorf("models %+v, want %+v", models, want)
	}

	rctx, counter = storage.WithCounter(context.Background())
	mine, err := u.UserAIUsage(rctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if q := counter.Snapshot(); q.Total() != 1 {
		t.Errorf("a person's usage: %s, want 1 query", q)
	}
	if w := (account.AIUsage{Days: 30, UsageCounts: account.UsageCounts{Calls: 2, TokensIn: 105, TokensOut: 10, Errors: 1}}); mine != w {
		t.Errorf("u1 %+v, want %+v", mine, w)
	}
	if none, _ := u.UserAIUsage(ctx, "nobody"); none != (account.AIUsage{Days: 30}) {
		t.Errorf("nobody %+v", none)
	}
}

func TestMetricsPageListsUsageByModel(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	if n := boss.Get("/admin/metrics").Doc(t).Find(testID("ai-usage-empty")).Length(); n != 1 {
		t.Error("no empty state without usage")
	}
	now := a.Clock.Now()
	for _, ev := range []metrics.UsageEvent{
		{UserKey: "u1", Model: "acme/small", At: now, TokensIn: 50, TokensOut: 5},
		{UserKey: "u2", Model: "acme/large", At: now.AddDate(0, 0, -3), TokensIn: 900, TokensOut: 90},
		{UserKey: "u2", Model: "acme/large", At: now, Failed: true},
	} {
		if err := a.svc.Usage().Record(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	res := boss.Get("/admin/metrics")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin/metrics: %d", res.StatusCode)
	}
	rows := res.Doc(t).Find(testID("ai-usage") + " " + testID("ai-usage-row"))
	if rows.Length() != 2 {
		t.Fatalf("%d model rows, want 2", rows.Length())
	}
	large := rows.First()
	if large.AttrOr("data-model", "") != "acme/large" || large.Find("td").Eq(0).Text() != "2" ||
		large.Find("td").Eq(1).Text() != "900" || large.Find("td").Eq(3).Text() != "1" {
		t.Errorf("first row %q: %q", large.AttrOr("data-model", ""), large.Find("td").Text())
	}
}

// "Your AI usage" shows a person their own calls: always when AI is on,
// and without AI only when there is usage to show.
func TestAccountPageShowsOwnAIUsage(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.Accounts.ShowAIUsage(a.svc.Usage(), false)
	me := a.Client()
	a.SignIn(me, "me@example.com")
	section := func() string {
		t.Helper()
		doc := me.Get("/account").Doc(t)
		s := doc.Find(testID("account-ai-usage"))
		if s.Length() == 0 {
			return ""
		}
		return s.Find(testID("usage-calls")+" dd").Text() + "/" + s.Find(testID("usage-tokens-in")+" dd").Text() + "/" +
			s.Find(testID("usage-tokens-out")+" dd").Text() + "/" + s.Find(testID("usage-errors")+" dd").Text()
	}
	if got := section(); got != "" {
		t.Errorf("AI off and no usage, but the section shows %q", got)
	}
	a.Accounts.ShowAIUsage(a.svc.Usage(), true)
	if got := section(); got != "0/0/0/0" {
		t.Errorf("AI on, no usage: %q", got)
	}
	mine := auth.UserKey("me@example.com")
	now := a.Clock.Now()
	for _, ev := range []metrics.UsageEvent{
		{UserKey: mine, Model: "m", At: now, TokensIn: 1200, TokensOut: 45},
		{UserKey: mine, Model: "m", At: now.AddDate(0, 0, -29), Failed: true},
		{UserKey: mine, Model: "m", At: now.AddDate(0, 0, -30), TokensIn: 1}, // too old
		{UserKey: auth.UserKey("other@example.com"), Model: "m", At: now, TokensIn: 7},
	} {
		if err := a.svc.Usage().Record(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if got := section(); got != "2/1200/45/1" {
		t.Errorf("usage %q, want 2/1200/45/1", got)
	}
	a.Accounts.ShowAIUsage(a.svc.Usage(), false)
	if got := section(); got != "2/1200/45/1" {
		t.Errorf("AI off with usage: %q", got)
	}
}

package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web/webtest"
)

func newMetrics(t *testing.T, now func() time.Time) *Metrics {
	t.Helper()
	b, err := embedded.Open(t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(b, storage.Options{})
	t.Cleanup(func() { store.Close() })
	if err := store.Provision(ctx, []string{metricsTable}, nil); err != nil {
		t.Fatal(err)
	}
	return NewMetrics(store, now)
}

func TestIncrIsExactUnderContention(t *testing.T) {
	at := time.Date(2030, 5, 17, 23, 59, 0, 0, time.UTC)
	m := newMetrics(t, func() time.Time { return at })
	var wg sync.WaitGroup
	errs := make(chan error, 150)
	for i := 0; i < 100; i++ {
		wg.Go(func() { errs <- m.Incr(ctx, NewUsers, at) })
	}
	// Another counter on the same row, at the same time.
	for i := 0; i < 50; i++ {
		wg.Go(func() { errs <- m.Incr(ctx, InvitesSent, at) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	days, err := m.Last(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 1 || days[0].NewUsers != 100 || days[0].InvitesSent != 50 || days[0].NewGroups != 0 {
		t.Fatalf("counts %+v, want 100 new users and 50 invites", days)
	}
	if days[0].PartitionKey != "2030-05" || days[0].RowKey != "2030-05-17" || days[0].UpdatedAt.IsZero() {
		t.Errorf("row keys %q %q, updatedAt %v", days[0].PartitionKey, days[0].RowKey, days[0].UpdatedAt)
	}
}

func TestIncrCountsTheUTCDay(t *testing.T) {
	m := newMetrics(t, func() time.Time { return time.Date(2030, 5, 18, 12, 0, 0, 0, time.UTC) })
	moscow := time.FixedZone("MSK", 3*3600)
	// 01:30 in Moscow on the 18th is still the 17th in UTC.
	if err := m.Incr(ctx, NewGroups, time.Date(2030, 5, 18, 1, 30, 0, 0, moscow)); err != nil {
		t.Fatal(err)
	}
	days, _ := m.Last(ctx, 2)
	if days[0].RowKey != "2030-05-17" || days[0].NewGroups != 1 || days[1].NewGroups != 0 {
		t.Errorf("days %+v", days)
	}
	if err := m.Incr(ctx, Counter("bogus"), time.Now()); !errors.Is(err, ErrUnknownCounter) {
		t.Errorf("unknown counter: %v", err)
	}
}

// Thirty days back from the 10th reach into last month: two partitions,
// one query each, and the days without rows are zeros.
func TestLastSpansTwoMonthsInTwoQueries(t *testing.T) {
	clock := webtest.NewClock(time.Date(2030, 3, 10, 8, 0, 0, 0, time.UTC))
	m := newMetrics(t, clock.Now)
	for _, at := range []time.Time{
		time.Date(2030, 2, 8, 0, 0, 0, 0, time.UTC),   // a day before the window
		time.Date(2030, 2, 9, 0, 0, 0, 0, time.UTC),   // the first day shown
		time.Date(2030, 2, 28, 23, 0, 0, 0, time.UTC), // last day of February
		time.Date(2030, 3, 10, 7, 0, 0, 0, time.UTC),  // today
		time.Date(2030, 3, 10, 7, 5, 0, 0, time.UTC),
	} {
		if err := m.Incr(ctx, NewAppointments, at); err != nil {
			t.Fatal(err)
		}
	}
	rctx, counter := storage.WithCounter(context.Background())
	days, err := m.Last(rctx, 30)
	if err != nil {
		t.Fatal(err)
	}
	if q := counter.Snapshot(); q.Queries != 2 || q.Reads != 0 {
		t.Errorf("storage calls %s, want 2 queries", q)
	}
	if len(days) != 30 || days[0].RowKey != "2030-02-09" || days[29].RowKey != "2030-03-10" {
		t.Fatalf("%d days from %s to %s", len(days), days[0].RowKey, days[len(days)-1].RowKey)
	}
	want := map[string]int64{"2030-02-09": 1, "2030-02-28": 1, "2030-03-10": 2}
	for _, d := range days {
		if d.NewAppointments != want[d.RowKey] {
			t.Errorf("%s: %d, want %d", d.RowKey, d.NewAppointments, want[d.RowKey])
		}
	}
}

func TestMetricsPageChartsTheLast30Days(t *testing.T) {
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	a.SignIn(a.Client(), "new@example.com")
	a.SignIn(a.Client(), "new@example.com") // a second sign-in is not a new user
	a.svc.Metrics().Incr(ctx, InvitesSent, a.Clock.Now().AddDate(0, 0, -3))

	ov := boss.Get("/admin").Doc(t)
	if href, _ := ov.Find(testID("admin-tool-metrics") + " a").Attr("href"); href != "/admin/metrics" {
		t.Errorf("metrics link %q", href)
	}
	res := boss.Get("/admin/metrics")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin/metrics: %d", res.StatusCode)
	}
	if strings.Contains(res.Body, "style=") {
		t.Error("inline style on the metrics page (the CSP blocks it)")
	}
	doc := res.Doc(t)
	svg := doc.Find(testID("metrics-chart"))
	if svg.Length() != 1 || svg.AttrOr("role", "") != "img" {
		t.Fatal("no accessible chart")
	}
	title, desc := svg.Find("title").Text(), svg.Find("desc").Text()
	if !strings.Contains(title, "30 days") || !strings.Contains(desc, "New users: 2 in all.") || !strings.Contains(desc, "Invitations sent: 1 in all.") {
		t.Errorf("title %q, desc %q", title, desc)
	}
	if labels := svg.AttrOr("aria-labelledby", ""); labels != "metrics-chart-title metrics-chart-desc" {
		t.Errorf("aria-labelledby %q", labels)
	}
	lines := svg.Find("polyline.chart-line")
	if lines.Length() != len(Counters) {
		t.Fatalf("%d lines, want %d", lines.Length(), len(Counters))
	}
	for i := range lines.Nodes {
		if pts := strings.Fields(lines.Eq(i).AttrOr("points", "")); len(pts) != 30 {
			t.Errorf("line %d has %d points", i, len(pts))
		}
	}
	rows := doc.Find(testID("metrics-data") + " " + testID("metrics-row"))
	if rows.Length() != 30 {
		t.Fatalf("%d table rows, want 30", rows.Length())
	}
	today := rows.First()
	if today.AttrOr("data-date", "") != "2030-05-17" || today.Find("td").First().Text() != "2" {
		t.Errorf("first row %s: %q", today.AttrOr("data-date", ""), today.Find("td").First().Text())
	}
	if rows.Eq(3).Find("td").Eq(3).Text() != "1" {
		t.Error("the invite three days ago is not in the table")
	}
}

// A failing counter never stops a sign-in.
func TestSignInSurvivesAFailingCounter(t *testing.T) {
	a := newAdminApp(t)
	a.Accounts.CountNewUsers(failingCounter{})
	if key := a.SignIn(a.Client(), "fine@example.com"); key == "" {
		t.Fatal("not signed in")
	}
}

type failingCounter struct{}

func (failingCounter) CountNewUser(context.Context, time.Time) error { return errors.New("table down") }

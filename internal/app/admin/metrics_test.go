package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/metrics"
)

func TestMetricsPageChartsTheLast30Days(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	a.SignIn(a.Client(), "new@example.com")
	a.SignIn(a.Client(), "new@example.com") // a second sign-in is not a new user
	a.svc.Metrics().Register("invitesSent")
	a.svc.Metrics().Incr(ctx, "invitesSent", a.Clock.Now().AddDate(0, 0, -3))

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
	if n := len(a.svc.Metrics().Counters()); lines.Length() != n || n != 2 {
		t.Fatalf("%d lines, want %d (new users and invitations sent)", lines.Length(), n)
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
	if rows.Eq(3).Find("td").Eq(1).Text() != "1" {
		t.Error("the invite three days ago is not in the table")
	}
}

// A failing counter never stops a sign-in.
func TestSignInSurvivesAFailingCounter(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.Accounts.CountNewUsers(failingCounter{})
	if key := a.SignIn(a.Client(), "fine@example.com"); key == "" {
		t.Fatal("not signed in")
	}
}

type failingCounter struct{}

func (failingCounter) Register(...metrics.Counter) {}
func (failingCounter) Incr(context.Context, metrics.Counter, time.Time) error {
	return errors.New("table down")
}

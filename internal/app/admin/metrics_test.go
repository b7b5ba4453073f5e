package admin

import (
	"net/http"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/storage/storetest"
)

func TestMetricsPageChartsTheLast30Days(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	a.SignIn(a.Client(), "new@example.com")
	a.SignIn(a.Client(), "new@example.com") // a second sign-in is not a new user
	a.svc.Metrics().Register("groups", "invitesSent")
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
	// One section per module that counts, in registration order: the
	// accounts' (people) first, then the groups' counter registered above.
	sections := doc.Find(testID("metrics-section"))
	if sections.Length() != 2 || sections.Eq(0).AttrOr("data-section", "") != "people" || sections.Eq(1).AttrOr("data-section", "") != "groups" {
		t.Fatalf("%d sections", sections.Length())
	}
	if h := sections.Eq(0).Find("h2").Text(); h != "People" {
		t.Errorf("first section's heading %q", h)
	}
	// People: the two who signed in today were active and new.
	for i, want := range []struct {
		key   string
		lines int
		total string
	}{{"people", 2, "Active people: 2 in all. New users: 2 in all."}, {"groups", 1, "Invitations sent: 1 in all."}} {
		svg := sections.Eq(i).Find(testID("metrics-chart"))
		if svg.Length() != 1 || svg.AttrOr("role", "") != "img" {
			t.Fatalf("%s: no accessible chart", want.key)
		}
		title, desc := svg.Find("title").Text(), svg.Find("desc").Text()
		if !strings.Contains(title, "30 days") || !strings.Contains(desc, want.total) {
			t.Errorf("%s: title %q, desc %q", want.key, title, desc)
		}
		labels := "metrics-chart-title-" + want.key + " metrics-chart-desc-" + want.key
		if got := svg.AttrOr("aria-labelledby", ""); got != labels || doc.Find("#metrics-chart-title-"+want.key).Length() != 1 {
			t.Errorf("%s: aria-labelledby %q", want.key, got)
		}
		lines := svg.Find("polyline.chart-line")
		if lines.Length() != want.lines || !lines.First().HasClass("series-1") {
			t.Fatalf("%s: %d lines, want %d", want.key, lines.Length(), want.lines)
		}
		for j := range lines.Nodes {
			if pts := strings.Fields(lines.Eq(j).AttrOr("points", "")); len(pts) != 30 {
				t.Errorf("%s: line %d has %d points", want.key, j, len(pts))
			}
		}
		if rows := sections.Eq(i).Find(testID("metrics-data") + " " + testID("metrics-row")); rows.Length() != 30 {
			t.Errorf("%s: %d table rows, want 30", want.key, rows.Length())
		}
	}
	people := sections.Eq(0).Find(testID("metrics-row"))
	if today := people.First(); today.AttrOr("data-date", "") != "2030-05-17" || today.Find("td").Text() != "22" {
		t.Errorf("first row %s: %q", today.AttrOr("data-date", ""), today.Find("td").Text())
	}
	if sections.Eq(1).Find(testID("metrics-row")).Eq(3).Find("td").First().Text() != "1" {
		t.Error("the invite three days ago is not in the table")
	}
	if got := people.First().Find("th").Text(); got != "Fri 17 May" {
		t.Errorf("first row's date %q", got)
	}

	// A Russian page dates its days in Russian: the span, the chart's
	// axis and the table.
	ru := boss.Get("/admin/metrics", "Accept-Language", "ru").Doc(t)
	if got := ru.Find(".page-head").Text(); !strings.Contains(got, "18 апреля 2030") || !strings.Contains(got, "17 мая 2030") {
		t.Errorf("Russian span %q", got)
	}
	if got := ru.Find(testID("metrics-chart")).First().Find(".chart-label-x").Last().Text(); got != "17 мая" {
		t.Errorf("Russian axis ends %q", got)
	}
	if got := ru.Find(testID("metrics-row")).First().Find("th").Text(); got != "пт, 17 мая" {
		t.Errorf("Russian first row's date %q", got)
	}
}

// A failing counter never stops a sign-in.
func TestSignInSurvivesAFailingCounter(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.Accounts.CountWith(metrics.NewDaily(storetest.Open(t), a.Clock.Now)) // no DailyMetrics table
	if key := a.SignIn(a.Client(), "fine@example.com"); key == "" {
		t.Fatal("not signed in")
	}
}

package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

const bossEmail = "boss@example.com" // in ADMIN_EMAILS

type adminApp struct {
	*accounttest.App
	svc *Service
}

func newAdminApp(t *testing.T) *adminApp {
	t.Helper()
	return newAdminAppWith(t, map[string]string{"ADMIN_EMAILS": bossEmail})
}

// newAdminAppWith is newAdminApp with env's configuration.
func newAdminAppWith(t *testing.T, env map[string]string) *adminApp {
	t.Helper()
	return newAdminAppOn(t, env, nil)
}

// newAdminAppOn is newAdminAppWith on a backend wrap wraps (nil: as it
// is).
func newAdminAppOn(t *testing.T, env map[string]string, wrap func(storage.Backend) storage.Backend) *adminApp {
	t.Helper()
	app := &adminApp{}
	app.App = accounttest.New(t, accounttest.Options{
		Env: env, Wrap: wrap,
		Modules: []platform.Factory{func(c *platform.Core) (web.Module, error) {
			app.svc = New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now)
			app.svc.UseMetrics(c.Metrics)
			app.svc.UseTasks(c.Tasks)
			return app.svc, nil
		}},
	})
	return app
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

// adminRoutes are every route under /admin, as echo holds them.
func adminRoutes(e *echo.Echo) []*echo.Route {
	var out []*echo.Route
	for _, r := range e.Routes() {
		if r.Path == "/admin" || strings.HasPrefix(r.Path, "/admin/") {
			out = append(out, r)
		}
	}
	return out
}

// request sends r's method (GET for the group's catch-all) to its path,
// with a valid CSRF token for unsafe methods.
func request(t *testing.T, c *webtest.Client, r *echo.Route, target string) *webtest.Response {
	t.Helper()
	parts := strings.Split(r.Path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = url.PathEscape(target)
		} else if p == "*" {
			parts[i] = "anything"
		}
	}
	path := strings.Join(parts, "/")
	if r.Method == http.MethodGet || r.Method == echo.RouteNotFound {
		return c.Get(path)
	}
	form := c.WithCSRF("/", url.Values{"reason": {"matrix"}})
	req := webtest.NewRequest(t, r.Method, path, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

func TestEveryAdminRouteNeedsAnAdmin(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	routes := adminRoutes(a.Echo)
	if len(routes) < 6 {
		t.Fatalf("only %d admin routes found", len(routes))
	}
	member := a.Client()
	target := a.SignIn(member, "member@example.com")
	anonymous := a.Client()
	for _, r := range routes {
		name := r.Method + " " + r.Path
		res := request(t, anonymous, r, target)
		if r.Method == http.MethodGet || r.Method == echo.RouteNotFound {
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
				t.Errorf("anonymous %s: %d to %q, want a redirect to sign in", name, res.StatusCode, res.Header.Get("Location"))
			}
		} else if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous %s: %d, want 401 (sign in first)", name, res.StatusCode)
		}
		if res := request(t, member, r, target); res.StatusCode != http.StatusForbidden {
			t.Errorf("member %s: %d, want 403", name, res.StatusCode)
		}
	}
	// Nothing the member tried took effect.
	if p, _ := a.Accounts.Profile(ctx, target); !p.Enabled || p.Role != "" {
		t.Errorf("a non-admin changed an account: %+v", p)
	}
	if log, _ := a.svc.RecentLog(ctx, 10); len(log) != 0 {
		t.Errorf("log written: %+v", log)
	}
}

func TestAdminPagesRender(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	res := boss.Get("/admin")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if href, _ := doc.Find(testID("admin-tool-users") + " a").Attr("href"); href != "/admin/users" {
		t.Errorf("users link %q", href)
	}
	if href, _ := doc.Find(testID("admin-tool-tags") + " a").Attr("href"); href != "/admin/tags" {
		t.Errorf("tags link %q", href)
	}
	// The rebuild buttons are the app's rebuilds, the list web reindex uses.
	if n := doc.Find(testID("admin-rebuilds") + " form").Length(); n != len(a.rebuildSubjects()) || n == 0 {
		t.Errorf("%d rebuild buttons for rebuilds %v", n, a.rebuildSubjects())
	}
	if href, _ := doc.Find(testID("admin-tool-reports") + " a").Attr("href"); href != "/admin/reports" {
		t.Errorf("reports link %q", href)
	}
	if doc.Find(testID("admin-tool-open")).Length() != 0 {
		t.Error("an empty queue counts open reports")
	}
	if res := boss.Get("/admin/reports"); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("admin-reports-empty")).Length() != 1 {
		t.Errorf("GET /admin/reports, empty: %d", res.StatusCode)
	}
	if res := boss.Get("/admin/reports?cursor=junk"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("GET /admin/reports with a bad cursor: %d", res.StatusCode)
	}
	if doc.Find(testID("coming-soon")).Length() != 0 {
		t.Error("/admin is still the coming-soon page")
	}
	res = boss.Get("/admin/users")
	if res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("admin-user-row")).Length() != 1 {
		t.Fatalf("GET /admin/users: %d", res.StatusCode)
	}
}

// post performs an admin action as a plain form would, a second after the
// last one, so the log's newest-first order is observable.
func (a *adminApp) post(t *testing.T, c *webtest.Client, target string, action Action, reason string) *webtest.Response {
	t.Helper()
	a.Clock.Advance(time.Second)
	// As confirmed: TestDisableAndGrantAskFirst covers the question.
	form := c.WithCSRF("/admin/users", url.Values{"reason": {reason}, "next": {"/admin/users"}, "confirm": {"yes"}})
	return c.PostForm("/admin/users/"+url.PathEscape(target)+"/"+string(action), form)
}

func TestDisableEndsSessionsAtOnceAndBlocksSignIn(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	bossKey := a.SignIn(boss, bossEmail)
	user, userPhone := a.Client(), a.Client()
	userKey := a.SignIn(user, "user@example.com")
	a.SignIn(userPhone, "user@example.com")

	res := a.post(t, boss, userKey, ActionDisable, "spam links")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin/users" {
		t.Fatalf("disable: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	// Their cookies stop working on the very next request.
	if a.Who(user) != "" || a.Who(userPhone) != "" {
		t.Fatal("disabled user is still signed in")
	}
	if res := user.Get("/account"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("disabled user's old cookie reached /account: %d", res.StatusCode)
	}
	// And they cannot sign in again.
	fresh := a.Client()
	a.TrySignIn(fresh, "user@example.com")
	if a.Who(fresh) != "" {
		t.Fatal("a disabled account signed in")
	}
	p, _ := a.Accounts.Profile(ctx, userKey)
	if p.Enabled {
		t.Error("profile still enabled")
	}
	doc := boss.Get("/admin/users").Doc(t)
	if doc.Find(testID("flash")).Length() != 1 {
		t.Error("no flash after the action")
	}
	row := doc.Find(testID("admin-user-row") + `[data-member="` + userKey + `"]`)
	if row.Find(testID("disabled-badge")).Length() != 1 || row.Find(testID("admin-enable")).Length() != 1 || row.Find(testID("admin-disable")).Length() != 0 {
		t.Error("the row does not show the account disabled")
	}

	// Enabling lets them back in.
	if res := a.post(t, boss, userKey, ActionEnable, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("enable: %d", res.StatusCode)
	}
	back := a.Client()
	if a.SignIn(back, "user@example.com") != userKey {
		t.Error("re-enabled account reached another memberKey")
	}

	entries, err := a.svc.RecentLog(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d log entries, want 2", len(entries))
	}
	// Newest first.
	enable, disable := entries[0], entries[1]
	if disable.Action != "disable" || disable.Actor != bossKey || disable.ActorName != "boss" || disable.TargetType != "user" ||
		disable.TargetKey != userKey || disable.TargetName != "user" || disable.Reason != "spam links" || disable.At.IsZero() {
		t.Errorf("disable entry %+v", disable)
	}
	if enable.Action != "enable" || enable.Reason != "" {
		t.Errorf("enable entry %+v", enable)
	}
	if pk, _ := logKey(disable.At, disable.ID); disable.PartitionKey != pk || disable.PartitionKey != "203005" {
		t.Errorf("log partition %q", disable.PartitionKey)
	}
	// The overview shows them.
	ov := boss.Get("/admin").Doc(t)
	if n := ov.Find(testID("admin-log-row")).Length(); n != 2 {
		t.Errorf("overview shows %d log rows", n)
	}
	if !strings.Contains(ov.Find(testID("admin-log")).Text(), "spam links") {
		t.Error("overview does not show the reason")
	}
	// The line says what was done, not the button's label.
	if line := strings.TrimSpace(ov.Find(testID("admin-log-row")).Last().Find(".row-title").Text()); line != "\u2068boss\u2069: account disabled — \u2068user\u2069" {
		t.Errorf("the log line reads %q", line)
	}
}

func TestGrantAndRevokeAdmin(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	helper := a.Client()
	helperKey := a.SignIn(helper, "helper@example.com")
	if res := helper.Get("/admin"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("before the grant: %d", res.StatusCode)
	}
	if res := a.post(t, boss, helperKey, ActionGrantAdmin, "new moderator"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("grant: %d", res.StatusCode)
	}
	// The role reaches their live session at once.
	if res := helper.Get("/admin"); res.StatusCode != http.StatusOK {
		t.Errorf("after the grant: %d", res.StatusCode)
	}
	// The new admin can act too, and the role survives a new sign-in.
	again := a.Client()
	a.SignIn(again, "helper@example.com")
	if res := again.Get("/admin/users"); res.StatusCode != http.StatusOK {
		t.Errorf("new session of the granted admin: %d", res.StatusCode)
	}
	if res := a.post(t, boss, helperKey, ActionRevokeAdmin, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	if res := helper.Get("/admin"); res.StatusCode != http.StatusForbidden {
		t.Errorf("after the revoke: %d", res.StatusCode)
	}
	if a.Who(helper) != helperKey {
		t.Error("revoking the role signed them out")
	}
	entries, _ := a.svc.RecentLog(ctx, 10)
	if len(entries) != 2 || entries[0].Action != "revoke-admin" || entries[1].Action != "grant-admin" {
		t.Errorf("log %+v", entries)
	}
}

// TestGrantAndRevokeOrganizer: the organizer role (events) is granted
// and taken back on the users page, shown as a badge, and logged; the
// events module's tests show what it opens.
func TestGrantAndRevokeOrganizer(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	key := a.SignIn(a.Client(), "host@example.com")
	badge := func() int {
		row := boss.Get("/admin/users").Doc(t).Find(testID("admin-user-row") + `[data-member="` + key + `"]`)
		return row.Find(testID("organizer-badge")).Length()
	}
	if badge() != 0 {
		t.Fatal("badge before the grant")
	}
	if res := a.post(t, boss, key, ActionGrantOrganizer, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("grant: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Role != account.RoleOrganizer || badge() != 1 {
		t.Errorf("after the grant: role %q, badge %d", p.Role, badge())
	}
	// Revoking admin from an organizer leaves them an organizer.
	if res := a.post(t, boss, key, ActionRevokeAdmin, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke admin: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Role != account.RoleOrganizer {
		t.Errorf("revoking a role they lack changed it to %q", p.Role)
	}
	if res := a.post(t, boss, key, ActionRevokeOrganizer, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Role != "" || badge() != 0 {
		t.Errorf("after the revoke: role %q", p.Role)
	}
	entries, _ := a.svc.RecentLog(ctx, 10)
	if len(entries) != 3 || entries[0].Action != "revoke-organizer" || entries[2].Action != "grant-organizer" {
		t.Errorf("log %+v", entries)
	}
}

func TestAdminCannotDisableOrDemoteThemselves(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	// A second admin by role, to demote themselves.
	deputy := a.Client()
	deputyKey := a.SignIn(deputy, "deputy@example.com")
	if res := a.post(t, boss, deputyKey, ActionGrantAdmin, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatal("grant failed")
	}
	before, _ := a.Accounts.Profile(ctx, deputyKey)
	for _, action := range []Action{ActionDisable, ActionRevokeAdmin} {
		res := a.post(t, deputy, deputyKey, action, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("self %s: %d, want 400", action, res.StatusCode)
		}
		if msg := res.Doc(t).Find(testID("error-page")).Text(); !strings.Contains(msg, "can't disable your own account") {
			t.Errorf("self %s: message %q", action, msg)
		}
	}
	// Nor by a lower role: granting an admin the organizer role, which
	// would replace theirs, is refused, for oneself and for another.
	for who, c := range map[string]*webtest.Client{"self": deputy, "another admin": boss} {
		res := a.post(t, c, deputyKey, ActionGrantOrganizer, "")
		if res.StatusCode != http.StatusConflict || !strings.Contains(res.Doc(t).Find(testID("error-page")).Text(), "take the admin role away first") || res.Writes(t) != 0 {
			t.Errorf("%s grants an admin the organizer role: %d", who, res.StatusCode)
		}
	}
	after, _ := a.Accounts.Profile(ctx, deputyKey)
	if after.ETag != before.ETag || !after.Enabled || after.Role != account.RoleAdmin {
		t.Errorf("self action changed the account: %+v", after)
	}
	if a.Who(deputy) != deputyKey {
		t.Error("deputy signed out")
	}
	if entries, _ := a.svc.RecentLog(ctx, 10); len(entries) != 1 {
		t.Errorf("%d log entries, want only the grant", len(entries))
	}
	// The page does not offer the buttons on one's own row.
	row := deputy.Get("/admin/users").Doc(t).Find(testID("admin-user-row") + `[data-member="` + deputyKey + `"]`)
	if row.Find(testID("admin-disable")).Length()+row.Find(testID("admin-revoke")).Length() != 0 {
		t.Error("own row offers disable or revoke")
	}
}

func TestBadActionInputChangesNothing(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	user := a.Client()
	userKey := a.SignIn(user, "someone@example.com")
	cases := []struct {
		name, target, reason string
		status               int
	}{
		{"reason too long", userKey, strings.Repeat("r", MaxReason+1), http.StatusUnprocessableEntity},
		{"reason with control characters", userKey, "bad\x00reason", http.StatusUnprocessableEntity},
		{"unknown account", "auth:01NOBODY", "", http.StatusNotFound},
		{"not a member key", "user|0", "", http.StatusNotFound},
		{"guest key", "guest:abc", "", http.StatusNotFound},
	}
	for _, tc := range cases {
		if res := a.post(t, boss, tc.target, ActionDisable, tc.reason); res.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.name, res.StatusCode, tc.status)
		}
	}
	if a.Who(user) != userKey {
		t.Error("user signed out")
	}
	if p, _ := a.Accounts.Profile(ctx, userKey); !p.Enabled {
		t.Error("user disabled")
	}
	if entries, _ := a.svc.RecentLog(ctx, 10); len(entries) != 0 {
		t.Errorf("log %+v", entries)
	}
	// A reason of exactly the limit is fine.
	if res := a.post(t, boss, userKey, ActionDisable, strings.Repeat("r", MaxReason)); res.StatusCode != http.StatusSeeOther {
		t.Errorf("reason at the limit: %d", res.StatusCode)
	}
}

func TestHTMXActionSwapsTheRow(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	user := a.Client()
	userKey := a.SignIn(user, "row@example.com")
	form := boss.WithCSRF("/admin/users", url.Values{"reason": {""}, "next": {"/admin/users"}, "confirm": {"yes"}})
	req := webtest.NewRequest(t, http.MethodPost, "/admin/users/"+url.PathEscape(userKey)+"/disable", strings.NewReader(form.Encode()),
		"Content-Type", "application/x-www-form-urlencoded", "HX-Request", "true", "HX-Request-Type", "partial")
	res := boss.Do(req)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("htmx disable: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if doc.Find("html header").Length() != 0 || doc.Find(testID("admin-user-row")).Length() != 1 {
		t.Fatalf("want just the row, got %s", res.Body)
	}
	if doc.Find(testID("admin-enable")).Length() != 1 || doc.Find(testID("disabled-badge")).Length() != 1 {
		t.Error("row does not show the new state")
	}
	if a.Who(user) != "" {
		t.Error("user still signed in")
	}
}

func TestUsersPaging(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.svc.pageSize = 15
	boss := a.Client()
	bossKey := a.SignIn(boss, bossEmail)
	want := map[string]bool{bossKey: true}
	for i := 0; i < 40; i++ {
		key := fmt.Sprintf("auth:01PAGING%02d", i)
		if _, err := a.Accounts.OnSignIn(ctx, key, fmt.Sprintf("p%02d@example.com", i), ""); err != nil {
			t.Fatal(err)
		}
		want[key] = true
	}

	// Plain links: each page starts where the last ended.
	seen := map[string]bool{}
	next, pages := "/admin/users", 0
	for next != "" {
		pages++
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		res := boss.Get(next)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", next, res.StatusCode)
		}
		doc := res.Doc(t)
		rows := doc.Find(testID("admin-user-row"))
		if rows.Length() > 15 {
			t.Errorf("page of %d rows", rows.Length())
		}
		for i := range rows.Nodes {
			key := rows.Eq(i).AttrOr("data-member", "")
			if seen[key] {
				t.Errorf("%s shown twice", key)
			}
			seen[key] = true
		}
		more := doc.Find(testID("load-more"))
		next = more.AttrOr("href", "")
		if next != "" {
			// The sentinel loads the same page with htmx.
			sentinel := more.Parent()
			if sentinel.AttrOr("hx-get", "") != next || sentinel.AttrOr("hx-trigger", "") != "intersect once" || sentinel.AttrOr("hx-swap", "") != "outerHTML" {
				t.Errorf("sentinel %v", sentinel.Nodes[0].Attr)
			}
		}
	}
	if pages != 3 {
		t.Errorf("%d pages for 41 people at 15 a page, want 3", pages)
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("%s never shown", key)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d shown, want %d", len(seen), len(want))
	}

	// htmx "load more" gets the next rows and sentinel only.
	first := boss.Get("/admin/users").Doc(t)
	href := first.Find(testID("load-more")).AttrOr("href", "")
	res := boss.Get(href, "HX-Request", "true", "HX-Request-Type", "partial")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("htmx load more: %d", res.StatusCode)
	}
	chunk := res.Doc(t)
	if chunk.Find("header, footer, h1").Length() != 0 {
		t.Error("load more answered with a whole page")
	}
	if n := chunk.Find(testID("admin-user-row")).Length(); n != 15 {
		t.Errorf("chunk of %d rows", n)
	}
	if chunk.Find(testID("load-more")).Length() != 1 {
		t.Error("chunk lacks the next sentinel")
	}
}

func TestTamperedCursorIs400(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	a.svc.pageSize = 2
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	for i := 0; i < 5; i++ {
		a.Accounts.OnSignIn(ctx, fmt.Sprintf("auth:01CURSOR%d", i), "", "")
	}
	href := boss.Get("/admin/users").Doc(t).Find(testID("load-more")).AttrOr("href", "")
	u, err := url.Parse(href)
	if err != nil || u.Query().Get("cursor") == "" {
		t.Fatalf("load more href %q", href)
	}
	token := u.Query().Get("cursor")
	flipped := []byte(token)
	if flipped[5] == 'A' {
		flipped[5] = 'B'
	} else {
		flipped[5] = 'A'
	}
	foreign := a.Cursors.Encode("prompts/newest", storage.Cursor{Bucket: "user|3"})
	for name, bad := range map[string]string{
		"flipped":          string(flipped),
		"truncated":        token[:len(token)-3],
		"garbage":          "not-a-cursor!",
		"another listing":  foreign,
		"bucket off index": a.Cursors.Encode(usersListQuery, storage.Cursor{Bucket: "user|z"}),
	} {
		res := boss.Get("/admin/users?cursor=" + url.QueryEscape(bad))
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s cursor: %d, want 400", name, res.StatusCode)
		}
	}
	if res := boss.Get(href); res.StatusCode != http.StatusOK {
		t.Errorf("genuine cursor: %d", res.StatusCode)
	}
}

func TestUnsafeAdminRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	webtest.AssertUnsafeRoutesNeedCSRF(t, newAdminApp(t).Echo)
}

func TestRebuildDirectoryButton(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss, member := a.Client(), a.Client()
	a.SignIn(boss, bossEmail)
	memberKey := a.SignIn(member, "member@example.com")
	// A failure lost the member's directory row: the list misses them.
	rows, _, err := a.Accounts.ListUsers(ctx, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.RowKey == memberKey {
			if err := a.Store.Table("Users").Delete(ctx, r.PartitionKey, r.RowKey, storage.AnyETag); err != nil {
				t.Fatal(err)
			}
		}
	}
	listed := func(c *webtest.Client) int {
		return c.Get("/admin/users").Doc(t).Find(testID("admin-user-row")).Length()
	}
	if n := listed(boss); n != 1 {
		t.Fatalf("%d rows before the rebuild, want 1", n)
	}

	post := func(c *webtest.Client) *webtest.Response {
		return c.PostForm("/admin/rebuild/users", c.WithCSRF("/", url.Values{}))
	}
	if res := post(member); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member rebuilt the directory: %d", res.StatusCode)
	}
	a.svc.waitRebuilds()
	if n := listed(boss); n != 1 {
		t.Errorf("a refused rebuild changed the list: %d rows", n)
	}

	// The users page's button starts the same rebuild as the overview's,
	// in the background, and the overview shows what it did.
	if action, _ := boss.Get("/admin/users").Doc(t).Find(testID("rebuild-directory-form")).Attr("action"); action != "/admin/rebuild/users" {
		t.Errorf("rebuild form action %q", action)
	}
	res := post(boss)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin#rebuild-heading" {
		t.Fatalf("rebuild: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	a.svc.waitRebuilds()
	report := boss.Get("/admin").Doc(t).Find(testID("admin-rebuild-users"))
	if got := report.Find(testID("admin-rebuild-report")).Text(); !strings.Contains(got, "2 profiles read") || !strings.Contains(got, "1 directory rows written") {
		t.Errorf("report %q", got)
	}
	if n := listed(boss); n != 2 {
		t.Errorf("%d rows after the rebuild, want 2", n)
	}
}

func TestModerationReasonRefusesTextThatMustNotBeStored(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	user := a.Client()
	userKey := a.SignIn(user, "someone@example.com")
	cases := []struct {
		name, reason, message string
	}{
		{"bidi override", "spam \u202eknil", "Remove the invisible text-direction characters"},
		{"bidi isolate", "\u2068spam", "Remove the invisible text-direction characters"},
		{"invalid UTF-8", "spam \xff", "not valid UTF-8 characters"},
		{"escape", "spam\x1b[2J", "Remove the invisible control characters"},
		{"line break", "spam\nlinks", "Keep this on one line"},
	}
	for _, tc := range cases {
		// A plain form gets the users list with the row's error.
		res := a.post(t, boss, userKey, ActionDisable, tc.reason)
		row := res.Doc(t).Find(testID("admin-user-row") + `[data-member="` + userKey + `"]`)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(row.Find(testID("field-error")).Text(), tc.message) {
			t.Errorf("%s: %d, row error %q", tc.name, res.StatusCode, row.Find(testID("field-error")).Text())
		}
		if got := row.Find(testID("admin-reason")).AttrOr("aria-invalid", ""); got != "true" {
			t.Errorf("%s: the reason field is not marked invalid", tc.name)
		}
		// htmx gets the row alone.
		form := boss.WithCSRF("/admin/users", url.Values{"reason": {tc.reason}, "next": {"/admin/users"}, "confirm": {"yes"}})
		req := webtest.NewRequest(t, http.MethodPost, "/admin/users/"+url.PathEscape(userKey)+"/disable", strings.NewReader(form.Encode()),
			"Content-Type", "application/x-www-form-urlencoded", "HX-Request", "true", "HX-Request-Type", "partial")
		res = boss.Do(req)
		doc := res.Doc(t)
		if res.StatusCode != http.StatusUnprocessableEntity || doc.Find("html header").Length() != 0 ||
			!strings.Contains(doc.Find(testID("admin-user-row")+" "+testID("field-error")).Text(), tc.message) {
			t.Errorf("%s over htmx: %d %s", tc.name, res.StatusCode, res.Body)
		}
	}
	if a.Who(user) != userKey {
		t.Error("user signed out")
	}
	if p, _ := a.Accounts.Profile(ctx, userKey); !p.Enabled {
		t.Error("user disabled")
	}
	if entries, _ := a.svc.RecentLog(ctx, 10); len(entries) != 0 {
		t.Errorf("log %+v", entries)
	}
}

func (a *adminApp) rebuildSubjects() []string { return a.svc.RebuildSubjects() }

// Two admins taking the role from each other at once, or disabling each
// other, on a server without ADMIN_EMAILS: the change counted last would
// leave no admin, so it is undone and refused, and nothing is logged for
// it. (Each request passed RequireAdmin before the other's change; here
// they run one after the other, as they land.)
func TestTheLastAdminStays(t *testing.T) {
	t.Parallel()
	a := newAdminAppWith(t, map[string]string{"ADMIN_EMAILS": ""})
	ann, bob := a.Client(), a.Client()
	annKey, bobKey := a.SignIn(ann, "ann@example.com"), a.SignIn(bob, "bob@example.com")
	for _, k := range []string{annKey, bobKey} {
		if _, err := a.Accounts.SetRole(ctx, k, account.RoleAdmin, true); err != nil {
			t.Fatal(err)
		}
	}
	annActs, bobActs := Actor{MemberKey: annKey, Name: "ann"}, Actor{MemberKey: bobKey, Name: "bob"}
	for _, tc := range []struct{ action, undo Action }{
		{ActionRevokeAdmin, ActionGrantAdmin},
		{ActionDisable, ActionEnable},
	} {
		if _, err := a.svc.Moderate(ctx, annActs, bobKey, tc.action, ""); err != nil {
			t.Fatalf("%s: ann acts on bob: %v", tc.action, err)
		}
		_, err := a.svc.Moderate(ctx, bobActs, annKey, tc.action, "")
		if !errors.Is(err, ErrLastAdmin) {
			t.Fatalf("%s: bob acts on ann, the last admin: %v, want ErrLastAdmin", tc.action, err)
		}
		if p, _ := a.Accounts.Profile(ctx, annKey); p.Role != account.RoleAdmin || !p.Enabled {
			t.Fatalf("%s: ann after the refused change: role %q, enabled %v", tc.action, p.Role, p.Enabled)
		}
		if n, _ := a.Accounts.CountAdmins(ctx); n != 1 {
			t.Fatalf("%s: %d admins, want ann alone", tc.action, n)
		}
		if entries, _ := a.svc.RecentLog(ctx, 10); len(entries) == 0 || entries[0].Actor != annKey {
			t.Fatalf("%s: the log's newest entry is not ann's: %+v", tc.action, entries)
		}
		if _, err := a.svc.Moderate(ctx, annActs, bobKey, tc.undo, ""); err != nil {
			t.Fatal(err)
		}
	}
}

// gatedRebuild is a rebuild that waits for its gate, then reports or
// fails with err.
type gatedRebuild struct {
	subject string
	gate    chan struct{}
	err     error
}

func (g *gatedRebuild) RebuildSubject() string { return g.subject }

func (g *gatedRebuild) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	<-g.gate
	if g.err != nil {
		return nil, g.err
	}
	return storage.Counts{Reads: 7}, nil
}

// A rebuild button starts the rebuild in the background and returns at
// once; the overview shows it running (and asks for itself again), then
// what it did or why it failed. A rebuild that runs cannot start twice;
// one whose server stopped may. An unknown subject is 404.
func TestRebuildButtonsRunTheAppsRebuilds(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	if got := a.rebuildSubjects(); len(got) != 1 || got[0] != "users" {
		t.Fatalf("rebuilds %v, want the accounts module's users", got)
	}
	slow := &gatedRebuild{subject: "slow", gate: make(chan struct{})}
	broken := &gatedRebuild{subject: "broken", gate: make(chan struct{}), err: errors.New("the store said no")}
	close(broken.gate)
	a.svc.UseRebuilders(append(a.svc.rebuilds, slow, broken))
	row := func(subject string) *goquery.Selection {
		t.Helper()
		return boss.Get("/admin").Doc(t).Find(testID("admin-rebuild-" + subject))
	}
	start := func(subject string) *webtest.Response {
		return boss.PostForm("/admin/rebuild/"+subject, boss.WithCSRF("/admin", nil))
	}

	if res := start("users"); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/admin#rebuild-heading" {
		t.Fatalf("rebuild: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	a.svc.waitRebuilds()
	if r := row("users"); r.AttrOr("data-state", "") != "done" || !strings.Contains(r.Find(testID("admin-rebuild-report")).Text(), "users: 1 profiles read") || !strings.Contains(r.Text(), "started by boss") {
		t.Errorf("the users rebuild after its run: %q", r.Text())
	}

	// The slow one answers before it is done, and shows as running.
	if res := start("slow"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("start the slow rebuild: %d", res.StatusCode)
	}
	page := boss.Get("/admin").Doc(t)
	if r := page.Find(testID("admin-rebuild-slow")); r.AttrOr("data-state", "") != "running" || r.Find(testID("admin-rebuild-submit")).Length() != 0 || !strings.Contains(r.Text(), "Running since") {
		t.Errorf("the slow rebuild while it runs: %q", r.Text())
	}
	if page.Find(testID("admin-rebuilds")).AttrOr("hx-trigger", "") != "every 3s" {
		t.Error("the repairs do not ask for themselves again while one runs")
	}
	if res := start("slow"); res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "running already") || res.Writes(t) != 0 {
		t.Errorf("a second start while it runs: %d", res.StatusCode)
	}
	frag := boss.Get("/admin/rebuilds", "HX-Request", "true", "HX-Request-Type", "partial")
	if frag.StatusCode != http.StatusOK || strings.Contains(frag.Body, "<html") || frag.Doc(t).Find(testID("admin-rebuild-slow")).AttrOr("data-state", "") != "running" {
		t.Errorf("htmx asks for the repairs: %d %s", frag.StatusCode, frag.Body)
	}
	if res := boss.Get("/admin/rebuilds"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the repairs asked for without htmx: %d", res.StatusCode)
	}

	// A run not touched for a while belongs to a server that stopped: it
	// shows as failed, and may start again.
	a.Clock.Advance(runStale)
	if r := row("slow"); r.AttrOr("data-state", "") != "failed" || !strings.Contains(r.Text(), "stopped before it was done") {
		t.Errorf("a stale run: %q", r.Text())
	}
	if res := start("slow"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("start a stale rebuild again: %d", res.StatusCode)
	}
	close(slow.gate)
	a.svc.waitRebuilds()
	page = boss.Get("/admin").Doc(t)
	if r := page.Find(testID("admin-rebuild-slow")); r.AttrOr("data-state", "") != "done" || !strings.Contains(r.Text(), "reads=7") {
		t.Errorf("the slow rebuild once done: %q", r.Text())
	}
	if page.Find(testID("admin-rebuilds")).AttrOr("hx-trigger", "") != "" {
		t.Error("the repairs still poll with nothing running")
	}

	if res := start("broken"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("start the broken rebuild: %d", res.StatusCode)
	}
	a.svc.waitRebuilds()
	if r := row("broken"); r.AttrOr("data-state", "") != "failed" || !strings.Contains(r.Text(), "the store said no") {
		t.Errorf("a failed rebuild: %q", r.Text())
	}
	if res := start("nothing"); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("unknown rebuild: %d", res.StatusCode)
	}
}

// TestDisableAndGrantAskFirst: disabling an account or making it an
// admin without confirmation asks (a page, or the row's place for htmx),
// keeps the typed reason, and changes nothing.
func TestDisableAndGrantAskFirst(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	a.SignIn(boss, bossEmail)
	user := a.Client()
	userKey := a.SignIn(user, "asked@example.com")
	for _, action := range []Action{ActionDisable, ActionGrantAdmin} {
		path := "/admin/users/" + url.PathEscape(userKey) + "/" + string(action)
		form := boss.WithCSRF("/admin/users", url.Values{"reason": {"a reason"}, "next": {"/admin/users"}})
		res := boss.PostForm(path, form)
		page := res.Doc(t)
		keep := page.Find(`[data-testid="confirm-page"] form input[name="reason"]`).AttrOr("value", "")
		if res.StatusCode != http.StatusOK || keep != "a reason" || page.Find(`input[name="confirm"][value="yes"]`).Length() != 1 {
			t.Fatalf("%s unconfirmed: %d, reason kept %q", action, res.StatusCode, keep)
		}
		req := webtest.NewRequest(t, http.MethodPost, path, strings.NewReader(form.Encode()),
			"Content-Type", "application/x-www-form-urlencoded", "HX-Request", "true", "HX-Request-Type", "partial")
		res = boss.Do(req)
		row := res.Doc(t)
		if res.StatusCode != http.StatusOK || row.Find(testID("confirm-row")).Length() != 1 || row.Find(`button[hx-post="`+path+`"]`).Length() != 1 {
			t.Fatalf("%s unconfirmed by htmx: %d %.300s", action, res.StatusCode, res.Body)
		}
	}
	if res := user.Get("/account"); res.StatusCode != http.StatusOK {
		t.Fatalf("the user was disabled without confirmation: %d", res.StatusCode)
	}
	if res := user.Get("/admin"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("the user became an admin without confirmation: %d", res.StatusCode)
	}
}

// TestConfiguredAdminsAreTheConfigurations: an admin named in
// ADMIN_EMAILS is one by the server's configuration, so an admin granted
// the role can neither disable them nor change their role (409, nothing
// written), and the users page offers neither.
func TestConfiguredAdminsAreTheConfigurations(t *testing.T) {
	t.Parallel()
	a := newAdminApp(t)
	boss := a.Client()
	bossKey := a.SignIn(boss, bossEmail)
	deputy := a.Client()
	deputyKey := a.SignIn(deputy, "deputy@example.com")
	if res := a.post(t, boss, deputyKey, ActionGrantAdmin, ""); res.StatusCode != http.StatusSeeOther {
		t.Fatal("grant failed")
	}
	for _, action := range []Action{ActionDisable, ActionRevokeAdmin, ActionGrantOrganizer, ActionRevokeOrganizer} {
		res := a.post(t, deputy, bossKey, action, "")
		if res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "ADMIN_EMAILS") || res.Writes(t) != 0 {
			t.Errorf("a granted admin does %s to a configured one: %d", action, res.StatusCode)
		}
	}
	if p, _ := a.Accounts.Profile(ctx, bossKey); !p.Enabled || a.Who(boss) != bossKey {
		t.Fatal("the configured admin lost their account or session")
	}
	row := deputy.Get("/admin/users").Doc(t).Find(testID("admin-user-row") + `[data-member="` + bossKey + `"]`)
	if row.Find(testID("admin-disable")).Length()+row.Find(testID("admin-revoke")).Length()+row.Find(testID("organizer-grant")).Length() != 0 || !strings.Contains(row.Find(testID("admin-badge")).Text(), "configured") {
		t.Errorf("the configured admin's row offers actions: %q", row.Text())
	}
}

package groups

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/web/webtest"
)

// The matrix's columns: who asks.
const (
	anonymous = iota
	nonMember
	invitee // invited, not accepted
	removed
	member
	owner
	// TODO(groups, join links slice): add "guest of another group" once
	// guests join by link; every /groups/:id route must answer it 404.
	columns
)

var columnNames = [columns]string{"anonymous", "non-member", "invitee", "removed", "member", "owner"}

// matrix is the expected status of every group route for each column.
// Anonymous GETs go to sign-in (303; /groups introduces the module), other anonymous requests get 401.
// Group pages answer 404 to anyone who is not an active member, so a
// group's existence never leaks; a member asking for an owner's action
// gets 403. The invitation link tells anyone but the invitee it is not
// theirs (403), and sends members on to the group (303).
var matrix = map[string][columns]int{
	"GET /api/me/groups":                     {401, 200, 200, 200, 200, 200},
	"GET /groups":                            {200, 200, 200, 200, 200, 200},
	"GET /groups/new":                        {303, 200, 200, 200, 200, 200},
	"POST /groups":                           {401, 303, 303, 303, 303, 303},
	"GET /groups/:id/invite":                 {303, 403, 200, 403, 303, 303},
	"POST /groups/:id/invite/accept":         {401, 403, 303, 403, 303, 303},
	"POST /groups/:id/invite/decline":        {401, 403, 303, 403, 403, 403},
	"GET /groups/:id":                        {303, 404, 404, 404, 200, 200},
	"POST /groups/:id/rename":                {401, 404, 404, 404, 403, 303},
	"POST /groups/:id/delete":                {401, 404, 404, 404, 403, 303},
	"POST /groups/:id/leave":                 {401, 404, 404, 404, 303, 409},
	"POST /groups/:id/invites":               {401, 404, 404, 404, 403, 303},
	"GET /groups/:id/members":                {303, 404, 404, 404, 200, 200},
	"POST /groups/:id/members/:user/promote": {401, 404, 404, 404, 403, 303},
	"POST /groups/:id/members/:user/remove":  {401, 404, 404, 404, 403, 303},
	// The pending invitation was just sent: authorized, but cooling down.
	"POST /groups/:id/members/:user/resend": {401, 404, 404, 404, 403, 429},
	"POST /groups/:id/members/:user/cancel": {401, 404, 404, 404, 403, 303},
}

// groupRoutes are every registered route under /groups and /api/me/groups.
func groupRoutes(e *echo.Echo) []*echo.Route {
	var out []*echo.Route
	for _, r := range e.Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		if r.Path == "/groups" || strings.HasPrefix(r.Path, "/groups/") || r.Path == "/api/me/groups" {
			out = append(out, r)
		}
	}
	return out
}

func TestGroupRouteMatrix(t *testing.T) {
	a := newGroupsApp(t)
	people := [columns]person{}
	people[anonymous] = person{c: a.Client()}
	for col, email := range map[int]string{
		nonMember: "nina@example.com", invitee: "ivan@example.com", removed: "rita@example.com",
		member: "mark@example.com", owner: "olga@example.com",
	} {
		people[col] = a.signIn(t, email)
	}
	active, pending := offline("active@example.com"), offline("pending@example.com")

	// setup builds a fresh group for one cell, so a cell's action (delete,
	// leave, remove) never changes another's answer.
	setup := func(t *testing.T) string {
		t.Helper()
		own := people[owner].id
		g, err := a.svc.Create(ctx, own, "Matrix")
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := a.svc.Open(ctx, g.GroupID, own, AccessOwner)
		if err != nil {
			t.Fatal(err)
		}
		join := func(id *auth.Identity, accept bool) {
			if _, err := a.svc.Invite(ctx, m, g, own, id.Email); err != nil {
				t.Fatal(err)
			}
			if !accept {
				return
			}
			mi, _, err := a.svc.Open(ctx, g.GroupID, id, AccessInvitee)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.svc.Accept(ctx, mi, id); err != nil {
				t.Fatal(err)
			}
		}
		join(people[member].id, true)
		join(people[invitee].id, false)
		join(people[removed].id, true)
		if err := a.svc.Remove(ctx, m, people[removed].id.UserKey); err != nil {
			t.Fatal(err)
		}
		join(active, true)
		join(pending, false)
		return g.GroupID
	}

	routes := groupRoutes(a.Echo)
	seen := map[string]bool{}
	for _, r := range routes {
		key := r.Method + " " + r.Path
		want, ok := matrix[key]
		if !ok {
			t.Errorf("route %s is not in the matrix", key)
			continue
		}
		seen[key] = true
		for col := range columns {
			groupID := setup(t)
			target := active.UserKey
			if strings.HasSuffix(r.Path, "/resend") || strings.HasSuffix(r.Path, "/cancel") {
				target = pending.UserKey
			}
			path := strings.NewReplacer(":id", groupID, ":user", target).Replace(r.Path)
			res := send(t, people[col].c, r.Method, path)
			if res.StatusCode != want[col] {
				t.Errorf("%s as %s: %d, want %d", key, columnNames[col], res.StatusCode, want[col])
			}
			if want[col] == http.StatusNotFound && strings.Contains(res.Body, "Matrix") {
				t.Errorf("%s as %s: the 404 names the group", key, columnNames[col])
			}
		}
	}
	for key := range matrix {
		if !seen[key] {
			t.Errorf("matrix row %s has no route", key)
		}
	}
}

func send(t *testing.T, c *webtest.Client, method, path string) *webtest.Response {
	t.Helper()
	if method == http.MethodGet {
		return c.Get(path)
	}
	form := c.WithCSRF("/", url.Values{"name": {"Renamed"}, "email": {"new@example.com"}})
	req := webtest.NewRequest(t, method, path, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

func TestUnsafeGroupRoutesNeedCSRF(t *testing.T) {
	webtest.AssertUnsafeRoutesNeedCSRF(t, newGroupsApp(t).Echo)
}

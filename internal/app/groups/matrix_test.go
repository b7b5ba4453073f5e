package groups

import (
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live/livetest"
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
	// guest joined another group by link; every /groups/:id route answers
	// them 404, and the account-only routes send them to sign in.
	guest
	columns
)

var columnNames = [columns]string{"anonymous", "non-member", "invitee", "removed", "member", "owner", "guest of another group"}

// matrix is the expected status of every group route for each column.
// Anonymous GETs go to sign-in (303; /groups introduces the module), other anonymous requests get 401.
// Group pages answer 404 to anyone who is not an active member, so a
// group's existence never leaks; a member asking for an owner's action
// gets 403. The invitation link tells anyone but the invitee it is not
// theirs (403; a guest too, who may be invited under their guest key to
// a group started from a join link), and sends members on to the group
// (303). A join link
// admits anyone but a removed member (403), and sends members on.
var matrix = map[string][columns]int{
	"GET /api/me/groups":                     {401, 200, 200, 200, 200, 200, 200},
	"GET /groups":                            {200, 200, 200, 200, 200, 200, 200},
	"GET /groups/new":                        {303, 200, 200, 200, 200, 200, 303},
	"POST /groups":                           {401, 303, 303, 303, 303, 303, 401},
	"GET /groups/:id/invite":                 {303, 403, 200, 403, 303, 303, 403},
	"POST /groups/:id/invite/accept":         {401, 403, 303, 403, 303, 303, 403},
	"POST /groups/:id/invite/decline":        {401, 403, 303, 403, 403, 403, 403},
	"GET /groups/:id":                        {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/rename":                {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/delete":                {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/leave":                 {401, 404, 404, 404, 303, 409, 404},
	"POST /groups/:id/invites":               {401, 404, 404, 404, 403, 303, 404},
	"GET /groups/:id/members":                {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/members/:user/promote": {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/members/:user/remove":  {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/members/:user/demote":  {401, 404, 404, 404, 403, 404, 404}, // the target is not an owner
	// The pending invitation was just sent: authorized, but cooling down.
	"POST /groups/:id/members/:user/resend":           {401, 404, 404, 404, 403, 429, 404},
	"POST /groups/:id/members/:user/cancel":           {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/join-sessions":                  {401, 404, 404, 404, 403, 303, 404},
	"GET /groups/:id/join-sessions/:session":          {303, 404, 404, 404, 403, 200, 404},
	"POST /groups/:id/join-sessions/:session/close":   {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/join-sessions/:session/spinoff": {401, 404, 404, 404, 403, 303, 404},
	"GET /join/:id/:session":                          {200, 200, 200, 200, 303, 303, 200},
	"POST /join/:id/:session":                         {303, 303, 303, 403, 303, 303, 303},
	// Appointments (the owner created the cell's appointment, with a
	// scan): members edit and cancel; only the creator or an owner
	// deletes. The upload without a file is a 400; "Read the scan" is 404
	// while no Extractor is configured. The .ics feed needs no session,
	// only a member's feed URL (the owner's, sent here), so every column
	// gets it.
	"GET /groups/:id/appointments":                                 {303, 404, 404, 404, 301, 301, 404},
	"GET /groups/:id/settings":                                     {303, 404, 404, 404, 200, 200, 404},
	"GET /groups/:id/import":                                       {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/import":                                      {401, 404, 404, 404, 400, 400, 404}, // the matrix form has no file
	"POST /groups/:id/import/:token":                               {401, 404, 404, 404, 404, 404, 404}, // no such import
	"POST /groups/:id/timezone":                                    {401, 404, 404, 404, 403, 400, 404}, // the matrix form has no zone
	"POST /groups/:id/color":                                       {401, 404, 404, 404, 400, 400, 404}, // the matrix form has no colour
	"GET /groups/:id/appointments/new":                             {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/appointments":                                {401, 404, 404, 404, 303, 303, 404},
	"GET /groups/:id/appointments/month":                           {303, 404, 404, 404, 200, 200, 404},
	"GET /groups/:id/appointments/week":                            {303, 404, 404, 404, 200, 200, 404},
	"GET /groups/:id/appointments/stream":                          {303, 404, 404, 404, 200, 200, 404}, // as the agenda
	"GET /groups/:id/appointments/:appt":                           {303, 404, 404, 404, 200, 200, 404},
	"GET /groups/:id/appointments/:appt/edit":                      {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/appointments/:appt/edit":                     {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/appointments/:appt/cancel":                   {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/appointments/:appt/restore":                  {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/appointments/:appt/comments":                 {401, 404, 404, 404, 422, 422, 404}, // the matrix form has no comment
	"POST /groups/:id/appointments/:appt/comments/:comment/delete": {401, 404, 404, 404, 404, 404, 404}, // no such comment
	"GET /groups/:id/appointments/:appt/comments/:comment/edit":    {303, 404, 404, 404, 404, 404, 404}, // no such comment
	"POST /groups/:id/appointments/:appt/comments/:comment/edit":   {401, 404, 404, 404, 404, 404, 404},
	"POST /groups/:id/appointments/:appt/remind":                   {401, 404, 404, 404, 403, 403, 404}, // only participants
	"POST /groups/:id/appointments/:appt/delete":                   {401, 404, 404, 404, 403, 303, 404},
	"GET /groups/:id/appointments/:appt/scan":                      {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/appointments/:appt/scan":                     {401, 404, 404, 404, 400, 400, 404},
	"POST /groups/:id/appointments/:appt/scan/read":                {401, 404, 404, 404, 404, 404, 404},
	"POST /groups/:id/calendar/token":                              {401, 404, 404, 404, 403, 303, 404},
	"GET /groups/:id/calendar.ics":                                 {200, 200, 200, 200, 200, 200, 200},
	// Lists (the owner started the cell's list, with an item): every
	// member reads, adds, ticks, renames and takes items off; the list's
	// delete is its creator's or an owner's.
	"GET /groups/:id/lists/:list/stream":              {303, 404, 404, 404, 200, 200, 404},
	"GET /groups/:id/lists/stream":                    {303, 404, 404, 404, 200, 200, 404}, // as the Lists tab
	"GET /groups/:id/lists":                           {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/lists":                          {401, 404, 404, 404, 303, 303, 404},
	"GET /groups/:id/lists/:list":                     {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/lists/:list/rename":             {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/lists/:list/delete":             {401, 404, 404, 404, 403, 303, 404},
	"POST /groups/:id/lists/:list/clear":              {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/lists/:list/items":              {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/lists/:list/items/:item/tick":   {401, 404, 404, 404, 303, 303, 404},
	"GET /groups/:id/lists/:list/items/:item/edit":    {303, 404, 404, 404, 200, 200, 404},
	"POST /groups/:id/lists/:list/items/:item/edit":   {401, 404, 404, 404, 303, 303, 404},
	"POST /groups/:id/lists/:list/items/:item/delete": {401, 404, 404, 404, 303, 303, 404},
}

// groupRoutes are every registered route under /groups and /api/me/groups.
func groupRoutes(e *echo.Echo) []*echo.Route {
	// The join links (/join/…) are group routes too.
	var out []*echo.Route
	for _, r := range e.Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		if r.Path == "/groups" || strings.HasPrefix(r.Path, "/groups/") || r.Path == "/api/me/groups" ||
			strings.HasPrefix(r.Path, "/join/") {
			out = append(out, r)
		}
	}
	return out
}

func TestGroupRouteMatrix(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	a.svc.creations.Max = math.MaxInt // the matrix makes a group for each of its cells
	people := [columns]person{}
	people[anonymous] = person{c: a.Client()}
	for col, email := range map[int]string{
		nonMember: "nina@example.com", invitee: "ivan@example.com", removed: "rita@example.com",
		member: "mark@example.com", owner: "olga@example.com",
	} {
		people[col] = a.signIn(t, email)
	}
	active, pending := offline("active@example.com"), offline("pending@example.com")
	people[guest] = a.guestOf(t, people[owner], "Elsewhere", "Gus")

	// setup builds a fresh group for one cell, so a cell's action (delete,
	// leave, remove) never changes another's answer.
	setup := func(t *testing.T) (groupID, sessionID string) {
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
		js, err := a.svc.OpenJoinSession(ctx, m, own, "")
		if err != nil {
			t.Fatal(err)
		}
		return g.GroupID, js.RowKey
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
			groupID, sessionID := setup(t)
			target := active.UserKey
			if strings.HasSuffix(r.Path, "/resend") || strings.HasSuffix(r.Path, "/cancel") {
				target = pending.UserKey
			}
			appt, feedQuery := matrixAppointment(t, a, groupID, people[owner].id)
			list, item := matrixList(t, a, groupID, people[owner].id)
			path := strings.NewReplacer(":id", groupID, ":user", a.svc.memberRef(groupID, target), ":session", sessionID, ":appt", appt,
				":list", list, ":item", item).Replace(r.Path)
			if strings.HasSuffix(path, "/calendar.ics") {
				path += "?" + feedQuery
			}
			c := people[col].c
			if col == anonymous {
				c = a.Client() // joining by link would sign it in as a guest
			}
			res := send(t, c, r.Method, path)
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
	if strings.HasSuffix(path, "/stream") {
		// A stream answers and stays open: its status is the answer.
		status, _, stop := livetest.Open(t, c, path)
		stop()
		return &webtest.Response{Response: &http.Response{StatusCode: status}}
	}
	if method == http.MethodGet {
		return c.Get(path)
	}
	form := c.WithCSRF("/", url.Values{
		"name": {"Renamed"}, "email": {"new@example.com"},
		"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"},
		"confirm": {"yes"}, "text": {"Milk"}, "done": {"true"},
	})
	req := webtest.NewRequest(t, method, path, strings.NewReader(form.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

func TestUnsafeGroupRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	webtest.AssertUnsafeRoutesNeedCSRF(t, newGroupsApp(t).Echo)
}

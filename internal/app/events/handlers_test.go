package events_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/events"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

func newApp(t *testing.T, env ...string) *accounttest.App {
	a, _ := newAppAndService(t, env...)
	return a
}

// newAppAndService is newApp with the events module's service.
func newAppAndService(t *testing.T, env ...string) (*accounttest.App, *events.Service) {
	return newAppAndServiceOn(t, nil, env...)
}

// newAppAndServiceOn is newAppAndService on a backend wrap wraps (nil:
// as it is).
func newAppAndServiceOn(t *testing.T, wrap func(storage.Backend) storage.Backend, env ...string) (*accounttest.App, *events.Service) {
	var in *inbox.Service
	var g *groups.Service
	var svc *events.Service
	vars := map[string]string{"ADMIN_EMAILS": "org@example.com"}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	a := accounttest.New(t, accounttest.Options{
		Env:  vars,
		Wrap: wrap,
		Modules: []platform.Factory{
			func(c *platform.Core) (web.Module, error) {
				var err error
				in, err = inbox.FromCore(c)
				return in, err
			},
			func(c *platform.Core) (web.Module, error) {
				g = groups.New(c.Store, c.Accounts, c.Cursors, c.Config.BaseURL.String(), c.Log, c.Now)
				g.UseNotifier(in)
				return g, nil
			},
			func(c *platform.Core) (web.Module, error) {
				ev := events.New(c.Store, c.Cursors, c.Log, c.Now)
				ev.UseNotifier(in)
				ev.UseGroups(g)
				ev.UseBaseURL(c.Config.BaseURL.String())
				ev.UsePeople(c.Auth, c.Accounts)
				ev.LimitRegistrations(c.Config.RegistrationsPerMinute)
				if err := ev.UseTasks(c.Tasks); err != nil {
					return nil, err
				}
				svc = ev
				return ev, nil
			},
		},
	})
	return a, svc
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func post(c *webtest.Client, path string, form url.Values) *webtest.Response {
	if form == nil {
		form = url.Values{}
	}
	return c.PostForm(path, c.WithCSRF("/", form))
}

// TestEventPages: an organizer creates an event (a bad form is refused
// and writes nothing), publishes it, and it is listed; two people
// register for one seat, the second waits at position 1 and gets the
// seat when the first cancels; the confirmed-only details show to the
// person going only.
func TestEventPages(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob, anon := cast[0], cast[1], cast[2], a.Client()

	if res := anon.Get("/events"); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("events-empty")).Length() != 1 {
		t.Fatalf("empty listing: %d", res.StatusCode)
	}
	if res := ann.Get("/events/new"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member opens the organizer form: %d", res.StatusCode)
	}
	form := url.Values{"title": {"Jazz night"}, "category": {"concert"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T23:00"},
		"capacity": {"1"}, "place": {"Blue Note"}, "confirmedOnly": {"Door code 4711"}, "description": {"**Live** trio"}}
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("capacity", "lots")
	res := post(org, "/events", bad)
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(".field-error").Length() == 0 || res.Writes(t) != 0 {
		t.Fatalf("bad form: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	res = post(org, "/events", form)
	page := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(page, "/events/") {
		t.Fatalf("create: %d %s", res.StatusCode, page)
	}
	if res := anon.Get(page); res.StatusCode != http.StatusNotFound {
		t.Fatalf("an unpublished event for a visitor: %d", res.StatusCode)
	}
	if res := post(ann, page+"/publish", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member publishes: %d", res.StatusCode)
	}
	if res := post(org, page+"/publish", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	if n := anon.Get("/events?category=concert").Doc(t).Find(testID("event-card")).Length(); n != 1 {
		t.Fatalf("%d concerts listed", n)
	}
	// Visitors share one rendering of the listing and of the page (the
	// second look costs no storage call); a change shows at once below.
	for _, path := range []string{"/events", page} {
		anon.Get(path)
		if res := anon.Get(path); res.StatusCode != http.StatusOK || res.StorageOps(t)["total"] != 0 {
			t.Errorf("a visitor's second look at %s: %d, cost %s", path, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	// Unpublished again, it leaves the listing and its page; published
	// again, it is back.
	post(org, page+"/unpublish", nil)
	if n := anon.Get("/events").Doc(t).Find(testID("event-card")).Length(); n != 0 || anon.Get(page).StatusCode != http.StatusNotFound {
		t.Fatal("an unpublished event is still shown")
	}
	post(org, page+"/publish", nil)
	if res := anon.Get("/events?category=wrestling"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown category: %d", res.StatusCode)
	}

	badge := func() string {
		return strings.TrimSpace(anon.Get("/events").Doc(t).Find(testID("seats-badge")).Text())
	}
	if b := badge(); b != "Only 1 seat left" {
		t.Fatalf("badge before anyone registered: %q", b)
	}
	if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann registers: %d %s", res.StatusCode, res.Body)
	}
	if b := badge(); b != "Full" {
		t.Fatalf("badge with the seat taken: %q", b)
	}
	post(bob, page+"/register", nil)
	if b := badge(); b != "Full · 1 waiting" {
		t.Fatalf("badge with bob waiting: %q", b)
	}
	state := func(c *webtest.Client) (string, string) {
		d := c.Get(page).Doc(t)
		return d.Find(testID("registration-state")).AttrOr("data-state", ""), d.Find(testID("registration-state")).Text()
	}
	if s, _ := state(ann); s != "going" {
		t.Fatalf("ann: %q", s)
	}
	if s, text := state(bob); s != "waitlist" || !strings.Contains(text, "number 1 of 1") {
		t.Fatalf("bob: %q %q", s, text)
	}
	mine := bob.Get("/events/mine").Doc(t).Find(testID("my-event"))
	if mine.Length() != 1 || mine.AttrOr("data-status", "") != "waitlist" || !strings.Contains(mine.Text(), "number 1") {
		t.Fatalf("bob's events: %q", mine.Text())
	}
	if ann.Get(page).Doc(t).Find(testID("event-confirmed")).Text() != "Door code 4711" || bob.Get(page).Doc(t).Find(testID("event-confirmed")).Length() != 0 {
		t.Fatal("the door code is not for people going only")
	}
	// "Add to Google Calendar" and Outlook's link carry the event as its
	// .ics does: the door code for people going alone, and its page.
	links := func(c *webtest.Client) (google, outlook url.Values) {
		t.Helper()
		d := c.Get(page).Doc(t)
		g, err1 := url.Parse(d.Find(testID("event-google")).AttrOr("href", ""))
		o, err2 := url.Parse(d.Find(testID("event-outlook")).AttrOr("href", ""))
		if err1 != nil || err2 != nil || g.Host == "" || o.Host == "" {
			t.Fatalf("the calendar links: %v %v", g, o)
		}
		return g.Query(), o.Query()
	}
	g, o := links(ann)
	if g.Get("text") != "Jazz night" || !strings.Contains(g.Get("location"), "Door code 4711") || !strings.HasPrefix(g.Get("details"), "Live trio") || !strings.Contains(g.Get("details"), "\n\nhttp") || !strings.HasSuffix(g.Get("details"), page) ||
		o.Get("subject") != "Jazz night" || !strings.Contains(o.Get("location"), "Door code 4711") || o.Get("startdt") == "" {
		t.Errorf("ann's calendar links: %v %v", g, o)
	}
	if g, o := links(bob); strings.Contains(g.Get("location"), "4711") || strings.Contains(o.Get("location"), "4711") {
		t.Errorf("bob, waiting, is given the door code in a calendar link: %v %v", g, o)
	}
	if got := anon.Get(page + "/event.ics"); got.StatusCode != http.StatusOK || strings.Contains(got.Body, "4711") || !strings.Contains(got.Body, "SUMMARY:Jazz night") {
		t.Fatalf("a visitor's .ics: %d\n%s", got.StatusCode, got.Body)
	}
	if got := ann.Get(page + "/event.ics"); !strings.Contains(got.Body, "Door code 4711") {
		t.Fatalf("ann's .ics lacks the door code:\n%s", got.Body)
	}
	// The UID names the app's configured address, not the request's Host.
	forged := webtest.NewRequest(t, http.MethodGet, page+"/event.ics", nil)
	forged.Host = "evil.example"
	if got := anon.Do(forged).Body; strings.Contains(got, "evil.example") || !strings.Contains(got, "UID:") {
		t.Fatalf("an .ics fetched with a forged Host:\n%s", got)
	}
	if res := post(ann, page+"/cancel", nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 {
		t.Fatalf("cancel without confirming: %d", res.StatusCode)
	}
	if res := post(ann, page+"/cancel", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	if s, _ := state(bob); s != "going" {
		t.Fatalf("bob after ann cancelled: %q", s)
	}
	// Someone no longer registered is not asked to cancel.
	if res := post(ann, page+"/cancel", nil); res.StatusCode != http.StatusNotFound || res.Doc(t).Find(testID("confirm-page")).Length() != 0 {
		t.Errorf("asked to cancel again: %d", res.StatusCode)
	}
	if ann.Get(page).Doc(t).Find(testID("registration-was")).AttrOr("data-was", "") != "cancelled" {
		t.Error("ann's page does not say she gave up her place")
	}
	if ann.Get("/events/mine").Doc(t).Find(testID("my-events-empty")).Length() != 1 {
		t.Fatal("ann's cancelled registration is still among her events")
	}
	a.Tasks.RunDue(t.Context())
	if !strings.Contains(bob.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "A seat opened") {
		t.Fatal("bob is not told he got the seat")
	}
	for _, bad := range []string{"0", "2", "x"} {
		if res := post(ann, page+"/register", url.Values{"party": {bad}}); res.StatusCode != http.StatusBadRequest {
			t.Errorf("party %q: %d", bad, res.StatusCode)
		}
	}
	if res := anon.Get("/events/not-an-id"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a bad id: %d", res.StatusCode)
	}
}

// TestOrganizerRole: the organizer role an admin grants opens the
// organizer pages at once, in the person's live session, and taking it
// back closes them again; an organizer runs their own events only.
func TestOrganizerRole(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	host := a.Client()
	key := a.SignIn(host, "host@example.com")
	if res := host.Get("/events/new"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("before the grant: %d", res.StatusCode)
	}
	if host.Get("/events").Doc(t).Find(testID("new-event")).Length() != 0 {
		t.Error("the listing offers a member to create events")
	}
	if _, err := a.Accounts.SetRole(t.Context(), key, account.RoleOrganizer, true); err != nil {
		t.Fatal(err)
	}
	if res := host.Get("/events/new"); res.StatusCode != http.StatusOK {
		t.Fatalf("after the grant: %d", res.StatusCode)
	}
	if host.Get("/events").Doc(t).Find(testID("new-event")).Length() != 1 {
		t.Error("the listing does not offer an organizer to create events")
	}
	res := post(host, "/events", url.Values{"title": {"Book club"}, "category": {"meetup"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T22:00"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an organizer creates an event: %d", res.StatusCode)
	}
	// Another organizer runs their own events, not this one: its draft is
	// hidden from them as from anyone, and once it is published they read
	// it as anyone does, without its attendees, emails or check-in. An
	// admin runs every event.
	page := res.Header.Get("Location")
	rival := a.Client()
	rivalKey := a.SignIn(rival, "rival@example.com")
	if _, err := a.Accounts.SetRole(t.Context(), rivalKey, account.RoleOrganizer, true); err != nil {
		t.Fatal(err)
	}
	admin := a.Client()
	a.SignIn(admin, "org@example.com")
	if res := rival.Get(page); res.StatusCode != http.StatusNotFound {
		t.Fatalf("another organizer opens the draft: %d", res.StatusCode)
	}
	if res := post(rival, page+"/publish", nil); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Fatalf("another organizer publishes the draft: %d", res.StatusCode)
	}
	if res := admin.Get(page); res.StatusCode != http.StatusOK {
		t.Fatalf("an admin opens the draft: %d", res.StatusCode)
	}
	// Each organizer finds their own events, drafts too, on one page (one
	// query), reached from the listing.
	if href := host.Get("/events").Doc(t).Find(testID("organizing-link")).AttrOr("href", ""); href != "/events/organizing" {
		t.Fatalf("the listing's link to the events one runs: %q", href)
	}
	mine := host.Get("/events/organizing")
	if cards := mine.Doc(t).Find(testID("event-card")); cards.Length() != 1 || !strings.Contains(cards.Text(), "Book club") || cards.Find(testID("draft-badge")).Length() != 1 || mine.StorageOps(t)["queries"] > 2 {
		t.Fatalf("the host's events: %q, %s", cards.Text(), mine.Header.Get("X-Storage-Ops"))
	}
	if d := rival.Get("/events/organizing").Doc(t); d.Find(testID("event-card")).Length() != 0 || d.Find(testID("organizing-empty")).Length() != 1 {
		t.Fatal("another organizer's page lists the host's event")
	}
	if res := a.Client().Get("/events/organizing"); res.StatusCode == http.StatusOK {
		t.Fatal("a visitor reads an organizer's page")
	}
	post(host, page+"/publish", nil)
	for _, path := range []string{page + "/edit", page + "/check-in", page + "/attendees.csv"} {
		if res := rival.Get(path); res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "Only the event") {
			t.Errorf("another organizer: GET %s: %d", path, res.StatusCode)
		}
		if res := admin.Get(path); res.StatusCode != http.StatusOK {
			t.Errorf("an admin: GET %s: %d", path, res.StatusCode)
		}
	}
	for _, path := range []string{page + "/edit", page + "/unpublish", page + "/cancel-event"} {
		if res := post(rival, path, url.Values{"title": {"Mine now"}, "confirm": {"yes"}}); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
			t.Errorf("another organizer: POST %s: %d", path, res.StatusCode)
		}
	}
	if d := rival.Get(page).Doc(t); d.Find(`a[href$="/edit"]`).Length() != 0 || d.Find(`a[href$="/check-in"]`).Length() != 0 {
		t.Error("another organizer is offered to run the event")
	}
	if d := host.Get(page).Doc(t); d.Find(`a[href$="/edit"]`).Length() == 0 {
		t.Error("the event's organizer is not offered to edit it")
	}
	if _, err := a.Accounts.SetRole(t.Context(), key, account.RoleOrganizer, false); err != nil {
		t.Fatal(err)
	}
	if res := host.Get("/events/new"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("after the revoke: %d", res.StatusCode)
	}
}

// withCoHost is an app with two organizers, host@ and co@ (signed in
// as host and co), and a member without the role.
func withCoHost(t *testing.T) (a *accounttest.App, host, co, member *webtest.Client) {
	t.Helper()
	a = newApp(t)
	host, co, member = a.Client(), a.Client(), a.Client()
	a.SignIn(member, "member@example.com")
	for _, c := range []struct {
		cl    *webtest.Client
		email string
	}{{host, "host@example.com"}, {co, "co@example.com"}} {
		key := a.SignIn(c.cl, c.email)
		if _, err := a.Accounts.SetRole(t.Context(), key, account.RoleOrganizer, true); err != nil {
			t.Fatal(err)
		}
	}
	return a, host, co, member
}

// TestCoOrganizers: the maker of an event names other organizers on its
// form; they run it as the maker does and find it on their "Events you
// run", until the maker takes them off. An address that is not an
// organizer's, or too many, is the field's error and writes nothing.
func TestCoOrganizers(t *testing.T) {
	t.Parallel()
	a, host, co, _ := withCoHost(t)
	form := url.Values{"title": {"Book swap"}, "category": {"meetup"}, "start": {"2030-06-01T18:00"}, "end": {"2030-06-01T20:00"}}
	for _, bad := range []string{"member@example.com", "nobody@example.com", "not an address", "a@x.example b@x.example c@x.example d@x.example e@x.example f@x.example"} {
		form.Set("coHosts", bad)
		res := post(host, "/events", form)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find("#event-coHosts-error").Length() != 1 || res.Writes(t) != 0 {
			t.Errorf("co-organizers %q: %d", bad, res.StatusCode)
		}
	}
	// A bad co-organizer and a bad title are told at once, not in turn.
	bad := url.Values{"title": {""}, "category": {"meetup"}, "start": {"2030-06-01T18:00"}, "end": {"2030-06-01T20:00"}, "coHosts": {"nobody@example.com"}}
	if doc := post(host, "/events", bad).Doc(t); doc.Find("#event-coHosts-error").Length() != 1 || doc.Find("#event-title-error").Length() != 1 {
		t.Errorf("a bad title with a bad co-organizer shows %d errors", doc.Find(`[data-testid="field-error"]`).Length())
	}
	form.Set("coHosts", "Co@Example.com, host@example.com")
	res := post(host, "/events", form)
	page := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an event with a co-organizer: %d", res.StatusCode)
	}
	// The co-organizer is told, once, and the maker is not.
	if items := a.Inbox(co); items.Length() != 1 || !strings.Contains(items.Text(), "co-organizer of “Book swap”") {
		t.Fatalf("the co-organizer's inbox: %q", items.Text())
	}
	if n := a.Inbox(host).Length(); n != 0 {
		t.Fatalf("the maker has %d notices", n)
	}
	// The co-organizer sees the draft, edits it, and has it on their page.
	if res := co.Get(page + "/edit"); res.StatusCode != http.StatusOK || res.Doc(t).Find("#event-coHosts").AttrOr("value", "") != "co@example.com" {
		t.Fatalf("the co-organizer's edit form: %d", res.StatusCode)
	}
	if res := post(co, page+"/publish", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the co-organizer publishes: %d", res.StatusCode)
	}
	if cards := co.Get("/events/organizing").Doc(t).Find(testID("event-card")); cards.Length() != 1 || !strings.Contains(cards.Text(), "Book swap") {
		t.Fatalf("the co-organizer's events: %q", cards.Text())
	}
	if res := co.Get(page + "/attendees.csv"); res.StatusCode != http.StatusOK {
		t.Fatalf("the co-organizer's attendee list: %d", res.StatusCode)
	}
	if n := a.Inbox(co).Length(); n != 1 {
		t.Fatalf("the co-organizer has %d notices after their own edits", n)
	}
	// The maker takes them off: they read the event as anyone does.
	form.Set("coHosts", "")
	if res := post(host, page+"/edit", form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the maker removes the co-organizer: %d", res.StatusCode)
	}
	if res := co.Get(page + "/edit"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a former co-organizer's edit form: %d", res.StatusCode)
	}
	if co.Get("/events/organizing").Doc(t).Find(testID("event-card")).Length() != 0 {
		t.Fatal("the event stays on a former co-organizer's page")
	}
}

// TestACoOrganizerStepsDown: a co-organizer steps down from the event's
// page (asked first), stops running it, and its maker is told who left;
// the maker, someone else, a second click and a missing event are
// refused and change nothing. A draft's co-organizer lands on their
// events, the draft now closed to them.
func TestACoOrganizerStepsDown(t *testing.T) {
	t.Parallel()
	a, host, co, member := withCoHost(t)
	form := url.Values{"title": {"Book swap"}, "category": {"meetup"}, "start": {"2030-06-01T18:00"}, "end": {"2030-06-01T20:00"}, "coHosts": {"co@example.com"}}
	page := post(host, "/events", form).Header.Get("Location")
	post(host, page+"/publish", nil)
	form.Set("title", "Draft swap")
	draft := post(host, "/events", form).Header.Get("Location")
	if page == "" || draft == "" {
		t.Fatal("no events")
	}
	button := testID("event-step-down")
	if co.Get(page).Doc(t).Find(button).Length() != 1 {
		t.Fatal("the co-organizer has no step down")
	}
	// The page names who runs it, the maker first, to anyone.
	hosts := func() []string {
		return a.Client().Get(page).Doc(t).Find(testID("event-host") + " bdi").Map(func(_ int, s *goquery.Selection) string { return s.Text() })
	}
	if got := hosts(); !slices.Equal(got, []string{"host", "co"}) {
		t.Errorf("hosted by %q", got)
	}
	for who, cl := range map[string]*webtest.Client{"the maker": host, "a member": member} {
		if cl.Get(page).Doc(t).Find(button).Length() != 0 {
			t.Errorf("%s is offered a step down", who)
		}
		if res := post(cl, page+"/step-down", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
			t.Errorf("%s steps down: %d, %d writes", who, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(co, "/events/01ZZZZZZZZZZZZZZZZZZZZZZZZ/step-down", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
		t.Errorf("a step down from no event: %d", res.StatusCode)
	}
	// Without JavaScript the button asks first, and asking writes nothing.
	if res := post(co, page+"/step-down", nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 || res.Writes(t) != 0 {
		t.Fatalf("the step down's question: %d", res.StatusCode)
	}
	res := post(co, page+"/step-down", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Fatalf("the step down: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if !strings.Contains(co.Get(page).Doc(t).Find(testID("flash")).Text(), "You stepped down") {
		t.Error("no flash after the step down")
	}
	if res := co.Get(page + "/edit"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a co-organizer who stepped down edits: %d", res.StatusCode)
	}
	if got := hosts(); !slices.Equal(got, []string{"host"}) {
		t.Errorf("hosted by %q after the step down", got)
	}
	if cards := co.Get("/events/organizing").Doc(t).Find(testID("event-card")); cards.Length() != 1 || strings.Contains(cards.Text(), "Book swap") {
		t.Errorf("the events they run after stepping down: %q", cards.Text())
	}
	if v := host.Get(page+"/edit").Doc(t).Find("#event-coHosts").AttrOr("value", "?"); v != "" {
		t.Errorf("the maker's form still names %q", v)
	}
	if items := a.Inbox(host); items.Length() != 1 || !strings.Contains(items.Text(), "stepped down as a co-organizer of “Book swap”") {
		t.Errorf("the maker's inbox: %q", items.Text())
	}
	if res := post(co, page+"/step-down", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("a second step down: %d", res.StatusCode)
	}
	// A draft closes to them once they step down.
	res = post(co, draft+"/step-down", url.Values{"confirm": {"yes"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/events/mine" {
		t.Fatalf("the draft's step down: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res := co.Get(draft); res.StatusCode != http.StatusNotFound {
		t.Errorf("the draft after the step down: %d", res.StatusCode)
	}
	// The question in Russian.
	if res := co.PostForm(page+"/step-down", co.WithCSRF("/", url.Values{}), "Accept-Language", "ru"); !strings.Contains(res.Doc(t).Find(testID("confirm-page")).Text(), "Перестать быть соорганизатором") {
		t.Error("the question is not in Russian")
	}
}

// TestOrganizerPagesTheirEvents: an organizer's events come 20 a page,
// newest start first, each page's link leading to the next; a cursor
// from another listing is refused.
func TestOrganizerPagesTheirEvents(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org := a.Client()
	a.SignIn(org, "org@example.com")
	for i := range 23 {
		day := fmt.Sprintf("2030-07-%02dT19:00", i+1)
		if res := post(org, "/events", url.Values{"title": {fmt.Sprint("Talk ", i+1)}, "category": {"meetup"}, "start": {day}, "end": {strings.Replace(day, "T19", "T21", 1)}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("event %d: %d", i, res.StatusCode)
		}
	}
	var got []string
	next := "/events/organizing"
	for pages := 0; next != "" && pages < 5; pages++ {
		d := org.Get(next).Doc(t)
		d.Find(testID("event-card") + " .row-title a").Each(func(_ int, s *goquery.Selection) { got = append(got, s.Text()) })
		next = d.Find(testID("load-more")).AttrOr("href", "")
	}
	if len(got) != 23 || got[0] != "Talk 23" || got[22] != "Talk 1" {
		t.Fatalf("the organizer's events, page by page: %v", got)
	}
	if res := org.Get("/events/organizing?cursor=" + url.QueryEscape(a.Cursors.Encode("events/list|false|", storage.Cursor{}))); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a cursor of the listing: %d", res.StatusCode)
	}
}

// TestTicketsAndCheckIn: a person going has a ticket whose QR code
// opens the organizer's check-in on them; the organizer marks them
// attended (and can undo it), searches the list, and downloads the
// attendees as CSV. Nobody else sees a ticket or the check-in, and bad
// input changes nothing.
func TestTicketsAndCheckIn(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann, bob, cat := a.Client(), a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	annKey := a.SignIn(ann, "ann@example.com")
	bobKey := a.SignIn(bob, "bob@example.com")
	a.SignIn(cat, "cat@example.com")
	page := post(org, "/events", url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T22:00"}, "capacity": {"1"}}).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil) // waitlisted

	ticket := ann.Get(page + "/ticket")
	doc := ticket.Doc(t)
	code := doc.Find(testID("ticket-code")).Text()
	if ticket.StatusCode != http.StatusOK || len(code) != 16 || doc.Find(testID("ticket-qr")+" path").Length() != 1 {
		t.Fatalf("ann's ticket: %d code %q", ticket.StatusCode, code)
	}
	if ann.Get(page).Doc(t).Find(testID("ticket-link")).Length() != 1 {
		t.Error("the event page does not link ann's ticket")
	}
	if res := bob.Get(page + "/ticket"); res.StatusCode != http.StatusNotFound {
		t.Errorf("a waitlisted person's ticket: %d", res.StatusCode)
	}
	for _, c := range []*webtest.Client{ann, bob} {
		if res := c.Get(page + "/check-in"); res.StatusCode != http.StatusForbidden {
			t.Errorf("a member opens the check-in: %d", res.StatusCode)
		}
		if res := c.Get(page + "/attendees.csv"); res.StatusCode != http.StatusForbidden {
			t.Errorf("a member downloads the attendees: %d", res.StatusCode)
		}
	}

	// The scanned code (any case) opens the check-in on ann.
	scan := org.Get(page + "/check-in?ticket=" + strings.ToLower(code)).Doc(t)
	found := scan.Find(testID("checkin-found") + " " + testID("attendee"))
	if found.AttrOr("data-ticket", "") != code || !strings.Contains(found.Text(), "ann") {
		t.Fatalf("the scanned ticket shows %q", found.Text())
	}
	for _, bad := range []string{"AAAAAAAAAAAAAAAA", "nope", "%00"} {
		if d := org.Get(page + "/check-in?ticket=" + url.QueryEscape(bad)).Doc(t); d.Find(testID("checkin-problem")).Length() != 1 || d.Find(testID("checkin-found")).Length() != 0 {
			t.Errorf("ticket %q is not refused", bad)
		}
	}
	mark := func(member, attended string) *webtest.Response {
		return post(org, page+"/check-in/"+url.PathEscape(member), url.Values{"attended": {attended}})
	}
	if res := mark(annKey, "maybe"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("attended=maybe: %d", res.StatusCode)
	}
	if res := mark(bobKey, "true"); res.StatusCode != http.StatusNotFound {
		t.Errorf("checking in someone waitlisted: %d", res.StatusCode)
	}
	if res := mark(annKey, "true"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("check in: %d", res.StatusCode)
	}
	list := org.Get(page + "/check-in").Doc(t)
	if list.Find(testID("attended-badge")).Length() != 1 || !strings.Contains(list.Find(testID("checkin-count")).Text(), "1 of 1") {
		t.Fatalf("after the check-in: %q", list.Find(testID("checkin-count")).Text())
	}
	if ann.Get(page+"/ticket").Doc(t).Find(testID("ticket-attended")).Length() != 1 {
		t.Error("ann's ticket does not say she is checked in")
	}
	if n := org.Get(page + "/check-in?q=zzz").Doc(t).Find(testID("attendee")).Length(); n != 0 {
		t.Errorf("a search for nobody lists %d", n)
	}
	if n := org.Get(page + "/check-in?q=ANN").Doc(t).Find(testID("attendee")).Length(); n != 1 {
		t.Errorf("a search for ann lists %d", n)
	}
	if res := org.Get(page + "/check-in?q=" + strings.Repeat("x", 101)); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a long search: %d", res.StatusCode)
	}

	res := org.Get(page + "/attendees.csv")
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.Body, "\ufeff"))).ReadAll()
	if err != nil || res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %v", res.StatusCode, err)
	}
	if len(rows) != 3 || rows[1][1] != "ann@example.com" || rows[1][2] != "going" || rows[1][6] != "true" || rows[2][2] != "waitlist" {
		t.Fatalf("csv rows: %q", rows)
	}
	if res := mark(annKey, "false"); res.StatusCode != http.StatusSeeOther || org.Get(page+"/check-in").Doc(t).Find(testID("attended-badge")).Length() != 0 {
		t.Error("undoing the check-in")
	}
}

// TestRegistrationLimit: past REGISTRATIONS_PER_MINUTE a registration
// is refused with 429 and changes nothing; the next minute it goes
// through.
func TestRegistrationLimit(t *testing.T) {
	t.Parallel()
	a := newApp(t, "REGISTRATIONS_PER_MINUTE", "2")
	org, ann := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	var pages []string
	for _, title := range []string{"One", "Two", "Three"} {
		page := post(org, "/events", url.Values{"title": {title + " night"}, "category": {"party"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T22:00"}}).Header.Get("Location")
		post(org, page+"/publish", nil)
		pages = append(pages, page)
	}
	for _, page := range pages[:2] {
		if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("register: %d", res.StatusCode)
		}
	}
	res := post(ann, pages[2]+"/register", nil)
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 {
		t.Fatalf("third registration in a minute: %d %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	if ann.Get(pages[2]).Doc(t).Find(testID("registration-state")).Length() != 0 {
		t.Fatal("the refused registration registered")
	}
	a.Clock.Advance(time.Minute)
	if res := post(ann, pages[2]+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a minute later: %d", res.StatusCode)
	}
}

// TestReminderADayBefore: a day before the start everyone going is told
// once, with the confirmed-only details; the waitlist is not, and no
// mail to them carries the details. A change of time moves the
// reminder: the old one does nothing.
func TestReminderADayBefore(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]
	form := url.Values{"title": {"Boat trip"}, "category": {"yachting"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T16:00"},
		"capacity": {"1"}, "place": {"Marina"}, "confirmedOnly": {"Pier 7, berth 12"}}
	page := post(org, "/events", form).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	// Each look signs in afresh: two weeks on, the sessions have ended.
	reminders := func(email string) int {
		c := a.Client()
		a.SignIn(c, email)
		return strings.Count(c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "Tomorrow")
	}
	a.Tasks.RunDue(t.Context())
	if reminders("ann@example.com") != 0 {
		t.Fatal("reminded two weeks early")
	}
	// The organizer moves it a day later: the reminder moves too.
	form.Set("start", "2030-06-02T10:00")
	form.Set("end", "2030-06-02T16:00")
	post(org, page+"/edit", form)
	a.Clock.Advance(time.Date(2030, 5, 31, 10, 1, 0, 0, time.UTC).Sub(a.Clock.Now()))
	a.Tasks.RunDue(t.Context())
	if reminders("ann@example.com") != 0 {
		t.Fatal("the reminder of the old time went out")
	}
	a.Clock.Advance(time.Date(2030, 6, 1, 10, 1, 0, 0, time.UTC).Sub(a.Clock.Now()))
	a.Tasks.RunDue(t.Context())
	a.Tasks.RunDue(t.Context())
	if n := reminders("ann@example.com"); n != 1 {
		t.Fatalf("ann has %d reminders", n)
	}
	if reminders("bob@example.com") != 0 {
		t.Fatal("the waitlisted bob is reminded")
	}
	annGot := false
	for _, m := range a.Mail() {
		if m.To == "bob@example.com" && strings.Contains(m.Text, "berth 12") {
			t.Errorf("a mail to bob carries the confirmed-only details: %q", m.Subject)
		}
		if m.To == "ann@example.com" && strings.HasPrefix(m.Subject, "Tomorrow") {
			annGot = strings.Contains(m.Text, "berth 12") && strings.Contains(m.Text, page+"/ticket")
		}
	}
	if !annGot {
		t.Error("ann's reminder mail lacks the details or her ticket")
	}
}

// TestRebuildQueuesALostReminder: an event whose reminder was never
// queued (the queue refused it, and publishing stood) gets it back from
// the events rebuild, and the person going hears once, even with the
// rebuild run twice and the original reminder still queued for another
// event.
func TestRebuildQueuesALostReminder(t *testing.T) {
	t.Parallel()
	a, svc := newAppAndService(t)
	cast := a.People("org@example.com", "ann@example.com")
	org, ann := cast[0], cast[1]
	form := url.Values{"title": {"Harbour walk"}, "category": {"meetup"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T12:00"}}
	lost := post(org, "/events", form).Header.Get("Location")
	post(org, lost+"/publish", nil)
	post(ann, lost+"/register", nil)
	form.Set("title", "Lighthouse tour")
	kept := post(org, "/events", form).Header.Get("Location")
	post(org, kept+"/publish", nil)
	post(ann, kept+"/register", nil)

	// The first event's reminder is lost: its task and its key go.
	queue := a.Store.Table(tasks.Table)
	var gone int
	err := queue.QueryAll(t.Context(), storage.Query{PartitionKey: "q"}, func(e storage.Entity) error {
		// Its task row names it in "key", its key row in the row key
		// (escaped).
		if key, _ := e.Props["key"].(string); strings.Contains(e.RowKey+key, strings.TrimPrefix(lost, "/events/")) && strings.Contains(e.RowKey+key, "events.remind") {
			gone++
			return queue.Delete(t.Context(), e.PartitionKey, e.RowKey, storage.AnyETag)
		}
		return nil
	})
	if err != nil || gone != 2 {
		t.Fatalf("removing the lost reminder: %d rows, %v", gone, err)
	}

	for range 2 {
		report, err := svc.Rebuild(t.Context())
		if err != nil || !strings.Contains(report.String(), "; reminders queued: 2; rating asks queued: 2; offer lapses queued: 0;") {
			t.Fatalf("rebuild: %v %v", report, err)
		}
	}
	a.Clock.Advance(time.Date(2030, 5, 31, 10, 1, 0, 0, time.UTC).Sub(a.Clock.Now()))
	a.Tasks.RunDue(t.Context())
	a.Tasks.RunDue(t.Context())
	c := a.Client()
	a.SignIn(c, "ann@example.com")
	inbox := c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text()
	for _, title := range []string{"Harbour walk", "Lighthouse tour"} {
		if n := strings.Count(inbox, "Tomorrow: “"+title); n != 1 {
			t.Errorf("ann has %d reminders of %s: %q", n, title, inbox)
		}
	}
}

// TestRebuildQueuesLostOfferLapses: two seats offered whose lapse tasks
// were lost (the queue refused them; the offers stood). When the
// rebuild runs, one offer has lapsed already and is settled at once; the
// other's lapse is queued again and settles it at its time. Nobody has
// to open the events' pages.
func TestRebuildQueuesLostOfferLapses(t *testing.T) {
	t.Parallel()
	a, svc := newAppAndService(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]
	offerToBob := func(title string) string {
		form := url.Values{"title": {title}, "category": {"yachting"}, "start": {"2030-05-20T10:00"}, "end": {"2030-05-20T16:00"},
			"capacity": {"1"}, "offerHours": {"2"}, "offerStopHours": {"24"}}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		post(ann, page+"/register", nil)
		post(bob, page+"/register", nil)
		post(ann, page+"/cancel", url.Values{"confirm": {"yes"}})
		return strings.TrimPrefix(page, "/events/")
	}
	bobLapsed := func(eventID string) bool {
		rows, _ := storage.All[events.AttendeeRow](t.Context(), a.Store.Table(events.AttendeesTable), storage.Query{PartitionKey: eventID, RowKeyPrefix: "m|"})
		for _, r := range rows {
			if r.OfferLapsed && r.Status == events.StatusCancelled {
				return true
			}
		}
		return false
	}
	early := offerToBob("Sailing day")
	a.Clock.Advance(90 * time.Minute)
	late := offerToBob("Rowing day")

	// Both lapse tasks are lost: their rows and keys go.
	queue := a.Store.Table(tasks.Table)
	gone := 0
	err := queue.QueryAll(t.Context(), storage.Query{PartitionKey: "q"}, func(e storage.Entity) error {
		if key, _ := e.Props["key"].(string); strings.Contains(e.RowKey+key, "lapse") {
			gone++
			return queue.Delete(t.Context(), e.PartitionKey, e.RowKey, storage.AnyETag)
		}
		return nil
	})
	if err != nil || gone != 4 {
		t.Fatalf("removing the lapse tasks: %d rows, %v", gone, err)
	}

	a.Clock.Advance(31 * time.Minute) // the early offer has lapsed, the late one not
	report, err := svc.Rebuild(t.Context())
	if err != nil || !strings.Contains(report.String(), "; offer lapses queued: 1;") {
		t.Fatalf("rebuild: %v %v", report, err)
	}
	if !bobLapsed(early) || bobLapsed(late) {
		t.Fatalf("after the rebuild: early lapsed %v, late lapsed %v; want true, false", bobLapsed(early), bobLapsed(late))
	}
	a.Clock.Advance(90 * time.Minute)
	a.Tasks.RunDue(t.Context())
	if !bobLapsed(late) {
		t.Fatal("the late offer did not lapse at its time")
	}
}

// TestOfferMode: in offer mode the freed seat is offered to the head of
// the waitlist, who sees until when and takes it; when an offer lapses
// the queued task settles it with nobody reading, and the person is
// told. An offer hold the form does not offer is refused.
func TestOfferMode(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]
	form := url.Values{"title": {"Sailing day"}, "category": {"yachting"}, "start": {"2030-05-20T10:00"}, "end": {"2030-05-20T16:00"},
		"capacity": {"1"}, "offerHours": {"5"}, "offerStopHours": {"24"}}
	if res := post(org, "/events", form); res.StatusCode != http.StatusUnprocessableEntity || res.StorageOps(t)["writes"] != 0 {
		t.Fatalf("a 5-hour hold: %d", res.StatusCode)
	}
	form.Set("offerHours", "2")
	page := post(org, "/events", form).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	post(ann, page+"/cancel", url.Values{"confirm": {"yes"}})
	doc := bob.Get(page).Doc(t)
	if st := doc.Find(testID("registration-state")); st.AttrOr("data-state", "") != "offered" || !strings.Contains(st.Text(), "Fri 17 May 2030, 11:30") {
		t.Fatalf("bob's offer: %q", st.Text())
	}
	a.Tasks.RunDue(t.Context())
	if !strings.Contains(bob.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "is yours if you take it by") {
		t.Fatal("bob is not told of the offer")
	}
	if res := post(ann, page+"/accept", nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("ann takes a seat not offered to her: %d", res.StatusCode)
	}
	if res := post(bob, page+"/accept", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob takes the seat: %d", res.StatusCode)
	}
	if st := bob.Get(page).Doc(t).Find(testID("registration-state")).AttrOr("data-state", ""); st != "going" {
		t.Fatalf("bob after taking it: %q", st)
	}
	// Now ann waits, bob gives the seat up, and ann lets the offer lapse.
	post(ann, page+"/register", nil)
	post(bob, page+"/cancel", url.Values{"confirm": {"yes"}})
	if st := ann.Get(page).Doc(t).Find(testID("registration-state")).AttrOr("data-state", ""); st != "offered" {
		t.Fatalf("ann: %q", st)
	}
	a.Clock.Advance(2*time.Hour + 2*time.Second)
	a.Tasks.RunDue(t.Context()) // the lapse task settles the offer
	a.Tasks.RunDue(t.Context()) // and the inbox posts the notice
	rows, _ := storage.All[events.AttendeeRow](t.Context(), a.Store.Table(events.AttendeesTable), storage.Query{PartitionKey: strings.TrimPrefix(page, "/events/"), RowKeyPrefix: "m|"})
	lapsed := 0
	for _, r := range rows {
		if r.OfferLapsed && r.Status == events.StatusCancelled {
			lapsed++
		}
	}
	if lapsed != 1 {
		t.Fatalf("%d lapsed registrations after the task ran", lapsed)
	}
	if !strings.Contains(ann.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "lapsed") {
		t.Fatal("ann is not told her offer lapsed")
	}
	if res := post(ann, page+"/accept", nil); res.StatusCode != http.StatusConflict {
		t.Fatalf("ann takes the lapsed seat: %d", res.StatusCode)
	}
	if ann.Get(page).Doc(t).Find(testID("registration-was")).AttrOr("data-was", "") != "lapsed" {
		t.Error("ann's page does not say her offer lapsed")
	}
}

// TestEventPicture: an organizer uploads a picture with the event form;
// the page and the card show it, served from the event's own URL and
// cacheable; a bad file is a 422 field error and writes nothing; a new
// picture replaces the old one, whose blobs are deleted, and removing
// it removes them.
func TestEventPicture(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org := a.Client()
	a.SignIn(org, "org@example.com")
	form := url.Values{"title": {"Film night"}, "category": {"festival"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T23:00"}}
	blobs := func() int {
		infos, err := a.Store.Container(events.ImagesContainer).List(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		return len(infos)
	}
	for name, bad := range map[string][]byte{"text": []byte("not an image at all"), "header only": mediatest.PNGHeader(100, 100)} {
		res := org.PostFile("/events", org.WithCSRF("/", form), "image", "x.png", bad)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find("#event-image-error").Length() != 1 || res.Writes(t) != 0 || blobs() != 0 {
			t.Fatalf("%s: %d %s, %d blobs", name, res.StatusCode, res.Header.Get("X-Storage-Ops"), blobs())
		}
	}
	res := org.PostFile("/events", org.WithCSRF("/", form), "image", "poster.png", mediatest.EncodedPNG(t, 2000, 1000))
	page := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || blobs() != 2 {
		t.Fatalf("create with a picture: %d, %d blobs", res.StatusCode, blobs())
	}
	// Before the event is published, its picture is the organizer's
	// alone, and no shared cache keeps it.
	src := org.Get(page).Doc(t).Find(testID("event-image")).AttrOr("src", "")
	if img := org.Get(src); img.StatusCode != http.StatusOK || !strings.HasPrefix(img.Header.Get("Cache-Control"), "private,") {
		t.Fatalf("the draft's picture %q for its organizer: %d %q", src, img.StatusCode, img.Header.Get("Cache-Control"))
	}
	stranger := a.Client()
	a.SignIn(stranger, "stranger@example.com")
	for who, cl := range map[string]*webtest.Client{"a visitor": a.Client(), "a member": stranger} {
		if img := cl.Get(src); img.StatusCode != http.StatusNotFound {
			t.Fatalf("the draft's picture for %s: %d", who, img.StatusCode)
		}
	}
	post(org, page+"/publish", nil)
	img := stranger.Get(src)
	if !strings.HasPrefix(src, "/media/events/") || img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" ||
		img.Header.Get("Cache-Control") != "public, max-age=31536000, s-maxage=3600, immutable" {
		t.Fatalf("the picture %q: %d %s %q", src, img.StatusCode, img.Header.Get("Content-Type"), img.Header.Get("Cache-Control"))
	}
	if thumb := a.Client().Get("/events").Doc(t).Find(".event-thumb").AttrOr("src", ""); !strings.HasSuffix(thumb, "_s.jpg") {
		t.Fatalf("the card's picture %q", thumb)
	}
	for _, bad := range []string{"/media/events/x/y.jpg", strings.Replace(src, ".jpg", ".png", 1), src[:len(src)-6] + "../a.jpg"} {
		if res := org.Get(bad); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", bad, res.StatusCode)
		}
	}
	// A new picture replaces the old; then it is removed.
	edit := org.WithCSRF(page+"/edit", form)
	if res := org.PostFile(page+"/edit", edit, "image", "new.png", mediatest.EncodedPNG(t, 800, 600)); res.StatusCode != http.StatusSeeOther || blobs() != 2 {
		t.Fatalf("replace: %d, %d blobs", res.StatusCode, blobs())
	}
	if org.Get(src).StatusCode != http.StatusNotFound {
		t.Error("the old picture is still served")
	}
	edit.Set("removeImage", "on")
	if res := org.PostFile(page+"/edit", edit, "image", "", nil); res.StatusCode != http.StatusSeeOther || blobs() != 0 {
		t.Fatalf("remove: %d, %d blobs", res.StatusCode, blobs())
	}
	if org.Get(page).Doc(t).Find(testID("event-image")+"[src]").Length() != 0 {
		t.Error("the page still shows a picture")
	}
}

// TestMyCalendarFeed: a person's private feed lists what they are going
// to (with the confirmed-only details) and waiting for ("waitlisted
// #1", tentative, without them); replacing the link kills the old one,
// and so does a disabled account; a made-up token is a 404.
func TestMyCalendarFeed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob, anon := cast[0], cast[1], cast[2], a.Client()
	page := post(org, "/events", url.Values{"title": {"Wine tasting"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T22:00"},
		"capacity": {"1"}, "confirmedOnly": {"Cellar door B"}}).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	feedOf := func(c *webtest.Client) string {
		t.Helper()
		u := c.Get("/events/mine").Doc(t).Find(testID("calendar-url")).AttrOr("value", "")
		i := strings.Index(u, "/events/calendar/")
		if i < 0 {
			t.Fatalf("no feed URL: %q", u)
		}
		return u[i:]
	}
	if bob.Get("/events/mine").Doc(t).Find(testID("calendar-url")).Length() != 0 {
		t.Fatal("the feed is on before bob turned it on")
	}
	post(bob, "/events/mine/feed", nil)
	post(ann, "/events/mine/feed", nil)
	bobFeed := feedOf(bob)
	got := anon.Get(bobFeed)
	if got.StatusCode != http.StatusOK || !strings.Contains(got.Body, "SUMMARY:(waitlisted #1) Wine tasting") || !strings.Contains(got.Body, "STATUS:TENTATIVE") || strings.Contains(got.Body, "Cellar door") {
		t.Fatalf("bob's feed: %d\n%s", got.StatusCode, got.Body)
	}
	annFeed := feedOf(ann)
	if body := anon.Get(annFeed).Body; !strings.Contains(body, "SUMMARY:Wine tasting") || !strings.Contains(body, "Cellar door B") || !strings.Contains(body, "STATUS:CONFIRMED") {
		t.Fatalf("ann's feed:\n%s", body)
	}
	// A disabled account's feed stops with its sessions, and comes back
	// with the account.
	annKey := a.Who(ann)
	for _, on := range []bool{false, true} {
		if _, err := a.Accounts.SetEnabled(t.Context(), annKey, on); err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: http.StatusNotFound, true: http.StatusOK}[on]
		if res := anon.Get(annFeed); res.StatusCode != want || !on && strings.Contains(res.Body, "Cellar door") {
			t.Errorf("ann's feed, her account enabled %v: %d", on, res.StatusCode)
		}
	}
	post(bob, "/events/mine/feed", nil)
	if res := anon.Get(bobFeed); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the replaced link: %d", res.StatusCode)
	}
	if res := anon.Get(feedOf(bob)); res.StatusCode != http.StatusOK {
		t.Fatalf("the new link: %d", res.StatusCode)
	}
	for _, bad := range []string{"/events/calendar/x.ics", "/events/calendar/" + strings.Repeat("0", 32) + ".ics", "/events/calendar/" + strings.Repeat("z", 32) + ".ics", "/events/calendar/abc"} {
		if res := anon.Get(bad); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", bad, res.StatusCode)
		}
	}
}

// TestAddToGroupCalendar: a person adds an event to one of their
// groups with who goes; it becomes an appointment there with that
// person picking up, linked back to the event; adding it again opens the
// same appointment; a group that is not theirs, or no choice, is a 422
// that writes nothing.
func TestAddToGroupCalendar(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann, bob := a.Client(), a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	annKey := a.SignIn(ann, "ann@example.com")
	a.SignIn(bob, "bob@example.com")
	page := post(org, "/events", url.Values{"title": {"School concert"}, "category": {"concert"}, "start": {"2030-06-05T18:00"}, "end": {"2030-06-05T20:00"}, "place": {"Town hall"}}).Header.Get("Location")
	post(org, page+"/publish", nil)
	if ann.Get(page+"/add-to-group").Doc(t).Find(testID("togroup-none")).Length() != 1 {
		t.Fatal("someone without groups is not told to make one")
	}
	home := post(ann, "/groups", url.Values{"name": {"The Smiths"}}).Header.Get("Location")
	groupID := strings.Split(home, "/")[2]
	theirs := strings.Split(post(bob, "/groups", url.Values{"name": {"Bob's club"}}).Header.Get("Location"), "/")[2]
	if ann.Get(page).Doc(t).Find(testID("event-add-to-group")).Length() != 1 {
		t.Fatal("the event page does not offer adding it to a group")
	}
	form := ann.Get(page + "/add-to-group").Doc(t)
	if form.Find(`option[value="`+groupID+`|`+annKey+`"]`).Length() != 1 {
		t.Fatalf("the form does not offer ann in her group: %s", form.Find("select").Text())
	}
	for _, bad := range []string{"", "nope", theirs + "|", "01ZZZZZZZZZZZZZZZZZZZZZZZZ|"} {
		res := post(ann, page+"/add-to-group", url.Values{"choice": {bad}})
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("choice %q: %d %s", bad, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	res := post(ann, page+"/add-to-group", url.Values{"choice": {groupID + "|" + annKey}})
	appt := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(appt, "/groups/"+groupID+"/appointments/") {
		t.Fatalf("add: %d %s", res.StatusCode, appt)
	}
	doc := ann.Get(appt).Doc(t)
	if doc.Find(testID("appointment-source")).AttrOr("href", "") != page || !strings.Contains(doc.Find(testID("appointment-location")).Text(), "Town hall") {
		t.Fatalf("the appointment does not link the event: %q", doc.Find(testID("appointment-source")).AttrOr("href", ""))
	}
	if doc.Find(testID("participant")+`[data-responsible="true"]`).Length() != 1 {
		t.Error("ann does not pick it up")
	}
	if again := post(ann, page+"/add-to-group", url.Values{"choice": {groupID + "|"}}); again.Header.Get("Location") != appt {
		t.Fatalf("adding it again: %s, want %s", again.Header.Get("Location"), appt)
	}
}

// TestMonthView: the month view puts each listed event on its day, in
// one query, filters by category, moves between months, and refuses a
// month that is not one.
func TestMonthView(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, anon := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	for _, e := range [][3]string{{"Jazz in June", "concert", "2030-06-12T20:00"}, {"June meetup", "meetup", "2030-06-20T18:00"}, {"July party", "party", "2030-07-02T21:00"}} {
		page := post(org, "/events", url.Values{"title": {e[0]}, "category": {e[1]}, "start": {e[2]}, "end": {e[2][:11] + "23:00"}}).Header.Get("Location")
		post(org, page+"/publish", nil)
	}
	res := anon.Get("/events?view=month&month=2030-06")
	doc := res.Doc(t)
	if q := res.StorageOps(t)["queries"]; q != 1 {
		t.Errorf("the month view made %d queries", q)
	}
	if got := doc.Find(testID("month-day") + `[data-date="2030-06-12"] ` + testID("month-event")).Text(); !strings.Contains(got, "20:00") || !strings.Contains(got, "Jazz in June") {
		t.Fatalf("12 June shows %q", got)
	}
	if n := doc.Find(testID("month-event")).Length(); n != 2 {
		t.Fatalf("June shows %d events", n)
	}
	if caption := doc.Find(testID("calendar-caption")).Text(); caption != "June 2030" {
		t.Errorf("caption %q", caption)
	}
	if next := doc.Find(testID("calendar-next")).AttrOr("href", ""); !strings.Contains(anon.Get(next).Doc(t).Find(testID("month-event")).Text(), "July party") {
		t.Errorf("the next month (%s) lacks the July party", next)
	}
	if n := anon.Get("/events?view=month&month=2030-06&category=meetup").Doc(t).Find(testID("month-event")).Length(); n != 1 {
		t.Errorf("June's meetups: %d", n)
	}
	for _, bad := range []string{"2030-13", "June", "0001-01", "2030-06-01"} {
		if res := anon.Get("/events?view=month&month=" + bad); res.StatusCode != http.StatusBadRequest {
			t.Errorf("month %q: %d", bad, res.StatusCode)
		}
	}
}

// TestAdminCategories: admins add a category beside the built-in ones,
// organizers file events under it and people filter by it; retired, it
// leaves the choices while its events keep it. Bad names and taken
// slugs are refused and write nothing; members cannot reach the page.
func TestAdminCategories(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	org, ann := a.Client(), a.Client()
	a.SignIn(org, "org@example.com")
	a.SignIn(ann, "ann@example.com")
	if res := ann.Get("/admin/event-categories"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member opens the categories: %d", res.StatusCode)
	}
	add := func(slug, english string) *webtest.Response {
		return post(org, "/admin/event-categories", url.Values{"slug": {slug}, "english": {english}, "russian": {"Морские прогулки"}})
	}
	for _, bad := range [][2]string{{"Boat Trips", "Boat trips"}, {"boat-trips", ""}, {"boat-trips", strings.Repeat("b", 41)}} {
		if res := add(bad[0], bad[1]); res.StatusCode != http.StatusUnprocessableEntity || res.StorageOps(t)["writes"] != 0 {
			t.Errorf("add %q: %d", bad, res.StatusCode)
		}
	}
	if res := add("concert", "Concerts again"); res.StatusCode != http.StatusConflict {
		t.Errorf("a built-in slug: %d", res.StatusCode)
	}
	if res := add("boat-trips", "Boat trips"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d", res.StatusCode)
	}
	if org.Get("/events/new").Doc(t).Find(`#event-category option[value="boat-trips"]`).Length() != 1 {
		t.Fatal("the form does not offer the new category")
	}
	page := post(org, "/events", url.Values{"title": {"Sunset cruise"}, "category": {"boat-trips"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T22:00"}}).Header.Get("Location")
	post(org, page+"/publish", nil)
	list := ann.Get("/events?category=boat-trips").Doc(t)
	if list.Find(testID("event-card")).Length() != 1 || !strings.Contains(list.Find(testID("event-card")).Text(), "Boat trips") {
		t.Fatalf("the category's listing: %q", list.Find(testID("event-list")).Text())
	}
	// A refused rename: 422, nothing written, the category's form open
	// with the reason and what was typed.
	res := post(org, "/admin/event-categories/boat-trips", url.Values{"english": {""}, "russian": {"Прогулки"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.StorageOps(t)["writes"] != 0 {
		t.Fatalf("rename to nothing: %d", res.StatusCode)
	}
	row := res.Doc(t).Find(`[data-slug="boat-trips"]`)
	if row.Find("details[open]").Length() != 1 || row.Find("#english-boat-trips-error").Length() != 1 ||
		row.Find("#russian-boat-trips").AttrOr("value", "") != "Прогулки" || row.Find(`input[name="active"]:checked`).Length() != 0 {
		t.Error("the refused rename's form is not open with its reason and what was typed")
	}
	if !strings.Contains(row.Find(".row-title").Text(), "Boat trips") {
		t.Errorf("the row's head: %q", row.Find(".row-title").Text())
	}
	if res := post(org, "/admin/event-categories/boat-trips", url.Values{"english": {"Boat trips"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("retire: %d", res.StatusCode)
	}
	if row := org.Get("/admin/event-categories").Doc(t).Find(`[data-slug="boat-trips"]`); !strings.Contains(row.Find(".badge-disabled").Text(), "Not offered") {
		t.Error("a retired category's row does not say it is not offered")
	}
	if ann.Get("/events").Doc(t).Find(testID("category-chip")+`[href*="boat-trips"]`).Length() != 0 {
		t.Error("a retired category is still a chip")
	}
	if org.Get("/events/new").Doc(t).Find(`#event-category option[value="boat-trips"]`).Length() != 0 {
		t.Error("the form still offers a retired category")
	}
	if !strings.Contains(ann.Get(page).Doc(t).Find(".eyebrow").Text(), "Boat trips") {
		t.Error("the event lost its category's name")
	}
	if res := post(org, "/admin/event-categories/nope", url.Values{"english": {"Nope"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("renaming a category nobody made: %d", res.StatusCode)
	}
}

func TestUnsafeEventRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	webtest.AssertUnsafeRoutesNeedCSRF(t, newApp(t).Echo)
}

// TestOrganizerEditsAndCancels: moving an event tells everyone
// registered and raises its SEQUENCE; a capacity below the seats taken
// is a field error that changes nothing; cancelling asks first, keeps
// the event listed, marked, and tells everyone.
func TestOrganizerEditsAndCancels(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]
	form := url.Values{"title": {"Quiz night"}, "category": {"meetup"}, "start": {"2030-06-01T19:00"}, "end": {"2030-06-01T21:00"}, "capacity": {"2"}, "place": {"The Crown"}}
	page := post(org, "/events", form).Header.Get("Location")
	post(org, page+"/publish", nil)
	post(ann, page+"/register", nil)
	post(bob, page+"/register", nil)
	if res := ann.Get(page + "/edit"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member edits: %d", res.StatusCode)
	}
	edit := org.Get(page + "/edit").Doc(t)
	if v := edit.Find(`input[name="title"]`).AttrOr("value", ""); v != "Quiz night" {
		t.Fatalf("edit form title %q", v)
	}
	moved := url.Values{}
	for k, v := range form {
		moved[k] = v
	}
	for _, bad := range []string{"0x", "1"} { // not a number; fewer than the two going
		moved.Set("capacity", bad)
		res := post(org, page+"/edit", moved)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(".field-error").Length() != 1 || res.Writes(t) != 0 {
			t.Fatalf("capacity %q: %d %s", bad, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	moved.Set("start", "2030-06-02T19:00")
	moved.Set("end", "2030-06-02T21:00")
	moved.Set("capacity", "2")
	if res := post(org, page+"/edit", moved); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("move: %d", res.StatusCode)
	}
	if ics := org.Get(page + "/event.ics").Body; !strings.Contains(ics, "SEQUENCE:1") || !strings.Contains(ics, "DTSTART:20300602T190000Z") {
		t.Fatalf("after the move:\n%s", ics)
	}
	a.Tasks.RunDue(t.Context())
	for _, c := range []*webtest.Client{ann, bob} {
		if !strings.Contains(c.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "“Quiz night” changed") {
			t.Fatal("a registered person is not told of the move")
		}
	}
	if res := post(org, page+"/cancel-event", nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 {
		t.Fatalf("cancel without confirming: %d", res.StatusCode)
	}
	if res := post(org, page+"/cancel-event", url.Values{"confirm": {"yes"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	card := a.Client().Get("/events?category=meetup").Doc(t).Find(testID("event-card"))
	if card.Length() != 1 || card.AttrOr("data-cancelled", "") != "true" {
		t.Fatal("the cancelled event is not listed, marked")
	}
	if d := bob.Get(page).Doc(t); d.Find(testID("event-google")).Length() != 0 || d.Find(testID("event-outlook")).Length() != 0 {
		t.Error("a cancelled event is offered to calendars")
	}
	a.Tasks.RunDue(t.Context())
	if !strings.Contains(bob.Get("/inbox").Doc(t).Find(testID("inbox-list")).Text(), "is cancelled") {
		t.Fatal("bob is not told of the cancellation")
	}
	if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("registering for a cancelled event: %d", res.StatusCode)
	}
}

// New events and registrations are counted for the admin metrics page:
// a second press of "Register" is not a new registration, and tells the
// person nothing new.
func TestEventsAndRegistrationsAreCounted(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob := cast[0], cast[1], cast[2]
	form := url.Values{"title": {"Counted night"}, "category": {"concert"}, "start": {"2030-06-01T20:00"}, "end": {"2030-06-01T23:00"}, "capacity": {"1"}}
	page := post(org, "/events", form).Header.Get("Location")
	if res := post(org, page+"/publish", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	for _, c := range []*webtest.Client{ann, ann, bob} { // bob waits
		if res := post(c, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("register: %d", res.StatusCode)
		}
		a.Clock.Advance(time.Minute)
	}
	a.Tasks.RunDue(t.Context())
	days, err := a.Metrics.Last(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := days[0]; d.Get(events.NewEvents) != 1 || d.Get(events.Registrations) != 2 {
		t.Fatalf("counted %v, want 1 event and 2 registrations", d.Counts)
	}
	if n := a.Inbox(ann).Length(); n != 1 {
		t.Errorf("ann has %d notices after registering twice, want 1", n)
	}
}

// The home page shows a person's next three events beside their groups,
// soonest first, until each has ended; someone with none is shown where
// to find some; /groups and visitors get no such card.
func TestHomeShowsTheNextEvents(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cast := a.People("org@example.com", "ann@example.com", "bob@example.com")
	org, ann, bob, anon := cast[0], cast[1], cast[2], a.Client()
	for day := 4; day >= 1; day-- { // created out of order, from tomorrow
		d := a.Clock.Now().AddDate(0, 0, day).Format(time.DateOnly)
		form := url.Values{"title": {"Night " + strconv.Itoa(day)}, "category": {"concert"}, "start": {d + "T20:00"}, "end": {d + "T23:00"}, "capacity": {"10"}}
		page := post(org, "/events", form).Header.Get("Location")
		post(org, page+"/publish", nil)
		if res := post(ann, page+"/register", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("register for night %d: %d", day, res.StatusCode)
		}
	}
	titles := func(c *webtest.Client, path string) ([]string, string) {
		card := c.Get(path).Doc(t).Find(testID("home-events"))
		var out []string
		card.Find(testID("my-event") + " a").Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
		return out, strings.TrimSpace(card.Find("p > a").Last().Text())
	}
	if got, link := titles(ann, "/"); !slices.Equal(got, []string{"Night 1", "Night 2", "Night 3"}) || link != "All your events" {
		t.Fatalf("ann's home shows %v, link %q", got, link)
	}
	a.Clock.Advance(48 * time.Hour) // night 1 is over
	if got, link := titles(ann, "/"); !slices.Equal(got, []string{"Night 2", "Night 3", "Night 4"}) || link != "My events" {
		t.Fatalf("the next day ann's home shows %v, link %q", got, link)
	}
	// The card costs two queries: her UserEvents partition and one batch
	// of the events (no waitlist places to count).
	home, groups := ann.Get("/").StorageOps(t), ann.Get("/groups").StorageOps(t)
	if home["total"]-groups["total"] != 2 || home["queries"]-groups["queries"] != 2 {
		t.Errorf("the card costs %v, the page without it %v", home, groups)
	}
	// "My events" lists what is to come, soonest first, then the past; a
	// long festival that began before night 1 and goes on is to come.
	began := a.Clock.Now().AddDate(0, 0, -1).Format(time.DateOnly) + "T10:00"
	ends := a.Clock.Now().AddDate(0, 0, 5).Format(time.DateOnly) + "T22:00"
	festival := post(org, "/events", url.Values{"title": {"Summer festival"}, "category": {"festival"}, "start": {began}, "end": {ends}, "capacity": {"10"}}).Header.Get("Location")
	post(org, festival+"/publish", nil)
	if res := post(ann, festival+"/register", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("register for the festival: %d", res.StatusCode)
	}
	mine := ann.Get("/events/mine").Doc(t)
	var upcoming, past []string
	mine.Find(testID("my-events-upcoming") + " " + testID("my-event") + " .row-title a").Each(func(_ int, s *goquery.Selection) { upcoming = append(upcoming, s.Text()) })
	mine.Find(testID("my-events-past") + " " + testID("my-event") + " .row-title a").Each(func(_ int, s *goquery.Selection) { past = append(past, s.Text()) })
	if !slices.Equal(upcoming, []string{"Summer festival", "Night 2", "Night 3", "Night 4"}) || !slices.Equal(past, []string{"Night 1"}) {
		t.Errorf("my events: upcoming %v, past %v", upcoming, past)
	}
	if bob.Get("/").Doc(t).Find(testID("home-events-empty")).Length() != 1 {
		t.Error("someone with no events is not shown where to find some")
	}
	if n := ann.Get("/groups").Doc(t).Find(testID("home-events")).Length(); n != 0 {
		t.Error("/groups shows the home page's events card")
	}
	if n := anon.Get("/").Doc(t).Find(testID("home-events")).Length(); n != 0 {
		t.Error("a visitor's home shows an events card")
	}
}

// TestEditingKeepsTheEventsZone: an event made in London, edited and
// saved unchanged by a co-organizer whose profile is in Moscow, keeps its
// time and its zone: the form shows its times in London's and carries
// the zone back.
func TestEditingKeepsTheEventsZone(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	host, co := a.Client(), a.Client()
	for _, c := range []struct {
		cl          *webtest.Client
		email, name string
		timezone    string
	}{{host, "host@example.com", "Host", "Europe/London"}, {co, "co@example.com", "Co", "Europe/Moscow"}} {
		key := a.SignIn(c.cl, c.email)
		if _, err := a.Accounts.SetRole(t.Context(), key, account.RoleOrganizer, true); err != nil {
			t.Fatal(err)
		}
		if res := c.cl.PostForm("/account/profile", c.cl.WithCSRF("/account", url.Values{"displayName": {c.name}, "timezone": {c.timezone}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s's zone: %d", c.email, res.StatusCode)
		}
	}
	form := url.Values{"title": {"Book swap"}, "category": {"meetup"}, "start": {"2030-06-01T18:00"}, "end": {"2030-06-01T20:00"}, "coHosts": {"co@example.com"}}
	page := post(host, "/events", form).Header.Get("Location")
	edit := co.Get(page + "/edit").Doc(t)
	if got := edit.Find("#event-start").AttrOr("value", ""); got != "2030-06-01T18:00" {
		t.Fatalf("the co-organizer's form shows the start %q, want London's 2030-06-01T18:00", got)
	}
	again := formValues(edit.Find(testID("event-form")))
	if res := post(co, page+"/edit", again); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving unchanged: %d %.300s", res.StatusCode, res.Body)
	}
	if got := host.Get(page+"/edit").Doc(t).Find("#event-start").AttrOr("value", ""); got != "2030-06-01T18:00" {
		t.Errorf("after the co-organizer's save the start is %q in London, want 2030-06-01T18:00", got)
	}
	if text := host.Get(page).Doc(t).Find("main").Text(); !strings.Contains(text, "18:00") {
		t.Errorf("the event's page no longer says 18:00: %.400s", text)
	}
}

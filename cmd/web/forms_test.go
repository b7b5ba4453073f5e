package main

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// badTexts are what every text field must refuse (formrule): each names
// the case for the failure message.
var badTexts = []struct{ name, value string }{
	{"NUL", "a\x00b"},
	{"escape", "a\x1b[31mb"},
	{"bidi override", "abc\u202Edcba"},
	{"invalid UTF-8", "a\xff\xfeb"},
	{"line separator", "a\u2028b"},
	{"very long", strings.Repeat("я", 70_000)},
}

// TestEveryFormRefusesBadText crawls the app as an admin with a group, an
// appointment with a comment, a prompt, a blog post with a comment, an
// event a member went to and rated (whose page the member's crawl starts
// from), someone else's
// forum topic, a report in the moderation queue and someone in People, finds every POST form with a text field, and
// submits each bad text in each of its text fields: every form must answer
// with a 4xx, not a 5xx and not success, write nothing, and say why in
// words (no message key, no unfilled placeholder).
func TestEveryFormRefusesBadText(t *testing.T) {
	t.Parallel()
	// The app's time runs as the wall clock's, later by ahead: moving it
	// on ends an event.
	var ahead atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	a, _, _ := newTestAppAt(t, map[string]string{"ADMIN_EMAILS": "boss@example.org"}, now)
	c := webtest.NewClient(t, a.Handler())
	signIn(t, c, "boss@example.org")
	seedForms(t, c)
	member := webtest.NewClient(t, a.Handler())
	seedReports(t, c, member)
	seedPeople(t, c, member)
	event := seedRating(t, c, member, now, func(d time.Duration) { ahead.Add(int64(d)) })

	joinURL := seedJoinLink(t, c)
	forms := crawlForms(t, c, "/")
	// The member's rating form, on the event they went to.
	forms = append(forms, crawlForms(t, member, event)...)
	// A visitor's forms: signing in, and joining by link as a guest.
	anon := webtest.NewClient(t, a.Handler())
	forms = append(forms, crawlForms(t, anon, "/signin")...)
	forms = append(forms, crawlForms(t, anon, joinURL)...)
	t.Logf("%d forms: %v", len(forms), formNames(forms))
	if len(forms) < 15 {
		t.Fatalf("found only %d forms with text fields: %v", len(forms), formNames(forms))
	}
	for _, f := range forms {
		// Each field on its own, the others as the page filled them: a
		// field that lets bad text through is not hidden by another that
		// refuses it.
		for _, field := range f.textFields {
			for _, bad := range badTexts {
				values := url.Values{}
				for k, v := range f.values {
					values[k] = append([]string(nil), v...)
				}
				values.Set(field, bad.value)
				res := f.client.PostForm(f.action, values)
				switch {
				case res.StatusCode >= 500:
					t.Errorf("%s in %s on %s: %d", bad.name, field, f, res.StatusCode)
				case res.StatusCode < 400:
					t.Errorf("%s in %s on %s was accepted (%d → %s)", bad.name, field, f, res.StatusCode, res.Header.Get("Location"))
				case res.Writes(t) != 0:
					t.Errorf("%s in %s on %s: refused with %d but wrote (%s)", bad.name, field, f, res.StatusCode, res.Header.Get("X-Storage-Ops"))
				case strings.HasPrefix(res.Header.Get("Content-Type"), "text/html"):
					for _, problem := range untranslated(t, res.Doc(t)) {
						t.Errorf("%s in %s on %s: the refusal shows %s", bad.name, field, f, problem)
					}
				}
			}
		}
	}
}

// seedForms makes the content whose pages hold forms: a group with an
// appointment, a prompt.
func seedForms(t *testing.T, c *webtest.Client) {
	t.Helper()
	res := c.PostForm("/groups", c.WithCSRF("/groups/new", url.Values{"name": {"Forms"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create group: %d", res.StatusCode)
	}
	group := strings.TrimSuffix(res.Header.Get("Location"), "/settings")
	res = c.PostForm(group+"/appointments", c.WithCSRF(group+"/appointments/new", url.Values{
		"title": {"Dentist"}, "start": {"2031-03-04T10:00"}, "end": {"2031-03-04T11:00"},
	}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create appointment: %d", res.StatusCode)
	}
	// A comment on it: the crawl finds its edit form.
	appt := strings.SplitN(res.Header.Get("Location"), "?", 2)[0]
	if res := c.PostForm(appt+"/comments", c.WithCSRF(appt, url.Values{"comment": {"A comment with forms"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("comment on the appointment: %d", res.StatusCode)
	}
	res = c.PostForm("/prompts", c.WithCSRF("/prompts/new", url.Values{
		"title": {"A prompt with forms"}, "text": {"Write about {{topic}}."}, "tags": {"writing"}, "visibility": {"public"},
	}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create prompt: %d", res.StatusCode)
	}
	// A published blog post with the admin's comment: the crawl finds
	// the comment form and the comment's edit form.
	res = c.PostFile("/blog", c.WithCSRF("/blog/new", url.Values{"title": {"A post with forms"}, "body": {"Words."}, "action": {"publish"}}), "cover", "", nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish a blog post: %d", res.StatusCode)
	}
	post := res.Header.Get("Location")
	if res := c.PostForm(post+"/comments", c.WithCSRF(post, url.Values{"body": {"A comment with forms"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("comment on the post: %d", res.StatusCode)
	}
}

// seedRating has member go to an event the admin c makes, which then
// ends (advance moves the app's clock on), and rate it: a crawl as the
// member from the event's page, which it returns, finds the rating
// form, filled in.
func seedRating(t *testing.T, c, member *webtest.Client, now func() time.Time, advance func(time.Duration)) string {
	t.Helper()
	at := func(d time.Duration) string { return now().UTC().Add(d).Format("2006-01-02T15:04") }
	res := c.PostForm("/events", c.WithCSRF("/events/new", url.Values{
		"title": {"An evening with forms"}, "category": {"meetup"}, "timezone": {"UTC"},
		"start": {at(time.Hour)}, "end": {at(2 * time.Hour)}, "capacity": {"5"},
	}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create an event: %d", res.StatusCode)
	}
	event := res.Header.Get("Location")
	if res := c.PostForm(event+"/publish", c.WithCSRF(event, nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish the event: %d", res.StatusCode)
	}
	if res := member.PostForm(event+"/register", member.WithCSRF(event, nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("register for the event: %d", res.StatusCode)
	}
	advance(3 * time.Hour)
	if res := member.PostForm(event+"/feedback", member.WithCSRF(event, url.Values{"rating": {"5"}, "feedback": {"Well run."}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rate the event: %d", res.StatusCode)
	}
	return event
}

// seedReports has member write a forum topic (whose report form the
// admin c then finds) and report c's chat message (so the admins' queue
// holds a report and its form).
func seedReports(t *testing.T, c, member *webtest.Client) {
	t.Helper()
	signIn(t, member, "member@example.org")
	if res := c.PostForm("/admin/forum", c.WithCSRF("/admin/forum", url.Values{"slug": {"talk"}, "name": {"Talk"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add a section: %d", res.StatusCode)
	}
	if res := member.PostForm("/forum/topics", member.WithCSRF("/forum/compose", url.Values{"section": {"talk"}, "title": {"A topic to report"}, "body": {"Words."}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("open a topic: %d", res.StatusCode)
	}
	res := c.PostForm("/chat/room-general/messages", c.WithCSRF("/chat/room-general", url.Values{"body": {"A message to report"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send a message: %d", res.StatusCode)
	}
	at, _ := url.Parse(res.Header.Get("Location"))
	path := "/chat/room-general/messages/" + strings.TrimPrefix(at.Fragment, "m-") + "/report"
	if res := member.PostForm(path, member.WithCSRF(path, url.Values{"reason": {"spam"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("report the message: %d", res.StatusCode)
	}
}

// seedPeople shows the admin and the member in People, so the crawl
// finds the member in Discover and, on their page, the like's form.
func seedPeople(t *testing.T, people ...*webtest.Client) {
	t.Helper()
	for _, c := range people {
		form := url.Values{"displayName": {"Someone"}, "birthDate": {"1990-01-01"}}
		if res := c.PostForm("/account/profile", c.WithCSRF("/account", form)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("profile: %d", res.StatusCode)
		}
		if res := c.PostForm("/people/me", c.WithCSRF("/people", url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("show in People: %d", res.StatusCode)
		}
	}
}

// seedJoinLink opens a join link on the group the admin owns and returns
// its page's path.
func seedJoinLink(t *testing.T, c *webtest.Client) string {
	t.Helper()
	group := c.Get("/groups").Doc(t).Find(`[data-testid="group-card"] a`).First().AttrOr("href", "")
	res := c.PostForm(group+"/join-sessions", c.WithCSRF(group, url.Values{"meta": {"Welcome"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("open join link: %d", res.StatusCode)
	}
	link := c.Get(res.Header.Get("Location")).Doc(t).Find(`[data-testid="join-url"]`).AttrOr("href", "")
	u, err := url.Parse(link)
	if err != nil || u.Path == "" {
		t.Fatalf("join link %q", link)
	}
	return u.Path
}

// form is one POST form found on a page.
type form struct {
	client       *webtest.Client
	page, action string
	values       url.Values // its fields' values as served (the CSRF token too)
	textFields   []string
}

func (f form) String() string { return f.action + " (on " + f.page + ")" }

func formNames(forms []form) []string {
	var out []string
	for _, f := range forms {
		out = append(out, f.String())
	}
	return out
}

// crawlForms visits the site's pages from start (crawl) and returns each
// distinct POST form action that has a text field, with the page it was
// found on.
func crawlForms(t *testing.T, c *webtest.Client, start string) []form {
	t.Helper()
	found := map[string]form{}
	crawl(t, c, []string{start}, 2000, func(page string, doc *goquery.Document) {
		doc.Find("form").Each(func(_ int, s *goquery.Selection) {
			if m, _ := s.Attr("method"); !strings.EqualFold(m, "post") {
				return
			}
			action, _ := s.Attr("action")
			if action == "" || action == "/signout" || strings.HasPrefix(action, "/dev/") {
				return
			}
			if _, ok := found[action]; ok {
				return
			}
			f := form{client: c, page: page, action: action, values: url.Values{}}
			s.Find("input, textarea, select").Each(func(_ int, in *goquery.Selection) {
				name, ok := in.Attr("name")
				if !ok || name == "" {
					return
				}
				typ := strings.ToLower(in.AttrOr("type", "text"))
				switch {
				case goquery.NodeName(in) == "select":
					// (before the text fields: a select has no type)
					f.values.Set(name, in.Find("option[selected]").AttrOr("value", in.Find("option").First().AttrOr("value", "")))
				case goquery.NodeName(in) == "textarea" || typ == "text" || typ == "email" || typ == "search" || typ == "url":
					f.textFields = append(f.textFields, name)
					f.values.Set(name, in.Text()+in.AttrOr("value", ""))
				case typ == "checkbox" || typ == "radio":
					if _, checked := in.Attr("checked"); checked {
						f.values.Add(name, in.AttrOr("value", "on"))
					}
				case typ == "file" || typ == "submit" || typ == "button":
				default:
					f.values.Set(name, in.AttrOr("value", ""))
				}
			})
			if len(f.textFields) > 0 {
				found[action] = f
			}
		})
	})
	out := make([]form, 0, len(found))
	for _, f := range found {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].action < out[j].action })
	return out
}

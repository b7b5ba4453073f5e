package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/web/webtest"
)

// An empty development store offers demo content on the home page; the
// button fills it, and Anna then signs in to a living app: her groups
// with plans, a catalog with the cast's prompts, an inbox, and, as an
// admin, metrics that count what the demo made in every section.
func TestDemoContentFromTheBanner(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": platform.DemoSignIn})
	c := webtest.NewClient(t, a.Handler())
	if c.Get("/").Doc(t).Find(`[data-testid="demo-banner"]`).Length() != 1 {
		t.Fatal("an empty development store does not offer demo content")
	}
	res := c.PostForm("/dev/demo", c.WithCSRF("/", nil))
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin?email=anna%40demo.example") && !strings.HasPrefix(res.Header.Get("Location"), "/signin?email=anna@demo.example") {
		t.Fatalf("seed: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if email, _ := c.Get(res.Header.Get("Location")).Doc(t).Find(`input[name="email"]`).Attr("value"); email != platform.DemoSignIn {
		t.Errorf("the sign-in form is not filled in: %q", email)
	}
	if c.Get("/").Doc(t).Find(`[data-testid="demo-banner"]`).Length() != 0 {
		t.Error("a filled store still offers demo content")
	}
	// A second press adds nothing.
	if _, err := a.Built.SeedDemo(context.Background()); !errors.Is(err, platform.ErrNotEmpty) {
		t.Errorf("a second seed: %v", err)
	}

	signIn(t, c, platform.DemoSignIn)
	dash := c.Get("/").Doc(t)
	if n := dash.Find(`[data-testid="group-card"]`).Length(); n != 3 {
		t.Errorf("Anna's dashboard shows %d groups, want 3", n)
	}
	if !strings.Contains(dash.Text(), "Dentist check-up") {
		t.Error("the dashboard shows no upcoming plans")
	}
	// The Smiths' calendar is a realistic month: training every week, a
	// birthday all day, a visit over four days, a cancelled lesson.
	smiths, _ := dash.Find(`[data-testid="group-card"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), "The Smiths")
	}).Find("a").First().Attr("href")
	agenda := c.Get(smiths).Doc(t)
	rows := agenda.Find(`[data-testid="appointment-row"]`)
	if n := rows.FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "Football practice") }).Length(); n < 3 {
		t.Errorf("the weekly training shows %d times in the agenda", n)
	}
	for _, want := range []string{"Lily's birthday", "all day", "Grandma and Grandpa visit", " – "} {
		if !strings.Contains(rows.Text(), want) {
			t.Errorf("the family's agenda lacks %q", want)
		}
	}
	if rows.Filter(`[data-canceled="true"]`).Length() != 1 {
		t.Error("the family's agenda has no cancelled appointment")
	}
	// Events in several categories; the jazz night is full, two waiting.
	evs := c.Get("/events").Doc(t)
	if n := evs.Find(`[data-testid="event-card"]`).Length(); n < 5 || evs.Find(`[data-testid="event-card"] .event-thumb`).Length() != n {
		t.Errorf("the demo lists %d events, %d with pictures", n, evs.Find(`[data-testid="event-card"] .event-thumb`).Length())
	}
	if full := evs.Find(`[data-testid="seats-badge"]`).First().Text(); full != "Full · 2 waiting" {
		t.Errorf("the jazz night's badge says %q", full)
	}
	jazz, _ := evs.Find(`[data-testid="event-card"] a`).First().Attr("href")
	if seats := c.Get(jazz).Doc(t).Find(`[data-testid="event-seats"]`).Text(); !strings.Contains(seats, "2 of 2") || !strings.Contains(seats, "2 waiting") {
		t.Errorf("the full demo event shows %q", seats)
	}
	// The party asks three questions; Anna, its organizer, reads the
	// answers of those she approved on its check-in list.
	party := evs.Find(`[data-testid="event-card"] a`).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "Season's end party") }).AttrOr("href", "")
	answers := c.Get(party + "/check-in").Doc(t).Find(`[data-testid="guest-answers"]`).Text()
	for _, want := range []string{"What will you bring?Music, Drinks", "I'm happy to be in the party's photosYes ✓"} {
		if !strings.Contains(answers, want) {
			t.Errorf("the party's answers lack %q: %q", want, answers)
		}
	}
	// The picnic is past: Anna, who ran it, reads her guests' ratings.
	picnic := c.Get("/events?when=past").Doc(t).Find(`[data-testid="event-card"] a`).FilterFunction(func(_ int, s *goquery.Selection) bool { return strings.Contains(s.Text(), "Summer picnic") }).AttrOr("href", "")
	if avg := c.Get(picnic).Doc(t).Find(`[data-testid="event-ratings-average"]`).Text(); picnic == "" || !strings.Contains(avg, "4.3 of 5 from 3 guests") {
		t.Errorf("the picnic's ratings (%s): %q", picnic, avg)
	}
	catalog := c.Get("/prompts").Doc(t)
	if n := catalog.Find(`[data-testid="prompt-card"]`).Length(); n < 10 {
		t.Errorf("the catalog shows %d prompts", n)
	}
	if c.Get("/prompts?q="+url.QueryEscape("meal planner")).Doc(t).Find(`[data-testid="prompt-card"]`).Length() == 0 {
		t.Error("the cast's prompt is not in the catalog")
	}
	// Chats with history: the rooms (the private organisers' room among
	// Anna's; the book club in the directory), the family's group, the
	// jazz night, and a private chat with Boris.
	if !strings.Contains(c.Get("/chat/rooms").Doc(t).Find(`[data-testid="directory-rooms"]`).Text(), "#Book club") {
		t.Error("the directory lacks the book club")
	}
	chats := c.Get("/chat").Doc(t).Find(`[data-testid="chat-list"]`).Text()
	for _, want := range []string{"#general", "you should come", "#Organisers", "Борис Иванов", "The Smiths", "Jazz night"} {
		if !strings.Contains(chats, want) {
			t.Errorf("Anna's chats lack %q", want)
		}
	}
	// Messages she saved for later, from three chats, one with a
	// reminder.
	if saved := c.Get("/chat/saved").Doc(t).Find(`[data-testid="chat-saved-item"]`); saved.Length() != 3 || !strings.Contains(saved.Text(), "Serpentine Road") || saved.Find(`[data-testid="chat-saved-reminder"]`).Length() != 1 {
		t.Errorf("Anna's saved messages: %d %q", saved.Length(), saved.Text())
	}
	// The forum: its sections with topics, a pinned welcome, in English
	// and Russian.
	forum := c.Get("/forum").Doc(t)
	if n := forum.Find(`[data-testid="forum-section"]`).Length(); n != 4 || !strings.Contains(forum.Text(), "По-русски") {
		t.Errorf("the forum's home: %d sections", n)
	}
	if c.Get("/forum/announcements").Doc(t).Find(`[data-testid="topic-row"][data-pinned="true"]`).Length() != 1 {
		t.Error("no pinned welcome")
	}
	// The next meetup's poll, four votes in, waits for Anna's: several
	// choices, closing in a week.
	var ideas string
	c.Get("/forum/general").Doc(t).Find(`[data-testid="topic-row"] a`).Each(func(_ int, a *goquery.Selection) {
		if strings.Contains(a.Text(), "Ideas for the next meetup") {
			ideas = a.AttrOr("href", "")
		}
	})
	if poll := c.Get(ideas).Doc(t).Find(`[data-testid="topic-poll"]`); poll.Find(`[data-testid="poll-form"] input[type="checkbox"]`).Length() != 3 || !strings.Contains(poll.Text(), "4 people voted") || poll.Find(`[data-testid="poll-closes"]`).Length() != 1 {
		t.Errorf("the meetup's poll (%q): %q", ideas, poll.Text())
	}
	inbox := c.Get("/inbox").Doc(t)
	if inbox.Find(`[data-testid="inbox-item"]`).Length() == 0 {
		t.Error("Anna's inbox is empty after the demo")
	}
	// The admins' queue holds the reply two members reported, and the
	// picture Tom sent Masha in a private chat, shown to the admins.
	queue := c.Get("/admin/reports").Doc(t)
	if got := queue.Find(`[data-testid="report-count"]`).Text(); got != "2 reports1 report" {
		t.Errorf("the demo's moderation queue: %q", got)
	}
	if pic := queue.Find(`[data-testid="report-picture"]`).AttrOr("src", ""); pic == "" || c.Get(pic).StatusCode != http.StatusOK {
		t.Errorf("the demo's reported picture %q", pic)
	}
	// People: Anna has likes to answer (one with a comment), a like of
	// her own waiting, and a match.
	likes := c.Get("/people/likes").Doc(t)
	if you := likes.Find(`[data-testid="likes-you"] [data-testid="people-row"]`); you.Length() != 2 || !strings.Contains(you.Text(), "джазовом") {
		t.Errorf("Anna's Likes you: %q", you.Text())
	}
	if sent := likes.Find(`[data-testid="likes-sent"] [data-testid="people-row"]`); sent.Length() != 1 || !strings.Contains(sent.Text(), "Lily") {
		t.Errorf("Anna's You liked: %q", sent.Text())
	}
	if m := c.Get("/people/matches").Doc(t).Find(`[data-testid="people-row"]`); m.Length() != 1 || !strings.Contains(m.Text(), "Tom") {
		t.Errorf("Anna's matches: %q", m.Text())
	}
	// The blog: posts in both languages with covers, newest first; one
	// scheduled and one draft, for the admins.
	blog := c.Get("/blog").Doc(t)
	if n := blog.Find(`[data-testid="blog-card"]`).Length(); n != 5 || blog.Find(`[data-testid="blog-card"] img.blog-card-cover`).Length() != n || !strings.Contains(blog.Text(), "Ночной город") {
		t.Errorf("the blog shows %d posts", n)
	}
	newest, _ := blog.Find(`[data-testid="blog-card"] h2 a`).First().Attr("href")
	if c.Get(newest).Doc(t).Find(`[data-testid="post-body"] img`).Length() != 1 {
		t.Error("the newest demo post has no picture in its text")
	}
	if u := c.Get("/blog/drafts").Doc(t); u.Find(`[data-testid="blog-scheduled"] [data-testid="blog-card"]`).Length() != 1 || u.Find(`[data-testid="blog-drafts"] [data-testid="blog-card"]`).Length() != 1 {
		t.Error("the demo has no scheduled post or no draft")
	}
	// Its tags, the most used first: the scheduled post's and the draft's
	// "news" not counted.
	if first := c.Get("/blog/tags").Doc(t).Find(`[data-testid="blog-cloud-tag"]`).First(); first.AttrOr("data-tag", "") != "news" || first.AttrOr("data-posts", "") != "3" {
		t.Errorf("the demo blog's most used tag: %q on %q posts", first.AttrOr("data-tag", ""), first.AttrOr("data-posts", ""))
	}
	// The store: every department, a sold-out record Tom waits for, and
	// a hidden scarf for the admins.
	shop := c.Get("/store").Doc(t)
	if n := shop.Find(`[data-testid="store-card"]`).Length(); n != 6 || shop.Find(`[data-testid="sold-out"]`).Length() != 1 || shop.Find(`[data-testid="few-left"]`).Length() != 1 {
		t.Errorf("the store shows %d items", n)
	}
	if !strings.Contains(c.Get("/store/hidden").Doc(t).Text(), "Winter scarf") {
		t.Error("the demo store has no hidden item")
	}
	sections := c.Get("/admin/metrics").Doc(t).Find(`[data-testid="metrics-section"]`)
	if sections.Length() < 5 {
		t.Errorf("the metrics page shows %d sections", sections.Length())
	}
	sections.Each(func(_ int, s *goquery.Selection) {
		if sum := s.Find(`[data-testid="metrics-total"]`).Text(); strings.Trim(sum, "0") == "" {
			t.Errorf("the demo counted nothing in the %s section's metrics", s.AttrOr("data-section", "?"))
		}
	})
}

// "web seed demo" fills an empty store once, and production refuses it.
func TestSeedDemoCommand(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	env := envOf(map[string]string{"DATA_DIR": dataDir})
	var out, errOut bytes.Buffer
	if code := run([]string{"seed", "demo"}, env, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "demo: 6 people") || !strings.Contains(out.String(), "groups") || !strings.Contains(out.String(), "prompts") {
		t.Errorf("summary %q", out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"seed", "demo"}, env, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "empty store only") {
		t.Errorf("a second seed: exit %d, %s", code, errOut.String())
	}
	prod := envOf(map[string]string{"DATA_DIR": t.TempDir(), "ENV": "production", "DEMO": "1"})
	if code := run([]string{"serve"}, prod, &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "DEMO") {
		t.Errorf("DEMO=1 in production: exit %d, %s", code, errOut.String())
	}
}

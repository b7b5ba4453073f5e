package main

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// badURLValues are what a path segment or a query value may be instead of
// what the app wrote there, already escaped as they would stand in a URL.
var badURLValues = []string{"x", "%00", "%FF%FE", strings.Repeat("9", 3000), "-1", "..", "%2F%2Fevil.example"}

// queryNames are the query parameters the app reads somewhere.
var queryNames = []string{"q", "before", "after", "next", "month", "from", "cursor", "when", "view", "token", "time",
	"ticket", "tag", "sort", "section", "quote", "post", "member", "latest", "key", "email", "date", "comments", "category", "at", "v"}

// idLike is a path segment that names one thing (an id, a slug with
// digits, a token), so pages differing only there have one shape.
var idLike = regexp.MustCompile(`[0-9]`)

// TestEveryPageAnswersBadURLsCalmly walks the demo app as its admin. For
// one page of each shape it reaches, and for every form it finds, it asks
// again with each path segment after the first replaced by bad input,
// and (pages) with bad values in the page's own query and in every query
// parameter the app reads. Every answer must be an answer, not a failure:
// a status below 500 and no stack trace; and a refusal writes nothing.
func TestEveryPageAnswersBadURLsCalmly(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": "anna@demo.example"})
	if _, err := a.Built.SeedDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := webtest.NewClient(t, a.Handler())
	signIn(t, c, "anna@demo.example")

	shapes := map[string]string{}
	crawl(t, c, []string{"/", "/admin", "/account", "/inbox", "/chat", "/forum", "/events", "/prompts", "/groups"}, 400, func(path string, _ *goquery.Document) {
		u, _ := url.Parse(path)
		segs := strings.Split(u.Path, "/")
		for i, s := range segs {
			if idLike.MatchString(s) || len(s) > 20 {
				segs[i] = ":"
			}
		}
		if shape := strings.Join(segs, "/"); shapes[shape] == "" {
			shapes[shape] = path
		}
	})
	if len(shapes) < 30 {
		t.Fatalf("only %d kinds of page reached", len(shapes))
	}
	asked := 0
	check := func(method, target string, res *webtest.Response) {
		t.Helper()
		asked++
		if res.StatusCode >= 500 || strings.Contains(res.Body, "goroutine ") || strings.Contains(res.Body, ".go:") {
			t.Errorf("%s %.200s: %d %.300s", method, target, res.StatusCode, res.Body)
		}
		if res.StatusCode >= 400 && res.Writes(t) != 0 {
			t.Errorf("%s %.200s: refused with %d but wrote (%s)", method, target, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	for _, page := range shapes {
		u, _ := url.Parse(page)
		for _, wrong := range withBadSegments(u.Path) {
			target := wrong
			if u.RawQuery != "" {
				target += "?" + u.RawQuery
			}
			check("GET", target, c.Get(target))
		}
		for name := range u.Query() {
			for _, bad := range badURLValues {
				q := u.Query()
				q.Del(name)
				target := u.Path + "?" + name + "=" + bad
				if rest := q.Encode(); rest != "" {
					target += "&" + rest
				}
				check("GET", target, c.Get(target))
			}
		}
		// Each parameter the app reads, alone (one refused early would
		// hide another), with a few of the bad values.
		for _, name := range queryNames {
			for _, bad := range badURLValues[:4] {
				target := u.Path + "?" + name + "=" + bad
				check("GET", target, c.Get(target))
			}
		}
	}
	forms := crawlForms(t, c, "/")
	for _, f := range forms {
		for _, wrong := range withBadSegments(f.action) {
			check("POST", wrong, c.PostForm(wrong, f.values))
		}
	}
	t.Logf("%d kinds of page and %d forms, %d requests", len(shapes), len(forms), asked)
}

// withBadSegments is path with each segment after the first, in turn,
// replaced by each bad value.
func withBadSegments(path string) []string {
	segs := strings.Split(path, "/")
	var out []string
	for i := 2; i < len(segs); i++ {
		for _, bad := range badURLValues {
			s := slices.Clone(segs)
			s[i] = bad
			out = append(out, strings.Join(s, "/"))
		}
	}
	return out
}

package main

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/webtest"
)

// A message key that is missing from a catalog is shown as the key
// itself ("admin.rebuild.forum"), and an argument a message was not
// given as its placeholder ("{max}"). TestNoPageShowsAMessageKey walks
// the demo app as its admin, in English (Anna) and in Russian (Boris),
// and finds no text or label that is a key or a placeholder.
func TestNoPageShowsAMessageKey(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": "anna@demo.example, boris@demo.example"})
	if _, err := a.Built.SeedDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, person := range []string{"anna@demo.example", "boris@demo.example"} {
		c := webtest.NewClient(t, a.Handler())
		signIn(t, c, person)
		visited := crawl(t, c, []string{"/", "/admin", "/account", "/inbox", "/chat", "/forum", "/events", "/prompts", "/groups"}, 400, func(path string, doc *goquery.Document) {
			for _, problem := range untranslated(t, doc) {
				t.Errorf("%s: %s shows %s", person, path, problem)
			}
		})
		if visited < 40 {
			t.Fatalf("%s: only %d pages reached", person, visited)
		}
	}
}

// untranslated finds the text and labels on a page that are a message
// key or hold an unfilled placeholder, and says what each is.
func untranslated(t *testing.T, doc *goquery.Document) []string {
	t.Helper()
	spaces := keySpaces(t)
	// Each text node on its own: Text() would run neighbours together
	// ("countsadmin.rebuild.forum").
	var texts []string
	doc.Find("body *").Contents().Each(func(_ int, n *goquery.Selection) {
		if n.Nodes[0].Type == html.TextNode {
			texts = append(texts, n.Nodes[0].Data)
		}
	})
	doc.Find("[aria-label], [title], [placeholder], [alt]").Each(func(_ int, s *goquery.Selection) {
		for _, attr := range []string{"aria-label", "title", "placeholder", "alt"} {
			texts = append(texts, s.AttrOr(attr, ""))
		}
	})
	var out []string
	for _, text := range texts {
		if m := unfilled.FindString(text); m != "" {
			out = append(out, "an unfilled placeholder "+strconv.Quote(m))
		}
		for _, m := range keyLike.FindAllString(text, -1) {
			if spaces[strings.SplitN(m, ".", 2)[0]] {
				out = append(out, "the message key "+strconv.Quote(m))
			}
		}
	}
	return out
}

var (
	// A key looks like "forum.notify.reply.title": its first part is one
	// of the catalog's namespaces (keySpaces).
	keyLike = regexp.MustCompile(`\b[a-z][a-z0-9_]*(\.[a-z0-9_-]+){2,}\b`)
	// An argument a message was not given stays as "{max}"; a prompt's
	// "{{topic}}" is the prompt's own.
	unfilled = regexp.MustCompile(`(^|[^{])\{[a-z][a-zA-Z_]*\}($|[^}])`)

	spacesOnce sync.Once
	spaces     map[string]bool
	spacesErr  error
)

// keySpaces are the first parts of the catalog's keys.
func keySpaces(t *testing.T) map[string]bool {
	t.Helper()
	spacesOnce.Do(func() {
		cat, err := i18n.New()
		if err != nil {
			spacesErr = err
			return
		}
		spaces = map[string]bool{}
		for _, k := range cat.Keys(i18n.EN) {
			spaces[strings.SplitN(k, ".", 2)[0]] = true
		}
	})
	if spacesErr != nil {
		t.Fatal(spacesErr)
	}
	return spaces
}

// crawl visits the site's pages from start, breadth first, following
// same-site links to pages (not development pages, assets, pictures,
// feeds or calendars; a link's #fragment dropped), and calls visit with
// each HTML page it reads, up to limit links followed. It returns how many
// pages it visited.
func crawl(t *testing.T, c *webtest.Client, start []string, limit int, visit func(path string, doc *goquery.Document)) int {
	t.Helper()
	notPage := func(path string) bool {
		return slices.ContainsFunc([]string{"/static/", "/dev/", "/api/", "/media/"}, func(p string) bool { return strings.HasPrefix(path, p) }) ||
			slices.ContainsFunc([]string{".ics", "/feed", ".rss", "/photo", "/image", "/export"}, func(s string) bool { return strings.Contains(path, s) })
	}
	seen := map[string]bool{}
	for _, p := range start {
		seen[p] = true
	}
	queue := slices.Clone(start)
	visited := 0
	for len(queue) > 0 && len(seen) <= limit {
		path := queue[0]
		queue = queue[1:]
		res := c.Get(path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			continue
		}
		doc := res.Doc(t)
		visited++
		visit(path, doc)
		doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			u, err := url.Parse(a.AttrOr("href", ""))
			if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/") || notPage(u.Path) {
				return
			}
			u.Fragment = ""
			if link := u.String(); !seen[link] {
				seen[link] = true
				queue = append(queue, link)
			}
		})
	}
	return visited
}

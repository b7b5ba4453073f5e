package main

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/webtest"
)

// A message key that is missing from a catalog is shown as the key
// itself ("admin.rebuild.forum"). TestNoPageShowsAMessageKey walks the
// demo app as its admin, in English (Anna) and in Russian (Boris), and
// finds no text or label that is a key.
func TestNoPageShowsAMessageKey(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": "anna@demo.example, boris@demo.example"})
	if _, err := a.Built.SeedDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	// A key looks like "forum.notify.reply.title": its first part is one
	// of the catalog's namespaces.
	spaces := map[string]bool{}
	for _, k := range cat.Keys(i18n.EN) {
		spaces[strings.SplitN(k, ".", 2)[0]] = true
	}
	keyLike := regexp.MustCompile(`\b[a-z][a-z0-9_]*(\.[a-z0-9_-]+){2,}\b`)
	for _, person := range []string{"anna@demo.example", "boris@demo.example"} {
		c := webtest.NewClient(t, a.Handler())
		signIn(t, c, person)
		pages := crawl(t, c, []string{"/", "/admin", "/account", "/inbox", "/chat", "/forum", "/events", "/prompts", "/groups"}, 250)
		if len(pages) < 40 {
			t.Fatalf("%s: only %d pages reached", person, len(pages))
		}
		for path, doc := range pages {
			// Each text node on its own: Text() would run neighbours
			// together ("countsadmin.rebuild.forum").
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
			for _, text := range texts {
				for _, m := range keyLike.FindAllString(text, -1) {
					if spaces[strings.SplitN(m, ".", 2)[0]] {
						t.Errorf("%s: %s shows the message key %q", person, path, m)
					}
				}
			}
		}
	}
}

// crawl reads the pages at start and the same-site pages they link to,
// breadth first, up to limit pages, and returns each 200 page's document
// by path. It skips what is not a page (feeds, calendars, pictures) and
// what would sign out.
func crawl(t *testing.T, c *webtest.Client, start []string, limit int) map[string]*goquery.Document {
	t.Helper()
	skip := func(href string) bool {
		return !strings.HasPrefix(href, "/") || strings.HasPrefix(href, "//") ||
			slices.ContainsFunc([]string{"/static/", "/dev/", "/signout", "/api/", "/media/", "/blobs/"}, func(p string) bool { return strings.HasPrefix(href, p) }) ||
			slices.ContainsFunc([]string{".ics", ".png", ".jpg", ".webp", "/feed", ".rss", "/photo", "/image", "/export"}, func(s string) bool { return strings.Contains(href, s) })
	}
	seen := map[string]bool{}
	queue := slices.Clone(start)
	out := map[string]*goquery.Document{}
	for len(queue) > 0 && len(out) < limit {
		path := queue[0]
		queue = queue[1:]
		if seen[path] {
			continue
		}
		seen[path] = true
		res := c.Get(path)
		if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			continue
		}
		doc := res.Doc(t)
		out[path] = doc
		doc.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href := strings.SplitN(a.AttrOr("href", ""), "#", 2)[0]
			if href != "" && !skip(href) && !seen[href] {
				queue = append(queue, href)
			}
		})
	}
	return out
}

package blog_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/web/webtest"
)

// cloud is the page of every tag as c sees it: each tag with its count,
// in the page's order, as "tag=n".
func cloud(t *testing.T, c *webtest.Client) []string {
	t.Helper()
	res := c.Get("/blog/tags")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /blog/tags: %d", res.StatusCode)
	}
	var out []string
	res.Doc(t).Find(testID("blog-cloud-tag")).Each(func(_ int, s *goquery.Selection) {
		tag, _ := s.Attr("data-tag")
		n, _ := s.Attr("data-posts")
		out = append(out, tag+"="+n)
	})
	return out
}

// TestTheTagsPage: /blog/tags shows every tag of the posts readers see,
// with how many carry it, the most used first and then by name; a draft's
// or a scheduled post's tags show once readers see the post, and a post
// moved to drafts or deleted takes its tags' counts with it. An empty
// blog says so.
func TestTheTagsPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	doc := a.visitor.Get("/blog/tags").Doc(t)
	if doc.Find(testID("blog-tags-empty")).Length() != 1 || doc.Find(testID("blog-tag-cloud")).Length() != 0 {
		t.Error("an empty blog's tags page does not say it has none")
	}

	tour := a.write(t, form())                                                                                 // tour, news
	older := a.write(t, form("title", "Older news", "tags", "news, archive", "publishAt", "2030-05-01T10:00")) // news, archive
	draft := a.write(t, form("title", "Secret plans", "tags", "secret, news", "action", "draft"))
	a.write(t, form("title", "Tickets on sale", "tags", "tickets, news", "publishAt", "2030-05-18T10:00"))
	if got := cloud(t, a.member); !same(got, "news=2", "archive=1", "tour=1") {
		t.Errorf("the tags readers see: %q", got)
	}
	if got := cloud(t, a.admin); !same(got, "news=2", "archive=1", "tour=1") {
		t.Errorf("an admin's tags page counts drafts or scheduled posts: %q", got)
	}
	if a.visitor.Get("/blog/tags").Doc(t).Find(testID("blog-tags-empty")).Length() != 0 {
		t.Error("the empty message shows beside tags")
	}

	// The scheduled post's time comes; the draft is published.
	a.Clock.Advance(25 * time.Hour)
	if got := cloud(t, a.member); !same(got, "news=3", "archive=1", "tickets=1", "tour=1") {
		t.Errorf("after the scheduled post's time: %q", got)
	}
	if res := a.send(a.admin, draft+"/edit", form("title", "Secret plans", "tags", "secret, news"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish the draft: %d", res.StatusCode)
	}
	if got := cloud(t, a.member); !same(got, "news=4", "archive=1", "secret=1", "tickets=1", "tour=1") {
		t.Errorf("after the draft is published: %q", got)
	}

	// Deleted, and moved back to drafts: their tags go.
	if res := a.admin.PostForm(older+"/delete", a.admin.WithCSRF(older, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if res := a.admin.PostForm(tour+"/unpublish", a.admin.WithCSRF(tour, nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unpublish: %d", res.StatusCode)
	}
	if got := cloud(t, a.member); !same(got, "news=2", "secret=1", "tickets=1") {
		t.Errorf("after a delete and a move to drafts: %q", got)
	}
}

// TestTheTagsPageWorksWithoutJavaScript: every tag is a plain link to its
// posts, which a browser without JavaScript follows; the blog's front
// page and a tag's listing link to the page, which links back; its count
// reads in words, in Russian too.
func TestTheTagsPageWorksWithoutJavaScript(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.write(t, form("title", "Новый альбом", "tags", "альбом, news"))
	a.Clock.Advance(time.Minute)
	a.write(t, form("title", "Second", "tags", "альбом"))
	for _, path := range []string{"/blog", "/blog?tag=news"} {
		if href, _ := a.visitor.Get(path).Doc(t).Find(testID("blog-all-tags")).Attr("href"); href != "/blog/tags" {
			t.Errorf("%s links to all tags at %q", path, href)
		}
	}
	doc := a.visitor.Get("/blog/tags").Doc(t)
	if html, _ := doc.Find(testID("blog-tags-page")).Html(); strings.Contains(html, "hx-") {
		t.Error("the tags page leans on htmx")
	}
	if href, _ := doc.Find(testID("blog-tags-page") + " .eyebrow a").Attr("href"); href != "/blog" {
		t.Errorf("the way back to the blog: %q", href)
	}
	first := doc.Find(testID("blog-cloud-tag")).First()
	href, _ := first.Attr("href")
	if href != "/blog?tag="+url.QueryEscape("альбом") || !strings.Contains(first.Text(), "#альбом") || !strings.Contains(first.Text(), "2 posts") {
		t.Fatalf("the most used tag: %q, %q", href, first.Text())
	}
	if got := titles(t, a.visitor, href); !same(got, "Second", "Новый альбом") {
		t.Errorf("following the tag: %q", got)
	}
	ru := a.visitor.Get("/blog/tags", "Accept-Language", "ru").Doc(t)
	if got := ru.Find(testID("blog-cloud-tag")).First().Text(); !strings.Contains(got, "2 записи") {
		t.Errorf("the count in Russian: %q", got)
	}
	if ru.Find("h1").Text() != "Теги" {
		t.Errorf("the Russian heading: %q", ru.Find("h1").Text())
	}
}

// TestTheTagsPageReadsOneQuery: the tags page reads the cards' index, not
// the posts: one query with three posts as with fifteen, no point read
// (each look follows a write, which forgets the shared pages), and a
// second visitor's look costs nothing (a shared page).
func TestTheTagsPageReadsOneQuery(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for i := range 3 {
		a.write(t, form("title", fmt.Sprintf("Post %02d", i), "tags", fmt.Sprintf("t%d, news", i)))
	}
	few := a.visitor.Get("/blog/tags").StorageOps(t)
	for i := 3; i < 15; i++ {
		a.write(t, form("title", fmt.Sprintf("Post %02d", i), "tags", fmt.Sprintf("t%d, news", i)))
	}
	many := a.visitor.Get("/blog/tags").StorageOps(t)
	if few["total"] != many["total"] || many["queries"] != 1 || many["reads"] != 0 {
		t.Errorf("the tags page: %v with three posts, %v with fifteen", few, many)
	}
	if got := cloud(t, a.member); len(got) != 16 || got[0] != "news=15" {
		t.Errorf("fifteen posts' tags: %q", got)
	}
	tags := a.member.Get("/blog/tags").Doc(t).Find(testID("blog-cloud-tag"))
	if !tags.First().HasClass("blog-cloud-tag-4") || !tags.Last().HasClass("blog-cloud-tag-1") {
		t.Error("the most used tag is not drawn the largest, nor one post's the smallest")
	}
	a.Client().Get("/blog/tags")
	if second := a.Client().Get("/blog/tags"); second.StorageOps(t)["total"] != 0 {
		t.Errorf("a second visitor's look: %s", second.Header.Get("X-Storage-Ops"))
	}
}

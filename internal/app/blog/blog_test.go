package blog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/blog"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

type app struct {
	*accounttest.App
	svc *blog.Service
	// admin is signed in as an admin; member and visitor are not.
	admin, member, visitor *webtest.Client
}

// newApp is the blog with the inbox (its followers' notices) on a test
// server, boss@example.com an admin; withQueue adds the admin section,
// whose moderation queue takes reports of comments.
func newApp(t *testing.T, withQueue ...bool) *app {
	t.Helper()
	return newAppOn(t, nil, withQueue...)
}

// newAppOn is newApp on a backend wrap wraps (nil: as it is).
func newAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend, withQueue ...bool) *app {
	t.Helper()
	a := &app{}
	var in *inbox.Service
	modules := []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			var err error
			in, err = inbox.FromCore(c)
			return in, err
		},
		func(c *platform.Core) (web.Module, error) {
			a.svc = blog.New(c.Store, c.Cursors, "https://harmony.example", c.Log, c.Now)
			a.svc.UseNotifier(in)
			return a.svc, a.svc.UseTasks(c.Tasks)
		},
	}
	if len(withQueue) > 0 && withQueue[0] {
		modules = append(modules, func(c *platform.Core) (web.Module, error) {
			return admin.New(c.Store, c.Accounts, c.Cursors, c.Log, c.Now), nil
		})
	}
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Wrap: wrap, Modules: modules})
	a.admin, a.member, a.visitor = a.Client(), a.Client(), a.Client()
	a.SignIn(a.admin, "boss@example.com")
	a.SignIn(a.member, "mia@example.com")
	return a
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

// form is a post form: the fields given over sensible defaults.
func form(fields ...string) url.Values {
	f := url.Values{"title": {"Spring tour"}, "body": {"Twelve **cities** in five weeks."}, "tags": {"tour, news"}, "action": {"publish"}}
	for i := 0; i+1 < len(fields); i += 2 {
		f.Set(fields[i], fields[i+1])
	}
	return f
}

// send posts f (and a cover, when not nil) to path as the admin's form
// does.
func (a *app) send(c *webtest.Client, path string, f url.Values, cover []byte) *webtest.Response {
	return c.PostFile(path, c.WithCSRF("/blog", f), "cover", "cover.png", cover)
}

// write makes a post as the admin and returns its address.
func (a *app) write(t *testing.T, f url.Values) string {
	t.Helper()
	res := a.send(a.admin, "/blog", f, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("write %q: %d %.400s", f.Get("title"), res.StatusCode, res.Body)
	}
	return res.Header.Get("Location")
}

// titles are the posts a page lists.
func titles(t *testing.T, c *webtest.Client, path string) []string {
	t.Helper()
	res := c.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	var out []string
	res.Doc(t).Find(testID("blog-card") + " h2").Each(func(_ int, s *goquery.Selection) { out = append(out, s.Text()) })
	return out
}

func same(got []string, want ...string) bool {
	return strings.Join(got, "|") == strings.Join(want, "|")
}

// TestDraftPublishScheduleAndRead: a draft is the admins' alone; a
// published post is everyone's, in the listing, its tags' and the feed;
// a post scheduled for later reaches readers at its time; moved back to
// drafts or deleted, it leaves them.
func TestDraftPublishScheduleAndRead(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	draft := a.write(t, form("title", "Notes for later", "action", "draft", "tags", ""))
	if draft != "/blog/notes-for-later" {
		t.Fatalf("the draft is at %q", draft)
	}
	for _, c := range []*webtest.Client{a.visitor, a.member} {
		if res := c.Get(draft); res.StatusCode != http.StatusNotFound {
			t.Errorf("a reader opens a draft: %d", res.StatusCode)
		}
		if got := titles(t, c, "/blog"); len(got) != 0 {
			t.Errorf("a reader's listing shows %q", got)
		}
	}
	doc := a.admin.Get(draft).Doc(t)
	if !strings.Contains(doc.Find(testID("blog-status")).Text(), "draft") {
		t.Error("the admin's view of the draft does not say it is one")
	}
	if got := titles(t, a.admin, "/blog/drafts"); !same(got, "Notes for later") {
		t.Errorf("the admins' drafts: %q", got)
	}

	tour := a.write(t, form())
	older := a.write(t, form("title", "Older news", "tags", "news", "publishAt", "2030-05-01T10:00"))
	if got := titles(t, a.visitor, "/blog"); !same(got, "Spring tour", "Older news") {
		t.Errorf("the listing, newest first: %q", got)
	}
	if got := titles(t, a.visitor, "/blog?tag=tour"); !same(got, "Spring tour") {
		t.Errorf("#tour: %q", got)
	}
	if got := titles(t, a.visitor, "/blog?tag=news"); !same(got, "Spring tour", "Older news") {
		t.Errorf("#news: %q", got)
	}
	res := a.visitor.Get(tour)
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "<strong>cities</strong>") {
		t.Fatalf("the post's page: %d, its Markdown not rendered", res.StatusCode)
	}
	if res.Doc(t).Find(testID("post-edit")).Length() != 0 {
		t.Error("a visitor is offered Edit")
	}
	if got := res.Doc(t).Find(testID("blog-more") + " h2.blog-card-title").Text(); got != "Older news" {
		t.Errorf("more from the blog: %q", got)
	}
	feed := a.visitor.Get("/blog/feed.xml")
	if !strings.Contains(feed.Header.Get("Content-Type"), "rss") || !strings.Contains(feed.Body, "<link>https://harmony.example/blog/spring-tour</link>") || strings.Contains(feed.Body, "Notes for later") {
		t.Errorf("the feed: %s %.600s", feed.Header.Get("Content-Type"), feed.Body)
	}

	// Scheduled a day ahead: readers see it from then.
	soon := a.write(t, form("title", "Tickets on sale", "publishAt", "2030-05-18T10:00"))
	if a.visitor.Get(soon).StatusCode != http.StatusNotFound || len(titles(t, a.visitor, "/blog")) != 2 {
		t.Error("a scheduled post reaches readers before its time")
	}
	if got := titles(t, a.admin, "/blog/drafts"); !same(got, "Tickets on sale", "Notes for later") {
		t.Errorf("the admins' list of what readers do not see: %q", got)
	}
	a.Clock.Advance(25 * time.Hour)
	if got := titles(t, a.visitor, "/blog"); !same(got, "Tickets on sale", "Spring tour", "Older news") {
		t.Errorf("after its time: %q", got)
	}

	// Back to drafts, then deleted.
	if res := a.admin.PostForm(tour+"/unpublish", a.admin.WithCSRF(tour, nil)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("unpublish: %d", res.StatusCode)
	}
	if got := titles(t, a.visitor, "/blog?tag=tour"); !same(got, "Tickets on sale") || a.visitor.Get(tour).StatusCode != http.StatusNotFound {
		t.Errorf("a post moved to drafts is still read: %q", got)
	}
	if res := a.admin.PostForm(older+"/delete", a.admin.WithCSRF(older, nil)); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "for good") {
		t.Errorf("delete without confirming: %d (no question)", res.StatusCode)
	}
	if res := a.admin.PostForm(older+"/delete", a.admin.WithCSRF(older, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if a.admin.Get(older).StatusCode != http.StatusNotFound || !same(titles(t, a.visitor, "/blog?tag=news"), "Tickets on sale") {
		t.Error("a deleted post is still there")
	}
}

// TestOnlyAdminsWrite: members are refused (403) and visitors sent to
// sign in, with nothing written.
func TestOnlyAdminsWrite(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	slug := a.write(t, form())
	for _, path := range []string{"/blog/new", "/blog/drafts", slug + "/edit"} {
		if res := a.member.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("a member GET %s: %d", path, res.StatusCode)
		}
		if res := a.visitor.Get(path); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
			t.Errorf("a visitor GET %s: %d %s", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
	token := a.member.CSRFToken("/blog")
	for _, path := range []string{"/blog", slug + "/edit", slug + "/unpublish", slug + "/delete"} {
		f := form("_csrf", token, "confirm", "yes", "title", "Mine now")
		if res := a.member.PostForm(path, f); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
			t.Errorf("a member POST %s: %d, %d writes", path, res.StatusCode, res.Writes(t))
		}
	}
	if got := titles(t, a.visitor, "/blog"); !same(got, "Spring tour") {
		t.Errorf("after the refusals: %q", got)
	}
	if a.member.Get("/blog").Doc(t).Find(testID("blog-new")).Length() != 0 || a.admin.Get("/blog").Doc(t).Find(testID("blog-new")).Length() != 1 {
		t.Error("New post is offered to a member, or not to the admin")
	}
}

// TestBadInputWritesNothing: every refused form is a 422 that says what
// is wrong beside the field and keeps what was typed; bad addresses in
// the URL are a 400 or a 404.
func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	taken := a.write(t, form("title", "Taken"))
	for _, c := range []struct {
		name, field string
		f           url.Values
	}{
		{"no title", "post-title", form("title", " ")},
		{"a long title", "post-title", form("title", strings.Repeat("t", 151))},
		{"a title with a control character", "post-title", form("title", "Bell\x07")},
		{"no text", "post-body", form("body", "")},
		{"a long summary", "post-summary", form("summary", strings.Repeat("s", 301))},
		{"an address with a slash", "post-slug", form("slug", "a/b")},
		{"an address in capitals and spaces", "post-slug", form("slug", "My Post")},
		{"a reserved address", "post-slug", form("slug", "drafts")},
		{"the tags page's address", "post-slug", form("slug", "tags")},
		{"a taken address", "post-slug", form("slug", "taken")},
		{"six tags", "post-tags", form("tags", "a,b,c,d,e,f")},
		{"a tag with a space", "post-tags", form("tags", "two words")},
		{"a tag with a hash", "post-tags", form("tags", "#tour")},
		{"a time that is not one", "post-publishAt", form("publishAt", "tomorrow")},
		{"a year out of range", "post-publishAt", form("publishAt", "3030-01-01T10:00")},
		{"no action", "post-action", form("action", "")},
		{"an unknown action", "post-action", form("action", "sell")},
	} {
		res := a.send(a.admin, "/blog", c.f, nil)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("%s: %d, %d writes", c.name, res.StatusCode, res.Writes(t))
			continue
		}
		doc := res.Doc(t)
		if doc.Find(`[data-testid="field-error"][data-field="`+c.field+`"]`).Length() != 1 {
			t.Errorf("%s: no error beside %s", c.name, c.field)
		}
		if got, _ := doc.Find("#post-body").Html(); c.field != "post-body" && !strings.Contains(got, "Twelve **cities**") {
			t.Errorf("%s: the text typed is lost: %q", c.name, got)
		}
	}
	// Not a picture, and a file over the limit.
	if res := a.send(a.admin, "/blog", form(), []byte("not a picture")); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 || res.Doc(t).Find(`[data-field="post-cover"]`).Length() != 1 {
		t.Errorf("a cover that is not a picture: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if got := titles(t, a.visitor, "/blog"); !same(got, "Taken") {
		t.Errorf("after the refusals: %q", got)
	}
	for path, want := range map[string]int{
		"/blog?tag=a%20b":     http.StatusBadRequest,
		"/blog?tag=%23x":      http.StatusBadRequest,
		"/blog?cursor=abc":    http.StatusBadRequest,
		"/blog/NotASlug":      http.StatusNotFound,
		"/blog/no-such-post":  http.StatusNotFound,
		"/media/blog/x/y.jpg": http.StatusNotFound,
		"/media/blog/01ARZ3NDEKTSV4RRFFQ69G5FAV/..%2f..%2fsecret.jpg": http.StatusNotFound,
	} {
		res := a.visitor.Get(path)
		if res.StatusCode != want || strings.Contains(res.Body, "goroutine") {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	_ = taken
}

// TestAddressesFromTitles: an address is made from the title (Russian
// spelled in Latin letters), a taken one gets a number, a draft may move
// to another address and a published post keeps its own.
func TestAddressesFromTitles(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	if got := a.write(t, form("title", "Новый альбом «Ночь»")); got != "/blog/novyi-albom-noch" {
		t.Errorf("a Russian title's address: %q", got)
	}
	if got := a.write(t, form("title", "Новый альбом: ночь!")); got != "/blog/novyi-albom-noch-2" {
		t.Errorf("the same title again: %q", got)
	}
	if got := a.write(t, form("title", "🎸", "action", "draft")); got != "/blog/post" {
		t.Errorf("a title of emoji: %q", got)
	}
	if got := a.write(t, form("title", "New", "action", "draft")); got != "/blog/new-2" {
		t.Errorf("a title whose address is the editor's: %q", got)
	}
	if got := a.write(t, form("title", "Tags", "action", "draft")); got != "/blog/tags-2" {
		t.Errorf("a title whose address is the tags page's: %q", got)
	}
	if got := a.write(t, form("title", "Any title", "slug", "Tour-Diary-1")); got != "/blog/tour-diary-1" {
		t.Errorf("an address typed: %q", got)
	}

	// A draft moves; its old address is gone, its card follows.
	res := a.send(a.admin, "/blog/post/edit", form("title", "Guitar", "slug", "guitar", "action", "draft"), nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/blog/guitar" {
		t.Fatalf("moving a draft: %d %s %.300s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	if a.admin.Get("/blog/post").StatusCode != http.StatusNotFound || a.admin.Get("/blog/guitar").StatusCode != http.StatusOK {
		t.Error("the draft is not at its new address alone")
	}
	if got := titles(t, a.admin, "/blog/drafts"); !same(got, "Guitar", "New", "Tags") {
		t.Errorf("drafts after the move: %q", got)
	}
	// Onto a taken address: refused, nothing moves.
	res = a.send(a.admin, "/blog/guitar/edit", form("title", "Guitar", "slug", "novyi-albom-noch", "action", "draft"), nil)
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`[data-field="post-slug"]`).Length() != 1 || a.admin.Get("/blog/guitar").StatusCode != http.StatusOK {
		t.Errorf("moving onto a taken address: %d", res.StatusCode)
	}
	// A published post keeps its address.
	res = a.send(a.admin, "/blog/novyi-albom-noch/edit", form("slug", "elsewhere"), nil)
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("moving a published post: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	// Published, then edited: its time stays unless typed.
	p1, _ := a.svc.Post(ctx, "novyi-albom-noch")
	a.Clock.Advance(time.Hour)
	if res := a.send(a.admin, "/blog/novyi-albom-noch/edit", form("title", "Новый альбом, часть 1"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d %.300s", res.StatusCode, res.Body)
	}
	p2, _ := a.svc.Post(ctx, "novyi-albom-noch")
	if !p2.PublishAt.Equal(p1.PublishAt) || p2.Title != "Новый альбом, часть 1" {
		t.Errorf("an edit moved the publication time from %v to %v", p1.PublishAt, p2.PublishAt)
	}
}

// TestCoverPictures: a cover is re-encoded and served from the post's
// folder; a new one replaces the old, whose blobs go; removing it leaves
// none.
func TestCoverPictures(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	slug := a.write(t, form())
	res := a.send(a.admin, slug+"/edit", form(), mediatest.EncodedPNG(t, 1600, 900))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a cover: %d %.300s", res.StatusCode, res.Body)
	}
	cover := func() string {
		src, _ := a.visitor.Get(slug).Doc(t).Find(testID("post-cover")).Attr("src")
		return src
	}
	first := cover()
	if !strings.HasPrefix(first, "/media/blog/") {
		t.Fatalf("the post shows no cover: %q", first)
	}
	if img := a.visitor.Get(first); img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("the cover is not served: %d %s", img.StatusCode, img.Header.Get("Content-Type"))
	}
	card, _ := a.visitor.Get("/blog").Doc(t).Find(".blog-card-cover").Attr("src")
	if !strings.HasSuffix(card, "_s.jpg") {
		t.Errorf("the card's cover is not the small size: %q", card)
	}
	a.send(a.admin, slug+"/edit", form(), mediatest.EncodedPNG(t, 1200, 700))
	second := cover()
	if second == first || a.visitor.Get(first).StatusCode != http.StatusNotFound || a.visitor.Get(card).StatusCode != http.StatusNotFound {
		t.Errorf("the replaced cover is still served (%q, now %q)", first, second)
	}
	a.send(a.admin, slug+"/edit", form("removeCover", "true"), nil)
	if cover() != "" || a.visitor.Get(second).StatusCode != http.StatusNotFound {
		t.Error("a removed cover is still shown or served")
	}
}

// TestListingPagesAndReadsOneQuery: the listing shows twelve posts a
// page and a link to more; a page costs the same storage calls with
// three posts as with fifteen.
func TestListingPagesAndReadsOneQuery(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	cost := func() map[string]int64 {
		return a.visitor.Get("/blog?tag=news").StorageOps(t)
	}
	for i := range 3 {
		a.write(t, form("title", fmt.Sprintf("Post %02d", i), "publishAt", fmt.Sprintf("2030-05-%02dT10:00", i+1)))
	}
	few := cost()
	for i := 3; i < 15; i++ {
		a.write(t, form("title", fmt.Sprintf("Post %02d", i), "publishAt", fmt.Sprintf("2030-05-%02dT10:00", i+1)))
	}
	many := cost()
	if few["total"] != many["total"] || many["queries"] > 1 || many["reads"] > 0 {
		t.Errorf("a listing page: %v with three posts, %v with fifteen", few, many)
	}
	res := a.visitor.Get("/blog")
	doc := res.Doc(t)
	if got := doc.Find(testID("blog-card")).Length(); got != 12 {
		t.Errorf("the first page: %d posts", got)
	}
	if doc.Find(testID("blog-card")).First().Find("h2").Text() != "Post 14" {
		t.Error("the newest is not first")
	}
	next, ok := doc.Find(testID("load-more")).Attr("href")
	if !ok {
		t.Fatal("no link to more")
	}
	more := a.visitor.Get(next, "HX-Request", "true")
	if got := more.Doc(t).Find(testID("blog-card")).Length(); got != 3 || more.Doc(t).Find(testID("load-more")).Length() != 0 {
		t.Errorf("the second page: %d posts", got)
	}
	// A token for one list does not open another.
	token, _ := url.Parse(next)
	if res := a.visitor.Get("/blog?tag=news&cursor=" + url.QueryEscape(token.Query().Get("cursor"))); res.StatusCode != http.StatusBadRequest {
		t.Errorf("all posts' token on #news: %d", res.StatusCode)
	}
	// A post: its point read, then a query of the newest posts ("More
	// from the blog") and one of its comments.
	if got := a.visitor.Get("/blog/post-05").StorageOps(t); got["reads"] != 1 || got["queries"] != 2 {
		t.Errorf("a post's page: %v", got)
	}
}

// TestRebuildRestoresTheCards: cards lost, stale or left behind are put
// right from the posts by web reindex blog's rebuild, which a second
// run finds nothing left to do.
func TestRebuildRestoresTheCards(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	a.write(t, form())
	a.write(t, form("title", "Draft", "action", "draft"))
	index := a.Store.Table(blog.IndexTable)
	var keys [][2]string
	index.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		keys = append(keys, [2]string{e.PartitionKey, e.RowKey})
		return nil
	})
	if len(keys) != 4 { // all, #tour, #news, the draft
		t.Fatalf("cards: %v", keys)
	}
	for _, k := range keys[:2] {
		if err := index.Delete(ctx, k[0], k[1], storage.AnyETag); err != nil {
			t.Fatal(err)
		}
	}
	orphan := blog.CardRow{PartitionKey: "tag|old", RowKey: "0|gone", Slug: "gone"}
	orphan.Title, orphan.PublishAt, orphan.UpdatedAt = "Gone", accounttest.Start, accounttest.Start
	if _, err := storage.Insert(ctx, index, orphan); err != nil {
		t.Fatal(err)
	}
	report, err := a.svc.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !same(titles(t, a.visitor, "/blog?tag=tour"), "Spring tour") || !same(titles(t, a.visitor, "/blog"), "Spring tour") || len(titles(t, a.visitor, "/blog?tag=old")) != 0 {
		t.Errorf("after the rebuild (%s) the listings are not whole", report)
	}
	again, err := a.svc.Rebuild(ctx)
	if err != nil || again.String() == report.String() {
		t.Errorf("a second rebuild: %s (the first: %s), %v", again, report, err)
	}
}

// TestPicturesInTheText: a picture uploaded for the text (with htmx the
// panel comes back in place, with its line for the text) shows in the
// post where its line stands; no other image does; a refused upload
// writes nothing, and a deleted picture is no longer served.
func TestPicturesInTheText(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	slug := a.write(t, form("action", "draft"))
	upload := func(data []byte, headers ...string) *webtest.Response {
		return a.admin.PostFile(slug+"/pictures", a.admin.WithCSRF(slug+"/edit", url.Values{}), "picture", "p.png", data, headers...)
	}
	res := upload(mediatest.EncodedPNG(t, 1200, 800), "HX-Request", "true")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("a picture with htmx: %d %.300s", res.StatusCode, res.Body)
	}
	doc := res.Doc(t)
	line, _ := doc.Find(testID("picture-markdown")).Attr("value")
	if doc.Find(testID("blog-form")).Length() != 0 || !strings.HasPrefix(line, "![](/media/blog/") || doc.Find(testID("pictures-message")).Length() != 1 {
		t.Fatalf("the panel: line %q, %.400s", line, res.Body)
	}
	src := strings.TrimSuffix(strings.TrimPrefix(line, "![]("), ")")
	res = upload(mediatest.EncodedPNG(t, 800, 600))
	if res.StatusCode != http.StatusSeeOther || !strings.HasSuffix(res.Header.Get("Location"), "/edit#pictures") {
		t.Errorf("a picture without htmx: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if got := a.admin.Get(slug + "/edit").Doc(t).Find(testID("picture-item")).Length(); got != 2 {
		t.Errorf("the editor lists %d pictures", got)
	}
	for _, bad := range [][]byte{[]byte("not a picture"), nil} {
		res := upload(bad, "HX-Request", "true")
		if res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 || res.Doc(t).Find(`[data-field="blog-picture"]`).Length() != 1 {
			t.Errorf("a bad upload: %d, %d writes", res.StatusCode, res.Writes(t))
		}
	}

	body := "Before.\n\n![The stage](" + src + ")\n\n![pixel](https://tracker.example/p.gif)"
	if res := a.send(a.admin, slug+"/edit", form("body", body), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d %.300s", res.StatusCode, res.Body)
	}
	page := a.visitor.Get(slug).Doc(t).Find(testID("post-body"))
	if got, _ := page.Find("img").Attr("src"); got != src || page.Find("img").Length() != 1 || !strings.Contains(page.Text(), "pixel") {
		t.Errorf("the post's pictures: %d, src %q", page.Find("img").Length(), got)
	}
	if img := a.visitor.Get(src); img.StatusCode != http.StatusOK {
		t.Errorf("the picture is not served: %d", img.StatusCode)
	}
	file := src[strings.LastIndex(src, "/")+1:]
	del := a.admin.PostForm(slug+"/pictures/"+file+"/delete", a.admin.WithCSRF(slug+"/edit", url.Values{"confirm": {"yes"}}), "HX-Request", "true")
	if del.StatusCode != http.StatusOK || del.Doc(t).Find(testID("picture-item")).Length() != 1 || a.visitor.Get(src).StatusCode != http.StatusNotFound {
		t.Errorf("a deleted picture: %d, %d items, served %d", del.StatusCode, del.Doc(t).Find(testID("picture-item")).Length(), a.visitor.Get(src).StatusCode)
	}
	if got := a.visitor.Get(slug).Doc(t).Find(testID("post-body") + " img").Length(); got != 0 {
		t.Errorf("the post shows %d pictures after the delete", got)
	}
	if res := a.admin.PostForm(slug+"/pictures/"+file+"/delete", a.admin.WithCSRF(slug+"/edit", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusNotFound {
		t.Errorf("deleting it again: %d", res.StatusCode)
	}
}

// TestVisitorsShareTheBlog: the listing, a tag's and a post are rendered
// once for every visitor (the second costs no storage call), and a post
// published or changed shows to the next visitor at once.
func TestVisitorsShareTheBlog(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	slug := a.write(t, form())
	for _, path := range []string{"/blog", "/blog?tag=tour", "/blog/tags", slug} {
		first := a.Client().Get(path)
		second := a.Client().Get(path)
		if first.StatusCode != http.StatusOK || second.Body != first.Body || second.StorageOps(t)["total"] != 0 {
			t.Errorf("%s: %d, the second visitor's look cost %s", path, first.StatusCode, second.Header.Get("X-Storage-Ops"))
		}
	}
	a.write(t, form("title", "Second post"))
	a.send(a.admin, slug+"/edit", form("title", "Spring tour, updated"), nil)
	if got := titles(t, a.Client(), "/blog"); !same(got, "Second post", "Spring tour, updated") {
		t.Errorf("the next visitor's listing: %q", got)
	}
	if got := a.Client().Get(slug).Doc(t).Find(testID("post-title")).Text(); got != "Spring tour, updated" {
		t.Errorf("the next visitor's post: %q", got)
	}
}

// TestFollowersHearOfNewPosts: members who follow the blog are told of
// each post once, when readers can see it (at once, or at its scheduled
// time), and not of drafts or edits; one who stopped following is not
// told. A post whose telling was never queued (a crash) is told of after
// web reindex blog.
func TestFollowersHearOfNewPosts(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	leo := a.Client()
	a.SignIn(leo, "leo@example.com")
	if a.visitor.Get("/blog").Doc(t).Find(testID("blog-follow-signin")).Length() != 1 {
		t.Error("a visitor is not asked to sign in to follow")
	}
	for _, c := range []*webtest.Client{a.member, leo, a.admin} {
		if res := c.PostForm("/blog/follow", c.WithCSRF("/blog", url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("follow: %d %.300s", res.StatusCode, res.Body)
		}
	}
	leo.PostForm("/blog/follow", leo.WithCSRF("/blog", url.Values{"on": {"false"}}))
	if a.member.Get("/blog").Doc(t).Find(testID("blog-following")).Length() != 1 || leo.Get("/blog").Doc(t).Find(testID("blog-follow")).Length() != 1 {
		t.Error("the listing does not say who follows")
	}
	for _, on := range []string{"", "maybe"} {
		if res := leo.PostForm("/blog/follow", leo.WithCSRF("/blog", url.Values{"on": {on}})); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
			t.Errorf("follow on=%q: %d, %d writes", on, res.StatusCode, res.Writes(t))
		}
	}

	draft := a.write(t, form("title", "Draft news", "action", "draft"))
	a.write(t, form("title", "Spring tour"))
	a.write(t, form("title", "Tickets on sale", "publishAt", "2030-05-18T10:00"))
	if items := a.Inbox(a.member); items.Length() != 1 || !strings.Contains(items.Text(), "New on the blog: Spring tour") {
		t.Errorf("Mia's inbox after the first post: %q", items.Text())
	}
	if n := a.Inbox(leo).Length(); n != 0 {
		t.Errorf("Leo unfollowed and was told %d times", n)
	}
	if n := a.Inbox(a.admin).Length(); n != 0 {
		t.Errorf("the author was told of their own posts %d times", n)
	}
	a.Clock.Advance(25 * time.Hour)
	if items := a.Inbox(a.member); items.Length() != 2 || !strings.Contains(items.First().Text(), "Tickets on sale") {
		t.Errorf("Mia's inbox after the scheduled post's time: %q", items.Text())
	}
	// An edit, and a draft published: only the draft is news.
	a.send(a.admin, "/blog/spring-tour/edit", form("title", "Spring tour (updated)"), nil)
	a.send(a.admin, draft+"/edit", form("title", "Draft news"), nil)
	if items := a.Inbox(a.member); items.Length() != 3 || !strings.Contains(items.Text(), "Draft news") {
		t.Errorf("Mia's inbox after an edit and a draft published: %q", items.Text())
	}

	// A post written without its telling queued: the rebuild queues it.
	lost := blog.PostRow{PartitionKey: "post", RowKey: "lost-news", Body: "Lost.", Card: blog.Card{AuthorKey: a.Who(a.admin)}, CreatedAt: a.Clock.Now()}
	lost.ID, lost.Title, lost.Published, lost.PublishAt, lost.UpdatedAt, lost.Minutes = "01ARZ3NDEKTSV4RRFFQ69G5FAV", "Lost news", true, a.Clock.Now().Add(-time.Minute), a.Clock.Now(), 1
	if _, err := storage.Insert(ctx, a.Store.Table(blog.PostsTable), lost); err != nil {
		t.Fatal(err)
	}
	report, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(report.String(), "1 posts' announcements queued") {
		t.Fatalf("the rebuild: %v %v", report, err)
	}
	if items := a.Inbox(a.member); items.Length() != 4 || !strings.Contains(items.Text(), "Lost news") {
		t.Errorf("Mia's inbox after the rebuild: %q", items.Text())
	}
	if again, _ := a.svc.Rebuild(ctx); !strings.Contains(again.String(), "0 posts' announcements queued") {
		t.Errorf("a second rebuild: %v", again)
	}
}

// TestPreviewingAPost: the editor's "Preview" shows the text rendered,
// made safe, and saves nothing: with htmx the box alone, without
// JavaScript the editor again with everything typed; a text the form
// would refuse is not rendered but refused beside the field; it is the
// admins' alone.
func TestPreviewingAPost(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	htmx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	body := "Twelve **cities** <script>alert(1)</script>"
	res := a.admin.PostForm("/blog/preview", a.admin.WithCSRF("/blog/new", url.Values{"body": {body}}), htmx...)
	if d := res.Doc(t); res.StatusCode != http.StatusOK || strings.Contains(res.Body, "<html") || d.Find(testID("preview-box")+" strong").Text() != "cities" ||
		d.Find("script").Length() != 0 || res.Writes(t) != 0 {
		t.Fatalf("the htmx preview: %d %s", res.StatusCode, res.Body)
	}
	// A picture of the blog's shows, as in the post.
	pic := "/media/blog/01M8FMYXGJ6H0JP67RA2D56Q0T/85a21d8e44e67b3193370816fb5c1b4d.jpg"
	res = a.admin.PostForm("/blog/preview", a.admin.WithCSRF("/blog/new", url.Values{"body": {"![The van](" + pic + ")"}}), htmx...)
	if src := res.Doc(t).Find(testID("preview-box")+" img").AttrOr("src", ""); src != pic {
		t.Errorf("the preview's picture: %q", src)
	}
	for _, bad := range []string{"", strings.Repeat("x", 40001), "a\x00b"} {
		res := a.admin.PostForm("/blog/preview", a.admin.WithCSRF("/blog/new", url.Values{"body": {bad}}), htmx...)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(testID("preview-box")+" .field-error").Length() != 1 || res.Doc(t).Find(".rich-text").Length() != 0 {
			t.Errorf("the preview of %.12q: %d", bad, res.StatusCode)
		}
	}
	if res := a.member.PostForm("/blog/preview", a.member.WithCSRF("/blog", url.Values{"body": {"hi"}}), htmx...); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member's preview: %d", res.StatusCode)
	}

	// Without JavaScript the new post's form comes back, typed as it was,
	// the preview under the text; nothing is saved.
	res = a.send(a.admin, "/blog", form("title", "Not yet", "body", body, "preview", "1"), nil)
	d := res.Doc(t)
	if res.StatusCode != http.StatusOK || d.Find(testID("blog-form")+" "+testID("preview-box")+" strong").Text() != "cities" ||
		d.Find(`input[name="title"]`).AttrOr("value", "") != "Not yet" || d.Find(`textarea[name="body"]`).Text() != body || res.Writes(t) != 0 {
		t.Fatalf("the form's preview: %d", res.StatusCode)
	}
	if got := titles(t, a.admin, "/blog"); len(got) != 0 {
		t.Fatalf("a preview published %q", got)
	}
	res = a.send(a.admin, "/blog", form("body", "", "preview", "1"), nil)
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find("#post-body-error").Length() != 1 || res.Writes(t) != 0 {
		t.Errorf("the form's preview of no text: %d", res.StatusCode)
	}
	// A post being changed: the preview shows the new text, the post
	// keeps the old.
	post := a.write(t, form())
	res = a.send(a.admin, post+"/edit", form("body", "Thirteen *cities*", "preview", "1"), nil)
	if res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("preview-box")+" em").Text() != "cities" || res.Writes(t) != 0 {
		t.Fatalf("the edit's preview: %d", res.StatusCode)
	}
	if strings.Contains(a.visitor.Get(post).Body, "Thirteen") {
		t.Error("the edit's preview changed the post")
	}
}

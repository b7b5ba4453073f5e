package blog_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/blog"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
)

// cardsRefused refuses, while armed, every write to the listing's cards:
// a deletion that stops between a post and its cards.
type cardsRefused struct {
	storage.Backend
	armed atomic.Bool
}

func (b *cardsRefused) refuse(table string) bool {
	return b.armed.Load() && strings.HasSuffix(table, blog.IndexTable)
}

func (b *cardsRefused) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if b.refuse(table) {
		return "", errStopped
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b *cardsRefused) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if b.refuse(table) {
		return "", errStopped
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

// TestDeletingAnAccountInTheBlog: the archive of an admin who wrote a
// post and commented holds their post, their comment and their follow,
// and nobody else's comment. Their deletion, cut short between the post
// and its cards, is finished by the next run: their comment stays under
// the post and the post on the blog, both by "Deleted member" with no
// link, the reply to it stays, nothing in the blog's tables names them,
// the rebuild finds the cards right, and one more run changes nothing.
func TestDeletingAnAccountInTheBlog(t *testing.T) {
	t.Parallel()
	crash := &cardsRefused{}
	a := newAppOn(t, func(b storage.Backend) storage.Backend { crash.Backend = b; return crash })
	post := a.write(t, form("title", "Farewell tour"))
	if res := addComment(a, a.admin, post, "Thanks for coming!", false); res.StatusCode >= 400 {
		t.Fatalf("boss comments: %d", res.StatusCode)
	}
	if res := addComment(a, a.member, post, "See you in Riga.", false); res.StatusCode >= 400 {
		t.Fatalf("mia comments: %d", res.StatusCode)
	}
	res := a.admin.PostForm("/blog/follow", a.admin.WithCSRF("/blog", url.Values{"on": {"true"}}))
	if res.StatusCode >= 400 {
		t.Fatalf("follow: %d", res.StatusCode)
	}
	boss := memberdatatest.Member(a.Who(a.admin), "boss@example.com")
	tables := a.svc.Tables()
	if len(memberdatatest.Traces(t, a.Store, boss, tables...)) < 3 {
		t.Fatalf("the blog keeps too little of boss: %v", memberdatatest.Traces(t, a.Store, boss, tables...))
	}

	arch := &memberdatatest.Archive{}
	if err := a.svc.ExportMember(t.Context(), boss, arch); err != nil {
		t.Fatal(err)
	}
	text := arch.Text()
	for _, want := range []string{"blog/comments.json", "Thanks for coming!", "blog/posts.json", "Farewell tour", `"follows_the_blog": true`} {
		if !strings.Contains(text, want) {
			t.Errorf("the archive lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Riga") {
		t.Errorf("the archive holds mia's comment:\n%s", text)
	}

	crash.armed.Store(true)
	if err := a.svc.ForgetMember(t.Context(), boss); err == nil {
		t.Fatal("a forget whose card writes failed reported nothing")
	}
	crash.armed.Store(false)
	if err := a.svc.ForgetMember(t.Context(), boss); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.Traces(t, a.Store, boss, tables...); len(left) > 0 {
		t.Fatalf("rows still naming boss: %v", left)
	}

	doc := a.member.Get(post).Doc(t)
	if got := strings.TrimSpace(doc.Find(testID("blog-byline")).Text()); !strings.Contains(got, memberdataName) {
		t.Errorf("the post's byline: %q", got)
	}
	var authors []string
	doc.Find(testID("comment")).Each(func(_ int, s *goquery.Selection) {
		authors = append(authors, strings.TrimSpace(s.Find(testID("comment-author")).Text()))
		if s.Find("a "+testID("comment-author")).Length() > 0 && strings.Contains(s.Text(), "Thanks") {
			t.Errorf("the deleted member's comment links to a profile")
		}
	})
	if !same(commentTexts(t, a.member, post), "See you in Riga.", "Thanks for coming!") || len(authors) != 2 || authors[0] == memberdataName || authors[1] != memberdataName {
		t.Errorf("comments after the deletion: %q by %q", commentTexts(t, a.member, post), authors)
	}
	if list := a.member.Get("/blog").Doc(t).Find(testID("blog-card")).Text(); !strings.Contains(list, memberdataName) {
		t.Errorf("the listing's card: %q", list)
	}

	before := memberdatatest.Snapshot(t, a.Store, tables...)
	if err := a.svc.ForgetMember(t.Context(), boss); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
	rep, err := a.svc.Rebuild(t.Context())
	if err != nil || !strings.HasPrefix(rep.String(), "1 canonical rows read; 0 derived rows written, 0 removed") {
		t.Errorf("the rebuild after the deletion: %v, %v", rep, err)
	}
	if errors.Is(err, errStopped) {
		t.Fatal(err)
	}
}

const memberdataName = "Deleted member"

package blog_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/blog"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// leftoversRefused is a backend that, while armed, refuses to delete a
// file or to run a transaction but the task queue's: a process that
// stopped right after a post's own writes and the queueing of its
// burial, before what hangs on the post went.
type leftoversRefused struct {
	storage.Backend
	armed atomic.Bool
}

var errStopped = errors.New("the process stopped")

func (b *leftoversRefused) DeleteBlob(ctx context.Context, container, name string) error {
	if b.armed.Load() {
		return errStopped
	}
	return b.Backend.DeleteBlob(ctx, container, name)
}

func (b *leftoversRefused) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if b.armed.Load() && table != tasks.Table {
		return errStopped
	}
	return b.Backend.Transact(ctx, table, ops)
}

// TestADeletionCutShortIsFinished: a post whose deletion stopped after
// its own writes is gone for everyone at once; its burial a minute
// later, deleting it again, or web reindex blog, then takes its
// comments and its pictures (the cover and the text's): no comment is
// left in storage, the pictures' addresses are 404, and a new post of
// the same title takes its address. The rebuild does the same for a
// post whose row is gone, and says what it removed. A post that is not
// there is 404 to delete, and nothing is written.
func TestADeletionCutShortIsFinished(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// cut leaves the post half deleted; finish finishes it.
		cut    func(t *testing.T, a *app, crash *leftoversRefused, post string)
		finish func(t *testing.T, a *app, post string)
	}{
		{"by itself", stopDeleting, buried},
		{"deleted again", stopDeleting, deleteAgain},
		{"the rebuild", stopDeleting, rebuild},
		{"the post's row gone", dropPostRow, rebuild},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var crash *leftoversRefused
			a := newAppOn(t, func(b storage.Backend) storage.Backend {
				crash = &leftoversRefused{Backend: b}
				return crash
			})
			post := a.write(t, form())
			if res := a.send(a.admin, post+"/edit", form(), mediatest.EncodedPNG(t, 1200, 700)); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("a cover: %d", res.StatusCode)
			}
			res := a.admin.PostFile(post+"/pictures", a.admin.WithCSRF(post+"/edit", url.Values{}), "picture", "p.png", mediatest.EncodedPNG(t, 800, 600), "HX-Request", "true")
			line := res.Doc(t).Find(testID("picture-markdown")).AttrOr("value", "")
			picture := strings.TrimSuffix(strings.TrimPrefix(line, "![]("), ")")
			cover := a.member.Get(post).Doc(t).Find(testID("post-cover")).AttrOr("src", "")
			urls := []string{cover, pictures.Small(cover), picture, pictures.Small(picture)}
			for _, u := range urls {
				if a.visitor.Get(u).StatusCode != http.StatusOK {
					t.Fatalf("picture %q is not served", u)
				}
			}
			for _, body := range []string{"Lovely.", "See you in Riga!"} {
				if res := addComment(a, a.member, post, body, false); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("comment: %d", res.StatusCode)
				}
			}

			c.cut(t, a, crash, post)
			c.finish(t, a, post)

			if n := countComments(t, a); n != 0 {
				t.Errorf("%d comments outlive their post", n)
			}
			for _, u := range urls {
				if res := a.visitor.Get(u); res.StatusCode != http.StatusNotFound {
					t.Errorf("picture %q of the deleted post: %d", u, res.StatusCode)
				}
			}
			if blobs, err := a.Store.Container(blog.ImagesContainer).List(ctx, ""); err != nil || len(blobs) != 0 {
				t.Errorf("files left of the deleted post: %d (%v)", len(blobs), err)
			}
			if got := titles(t, a.member, "/blog"); len(got) != 0 {
				t.Errorf("the blog lists %q", got)
			}
			if again := a.write(t, form()); again != post {
				t.Errorf("a new post of the same title is at %s, not at %s", again, post)
			}
		})
	}
	a := newApp(t)
	for _, path := range []string{"/blog/not-there/delete", "/blog/Not%20an%20address/delete"} {
		if res := a.admin.PostForm(path, a.admin.WithCSRF("/blog", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("POST %s: %d, %d writes", path, res.StatusCode, res.Writes(t))
		}
	}
}

// stopDeleting deletes post with the process stopping after the post's
// own writes; the post, its comments' forms, its editor, its card and
// its place in the feed are gone.
func stopDeleting(t *testing.T, a *app, crash *leftoversRefused, post string) {
	t.Helper()
	crash.armed.Store(true)
	a.admin.PostForm(post+"/delete", a.admin.WithCSRF(post, url.Values{"confirm": {"yes"}}))
	crash.armed.Store(false)
	for _, res := range []int{a.member.Get(post).StatusCode, a.admin.Get(post).StatusCode, a.admin.Get(post + "/edit").StatusCode, addComment(a, a.member, post, "Still here?", false).StatusCode} {
		if res != http.StatusNotFound {
			t.Errorf("a post whose deletion stopped half way: %d", res)
		}
	}
	if got := titles(t, a.member, "/blog"); len(got) != 0 {
		t.Errorf("the blog lists %q", got)
	}
	if feed := a.visitor.Get("/blog/feed.xml").Body; strings.Contains(feed, post) {
		t.Errorf("the feed names the post: %.600s", feed)
	}
}

// dropPostRow deletes post's row and nothing else.
func dropPostRow(t *testing.T, a *app, _ *leftoversRefused, post string) {
	t.Helper()
	if err := a.Store.Table(blog.PostsTable).Delete(ctx, "post", strings.TrimPrefix(post, "/blog/"), storage.AnyETag); err != nil {
		t.Fatal(err)
	}
}

// buried is the deletion's burial running when it is due, a minute
// after it was queued; nobody deletes the post again.
func buried(t *testing.T, a *app, post string) {
	t.Helper()
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if countComments(t, a) == 0 {
		t.Fatal("the burial ran before it was due")
	}
	a.Clock.Advance(time.Minute)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestACommentRacingItsPostsDeletion: a comment whose post is deleted
// between the route's read of the post and the comment's write (after
// the deletion took the post's comments) is refused, 404, and not left
// in storage.
func TestACommentRacingItsPostsDeletion(t *testing.T) {
	t.Parallel()
	var race *deletedMeanwhile
	a := newAppOn(t, func(b storage.Backend) storage.Backend {
		race = &deletedMeanwhile{Backend: b}
		return race
	})
	post := a.write(t, form())
	p, err := a.svc.Post(ctx, strings.TrimPrefix(post, "/blog/"))
	if err != nil {
		t.Fatal(err)
	}
	race.before = func() {
		if err := a.svc.Delete(ctx, p); err != nil {
			t.Error(err)
		}
	}
	if res := addComment(a, a.member, post, "First!", false); res.StatusCode != http.StatusNotFound {
		t.Errorf("a comment on a post deleted meanwhile: %d", res.StatusCode)
	}
	if n := countComments(t, a); n != 0 {
		t.Errorf("%d comments outlive their post", n)
	}
}

// deletedMeanwhile runs before, once, ahead of the first comment's
// write.
type deletedMeanwhile struct {
	storage.Backend
	before func()
	once   sync.Once
}

func (b *deletedMeanwhile) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if table == blog.CommentsTable && b.before != nil {
		b.once.Do(b.before)
	}
	return b.Backend.Insert(ctx, table, e)
}

// deleteAgain is the admin deleting post again.
func deleteAgain(t *testing.T, a *app, post string) {
	t.Helper()
	if res := a.admin.PostForm(post+"/delete", a.admin.WithCSRF("/blog", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Errorf("deleting it again: %d", res.StatusCode)
	}
}

// rebuild runs web reindex blog, which reports removing one post's
// leftovers, and then, run again, none.
func rebuild(t *testing.T, a *app, _ string) {
	t.Helper()
	report, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(report.String(), "; 1 deleted posts' comments and pictures removed") {
		t.Errorf("the rebuild: %v, %v", report, err)
	}
	if again, err := a.svc.Rebuild(ctx); err != nil || !strings.Contains(again.String(), "; 0 deleted posts' comments and pictures removed") {
		t.Errorf("a second rebuild: %v, %v", again, err)
	}
}

// TestADeleteThatMissedAMovedDraftTakesNothingOfIt: a draft moved to
// another address between the delete route's read of it and the
// delete's mark is not deleted (404), and the burial queued for its old
// address a minute later leaves its cover, which is the moved draft's.
func TestADeleteThatMissedAMovedDraftTakesNothingOfIt(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	post := a.write(t, form("title", "Guitar", "action", "draft"))
	if res := a.send(a.admin, post+"/edit", form("title", "Guitar", "action", "draft"), mediatest.EncodedPNG(t, 1200, 700)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a cover: %d", res.StatusCode)
	}
	p, err := a.svc.Post(ctx, strings.TrimPrefix(post, "/blog/"))
	if err != nil {
		t.Fatal(err)
	}
	if res := a.send(a.admin, post+"/edit", form("title", "Guitar", "slug", "acoustic", "action", "draft"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("moving the draft: %d", res.StatusCode)
	}
	if err := a.svc.Delete(ctx, p); !errors.Is(err, blog.ErrNoPost) {
		t.Fatalf("deleting the draft as read before it moved: %v", err)
	}
	a.Clock.Advance(time.Minute)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	cover := a.admin.Get("/blog/acoustic").Doc(t).Find(testID("post-cover")).AttrOr("src", "")
	if cover == "" {
		t.Fatal("the moved draft shows no cover")
	}
	if res := a.admin.Get(cover); res.StatusCode != http.StatusOK {
		t.Errorf("the moved draft's cover: %d", res.StatusCode)
	}
}

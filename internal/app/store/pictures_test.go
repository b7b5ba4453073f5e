package store_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harmony/harmony/internal/app/store"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// secondUpload runs the hook armed, once, right after the second query
// of the pictures it sees: an upload's reading of the pictures after
// adding its own, so another upload runs whole between that read and
// the item's write.
type secondUpload struct {
	storage.Backend
	hook    *atomic.Pointer[func()]
	queries *atomic.Int32
}

func (b secondUpload) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	page, err := b.Backend.Query(ctx, table, q)
	if strings.HasSuffix(table, store.PicturesTable) && b.hook.Load() != nil && b.queries.Add(1) == 2 {
		(*b.hook.Swap(nil))()
	}
	return page, err
}

// morePictures is how many pictures an item's page shows under its own
// to c (signed in: a visitor's is a shared page, kept a few seconds).
func morePictures(t *testing.T, c *webtest.Client, item string) int {
	t.Helper()
	return c.Get(item).Doc(t).Find(testID("item-pictures") + " a").Length()
}

// TestTwoUploadsAtOnceKeepBoth: a picture uploaded while another upload
// to the item is between adding its picture and recording it on the
// item: the item's page shows both.
func TestTwoUploadsAtOnceKeepBoth(t *testing.T) {
	t.Parallel()
	var hook atomic.Pointer[func()]
	var queries atomic.Int32
	a := newAppOn(t, func(b storage.Backend) storage.Backend { return secondUpload{b, &hook, &queries} })
	item := a.add(t, form())
	upload := func(c *webtest.Client, width int) {
		res := c.PostFile(item+"/pictures", c.WithCSRF("/store", nil), "photo", "more.png", mediatest.EncodedPNG(t, width, 200))
		if res.StatusCode != http.StatusSeeOther {
			t.Errorf("upload: %d", res.StatusCode)
		}
	}
	other := a.Client()
	a.SignIn(other, "boss@example.com")
	second := func() { upload(other, 320) }
	hook.Store(&second)
	upload(a.admin, 300)
	if hook.Load() != nil {
		t.Fatal("the second upload did not run between the first's steps")
	}
	if n := morePictures(t, a.mia, item); n != 2 {
		t.Errorf("the item's page shows %d pictures, want 2", n)
	}
}

// TestTheRebuildRecordsMorePictures: an item whose record of its
// pictures missed a change (an upload, a deletion: a crash between the
// picture's row and the item's write) shows them all again after web
// reindex store, which a second run finds nothing left to do.
func TestTheRebuildRecordsMorePictures(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	lost, stale := a.add(t, form("title", "Hoodie")), a.add(t, form("title", "Poster"))
	for _, item := range []string{lost, stale} {
		for i := range 2 {
			res := a.admin.PostFile(item+"/pictures", a.admin.WithCSRF("/store", nil), "photo", "more.png", mediatest.EncodedPNG(t, 300+i*10, 200))
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("upload: %d", res.StatusCode)
			}
		}
	}
	// The crash: the hoodie's record lost its pictures, and the poster's
	// names one deleted since.
	items := a.Store.Table(store.ItemsTable)
	for item, more := range map[string]func(string) string{
		lost:  func(string) string { return "" },
		stale: func(m string) string { return m + ",gone/0123456789abcdef0123456789abcdef.jpg" },
	} {
		if _, err := storage.Change(ctx, items, "item", strings.TrimPrefix(item, "/store/"), storage.ErrNotFound, func(it *store.ItemRow) error {
			it.More = more(it.More)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if morePictures(t, a.mia, lost) != 0 || morePictures(t, a.mia, stale) != 3 {
		t.Fatal("the records were not damaged as the test means them to be")
	}
	report, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(report.String(), "; 2 items' pictures recorded again") {
		t.Fatalf("the rebuild: %v %v", report, err)
	}
	if l, s := morePictures(t, a.mia, lost), morePictures(t, a.mia, stale); l != 2 || s != 2 {
		t.Errorf("after the rebuild the pages show %d and %d pictures, want 2 and 2", l, s)
	}
	if again, err := a.svc.Rebuild(ctx); err != nil || !strings.Contains(again.String(), "; 0 items' pictures recorded again") {
		t.Errorf("a second rebuild: %v %v", again, err)
	}
}

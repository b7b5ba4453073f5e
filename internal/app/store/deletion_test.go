package store_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/store"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// stopsAfter is a backend that, once armed, lets the next writes through
// and refuses every write after them but the task queue's: a process
// that stopped part way through a request, after it queued what was to
// finish it.
type stopsAfter struct {
	storage.Backend
	armed atomic.Bool
	left  atomic.Int64 // writes let through while armed
}

// stopAfter arms b to let n more writes through; disarm lets all through
// again.
func (b *stopsAfter) stopAfter(n int64) { b.left.Store(n); b.armed.Store(true) }
func (b *stopsAfter) disarm()           { b.armed.Store(false) }

var errStopped = errors.New("the process stopped")

func (b *stopsAfter) write() error {
	if b.armed.Load() && b.left.Add(-1) < 0 {
		return errStopped
	}
	return nil
}

func (b *stopsAfter) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if err := b.write(); err != nil {
		return "", err
	}
	return b.Backend.Insert(ctx, table, e)
}

func (b *stopsAfter) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if err := b.write(); err != nil {
		return "", err
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

func (b *stopsAfter) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if err := b.write(); err != nil {
		return "", err
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b *stopsAfter) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if err := b.write(); err != nil {
		return err
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

func (b *stopsAfter) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if table == tasks.Table {
		return b.Backend.Transact(ctx, table, ops)
	}
	if err := b.write(); err != nil {
		return err
	}
	return b.Backend.Transact(ctx, table, ops)
}

func (b *stopsAfter) PutBlob(ctx context.Context, container, name string, data []byte, contentType, ifMatch string) (string, error) {
	if err := b.write(); err != nil {
		return "", err
	}
	return b.Backend.PutBlob(ctx, container, name, data, contentType, ifMatch)
}

func (b *stopsAfter) DeleteBlob(ctx context.Context, container, name string) error {
	if err := b.write(); err != nil {
		return err
	}
	return b.Backend.DeleteBlob(ctx, container, name)
}

// TestADeletionCutShortIsFinished: an item whose deletion stopped after
// its first write is gone for everyone at once; its burial a minute
// later, deleting it again, or web reindex store, then takes its pictures (its own and the more
// ones): their addresses are 404 and no picture row or file is left. The
// rebuild does the same for pictures whose item's row is gone (an upload
// that raced the deletion), and says what it removed. An item that is
// not there is 404 to delete, and nothing is written.
func TestADeletionCutShortIsFinished(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		// cut leaves the item half deleted; finish finishes it.
		cut    func(t *testing.T, a *app, crash *stopsAfter, item string)
		finish func(t *testing.T, a *app, item string)
	}{
		{"by itself", stopDeleting, buried},
		{"deleted again", stopDeleting, deleteAgain},
		{"the rebuild", stopDeleting, rebuild},
		{"the item's row gone", dropItemRow, rebuild},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var crash *stopsAfter
			a := newAppOn(t, func(b storage.Backend) storage.Backend {
				crash = &stopsAfter{Backend: b}
				return crash
			})
			res := a.send("/store", form(), mediatest.EncodedPNG(t, 900, 900))
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("add: %d", res.StatusCode)
			}
			item := res.Header.Get("Location")
			for i := range 2 {
				if res := a.admin.PostFile(item+"/pictures", a.admin.WithCSRF("/store", nil), "photo", "more.png", mediatest.EncodedPNG(t, 300+i*10, 200)); res.StatusCode != http.StatusSeeOther {
					t.Fatalf("picture %d: %d", i, res.StatusCode)
				}
			}
			doc := a.mia.Get(item).Doc(t)
			urls := []string{doc.Find(testID("item-image")).AttrOr("src", "")}
			doc.Find(testID("item-pictures") + " a").Each(func(_ int, s *goquery.Selection) {
				urls = append(urls, s.AttrOr("href", ""), s.Find("img").AttrOr("src", ""))
			})
			if len(urls) != 7 { // its own picture is in the list too
				t.Fatalf("the item's pictures: %q", urls)
			}
			for _, u := range urls {
				if a.visitor.Get(u).StatusCode != http.StatusOK {
					t.Fatalf("picture %q is not served", u)
				}
			}

			c.cut(t, a, crash, item)
			c.finish(t, a, item)

			for _, u := range urls {
				if res := a.visitor.Get(u); res.StatusCode != http.StatusNotFound {
					t.Errorf("picture %q of the deleted item: %d", u, res.StatusCode)
				}
			}
			rows, err := storage.All[gallery.Row](ctx, a.Store.Table(store.PicturesTable), storage.Query{Scan: true})
			if err != nil {
				t.Fatal(err)
			}
			blobs, err := a.Store.Container(store.ImagesContainer).List(ctx, "")
			if err != nil || len(rows) != 0 || len(blobs) != 0 {
				t.Errorf("left of the deleted item: %d picture rows, %d files (%v)", len(rows), len(blobs), err)
			}
			if got := cards(t, a.mia, "/store"); len(got) != 0 {
				t.Errorf("the store lists %q", got)
			}
		})
	}
	a := newApp(t)
	for _, path := range []string{"/store/not-an-id/delete", "/store/01ARZ3NDEKTSV4RRFFQ69G5FAV/delete"} {
		if res := a.admin.PostForm(path, a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusNotFound || res.Writes(t) != 0 {
			t.Errorf("POST %s: %d, %d writes", path, res.StatusCode, res.Writes(t))
		}
	}
}

// stopDeleting deletes item with the process stopping after the first
// write; the item is gone for readers and for its admins.
func stopDeleting(t *testing.T, a *app, crash *stopsAfter, item string) {
	t.Helper()
	crash.stopAfter(1)
	a.admin.PostForm(item+"/delete", a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}}))
	crash.disarm()
	if a.mia.Get(item).StatusCode != http.StatusNotFound || a.admin.Get(item).StatusCode != http.StatusNotFound || a.admin.Get(item+"/edit").StatusCode != http.StatusNotFound {
		t.Error("an item whose deletion stopped half way still opens")
	}
}

// dropItemRow deletes item's row and nothing else.
func dropItemRow(t *testing.T, a *app, _ *stopsAfter, item string) {
	t.Helper()
	if err := a.Store.Table(store.ItemsTable).Delete(ctx, "item", strings.TrimPrefix(item, "/store/"), storage.AnyETag); err != nil {
		t.Fatal(err)
	}
}

// buried is the deletion's burial running when it is due, a minute
// after it was queued; nobody deletes the item again.
func buried(t *testing.T, a *app, item string) {
	t.Helper()
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, err := storage.All[gallery.Row](ctx, a.Store.Table(store.PicturesTable), storage.Query{Scan: true}); err != nil || len(rows) == 0 {
		t.Fatalf("the burial ran before it was due (%v)", err)
	}
	a.Clock.Advance(time.Minute)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
}

// deleteAgain is the admin deleting item again.
func deleteAgain(t *testing.T, a *app, item string) {
	t.Helper()
	if res := a.admin.PostForm(item+"/delete", a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Errorf("deleting it again: %d", res.StatusCode)
	}
}

// rebuild runs web reindex store, which reports removing one item's
// leftovers, and then, run again, none.
func rebuild(t *testing.T, a *app, _ string) {
	t.Helper()
	report, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(report.String(), "; 1 deleted items' pictures removed") {
		t.Errorf("the rebuild: %v, %v", report, err)
	}
	if again, err := a.svc.Rebuild(ctx); err != nil || !strings.Contains(again.String(), "; 0 deleted items' pictures removed") {
		t.Errorf("a second rebuild: %v, %v", again, err)
	}
}

// downAlerts refuses, while on, every deletion of alerts (a batch of
// them or one), as a store that fails a write would.
type downAlerts struct {
	storage.Backend
	on *atomic.Bool
}

func (b downAlerts) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if b.on.Load() && table == store.AlertsTable {
		return storage.ErrTransient
	}
	return b.Backend.Transact(ctx, table, ops)
}

func (b downAlerts) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if b.on.Load() && table == store.AlertsTable {
		return storage.ErrTransient
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

// newAppWithDownAlerts is newApp with alerts that cannot be deleted
// while the switch it returns is on, and a sold-out item Mia asked to
// hear of.
func newAppWithDownAlerts(t *testing.T) (a *app, down *atomic.Bool, vinyl string) {
	t.Helper()
	down = &atomic.Bool{}
	a = newAppOn(t, func(b storage.Backend) storage.Backend { return downAlerts{b, down} })
	vinyl = a.add(t, form("title", "Vinyl", "category", "music", "stock", "0"))
	if res := a.mia.PostForm(vinyl+"/alert", a.mia.WithCSRF(vinyl, url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ask: %d", res.StatusCode)
	}
	return a, down, vinyl
}

// alertsLeft are the rows of StoreAlerts.
func alertsLeft(t *testing.T, a *app) []store.AlertRow {
	t.Helper()
	rows, err := storage.All[store.AlertRow](ctx, a.Store.Table(store.AlertsTable), storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestADeletedItemsAlertsGoThoughTheirRemovalFailed: an item deleted
// while its alerts cannot be deleted is gone for everyone at once; its
// row stays, marked, for as long as the alerts do, so its burial,
// queued before the deletion and tried again after each failure
// (web reindex store meanwhile says it failed), removes them and then
// the row once the store takes the deletion: no alert is left behind
// an item gone.
func TestADeletedItemsAlertsGoThoughTheirRemovalFailed(t *testing.T) {
	t.Parallel()
	a, down, vinyl := newAppWithDownAlerts(t)
	down.Store(true)
	if res := a.admin.PostForm(vinyl+"/delete", a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if a.mia.Get(vinyl).StatusCode != http.StatusNotFound || len(cards(t, a.mia, "/store")) != 0 {
		t.Error("the deleted item still shows")
	}
	a.Clock.Advance(time.Minute)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.Rebuild(ctx); err == nil {
		t.Error("the rebuild says it finished while the alerts cannot be deleted")
	}
	if len(alertsLeft(t, a)) != 1 {
		t.Fatal("the alert went while the store refused its deletion")
	}
	down.Store(false)
	a.Clock.Advance(time.Minute) // past the burial's first wait for another try
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if left := alertsLeft(t, a); len(left) != 0 {
		t.Errorf("alerts left behind the deleted item: %v", left)
	}
	if items, err := storage.All[store.ItemRow](ctx, a.Store.Table(store.ItemsTable), storage.Query{Scan: true}); err != nil || len(items) != 0 {
		t.Errorf("item rows left: %d (%v)", len(items), err)
	}
}

// TestARestockWhoseForgettingFailedTellsOnce: a restock tells Mia,
// and the deletion of her asking fails; the task queued before her
// notice deletes it a minute later without telling her again, so when
// the item sells out and comes back she is not told a second time.
func TestARestockWhoseForgettingFailedTellsOnce(t *testing.T) {
	t.Parallel()
	a, down, vinyl := newAppWithDownAlerts(t)
	down.Store(true)
	if res := a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "10"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("restock: %d", res.StatusCode)
	}
	if n := a.Inbox(a.mia).Length(); n != 1 || len(alertsLeft(t, a)) != 1 {
		t.Fatalf("Mia was told %d times; her asking was to stay for the test", n)
	}
	down.Store(false)
	a.Clock.Advance(time.Minute)
	if n := a.Inbox(a.mia).Length(); n != 1 {
		t.Errorf("Mia was told %d times when her asking was forgotten", n)
	}
	if left := alertsLeft(t, a); len(left) != 0 {
		t.Errorf("alerts left after the restock: %v", left)
	}
	a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "0"), nil)
	a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "5"), nil)
	if n := a.Inbox(a.mia).Length(); n != 1 {
		t.Errorf("Mia asked once and was told %d times", n)
	}
}

package store_test

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
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/app/store"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

type app struct {
	*accounttest.App
	svc *store.Service
	// admin is signed in as an admin; mia and leo are members.
	admin, mia, leo, visitor *webtest.Client
}

// newApp is the store with the inbox (its restock notices) on a test
// server, boss@example.com an admin.
func newApp(t *testing.T) *app {
	t.Helper()
	return newAppOn(t, nil)
}

// newAppOn is newApp on a backend wrap wraps (nil: as it is).
func newAppOn(t *testing.T, wrap func(storage.Backend) storage.Backend) *app {
	t.Helper()
	a := &app{}
	var in *inbox.Service
	a.App = accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}, Wrap: wrap, Modules: []platform.Factory{
		func(c *platform.Core) (web.Module, error) {
			var err error
			in, err = inbox.FromCore(c)
			return in, err
		},
		func(c *platform.Core) (web.Module, error) {
			a.svc = store.New(c.Store, c.Cursors, c.Log, c.Now)
			a.svc.UseNotifier(in)
			return a.svc, a.svc.UseTasks(c.Tasks)
		},
	}})
	a.admin, a.mia, a.leo, a.visitor = a.Client(), a.Client(), a.Client(), a.Client()
	a.SignIn(a.admin, "boss@example.com")
	a.SignIn(a.mia, "mia@example.com")
	a.SignIn(a.leo, "leo@example.com")
	return a
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

// form is an item form: the fields given over sensible defaults.
func form(fields ...string) url.Values {
	f := url.Values{"title": {"Tour T-shirt"}, "category": {"clothing"}, "price": {"25"}, "currency": {"gbp"}, "stock": {"40"}, "buyUrl": {"https://shop.example/tee"}, "description": {"Heavy **cotton**."}, "shown": {"true"}}
	for i := 0; i+1 < len(fields); i += 2 {
		f.Set(fields[i], fields[i+1])
	}
	return f
}

func (a *app) send(path string, f url.Values, image []byte) *webtest.Response {
	return a.admin.PostFile(path, a.admin.WithCSRF("/store", f), "image", "item.png", image)
}

// add puts an item in the store and returns its path.
func (a *app) add(t *testing.T, f url.Values) string {
	t.Helper()
	res := a.send("/store", f, nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add %q: %d %.400s", f.Get("title"), res.StatusCode, res.Body)
	}
	return res.Header.Get("Location")
}

// cards are the cards a page lists: title and the text of its foot.
func cards(t *testing.T, c *webtest.Client, path string) []string {
	t.Helper()
	res := c.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	var out []string
	res.Doc(t).Find(testID("store-card")).Each(func(_ int, s *goquery.Selection) {
		var foot []string
		s.Find(".store-card-foot").Children().Each(func(_ int, c *goquery.Selection) { foot = append(foot, c.Text()) })
		out = append(out, s.Find("h2").Text()+": "+strings.Join(foot, " "))
	})
	return out
}

func same(got []string, want ...string) bool {
	return strings.Join(got, "|") == strings.Join(want, "|")
}

// TestTheStoreShowsWhatIsForSale: items shown are everyone's, newest
// first, by department, with their price and what is left; a hidden item
// is the admins' alone.
func TestTheStoreShowsWhatIsForSale(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tee := a.add(t, form())
	a.Clock.Advance(time.Minute)
	a.add(t, form("title", "Night City on CD", "category", "music", "price", "12.5", "stock", "3"))
	a.Clock.Advance(time.Minute)
	a.add(t, form("title", "Vinyl", "category", "music", "price", "32", "stock", "0"))
	a.Clock.Advance(time.Minute)
	a.add(t, form("title", "Hoodie", "price", "1234.5", "stock", ""))
	a.Clock.Advance(time.Minute)
	scarf := a.add(t, form("title", "Scarf", "category", "accessories", "shown", ""))

	if got := cards(t, a.visitor, "/store"); !same(got, "Hoodie: £1,234.50", "Vinyl: £32 Sold out", "Night City on CD: £12.50 Only 3 left", "Tour T-shirt: £25") {
		t.Errorf("the store: %q", got)
	}
	if got := cards(t, a.visitor, "/store?category=music"); !same(got, "Vinyl: £32 Sold out", "Night City on CD: £12.50 Only 3 left") {
		t.Errorf("music: %q", got)
	}
	if got := cards(t, a.visitor, "/store?category=posters"); len(got) != 0 {
		t.Errorf("posters: %q", got)
	}
	if a.visitor.Get(scarf).StatusCode != http.StatusNotFound || a.mia.Get(scarf).StatusCode != http.StatusNotFound {
		t.Error("a hidden item opens for readers")
	}
	if d := a.admin.Get(scarf).Doc(t); d.Find(testID("item-hidden")).Length() != 1 {
		t.Error("the admin's view of a hidden item does not say so")
	}
	if got := cards(t, a.admin, "/store/hidden"); !same(got, "Scarf: £25 Hidden") {
		t.Errorf("hidden items: %q", got)
	}
	doc := a.visitor.Get(tee).Doc(t)
	if href, _ := doc.Find(testID("item-buy")).Attr("href"); href != "https://shop.example/tee" || doc.Find(testID("item-description")+" strong").Text() != "cotton" {
		t.Errorf("the item's page: buy at %q", href)
	}
	if got := doc.Find(testID("store-more") + " h2.store-card-title").Text(); got != "Hoodie" {
		t.Errorf("more in clothing: %q", got)
	}
	// In Russian: Russian money and plurals.
	ru := a.Client()
	ru.PostForm("/lang", url.Values{"lang": {"ru"}}, "Origin", ru.URL)
	if got := cards(t, ru, "/store?category=music"); !same(got, "Vinyl: 32\u00a0£ Нет в наличии", "Night City on CD: 12,50\u00a0£ Осталось 3 штуки") {
		t.Errorf("music in Russian: %q", got)
	}
}

// TestOnlyAdminsKeepTheStore: members are refused (403), visitors sent
// to sign in, and nothing is written.
func TestOnlyAdminsKeepTheStore(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tee := a.add(t, form())
	for _, path := range []string{"/store/new", "/store/hidden", tee + "/edit"} {
		if res := a.mia.Get(path); res.StatusCode != http.StatusForbidden {
			t.Errorf("a member GET %s: %d", path, res.StatusCode)
		}
		if res := a.visitor.Get(path); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
			t.Errorf("a visitor GET %s: %d", path, res.StatusCode)
		}
	}
	token := a.mia.CSRFToken("/store")
	for _, path := range []string{"/store", tee + "/edit", tee + "/delete"} {
		if res := a.mia.PostForm(path, form("_csrf", token, "confirm", "yes", "price", "1")); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
			t.Errorf("a member POST %s: %d, %d writes", path, res.StatusCode, res.Writes(t))
		}
	}
	if got := cards(t, a.visitor, "/store"); !same(got, "Tour T-shirt: £25") {
		t.Errorf("after the refusals: %q", got)
	}
	if a.mia.Get("/store").Doc(t).Find(testID("store-new")).Length() != 0 || a.admin.Get("/store").Doc(t).Find(testID("store-new")).Length() != 1 {
		t.Error("New item is offered to a member, or not to the admin")
	}
}

// TestBadInputWritesNothing: a refused form is a 422 that says what is
// wrong beside the field and keeps what was typed; bad URLs are a 400 or
// a 404.
func TestBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tee := a.add(t, form())
	for _, c := range []struct {
		name, field string
		f           url.Values
	}{
		{"no name", "item-title", form("title", "")},
		{"a long name", "item-title", form("title", strings.Repeat("n", 121))},
		{"a name with an escape", "item-title", form("title", "Tee\x1b[31m")},
		{"a long description", "item-description", form("description", strings.Repeat("d", 5001))},
		{"no department", "item-category", form("category", "")},
		{"an unknown department", "item-category", form("category", "food")},
		{"no price", "item-price", form("price", "")},
		{"a negative price", "item-price", form("price", "-5")},
		{"a price in words", "item-price", form("price", "ten")},
		{"a huge price", "item-price", form("price", "1e12")},
		{"no currency", "item-currency", form("currency", "")},
		{"a currency sign", "item-currency", form("currency", "£")},
		{"a fractional stock", "item-stock", form("stock", "2.5")},
		{"a negative stock", "item-stock", form("stock", "-1")},
		{"a script link", "item-buyUrl", form("buyUrl", "javascript:alert(1)")},
		{"a link without a host", "item-buyUrl", form("buyUrl", "https://")},
		{"a link with a password", "item-buyUrl", form("buyUrl", "https://a:b@shop.example/")},
	} {
		res := a.send("/store", c.f, nil)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("%s: %d, %d writes", c.name, res.StatusCode, res.Writes(t))
			continue
		}
		doc := res.Doc(t)
		if doc.Find(`[data-testid="field-error"][data-field="`+c.field+`"]`).Length() != 1 {
			t.Errorf("%s: no error beside %s", c.name, c.field)
		}
		if got := doc.Find("#item-description").Text(); c.field != "item-description" && got != "Heavy **cotton**." {
			t.Errorf("%s: the description typed is lost: %q", c.name, got)
		}
	}
	if res := a.send(tee+"/edit", form(), []byte("not a picture")); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("a picture that is not one: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	for path, want := range map[string]int{
		"/store?category=food":              http.StatusBadRequest,
		"/store?cursor=abc":                 http.StatusBadRequest,
		"/store/not-an-id":                  http.StatusNotFound,
		"/store/01ARZ3NDEKTSV4RRFFQ69G5FAV": http.StatusNotFound,
		"/media/store/x/y.jpg":              http.StatusNotFound,
	} {
		if res := a.visitor.Get(path); res.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, res.StatusCode, want)
		}
	}
	// An alert: a bad choice is a 400; on an item one can buy, a 409.
	for on, want := range map[string]int{"maybe": http.StatusBadRequest, "": http.StatusBadRequest, "true": http.StatusConflict} {
		res := a.mia.PostForm(tee+"/alert", a.mia.WithCSRF(tee, url.Values{"on": {on}}))
		if res.StatusCode != want || res.Writes(t) != 0 {
			t.Errorf("alert on=%q: %d, %d writes", on, res.StatusCode, res.Writes(t))
		}
	}
}

// TestBackInStockTellsWhoAsked: on a sold-out item a member asks to hear
// when it is back (a visitor is asked to sign in); the restock tells
// those still asking, once, and forgets them.
func TestBackInStockTellsWhoAsked(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	vinyl := a.add(t, form("title", "Vinyl", "category", "music", "stock", "0"))
	if a.visitor.Get(vinyl).Doc(t).Find(testID("item-alert-signin")).Length() != 1 {
		t.Error("a visitor is not asked to sign in to hear of it")
	}
	for _, c := range []*webtest.Client{a.mia, a.leo} {
		if res := c.PostForm(vinyl+"/alert", c.WithCSRF(vinyl, url.Values{"on": {"true"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("ask: %d %.300s", res.StatusCode, res.Body)
		}
	}
	if a.mia.Get(vinyl).Doc(t).Find(testID("item-alert-on")).Length() != 1 {
		t.Error("Mia's page does not say she will hear of it")
	}
	a.leo.PostForm(vinyl+"/alert", a.leo.WithCSRF(vinyl, url.Values{"on": {"false"}}))
	// A change that leaves it sold out tells nobody.
	a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "0", "price", "30"), nil)
	if n := a.Inbox(a.mia).Length(); n != 0 {
		t.Errorf("Mia was told %d times before the restock", n)
	}
	if res := a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "10"), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("restock: %d", res.StatusCode)
	}
	if items := a.Inbox(a.mia); items.Length() != 1 || !strings.Contains(items.Text(), "Back in the store: Vinyl") {
		t.Errorf("Mia's inbox: %q", items.Text())
	}
	if n := a.Inbox(a.leo).Length(); n != 0 {
		t.Errorf("Leo stopped asking and was told %d times", n)
	}
	// Sold out and back again: she asked once, so she is told once.
	a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "0"), nil)
	a.send(vinyl+"/edit", form("title", "Vinyl", "category", "music", "stock", "5"), nil)
	if n := a.Inbox(a.mia).Length(); n != 1 {
		t.Errorf("Mia was told %d times", n)
	}
	if d := a.mia.Get(vinyl).Doc(t); d.Find(testID("item-buy")).Length() != 1 || d.Find(testID("item-alert")).Length() != 0 {
		t.Error("the item back in stock is not for sale, or still offers the alert")
	}
}

// TestPicturesAndDeletion: a picture is served in two sizes; replacing
// it or deleting the item takes the old files away, and the item leaves
// the store with its cards.
func TestPicturesAndDeletion(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	res := a.send("/store", form(), mediatest.EncodedPNG(t, 900, 900))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add with a picture: %d %.300s", res.StatusCode, res.Body)
	}
	tee := res.Header.Get("Location")
	big, _ := a.visitor.Get(tee).Doc(t).Find(testID("item-image")).Attr("src")
	small, _ := a.visitor.Get("/store").Doc(t).Find(".store-card-image").Attr("src")
	for _, src := range []string{big, small} {
		if r := a.visitor.Get(src); r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/jpeg" {
			t.Errorf("picture %q: %d", src, r.StatusCode)
		}
	}
	if !strings.HasSuffix(small, "_s.jpg") {
		t.Errorf("the card's picture is not the small one: %q", small)
	}
	a.send(tee+"/edit", form(), mediatest.EncodedPNG(t, 700, 700))
	if a.visitor.Get(big).StatusCode != http.StatusNotFound {
		t.Error("the replaced picture is still served")
	}
	now, _ := a.visitor.Get(tee).Doc(t).Find(testID("item-image")).Attr("src")
	if res := a.admin.PostForm(tee+"/delete", a.admin.WithCSRF(tee, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if a.visitor.Get(tee).StatusCode != http.StatusNotFound || a.visitor.Get(now).StatusCode != http.StatusNotFound || len(cards(t, a.visitor, "/store")) != 0 {
		t.Error("the deleted item, its picture or its card is still there")
	}
}

// TestListingPagesAndRebuild: a page of the store is one query however
// many items (and the departments, once in a while); twelve a page with a link to more; lost cards come back
// with the rebuild, which a second run finds nothing left to do.
func TestListingPagesAndRebuild(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	for i := range 15 {
		a.add(t, form("title", fmt.Sprintf("Item %02d", i)))
		a.Clock.Advance(time.Minute)
	}
	// The first page an instance serves also reads the departments,
	// which it then keeps for a while (the taxonomy kit).
	res := a.visitor.Get("/store?category=clothing")
	if ops := res.StorageOps(t); ops["queries"] != 2 || ops["reads"] != 0 {
		t.Errorf("the first page of the store: %v", ops)
	}
	res = a.visitor.Get("/store?category=music")
	if ops := res.StorageOps(t); ops["queries"] != 1 || ops["reads"] != 0 {
		t.Errorf("a page of the store: %v", ops)
	}
	doc := a.visitor.Get("/store").Doc(t)
	if n := doc.Find(testID("store-card")).Length(); n != 12 || doc.Find(testID("store-card")).First().Find("h2").Text() != "Item 14" {
		t.Errorf("the first page: %d cards", n)
	}
	next, _ := doc.Find(testID("load-more")).Attr("href")
	if n := a.visitor.Get(next, "HX-Request", "true").Doc(t).Find(testID("store-card")).Length(); n != 3 {
		t.Errorf("the second page: %d cards", n)
	}
	index := a.Store.Table(store.IndexTable)
	var keys [][2]string
	index.QueryAll(ctx, storage.Query{PartitionKey: "all"}, func(e storage.Entity) error {
		keys = append(keys, [2]string{e.PartitionKey, e.RowKey})
		return nil
	})
	for _, k := range keys[:5] {
		index.Delete(ctx, k[0], k[1], storage.AnyETag)
	}
	report, err := a.svc.Rebuild(ctx)
	if err != nil || len(cards(t, a.visitor, "/store")) != 12 || !strings.Contains(report.String(), "5") {
		t.Errorf("the rebuild: %v %v", report, err)
	}
	if again, err := a.svc.Rebuild(ctx); err != nil || again.String() == report.String() {
		t.Errorf("a second rebuild: %v %v", again, err)
	}
}

// TestTheRebuildTellsWhoARestockMissed: a restock whose notice was never
// posted (the item written, then a crash) leaves people waiting for an
// item one can buy; web reindex store tells them, and forgets the alerts
// of an item that is gone.
func TestTheRebuildTellsWhoARestockMissed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	tee := strings.TrimPrefix(a.add(t, form()), "/store/")
	mia := a.Who(a.mia)
	alerts := a.Store.Table(store.AlertsTable)
	for _, row := range []store.AlertRow{{PartitionKey: tee, RowKey: mia}, {PartitionKey: "01ARZ3NDEKTSV4RRFFQ69G5FAV", RowKey: mia}} {
		row.At = accounttest.Start
		if _, err := storage.Insert(ctx, alerts, row); err != nil {
			t.Fatal(err)
		}
	}
	report, err := a.svc.Rebuild(ctx)
	if err != nil || !strings.Contains(report.String(), "1 items' waiting people told") {
		t.Fatalf("the rebuild: %v %v", report, err)
	}
	if items := a.Inbox(a.mia); items.Length() != 1 || !strings.Contains(items.Text(), "Back in the store: Tour T-shirt") {
		t.Errorf("Mia's inbox: %q", items.Text())
	}
	if left, _ := storage.All[store.AlertRow](ctx, alerts, storage.Query{Scan: true}); len(left) != 0 {
		t.Errorf("alerts left: %v", left)
	}
	if again, _ := a.svc.Rebuild(ctx); !strings.Contains(again.String(), "0 items' waiting people told") {
		t.Errorf("a second rebuild: %v", again)
	}
}

// TestMorePictures: the admins add more pictures to an item under its
// form, order and delete them; its page shows them after its own, each
// leading to its large size, at no more reads; a file that is not a
// picture, one past the most, or a member's try changes nothing; the
// item's deletion takes them with it.
func TestMorePictures(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	item := a.add(t, form())
	bare := a.visitor.Get(item).StorageOps(t)
	pics := item + "/pictures"
	upload := func(c *webtest.Client, data []byte) *webtest.Response {
		return c.PostFile(pics, c.WithCSRF("/store", nil), "photo", "more.png", data)
	}
	for i := range store.MaxMorePictures {
		if res := upload(a.admin, mediatest.EncodedPNG(t, 300+i*10, 200)); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != item+"/edit#pictures" {
			t.Fatalf("picture %d: %d %s", i, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for name, res := range map[string]*webtest.Response{
		"one too many":     upload(a.admin, mediatest.EncodedPNG(t, 300, 200)),
		"not a picture":    upload(a.admin, []byte("plain text")),
		"a member's":       upload(a.mia, mediatest.EncodedPNG(t, 300, 200)),
		"a visitor's":      a.visitor.PostFile(pics, url.Values{}, "photo", "more.png", mediatest.EncodedPNG(t, 300, 200)),
		"a member's order": a.mia.PostForm(pics+"/x/move", a.mia.WithCSRF("/store", url.Values{"to": {"first"}})),
	} {
		if res.StatusCode < 400 || res.StatusCode >= 500 || res.Writes(t) != 0 {
			t.Errorf("%s: %d (%d writes)", name, res.StatusCode, res.Writes(t))
		}
	}
	edit := a.admin.Get(item + "/edit").Doc(t)
	var ids []string
	edit.Find(testID("store-pictures") + " " + testID("photo-item")).Each(func(_ int, s *goquery.Selection) { ids = append(ids, s.AttrOr("data-photo", "")) })
	if len(ids) != store.MaxMorePictures || edit.Find(testID("photos-full")).Length() != 1 {
		t.Fatalf("the form's pictures: %q", ids)
	}
	// The last goes first; the page shows them in that order, its own
	// picture's place untouched, at the reads of an item with none.
	if res := a.admin.PostForm(pics+"/"+ids[4]+"/move", a.admin.WithCSRF("/store", url.Values{"to": {"first"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("move: %d", res.StatusCode)
	}
	res := a.visitor.Get(item)
	links := res.Doc(t).Find(testID("item-pictures") + " a")
	if first := links.First().AttrOr("href", ""); links.Length() != store.MaxMorePictures || !strings.Contains(first, ids[4]) || strings.HasSuffix(first, "_s.jpg") {
		t.Fatalf("the item's page: %d pictures, the first %q", links.Length(), first)
	}
	if got := res.StorageOps(t); got["reads"] != bare["reads"] || got["queries"] != bare["queries"] {
		t.Errorf("the page costs %v with pictures, %v without", got, bare)
	}
	if res := a.visitor.Get(links.First().AttrOr("href", "")); res.StatusCode != http.StatusOK {
		t.Errorf("the large picture: %d", res.StatusCode)
	}
	// Deleted after its confirmation.
	if res := a.admin.PostForm(pics+"/"+ids[0]+"/delete", a.admin.WithCSRF("/store", nil)); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 {
		t.Fatalf("delete without confirming: %d", res.StatusCode)
	}
	if res := a.admin.PostForm(pics+"/"+ids[0]+"/delete", a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if n := a.visitor.Get(item).Doc(t).Find(testID("item-pictures") + " a").Length(); n != store.MaxMorePictures-1 {
		t.Errorf("after a delete the page shows %d", n)
	}
	// The item's deletion takes its pictures.
	if res := a.admin.PostForm(item+"/delete", a.admin.WithCSRF("/store", url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the item: %d", res.StatusCode)
	}
	rows, err := storage.All[gallery.Row](context.Background(), a.Store.Table(store.PicturesTable), storage.Query{Scan: true})
	blobs, _ := a.Store.Container(store.ImagesContainer).List(context.Background(), "")
	if err != nil || len(rows) != 0 || len(blobs) != 0 {
		t.Errorf("after the item's deletion: %d picture rows, %d blobs (%v)", len(rows), len(blobs), err)
	}
}

// TestAdminDepartments: admins add a department beside the built-in
// ones; items are filed under it, and people filter by it; retired, it
// leaves the filters and a new item's form, while its items keep it (and
// their own form offers it still). Bad names and taken short names are
// refused and write nothing; members cannot reach the page.
func TestAdminDepartments(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	if res := a.mia.Get("/admin/store-departments"); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a member opens the departments: %d", res.StatusCode)
	}
	add := func(slug, english string) *webtest.Response {
		return a.admin.PostForm("/admin/store-departments", a.admin.WithCSRF("/admin/store-departments", url.Values{"slug": {slug}, "english": {english}, "russian": {"Винил"}}))
	}
	for _, bad := range [][2]string{{"Vinyl Records", "Vinyl"}, {"vinyl", ""}, {"vinyl", strings.Repeat("v", 41)}} {
		if res := add(bad[0], bad[1]); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
			t.Errorf("add %q: %d", bad, res.StatusCode)
		}
	}
	if res := add("music", "Music again"); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
		t.Errorf("a built-in short name: %d", res.StatusCode)
	}
	if res := add("vinyl", "Vinyl"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d", res.StatusCode)
	}
	offered := func(path string) bool {
		return a.admin.Get(path).Doc(t).Find(`select[name="category"] option[value="vinyl"]`).Length() == 1
	}
	if !offered("/store/new") {
		t.Fatal("the item form does not offer the new department")
	}
	record := a.add(t, form("title", "Night City LP", "category", "vinyl", "price", "30"))
	if got := cards(t, a.visitor, "/store?category=vinyl"); !same(got, "Night City LP: £30") {
		t.Errorf("the department's listing: %q", got)
	}
	list := a.visitor.Get("/store").Doc(t)
	if list.Find(testID("category-chip")+`[href="/store?category=vinyl"]`).Text() != "Vinyl" || !strings.Contains(list.Find(testID("store-card")).Text(), "Vinyl") {
		t.Error("the store's chips or the item's card do not name the department")
	}
	ru := a.Client()
	if res := ru.PostForm("/lang", ru.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/store"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch to Russian: %d", res.StatusCode)
	}
	if !strings.Contains(ru.Get(record).Doc(t).Find(".eyebrow").Text(), "Винил") {
		t.Error("the item's page does not name the department in Russian")
	}

	if res := a.admin.PostForm("/admin/store-departments/vinyl", a.admin.WithCSRF("/admin/store-departments", url.Values{"english": {"Vinyl"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("retire: %d", res.StatusCode)
	}
	if a.visitor.Get("/store").Doc(t).Find(testID("category-chip")+`[href*="vinyl"]`).Length() != 0 {
		t.Error("a retired department is still a filter")
	}
	if offered("/store/new") || !offered(record+"/edit") {
		t.Error("a retired department: offered to a new item, or not to its own")
	}
	if res := a.send(record+"/edit", form("title", "Night City LP (180 g)", "category", "vinyl", "price", "32"), nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("saving an item of a retired department: %d %.300s", res.StatusCode, res.Body)
	}
	if got := cards(t, a.visitor, "/store?category=vinyl"); !same(got, "Night City LP (180 g): £32") {
		t.Errorf("a retired department's listing: %q", got)
	}
	if res := a.send("/store", form("category", "nope"), nil); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("an item in a department nobody made: %d", res.StatusCode)
	}
	if res := a.visitor.Get("/store?category=nope"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("the listing of a department nobody made: %d", res.StatusCode)
	}
}

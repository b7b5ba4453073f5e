package people_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/people"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
)

// TestASkipLeavesDiscoverUntilShownAgain: as Hinge's ✕, a skip takes
// someone out of the viewer's Discover and nothing else (their page and a
// like stand, and they are not told); "Skipped" lists them with "Show
// again". With htmx the card turns into a line with "Undo" (focused)
// and "Undo" brings the card back. Bad skips are refused and write
// nothing.
func TestASkipLeavesDiscoverUntilShownAgain(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "1995-06-01")
	want := func(path string, names ...string) {
		t.Helper()
		got := shown(t, ann, path)
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Errorf("%s shows %v, want %v", path, got, names)
		}
	}
	want("/people", "Bob", "Cat")
	page := ann.Get("/people").Doc(t)
	if page.Find(testID("people-skipped-link")).Length() != 0 {
		t.Error("Discover links skipped people before any skip")
	}
	button := page.Find(`[data-member="` + bob.key + `"] ` + testID("skip-button"))
	if label, _ := button.Attr("aria-label"); !strings.Contains(label, "Skip") || !strings.Contains(label, "Bob") {
		t.Errorf("the skip button's name %q", label)
	}

	// Without JS: back to Discover, without Bob.
	res := post(ann.Client, auth.ProfileURL(bob.key)+"/skip", url.Values{"next": {"/people?show=everyone"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/people?show=everyone" {
		t.Fatalf("skip: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	want("/people", "Cat")
	if link := ann.Get("/people").Doc(t).Find(testID("people-skipped-link")); !strings.Contains(link.Text(), "You skipped 1 person") {
		t.Errorf("the skipped link says %q", link.Text())
	}
	// Skipping again changes nothing.
	if res := post(ann.Client, auth.ProfileURL(bob.key)+"/skip", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a second skip: %d", res.StatusCode)
	}
	// Nothing else changes: Bob's page, a like, and Bob is not told of
	// the skip (his inbox is empty until the like).
	if res := ann.Get(auth.ProfileURL(bob.key)); res.StatusCode != http.StatusOK {
		t.Errorf("a skipped person's page: %d", res.StatusCode)
	}
	if n := bob.Get("/inbox").Doc(t).Find(testID("inbox-item")).Length(); n != 0 {
		t.Errorf("Bob has %d notices after being skipped", n)
	}
	if res := like(ann, bob, ""); res.StatusCode != http.StatusSeeOther {
		t.Errorf("liking someone skipped: %d", res.StatusCode)
	}
	// Bob still sees Ann: a skip is the skipper's own.
	if got := shown(t, bob, "/people"); !slices.Contains(got, "Ann") {
		t.Errorf("Bob's Discover %v lost Ann", got)
	}

	// With htmx: Cat's card turns into "You skipped Cat." with Undo.
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	res = ann.PostForm(auth.ProfileURL(cat.key)+"/skip", ann.WithCSRF("/people", url.Values{"next": {"/people"}}), hx...)
	frag := res.Doc(t)
	line := frag.Find(testID("person-skipped"))
	if res.StatusCode != http.StatusOK || line.Length() != 1 || !strings.Contains(line.Text(), "You skipped") || !strings.Contains(line.Text(), "Cat") {
		t.Fatalf("htmx skip: %d %q", res.StatusCode, line.Text())
	}
	undo := line.Find(testID("unskip-button"))
	if _, ok := undo.Attr("autofocus"); !ok {
		t.Error("Undo does not take the focus the skip button had")
	}
	want("/people")
	action, _ := undo.Closest("form").Attr("hx-post")
	res = ann.PostForm(action, ann.WithCSRF("/people", url.Values{"next": {"/people"}}), hx...)
	if tile := res.Doc(t).Find(testID("person-tile")); res.StatusCode != http.StatusOK || !strings.Contains(tile.Find(testID("person-tile-link")).Text(), "Cat") || tile.Find(testID("skip-button")).Length() != 1 {
		t.Fatalf("htmx undo: %d %q", res.StatusCode, tile.Text())
	}
	want("/people", "Cat")

	// The skipped list shows Bob, with "Show again".
	list := ann.Get(people.SkippedURL).Doc(t)
	rows := list.Find(testID("skipped-list") + " " + testID("people-row"))
	if rows.Length() != 1 || !strings.Contains(rows.Text(), "Bob") {
		t.Fatalf("the skipped list: %q", rows.Text())
	}
	action, _ = rows.Find(testID("unskip-button")).Closest("form").Attr("action")
	res = post(ann.Client, action, url.Values{"next": {people.SkippedURL}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != people.SkippedURL {
		t.Fatalf("show again: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if ann.Get(people.SkippedURL).Doc(t).Find(testID("skipped-empty")).Length() != 1 {
		t.Error("the skipped list is not empty once Bob is shown again")
	}
	want("/people", "Bob", "Cat")
}

// TestBadSkipsChangeNothing: skipping oneself, a key that is no
// account's or someone not in People is not found; past the bound, a
// skip is refused with a message; none of them writes a row.
func TestBadSkipsChangeNothing(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "1995-06-01")
	dan := a.newMember(t, "dan@example.com", "Dan")
	for _, path := range []string{
		auth.ProfileURL(ann.key) + "/skip",
		"/people/auth:nobody/skip",
		"/people/not-a-key/skip",
		"/people/guest:abc/skip",
		auth.ProfileURL(dan.key) + "/skip",
		"/people/guest:abc/unskip",
	} {
		res := post(ann.Client, path, nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, res.StatusCode)
		}
		if strings.Contains(res.Body, "goroutine") || strings.Contains(res.Body, ".go:") {
			t.Errorf("%s: the answer shows a stack trace", path)
		}
	}
	a.svc.CapSkips(1)
	if res := post(ann.Client, auth.ProfileURL(bob.key)+"/skip", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the first skip: %d", res.StatusCode)
	}
	res := post(ann.Client, auth.ProfileURL(cat.key)+"/skip", nil)
	if res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "Show some of them again first") {
		t.Errorf("a skip past the bound: %d %.200s", res.StatusCode, res.Body)
	}
	rows, err := storage.All[people.SkipRow](ctx, a.Store.Table(people.SkipsTable), storage.Query{Scan: true})
	if err != nil || len(rows) != 1 || rows[0].RowKey != bob.key {
		t.Errorf("skips written: %+v (%v), want Bob's alone", rows, err)
	}
	if res := a.Client().Get(people.SkippedURL); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor's skipped page: %d", res.StatusCode)
	}
}

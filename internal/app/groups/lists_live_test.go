package groups

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/live/livetest"
)

// TestAListStreamSignalsEachChange: a list's stream is refused to whom
// the list's page is refused; a member's stream says "listchange" on
// each change another member makes (an add, a tick, a rename of an item
// or of the list, a delete, a clear), naming no item; the page's items
// fetched again keep an item whose rename form is open in place; the
// list deleted says "reset".
func TestAListStreamSignalsEachChange(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, groupID := joinedPair(t, a)
	path := createList(t, ann, groupID, "Groceries")
	addItems(t, ann, path, "Milk", "Bread", "Eggs")
	ids := showList(t, ann, path).ids
	nina := a.signIn(t, "nina@example.com")
	for who, want := range map[string]struct {
		p      person
		status int
	}{"non-member": {nina, http.StatusNotFound}, "visitor": {person{c: a.Client()}, http.StatusSeeOther}} {
		if status, _, _ := livetest.Open(t, want.p.c, path+"/stream"); status != want.status {
			t.Errorf("%s opens the stream: %d, want %d", who, status, want.status)
		}
	}

	status, events, _ := livetest.Open(t, bob.c, path+"/stream")
	if status != http.StatusOK {
		t.Fatalf("bob opens the stream: %d", status)
	}
	changes := []struct {
		what string
		path string
		form url.Values
	}{
		{"add", path + "/items", url.Values{"text": {"Cheese"}}},
		{"tick", path + "/items/" + ids["Milk"] + "/tick", url.Values{"done": {"true"}}},
		{"untick", path + "/items/" + ids["Milk"] + "/tick", url.Values{"done": {"false"}}},
		{"edit", path + "/items/" + ids["Bread"] + "/edit", url.Values{"text": {"Rye bread"}}},
		{"delete", path + "/items/" + ids["Eggs"] + "/delete", nil},
		{"tick to clear", path + "/items/" + ids["Milk"] + "/tick", url.Values{"done": {"true"}}},
		{"clear", path + "/clear", nil},
		{"rename", path + "/rename", url.Values{"name": {"Shop"}}},
	}
	for _, c := range changes {
		if res := post(t, ann.c, c.path, c.form); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", c.what, res.StatusCode)
		}
		ev := livetest.Next(t, events)
		if ev.Name != "listchange" || strings.Contains(ev.Data, "Cheese") || strings.Contains(ev.Data, "bread") {
			t.Fatalf("after %s bob's stream says %+v, want a bare listchange", c.what, ev)
		}
	}

	// The page fetches itself again: with bob's rename form open on an
	// item, that row comes marked to stay as it is, the others not; the
	// list's name comes out of band.
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	doc := bob.c.Get(path+"?editing="+ids["Bread"], hx...).Doc(t)
	if doc.Find("li#item-"+ids["Bread"]).AttrOr("hx-preserve", "") != "true" || doc.Find("li[hx-preserve]").Length() != 1 {
		t.Fatal("the row being renamed is not kept, or others are")
	}
	if doc.Find("#list-items").Length() != 1 || strings.TrimSpace(doc.Find(`#list-heading[hx-swap-oob="true"]`).Text()) != "Shop" {
		t.Fatal("no items region, or no name out of band")
	}

	if res := post(t, ann.c, path+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the list: %d", res.StatusCode)
	}
	if ev := livetest.Next(t, events); ev.Name != "reset" {
		t.Fatalf("after the list's delete bob's stream says %+v, want reset", ev)
	}
}

// TestListStreamsAreBounded: past MaxListStreams open at once, a person's
// next list stream is refused (429), with why.
func TestListStreamsAreBounded(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, path := annsList(t, a, "Milk")
	for i := range MaxListStreams {
		if status, _, _ := livetest.Open(t, ann.c, path+"/stream"); status != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, status)
		}
	}
	res := ann.c.Get(path + "/stream")
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too many lists open") {
		t.Fatalf("a stream past the bound: %d", res.StatusCode)
	}
}

// TestTheListsTabFollowsItsLists: the Lists tab's stream is refused to
// whom the tab is refused; a member's stream says "listschange" when
// another member adds a list, changes one (an item added, ticked) or
// deletes one; the tab fetching itself (live=1) gets its content alone,
// the cards with their counts as they are now.
func TestTheListsTabFollowsItsLists(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, groupID := joinedPair(t, a)
	tab := "/groups/" + groupID + "/lists"
	nina := a.signIn(t, "nina@example.com")
	for who, want := range map[string]struct {
		p      person
		status int
	}{"non-member": {nina, http.StatusNotFound}, "visitor": {person{c: a.Client()}, http.StatusSeeOther}} {
		if status, _, _ := livetest.Open(t, want.p.c, tab+"/stream"); status != want.status {
			t.Errorf("%s opens the tab's stream: %d, want %d", who, status, want.status)
		}
	}
	if n := bob.c.Get(tab).Doc(t).Find(`[data-testid="lists-live"][hx-sse\:connect]`).Length(); n != 1 {
		t.Fatalf("the tab does not follow its stream (%d)", n)
	}

	status, events, _ := livetest.Open(t, bob.c, tab+"/stream")
	if status != http.StatusOK {
		t.Fatalf("bob opens the tab's stream: %d", status)
	}
	changed := func(what string) {
		t.Helper()
		if ev := livetest.Next(t, events); ev.Name != "listschange" || strings.TrimSpace(ev.Data) != "change" {
			t.Fatalf("after %s bob's stream says %+v, want a bare listschange", what, ev)
		}
	}
	path := createList(t, ann, groupID, "Groceries")
	changed("a list added")
	addItems(t, ann, path, "Milk", "Bread")
	changed("an item added")
	changed("another item added")
	ids := showList(t, ann, path).ids
	if res := post(t, ann.c, path+"/items/"+ids["Milk"]+"/tick", url.Values{"done": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("tick: %d", res.StatusCode)
	}
	changed("a tick")

	region := bob.c.Get(tab+"?live=1", hxSelect...).Doc(t)
	card := region.Find(`#lists-live [data-testid="list-card"]`)
	if region.Find("header.site-header").Length() != 0 || card.Length() != 1 {
		t.Fatalf("the tab's fetch of itself: %d cards, layout %d", card.Length(), region.Find("header.site-header").Length())
	}
	if got := strings.TrimSpace(card.Find(".list-card-count").Text()); got != "1 item to go" {
		t.Errorf("the card counts %q", got)
	}

	if res := post(t, ann.c, path+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete the list: %d", res.StatusCode)
	}
	changed("a list deleted")
	if n := bob.c.Get(tab+"?live=1", hxSelect...).Doc(t).Find(`#lists-live [data-testid="lists-empty"]`).Length(); n != 1 {
		t.Error("the tab still shows the deleted list")
	}
}

package groups

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// matrixList is a list the owner started in the group, with one item.
func matrixList(t *testing.T, a *groupsApp, groupID string, owner *auth.Identity) (listID, itemID string) {
	t.Helper()
	m, _, err := a.svc.Open(ctx, groupID, owner, AccessMember)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.svc.CreateList(ctx, m, owner, "Groceries")
	if err != nil {
		t.Fatal(err)
	}
	it, err := a.svc.AddListItem(ctx, l, owner, "Milk")
	if err != nil {
		t.Fatal(err)
	}
	return l.ListID, it.ID()
}

var listPath = regexp.MustCompile(`^/groups/[0-9A-Z]{26}/lists/([0-9A-Z]{26})$`)

// createList starts a list through the form and returns its page.
func createList(t *testing.T, p person, groupID, name string) string {
	t.Helper()
	res := post(t, p.c, "/groups/"+groupID+"/lists", url.Values{"name": {name}})
	if res.StatusCode != http.StatusSeeOther || !listPath.MatchString(res.Header.Get("Location")) {
		t.Fatalf("create list %q: %d %s", name, res.StatusCode, res.Header.Get("Location"))
	}
	return res.Header.Get("Location")
}

// addItems adds each text to the list at path, as a form does.
func addItems(t *testing.T, p person, path string, texts ...string) {
	t.Helper()
	for _, text := range texts {
		res := post(t, p.c, path+"/items", url.Values{"text": {text}})
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != path+"#list-item-text" {
			t.Fatalf("add %q: %d %s", text, res.StatusCode, res.Header.Get("Location"))
		}
	}
}

// shownList is a list's page as a person sees it.
type shownList struct {
	doc          *goquery.Document
	open, ticked []string
	// ids are the items' numbers by text.
	ids map[string]string
}

func showList(t *testing.T, p person, path string) shownList {
	t.Helper()
	res := p.c.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, res.StatusCode)
	}
	return readList(t, res.Doc(t))
}

func readList(t *testing.T, doc *goquery.Document) shownList {
	t.Helper()
	s := shownList{doc: doc, ids: map[string]string{}}
	texts := func(sel string) []string {
		var out []string
		doc.Find(sel + " " + testID("list-item")).Each(func(_ int, li *goquery.Selection) {
			text := strings.TrimSpace(li.Find(testID("list-item-text")).Text())
			out = append(out, text)
			s.ids[text] = strings.TrimPrefix(li.AttrOr("id", ""), "item-")
		})
		return out
	}
	s.open, s.ticked = texts(testID("list-open")), texts(testID("list-ticked"))
	return s
}

// listItemRows are the stored items of the list at path, and its head.
func (a *groupsApp) listRows(t *testing.T, path string) ([]ListItemRow, headRow) {
	t.Helper()
	listID := listPath.FindStringSubmatch(path)[1]
	rows, err := storage.All[ListItemRow](ctx, a.svc.listItems, storage.Query{PartitionKey: listID, RowKeyPrefix: itemKeyPrefix})
	if err != nil {
		t.Fatal(err)
	}
	head, err := storage.Get[headRow](ctx, a.svc.listItems, listID, headKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	return rows, head
}

// annsList is ann's group "Smiths" with her list "Groceries" holding
// items.
func annsList(t *testing.T, a *groupsApp, items ...string) (ann person, groupID, path string) {
	t.Helper()
	ann = a.signIn(t, "ann@example.com")
	groupID = createGroup(t, ann, "Smiths")
	path = createList(t, ann, groupID, "Groceries")
	addItems(t, ann, path, items...)
	return ann, groupID, path
}

// noListsLeft fails unless the group's lists partition holds nothing but
// its head, counting none (or nothing at all).
func noListsLeft(t *testing.T, a *groupsApp, groupID string) {
	t.Helper()
	rows, err := storage.All[headRow](ctx, a.svc.lists, storage.Query{PartitionKey: groupID})
	if err != nil || len(rows) > 1 || (len(rows) == 1 && (rows[0].RowKey != headKey || rows[0].Count != 0)) {
		t.Fatalf("the group's lists partition: %+v %v", rows, err)
	}
}

func TestAListIsAddedToTickedClearedRenamedAndDeleted(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, groupID := joinedPair(t, a)

	// A new group has no lists: the tab says what they are for.
	tab := ann.c.Get("/groups/" + groupID + "/lists")
	if tab.StatusCode != http.StatusOK || tab.Doc(t).Find(testID("lists-empty")).Length() != 1 ||
		tab.Doc(t).Find(testID("tab-lists")+`[aria-current="page"]`).Length() != 1 {
		t.Fatalf("empty lists tab: %d", tab.StatusCode)
	}

	path := createList(t, ann, groupID, "  Groceries ")
	if got := strings.TrimSpace(showList(t, bob, path).doc.Find(testID("list-name")).Text()); got != "Groceries" {
		t.Fatalf("list name %q", got)
	}
	addItems(t, ann, path, "Milk", "Bread", "Eggs")
	addItems(t, bob, path, "Apples")
	shown := showList(t, bob, path)
	if !slices.Equal(shown.open, []string{"Milk", "Bread", "Eggs", "Apples"}) || len(shown.ticked) != 0 {
		t.Fatalf("added: %v, ticked %v", shown.open, shown.ticked)
	}

	// Bob ticks Bread, then Eggs a minute later: the ticked ones go
	// below, the newest ticked first, saying who ticked them.
	tick := func(p person, text string, done bool) {
		t.Helper()
		res := post(t, p.c, path+"/items/"+shown.ids[text]+"/tick", url.Values{"done": {map[bool]string{true: "true", false: "false"}[done]}})
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != path+"#item-"+shown.ids[text] {
			t.Fatalf("tick %q: %d %s", text, res.StatusCode, res.Header.Get("Location"))
		}
	}
	tick(bob, "Bread", true)
	a.Clock.Advance(time.Minute)
	tick(bob, "Eggs", true)
	tick(ann, "Eggs", true) // ticked already: nothing changes, it stays Bob's
	shown = showList(t, ann, path)
	if !slices.Equal(shown.open, []string{"Milk", "Apples"}) || !slices.Equal(shown.ticked, []string{"Eggs", "Bread"}) {
		t.Fatalf("after ticking: %v / %v", shown.open, shown.ticked)
	}
	by := shown.doc.Find(testID("list-ticked") + " " + testID("list-item-ticked-by"))
	if by.Length() != 2 || !strings.Contains(by.First().Text(), "ticked by") || !strings.Contains(by.First().Text(), "bob") {
		t.Fatalf("who ticked: %q", by.Text())
	}
	if shown.doc.Find(testID("list-ticked")+" "+testID("list-tick")+`[aria-checked="true"]`).Length() != 2 {
		t.Fatal("the ticked items' ticks do not say so")
	}
	if n := strings.TrimSpace(shown.doc.Find(testID("list-ticked-count")).Text()); n != "2 ticked off" {
		t.Fatalf("ticked count %q", n)
	}

	// Unticking puts Bread back where it was added, and forgets who.
	tick(ann, "Bread", false)
	shown = showList(t, ann, path)
	if !slices.Equal(shown.open, []string{"Milk", "Bread", "Apples"}) || !slices.Equal(shown.ticked, []string{"Eggs"}) {
		t.Fatalf("after unticking: %v / %v", shown.open, shown.ticked)
	}
	rows, head := a.listRows(t, path)
	for _, r := range rows {
		if r.Text == "Bread" && (r.Ticked || r.TickedBy != "" || r.TickedAt != nil) {
			t.Fatalf("unticked row %+v", r)
		}
		if r.Text == "Eggs" && (r.TickedBy != bob.id.MemberKey || r.TickedAt == nil) {
			t.Fatalf("ticked row %+v", r)
		}
	}
	if head.Count != 4 || head.Open != 3 {
		t.Fatalf("head %+v", head)
	}

	// Renaming an item keeps its place.
	if res := post(t, bob.c, path+"/items/"+shown.ids["Milk"]+"/edit", url.Values{"text": {"Oat milk"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename item: %d", res.StatusCode)
	}
	if shown = showList(t, ann, path); !slices.Equal(shown.open, []string{"Oat milk", "Bread", "Apples"}) {
		t.Fatalf("after renaming: %v", shown.open)
	}
	// Delete is at once; its button names the item.
	del := shown.doc.Find("#item-" + shown.ids["Apples"] + " " + testID("list-item-delete"))
	if label := del.AttrOr("aria-label", ""); !strings.Contains(label, "Apples") || !strings.HasPrefix(label, "Delete") {
		t.Fatalf("delete button's name %q", label)
	}
	if res := post(t, bob.c, path+"/items/"+shown.ids["Apples"]+"/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete item: %d", res.StatusCode)
	}
	if res := post(t, bob.c, path+"/items/"+shown.ids["Apples"]+"/delete", nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("delete it again: %d", res.StatusCode)
	}
	// Clear ticked takes Eggs off.
	if res := post(t, bob.c, path+"/clear", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("clear: %d", res.StatusCode)
	}
	if shown = showList(t, ann, path); !slices.Equal(shown.open, []string{"Oat milk", "Bread"}) || len(shown.ticked) != 0 ||
		shown.doc.Find(testID("list-clear")).Length() != 0 {
		t.Fatalf("after clearing: %v / %v", shown.open, shown.ticked)
	}
	if _, head := a.listRows(t, path); head.Count != 2 || head.Open != 2 {
		t.Fatalf("head after clearing %+v", head)
	}

	// Renaming the list; the tab shows it with what is left to do.
	if res := post(t, bob.c, path+"/rename", url.Values{"name": {"Weekly shop"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename list: %d", res.StatusCode)
	}
	card := ann.c.Get("/groups/" + groupID + "/lists").Doc(t).Find(testID("list-card"))
	if card.Length() != 1 || !strings.Contains(card.Text(), "Weekly shop") || !strings.Contains(card.Text(), "2 items to go") {
		t.Fatalf("lists tab: %q", card.Text())
	}

	// Deleting asks first; only its creator or an owner deletes it.
	if res := post(t, ann.c, path+"/delete", nil); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("confirm-page")).Length() != 1 || res.Writes(t) != 0 {
		t.Fatalf("unconfirmed delete: %d", res.StatusCode)
	}
	if showList(t, bob, path).doc.Find(testID("delete-list")).Length() != 0 {
		t.Fatal("bob, who did not start the list, is offered its delete")
	}
	if res := post(t, bob.c, path+"/delete", confirmed); res.StatusCode != http.StatusForbidden || res.Writes(t) != 0 {
		t.Fatalf("bob deletes ann's list: %d", res.StatusCode)
	}
	if res := post(t, ann.c, path+"/delete", confirmed); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups/"+groupID+"/lists" {
		t.Fatalf("delete list: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if res := bob.c.Get(path); res.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted list: %d", res.StatusCode)
	}
	if rows, head := a.listRows(t, path); len(rows) != 0 || head.ETag != "" {
		t.Fatalf("the deleted list's items stay: %d, %+v", len(rows), head)
	}
	noListsLeft(t, a, groupID)
}

// Everyone outside the group is refused as every group page refuses
// them, and nothing is written: a visitor goes to sign in, a signed-in
// stranger gets 404 (the list's existence does not leak).
func TestListsRefuseOutsiders(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, groupID, path := annsList(t, a, "Milk")
	item := showList(t, ann, path).ids["Milk"]
	nina := a.signIn(t, "nina@example.com")
	visitor := person{c: a.Client()}
	visitor.c.Get("/") // a session, so the CSRF token can be scraped

	for _, who := range []struct {
		name       string
		p          person
		get, write int
	}{{"non-member", nina, http.StatusNotFound, http.StatusNotFound}, {"visitor", visitor, http.StatusSeeOther, http.StatusUnauthorized}} {
		for _, path := range []string{"/groups/" + groupID + "/lists", path, path + "/items/" + item + "/edit"} {
			if res := who.p.c.Get(path); res.StatusCode != who.get || strings.Contains(res.Body, "Groceries") {
				t.Errorf("%s GET %s: %d", who.name, path, res.StatusCode)
			}
		}
		for _, w := range []struct {
			path string
			form url.Values
		}{
			{"/groups/" + groupID + "/lists", url.Values{"name": {"Mine"}}},
			{path + "/items", url.Values{"text": {"Beer"}}},
			{path + "/items/" + item + "/tick", url.Values{"done": {"true"}}},
			{path + "/items/" + item + "/edit", url.Values{"text": {"Beer"}}},
			{path + "/items/" + item + "/delete", nil},
			{path + "/rename", url.Values{"name": {"Mine"}}},
			{path + "/clear", nil},
			{path + "/delete", confirmed},
		} {
			res := post(t, who.p.c, w.path, w.form)
			if res.StatusCode != who.write || res.Writes(t) != 0 {
				t.Errorf("%s POST %s: %d, %d writes", who.name, w.path, res.StatusCode, res.Writes(t))
			}
		}
	}
	if shown := showList(t, ann, path); !slices.Equal(shown.open, []string{"Milk"}) {
		t.Fatalf("the list changed: %v / %v", shown.open, shown.ticked)
	}
}

// Guests who joined by link are members: they use the lists as anyone.
func TestGuestsUseTheLists(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	groupID := createGroup(t, ann, "Smiths")
	gus := a.joinAsGuest(t, groupID, openJoin(t, ann, groupID), "Gus")
	path := createList(t, ann, groupID, "Groceries")
	addItems(t, gus, path, "Milk")
	shown := showList(t, gus, path)
	if res := post(t, gus.c, path+"/items/"+shown.ids["Milk"]+"/tick", url.Values{"done": {"true"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("guest ticks: %d", res.StatusCode)
	}
	if by := showList(t, ann, path).doc.Find(testID("list-item-ticked-by")).Text(); !strings.Contains(by, "Gus") {
		t.Fatalf("ticked by %q", by)
	}
}

// What people type passes the form kit's text rules: a refusal says why
// beside the box, keeps what was typed, and writes nothing.
func TestListsRefuseBadText(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, groupID, path := annsList(t, a, "Milk")
	item := showList(t, ann, path).ids["Milk"]

	bad := []struct{ name, value, message string }{
		{"empty", "   ", "up to 200 characters"},
		{"too long", strings.Repeat("я", 201), "up to 200 characters"},
		{"control character", "Milk\x00", "control"},
		{"line break", "Milk\nBread", "line"},
		{"direction override", "Milk\u202e", "direction"},
	}
	for _, b := range bad {
		for _, form := range []struct {
			action, field, testID string
		}{
			{path + "/items", "text", "list-add-form"},
			{path + "/items/" + item + "/edit", "text", "list-item-edit-form"},
			{path + "/rename", "name", "list-rename-form"},
			{"/groups/" + groupID + "/lists", "name", "new-list-form"},
		} {
			if form.field == "name" && b.name == "too long" {
				b.value = strings.Repeat("я", 61)
			}
			res := post(t, ann.c, form.action, url.Values{form.field: {b.value}})
			if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
				t.Errorf("%s to %s: %d, %d writes", b.name, form.action, res.StatusCode, res.Writes(t))
				continue
			}
			msg := res.Doc(t).Find(testID(form.testID) + " " + testID("field-error")).Text()
			want := b.message
			if form.field == "name" && (b.name == "empty" || b.name == "too long") {
				want = "up to 60 characters"
			}
			if !strings.Contains(strings.ToLower(msg), want) {
				t.Errorf("%s to %s: the form says %q", b.name, form.action, msg)
			}
		}
	}
	// What was typed comes back in the box.
	res := post(t, ann.c, path+"/items", url.Values{"text": {strings.Repeat("b", 201)}})
	if v := res.Doc(t).Find(testID("list-add-text")).AttrOr("value", ""); v != strings.Repeat("b", 201) {
		t.Fatalf("the box holds %q", v)
	}
	// A tick that says neither way is refused.
	if res := post(t, ann.c, path+"/items/"+item+"/tick", url.Values{"done": {"maybe"}}); res.StatusCode != http.StatusBadRequest || res.Writes(t) != 0 {
		t.Fatalf("tick maybe: %d", res.StatusCode)
	}
	// Made-up items and lists are 404s.
	for _, p := range []string{path + "/items/0000000099/edit", path + "/items/x/edit", "/groups/" + groupID + "/lists/01ARZ3NDEKTSV4RRFFQ69G5FAV"} {
		if res := ann.c.Get(p); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
	}
	if rows, _ := a.listRows(t, path); len(rows) != 1 || rows[0].Text != "Milk" || rows[0].Ticked {
		t.Fatalf("rows %+v", rows)
	}
}

// A group holds at most 50 lists and a list 500 items: one more is
// refused with the reason, and nothing is written.
func TestListBounds(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	groupID := createGroup(t, ann, "Smiths")
	m, _, err := a.svc.Open(ctx, groupID, ann.id, AccessMember)
	if err != nil {
		t.Fatal(err)
	}
	var first ListRow
	for i := range MaxLists {
		l, err := a.svc.CreateList(ctx, m, ann.id, "List")
		if err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
		if i == 0 {
			first = l
		}
	}
	res := post(t, ann.c, "/groups/"+groupID+"/lists", url.Values{"name": {"One too many"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 ||
		!strings.Contains(res.Doc(t).Find(testID("lists-full")).Text(), "at most 50 lists") {
		t.Fatalf("51st list: %d %d %q", res.StatusCode, res.Writes(t), res.Doc(t).Find(testID("lists-full")).Text())
	}
	if ann.c.Get("/groups/"+groupID+"/lists").Doc(t).Find(testID("lists-full")).Length() != 1 {
		t.Fatal("a full tab still offers a new list")
	}

	for i := range MaxListItems {
		if _, err := a.svc.AddListItem(ctx, first, ann.id, "Item"); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
	}
	path := listURL(groupID, first.ListID)
	res = post(t, ann.c, path+"/items", url.Values{"text": {"One too many"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 ||
		!strings.Contains(res.Doc(t).Find(testID("list-full")).Text(), "at most 500 items") {
		t.Fatalf("501st item: %d %d", res.StatusCode, res.Writes(t))
	}
	// Making room makes room again.
	shown := showList(t, ann, path)
	if len(shown.open) != MaxListItems || shown.doc.Find(testID("list-full")).Length() != 1 {
		t.Fatalf("a full list shows %d items", len(shown.open))
	}
	li := shown.doc.Find(testID("list-item")).First()
	if res := post(t, ann.c, path+"/items/"+strings.TrimPrefix(li.AttrOr("id", ""), "item-")+"/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	addItems(t, ann, path, "Room again")
}

// htmx gets the part each form swaps, never a whole page.
func TestListFragmentsForHTMX(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, path := annsList(t, a)
	hx := []string{"HX-Request", "true", "HX-Request-Type", "partial"}
	fragment := func(what string, res *webtest.Response, status int) *goquery.Document {
		t.Helper()
		if res.StatusCode != status || strings.Contains(res.Body, "<html") {
			t.Fatalf("%s: %d, a page: %v", what, res.StatusCode, strings.Contains(res.Body, "<html"))
		}
		return res.Doc(t)
	}

	// Adding answers the body with an empty box under the same id, so the
	// box keeps the focus for the next item.
	doc := fragment("add", post(t, ann.c, path+"/items", url.Values{"text": {"Milk"}}, hx...), http.StatusOK)
	if doc.Find("#list-body").Length() != 1 || doc.Find("#list-item-text").AttrOr("value", "x") != "" ||
		!slices.Equal(readList(t, doc).open, []string{"Milk"}) {
		t.Fatalf("added: %s", doc.Text())
	}
	fragment("add", post(t, ann.c, path+"/items", url.Values{"text": {"Bread"}}, hx...), http.StatusOK)
	doc = fragment("refused add", post(t, ann.c, path+"/items", url.Values{"text": {""}}, hx...), http.StatusUnprocessableEntity)
	if doc.Find("#list-body "+testID("field-error")).Length() != 1 || doc.Find("#list-item-text").AttrOr("aria-invalid", "") != "true" {
		t.Fatal("a refused add shows no error in the body")
	}
	ids := showList(t, ann, path).ids

	// A tick answers the item in place and the tools out of band.
	doc = fragment("tick", post(t, ann.c, path+"/items/"+ids["Milk"]+"/tick", url.Values{"done": {"true"}}, hx...), http.StatusOK)
	li := doc.Find("li#item-" + ids["Milk"])
	if li.Length() != 1 || !li.HasClass("is-ticked") || li.Find("#tick-"+ids["Milk"]).AttrOr("aria-checked", "") != "true" ||
		!strings.Contains(li.Text(), "ann") {
		t.Fatalf("ticked item: %s", li.Text())
	}
	tools := doc.Find(`#list-tools[hx-swap-oob="true"]`)
	if tools.Length() != 1 || tools.Find(testID("list-clear")).Length() != 1 {
		t.Fatal("no tools out of band")
	}
	// Renaming swaps a form into the item's place, and the item back.
	doc = fragment("edit", ann.c.Get(path+"/items/"+ids["Bread"]+"/edit", hx...), http.StatusOK)
	if doc.Find("li#item-"+ids["Bread"]+" "+testID("list-item-edit-form")).Length() != 1 {
		t.Fatal("no edit form in place")
	}
	doc = fragment("refused rename", post(t, ann.c, path+"/items/"+ids["Bread"]+"/edit", url.Values{"text": {"\x1b"}}, hx...), http.StatusUnprocessableEntity)
	if doc.Find("li "+testID("field-error")).Length() != 1 {
		t.Fatal("a refused rename shows no error in place")
	}
	doc = fragment("rename", post(t, ann.c, path+"/items/"+ids["Bread"]+"/edit", url.Values{"text": {"Rye bread"}}, hx...), http.StatusOK)
	if strings.TrimSpace(doc.Find("li#item-"+ids["Bread"]+" "+testID("list-item-text")).Text()) != "Rye bread" {
		t.Fatal("renamed item not in place")
	}
	// Deleting answers nothing for the item, and the tools.
	doc = fragment("delete", post(t, ann.c, path+"/items/"+ids["Bread"]+"/delete", nil, hx...), http.StatusOK)
	if doc.Find("li").Length() != 0 || doc.Find(`#list-tools[hx-swap-oob="true"]`).Length() != 1 {
		t.Fatal("delete answered more than the tools")
	}
	// Clearing answers the body.
	doc = fragment("clear", post(t, ann.c, path+"/clear", nil, hx...), http.StatusOK)
	if doc.Find("#list-body").Length() != 1 || doc.Find(testID("list-item")).Length() != 0 || doc.Find(testID("list-empty")).Length() != 1 {
		t.Fatal("cleared body")
	}
}

// A delete that stops after the list is marked (its items' delete
// failed) still hides the list at once, and its queued burial takes the
// items and the row a minute later.
func TestADeletedListIsBuriedAfterAStop(t *testing.T) {
	t.Parallel()
	a, b := newBetweenApp(t)
	ann, groupID, path := annsList(t, a, "Milk", "Bread")
	b.refuse(func(op string) bool { return op == "tx "+listItemsTable })
	if res := post(t, ann.c, path+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if res := ann.c.Get(path); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the marked list: %d", res.StatusCode)
	}
	if ann.c.Get("/groups/"+groupID+"/lists").Doc(t).Find(testID("list-card")).Length() != 0 {
		t.Fatal("the marked list is on the tab")
	}
	if rows, _ := a.listRows(t, path); len(rows) != 2 {
		t.Fatalf("the refused delete took %d items", 2-len(rows))
	}
	a.Clock.Advance(2 * buryListAfter)
	if _, err := a.Tasks.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if rows, head := a.listRows(t, path); len(rows) != 0 || head.ETag != "" {
		t.Fatalf("after the burial: %d items, head %+v", len(rows), head)
	}
	noListsLeft(t, a, groupID)
}

// Deleting the group deletes its lists: unreachable at once, purged with
// the group.
func TestAPurgedGroupTakesItsLists(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, groupID, path := annsList(t, a, "Milk")
	if res := post(t, ann.c, "/groups/"+groupID+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete group: %d", res.StatusCode)
	}
	if res := ann.c.Get(path); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a deleted group's list: %d", res.StatusCode)
	}
	a.Clock.Advance(PurgeAfter + time.Hour)
	if n, err := a.svc.purgeDue(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if rows, head := a.listRows(t, path); len(rows) != 0 || head.ETag != "" {
		t.Fatalf("items left: %d %+v", len(rows), head)
	}
	noListsLeft(t, a, groupID)
}

package prompts

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/storage"
)

// savedIDs are the prompts on u's saved list, in order, and those of them
// no longer available.
func savedIDs(t *testing.T, u user) (ids, gone []string) {
	t.Helper()
	res := u.c.Get(SavedURL)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", SavedURL, res.StatusCode)
	}
	doc := res.Doc(t)
	doc.Find(`[data-prompt]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-prompt")
		ids = append(ids, id)
		if v, _ := s.Attr("data-testid"); v == "prompt-gone" {
			gone = append(gone, id)
		}
	})
	return ids, gone
}

// TestSavingPrompts: someone signed in saves a prompt from its page (a
// form, or htmx swapping the button), finds it under "Saved prompts",
// newest saved first, and takes it back from either place; a prompt its
// author deletes stays on the list as no longer available, to be
// removed. Nobody else sees the list; visitors get no button.
func TestSavingPrompts(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann, bob := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com")
	first := a.createPrompt(t, ann, promptForm("Weekly meal planner", "Plan dinners for {{people}}.", "public", "writing"))
	second := a.createPrompt(t, ann, promptForm("Explain a pull request", "Explain this diff.", "public", "coding"))

	page := bob.c.Get("/prompts/" + first).Doc(t)
	button := page.Find(testID("save-prompt"))
	if pressed, _ := button.Attr("aria-pressed"); button.Length() != 1 || pressed != "false" || strings.TrimSpace(button.Text()) != "Save" {
		t.Fatalf("the save button: %d %q %q", button.Length(), pressed, button.Text())
	}
	if a.Client().Get("/prompts/"+first).Doc(t).Find(testID("save-prompt")).Length() != 0 {
		t.Error("a visitor is offered Save")
	}
	// Without JS: back to the prompt, saved.
	res := post(t, bob.c, "/prompts/"+first+"/save", url.Values{"saved": {"true"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/prompts/"+first {
		t.Fatalf("save: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if pressed, _ := bob.c.Get("/prompts/" + first).Doc(t).Find(testID("save-prompt")).Attr("aria-pressed"); pressed != "true" {
		t.Error("the prompt's page does not say it is saved")
	}
	// With htmx: the button as it now stands.
	a.Clock.Advance(time.Minute)
	res = post(t, bob.c, "/prompts/"+second+"/save", url.Values{"saved": {"true"}}, htmxPartial...)
	frag := res.Doc(t)
	if pressed, _ := frag.Find(testID("save-prompt")).Attr("aria-pressed"); res.StatusCode != http.StatusOK || pressed != "true" || !strings.Contains(frag.Text(), "Saved") || frag.Find("main").Length() != 0 {
		t.Fatalf("htmx save: %d %q", res.StatusCode, frag.Text())
	}
	// Saving again changes nothing.
	post(t, bob.c, "/prompts/"+second+"/save", url.Values{"saved": {"true"}})
	if ids, _ := savedIDs(t, bob); !slices.Equal(ids, []string{second, first}) {
		t.Fatalf("bob's saved list %v, want %v (newest saved first)", ids, []string{second, first})
	}
	if ids, _ := savedIDs(t, ann); len(ids) != 0 {
		t.Errorf("ann sees bob's saves: %v", ids)
	}
	if link := ann.c.Get("/prompts").Doc(t).Find(testID("saved-prompts")); link.AttrOr("href", "") != SavedURL {
		t.Error("the catalog does not link the saved prompts")
	}

	// Ann deletes the first: it stays on bob's list as gone, to remove.
	if res := post(t, ann.c, "/prompts/"+first+"/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	ids, gone := savedIDs(t, bob)
	if !slices.Equal(ids, []string{second, first}) || !slices.Equal(gone, []string{first}) {
		t.Fatalf("after the deletion: %v, gone %v", ids, gone)
	}
	action, _ := bob.c.Get(SavedURL).Doc(t).Find(testID("prompt-gone") + " form").Attr("action")
	res = post(t, bob.c, action, url.Values{"saved": {"false"}, "next": {SavedURL}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != SavedURL {
		t.Fatalf("remove: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	// Taken back from the prompt's page too.
	post(t, bob.c, "/prompts/"+second+"/save", url.Values{"saved": {"false"}}, htmxPartial...)
	if ids, _ := savedIDs(t, bob); len(ids) != 0 {
		t.Errorf("bob's list after taking both back: %v", ids)
	}
	if bob.c.Get(SavedURL).Doc(t).Find(testID("saved-empty")).Length() != 1 {
		t.Error("an empty list does not say so")
	}
	rows, err := storage.All[SaveRow](ctx, a.svc.saves, storage.Query{Scan: true})
	if err != nil || len(rows) != 0 {
		t.Errorf("rows left: %d (%v)", len(rows), err)
	}
	if res := a.Client().Get(SavedURL); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor's saved list: %d", res.StatusCode)
	}
}

// TestBadSavesChangeNothing: a prompt one may not open (another's
// private one, none at all), a value that is neither true nor false, and
// a save past the bound are refused with a message and write nothing.
func TestBadSavesChangeNothing(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann, bob := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com")
	public := a.createPrompt(t, ann, promptForm("Weekly meal planner", "Plan dinners.", "public", "writing"))
	private := a.createPrompt(t, ann, promptForm("My private notes", "Secret.", "private", "writing"))
	other := a.createPrompt(t, ann, promptForm("Explain a pull request", "Explain this diff.", "public", "coding"))
	for _, c := range []struct {
		path   string
		form   url.Values
		status int
	}{
		{"/prompts/" + private + "/save", url.Values{"saved": {"true"}}, http.StatusNotFound},
		{"/prompts/01ARZ3NDEKTSV4RRFFQ69G5FAV/save", url.Values{"saved": {"true"}}, http.StatusNotFound},
		{"/prompts/not-an-id/save", url.Values{"saved": {"true"}}, http.StatusNotFound},
		{"/prompts/" + public + "/save", url.Values{"saved": {"maybe"}}, http.StatusBadRequest},
	} {
		res := post(t, bob.c, c.path, c.form)
		if res.StatusCode != c.status || strings.Contains(res.Body, ".go:") {
			t.Errorf("POST %s %v: %d, want %d", c.path, c.form, res.StatusCode, c.status)
		}
	}
	a.svc.saveCap = 1
	post(t, bob.c, "/prompts/"+public+"/save", url.Values{"saved": {"true"}})
	res := post(t, bob.c, "/prompts/"+other+"/save", url.Values{"saved": {"true"}})
	if res.StatusCode != http.StatusConflict || !strings.Contains(res.Body, "Remove some first") {
		t.Errorf("a save past the bound: %d %.200s", res.StatusCode, res.Body)
	}
	rows, err := storage.All[SaveRow](ctx, a.svc.saves, storage.Query{Scan: true})
	if err != nil || len(rows) != 2 || rows[0].PromptID != public || rows[1].PromptID != public {
		t.Errorf("rows written: %+v (%v), want the one save's two", rows, err)
	}
}

// TestTheSavedListReadsAPromptPerRow: the saved list is one query of the
// saver's partition and a point read per prompt on the page, whatever
// else they saved.
func TestTheSavedListReadsAPromptPerRow(t *testing.T) {
	t.Parallel()
	a := newPromptsApp(t)
	ann, bob := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com")
	for i := range 3 {
		p := a.mustCreate(t, ann.key, input("Prompt number "+string(rune('A'+i)), "writing"))
		if err := a.svc.SetSaved(ctx, bob.key, p.PromptID, true); err != nil {
			t.Fatal(err)
		}
	}
	bob.c.Get(SavedURL) // the tag catalog's cache
	// What any signed-in page costs (the session), to set aside.
	base := bob.c.Get("/prompts/new").StorageOps(t)
	ops := bob.c.Get(SavedURL).StorageOps(t)
	if ops["queries"]-base["queries"] != 1 || ops["reads"]-base["reads"] != 3 || ops["writes"] != 0 {
		t.Errorf("the saved list of three: %v (a signed-in page: %v)", ops, base)
	}
}

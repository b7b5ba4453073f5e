package groups

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/auth"
)

// The roster names rows by an opaque reference: no page or "load more"
// link shows a member's userKey (an unsalted hash of their email), which
// anyone in the group could check against guessed addresses.
func TestRosterShowsNoEmailHashes(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	a.svc.rosterPageSize = 2
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	other := createGroup(t, ann, "Joneses")
	emails := []string{"ann@example.com", "bob@example.com", "carol@example.com", "dave@example.com"}
	for _, e := range emails[1:] {
		if res := invite(t, ann, id, e); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("invite %s: %d", e, res.StatusCode)
		}
	}
	bob := a.signIn(t, "bob@example.com")
	if res := post(t, bob.c, "/groups/"+id+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", res.StatusCode)
	}
	for _, viewer := range []person{ann, bob} {
		next, pages, rows := "/groups/"+id+"/members", 0, 0
		for next != "" && pages < 10 {
			res := viewer.c.Get(next)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d", next, res.StatusCode)
			}
			for _, e := range emails {
				if k := auth.UserKey(e); strings.Contains(res.Body, k) || strings.Contains(next, k) {
					t.Fatalf("%s's roster page %s shows the userKey of %s", viewer.id.Email, next, e)
				}
			}
			doc := res.Doc(t)
			rows += doc.Find(testID("roster-row")).Length()
			next, _ = doc.Find(`[data-testid="load-more"] a, a[data-testid="load-more"]`).Attr("href")
			pages++
		}
		if rows != 4 || pages < 2 {
			t.Fatalf("%s saw %d rows on %d pages", viewer.id.Email, rows, pages)
		}
	}
	// Actions take the reference; a raw key, or a reference to a row of
	// another group, names nobody.
	carol := auth.UserKey("carol@example.com")
	for name, ref := range map[string]string{
		"raw userKey":         carol,
		"another group's ref": a.svc.memberRef(other, carol),
		"mangled ref":         a.svc.memberRef(id, carol) + "x",
	} {
		if res := post(t, ann.c, "/groups/"+id+"/members/"+ref+"/cancel", confirmed); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", name, res.StatusCode)
		}
	}
	if a.member(t, id, "carol@example.com").Status != StatusInvited {
		t.Fatal("a refused action changed the row")
	}
	if res := post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, carol)+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel by ref: %d", res.StatusCode)
	}
}

// Dates speak the reader's language: the roster's join date.
func TestRosterDatesInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	day := a.Clock.Now().UTC()
	for lang, want := range map[string]string{
		"en": fmt.Sprintf("%d May %d", day.Day(), day.Year()),
		"ru": fmt.Sprintf("%d мая %d", day.Day(), day.Year()),
	} {
		res := ann.c.Get("/groups/"+id+"/members", "Accept-Language", lang)
		if got := res.Doc(t).Find(testID("roster-row")).Text(); !strings.Contains(got, want) {
			t.Errorf("%s roster says %q, want %q", lang, got, want)
		}
	}
}

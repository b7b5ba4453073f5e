package people_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/people"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
)

// TestADeletedMemberLeavesNothingInPeople: Bob has photos, likes given
// and received, a match with Ann, skips both ways and day counters. His
// archive holds his photos, his likes and his match, and not Ann's like
// of Cat. Forgetting him (a first run cut short by a failed write, a
// second that finishes it) leaves no row or file naming him: Ann's match
// with him and Cat's like of him are gone from their pages, the rebuild
// finds nothing to repair, and a third run changes nothing.
//
// The forget is cut short at several points: among the photos, the
// likes and the matches.
func TestADeletedMemberLeavesNothingInPeople(t *testing.T) {
	t.Parallel()
	memberdatatest.CutShort(t, []int{3, 10, 14, 16}, forgetBob)
}

func forgetBob(t *testing.T, faults *memberdatatest.Faults, failAfter int) {
	a := newWrappedApp(t, faults.Wrap)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1990-03-01")
	cat := a.join(t, "cat@example.com", "Cat", "female", "1995-06-01")
	dan := a.join(t, "dan@example.com", "Dan", "male", "1992-02-02")
	for i := range 2 {
		if res := upload(bob, mediatest.JPEGWithEXIF(t, 600+i, 400, 1)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("photo: %d", res.StatusCode)
		}
	}
	for _, l := range []struct {
		from, to member
		comment  string
	}{{bob, ann, "Bob to Ann"}, {ann, bob, ""}, {cat, bob, "Cat to Bob"}, {bob, dan, ""}, {ann, cat, "Ann to Cat"}} {
		if res := like(l.from, l.to, l.comment); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s likes %s: %d", l.from.name, l.to.name, res.StatusCode)
		}
	}
	for _, s := range [][2]member{{bob, cat}, {dan, bob}} {
		if res := post(s[0].Client, auth.ProfileURL(s[1].key)+"/skip", url.Values{}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s skips %s: %d", s[0].name, s[1].name, res.StatusCode)
		}
	}
	if res := place(bob, "55.75", "37.62"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("Bob's place: %d", res.StatusCode)
	}
	if a.matchesOf(t, ann) != 1 {
		t.Fatal("Ann and Bob should match")
	}
	m := memberdatatest.Member(bob.key, "bob@example.com")

	var archive memberdatatest.Archive
	if err := a.svc.ExportMember(ctx, m, &archive); err != nil {
		t.Fatal(err)
	}
	text := archive.Text()
	for _, want := range []string{"people/photos/1.jpg", "people/photos/2.jpg", "Bob to Ann", "Cat to Bob", `"person": "Dan"`, `"person": "Ann"`} {
		if !strings.Contains(text, want) {
			t.Errorf("Bob's archive lacks %q", want)
		}
	}
	if strings.Contains(text, "Ann to Cat") || strings.Contains(text, ann.key) {
		t.Errorf("Bob's archive holds someone else's data:\n%s", text)
	}
	if len(archive.Files["people/photos/1.jpg"]) == 0 {
		t.Error("the archive's photo is empty")
	}

	faults.Finish(t, failAfter, func() error { return a.svc.ForgetMember(ctx, m) })
	if left := memberdatatest.Traces(t, a.Store, m, a.svc.Tables()...); len(left) != 0 {
		t.Errorf("rows still naming Bob: %v", left)
	}
	if blobs, err := a.Store.Container("people-photos").List(ctx, ""); err != nil || len(blobs) != 0 {
		t.Errorf("photo files left: %v, %v", blobs, err)
	}
	if n := a.matchesOf(t, ann); n != 0 {
		t.Errorf("Ann still has %d matches", n)
	}
	if page := cat.Get(people.LikesURL).Body; strings.Contains(page, "Bob") {
		t.Error("Cat's likes still show Bob")
	}
	if r, err := a.svc.RebuildPeople(ctx); err != nil || r.Received+r.Removed+r.Matches+r.Unliked+r.Cards != 0 {
		t.Errorf("the rebuild after a forget repaired %s (%v)", r, err)
	}
	before := memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...)
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, a.svc.Tables()...); after != before {
		t.Errorf("a second forget changed the tables:\n%s\n%s", before, after)
	}
}

package people_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
)

// TestALikeOfOnePhoto: as Hinge likes one photo, each photo on a
// person's page has its own like; the liked person's Likes page and the
// liker's page show which photo, until she removes it, when they say so
// instead of a picture no longer kept. A photo the card no longer has
// is refused and writes nothing; the export says the like was of a
// photo, never naming its file.
func TestALikeOfOnePhoto(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ann := a.join(t, "ann@example.com", "Ann", "female", "2000-01-10")
	bob := a.join(t, "bob@example.com", "Bob", "male", "1995-03-02")
	for i := range 2 {
		if res := upload(ann, mediatest.EncodedPNG(t, 640+i, 480)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("photo %d: %d", i+1, res.StatusCode)
		}
	}
	ids := photoIDs(t, ann)
	page := bob.Get("/people/" + ann.key).Doc(t)
	if n := page.Find(testID("person-photo") + " " + testID("photo-like-form")).Length(); n != 2 {
		t.Fatalf("Ann's page offers %d likes of a photo", n)
	}
	if about := page.Find(testID("photo-like-form")+` input[name="about"]`).Last().AttrOr("value", ""); about != "photo:"+ids[1] {
		t.Fatalf("the second photo's like is about %q", about)
	}
	for _, bad := range []string{"photo:01ARZ3NDEKTSV4RRFFQ69G5FAV", "photo:", "photo:" + ids[1] + "x"} {
		if res := post(bob.Client, "/people/"+ann.key+"/like", url.Values{"about": {bad}}); res.StatusCode != http.StatusConflict || res.Writes(t) != 0 {
			t.Errorf("a like of %q: %d, %d writes", bad, res.StatusCode, res.Writes(t))
		}
	}
	if res := post(bob.Client, "/people/"+ann.key+"/like", url.Values{"about": {"photo:" + ids[1]}, "comment": {"Where is this?"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a like of a photo: %d", res.StatusCode)
	}
	likedPhoto := func() (src, text string) {
		row := ann.Get("/people/likes").Doc(t).Find(testID("likes-you") + " " + testID("people-row"))
		return row.Find(testID("liked-photo")+" img").AttrOr("src", ""), row.Text()
	}
	if src, text := likedPhoto(); !strings.Contains(src, ids[1]) || !strings.Contains(text, "Liked your photo") || !strings.Contains(text, "Where is this?") {
		t.Fatalf("Ann's likes page: %q %q", src, text)
	}
	if got := ann.Get("/people/"+bob.key, "Accept-Language", "ru").Doc(t).Find(testID("liked-photo")).Text(); !strings.Contains(got, "Понравилось ваше фото") {
		t.Errorf("Bob's page to Ann in Russian: %q", got)
	}
	var archive memberdatatest.Archive
	if err := a.svc.ExportMember(t.Context(), memberdatatest.Member(ann.key, "ann@example.com"), &archive); err != nil {
		t.Fatal(err)
	}
	if export := archive.Text(); !strings.Contains(export, `"about_photo": true`) || strings.Contains(export, ids[1]) {
		t.Errorf("the export of the like: %s", export)
	}

	// Ann removes that photo: no picture, but the like still says it
	// was of a photo.
	if res := ann.PostForm(photosPath+"/"+ids[1]+"/delete", ann.WithCSRF(photosPath, url.Values{"confirm": {"yes"}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if src, text := likedPhoto(); src != "" || !strings.Contains(text, "Liked a photo you have removed since.") {
		t.Fatalf("after the photo went: %q %q", src, text)
	}
	if doc := ann.Get("/people/" + bob.key).Doc(t); doc.Find(testID("liked-photo")).Length() != 0 || doc.Find(testID("liked-photo-gone")).Length() != 1 {
		t.Error("Bob's page to Ann still shows the photo removed")
	}
}

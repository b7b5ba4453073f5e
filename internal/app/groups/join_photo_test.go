package groups

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// joinWithPhoto has a fresh browser join by link through the multipart
// form, with photo as the file when it is not nil, and returns it.
func (a *groupsApp) joinWithPhoto(t *testing.T, groupID, sessionID, name string, photo []byte, filename string) person {
	t.Helper()
	c := a.Client()
	page := c.Get("/join/" + groupID + "/" + sessionID)
	form := page.Doc(t).Find(testID("join-form"))
	if enc, _ := form.Attr("enctype"); page.StatusCode != http.StatusOK || enc != "multipart/form-data" {
		t.Fatalf("join page: %d, enctype %q", page.StatusCode, enc)
	}
	input := form.Find(testID("join-photo"))
	if accept, _ := input.Attr("accept"); input.Length() != 1 || accept != "image/jpeg,image/png,image/webp" {
		t.Fatalf("photo input: %d, accept %q", input.Length(), accept)
	}
	if id, _ := input.Attr("id"); form.Find(`label[for="`+id+`"]`).Length() != 1 {
		t.Fatal("photo input has no label")
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range c.WithCSRF("/", url.Values{"name": {name}}) {
		w.WriteField(k, v[0])
	}
	if photo != nil {
		f, _ := w.CreateFormFile("photo", filename)
		f.Write(photo)
	}
	w.Close()
	req := webtest.NewRequest(t, http.MethodPost, "/join/"+groupID+"/"+sessionID, &body, "Content-Type", w.FormDataContentType())
	res := c.Do(req)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/groups/"+groupID {
		t.Fatalf("join as %s: %d %s", name, res.StatusCode, res.Header.Get("Location"))
	}
	key := a.Who(c)
	if !auth.IsGuestKey(key) {
		t.Fatalf("joined as %q, not a guest", key)
	}
	return person{c: c, id: &auth.Identity{MemberKey: key, DisplayName: name, Guest: true}}
}

// rosterAvatar is the avatar URL the roster shows for name ("" for the
// initial).
func rosterAvatar(t *testing.T, viewer person, groupID, name string) string {
	t.Helper()
	res := viewer.c.Get("/groups/" + groupID + "/members")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("roster: %d", res.StatusCode)
	}
	var src string
	found := false
	res.Doc(t).Find(testID("roster-row")).Each(func(_ int, row *goquery.Selection) {
		if strings.Contains(row.Text(), name) {
			found = true
			src, _ = row.Find("img.avatar").Attr("src")
		}
	})
	if !found {
		t.Fatalf("%s not on the roster", name)
	}
	return src
}

// flashOn is the flash the group page shows c once.
func flashOn(t *testing.T, c *webtest.Client, groupID string) string {
	t.Helper()
	res := c.Get("/groups/" + groupID)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("group page: %d", res.StatusCode)
	}
	return strings.TrimSpace(res.Doc(t).Find(testID("flash")).Text())
}

func TestJoinAsGuestWithPhoto(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)

	gina := a.joinWithPhoto(t, groupID, sid, "Gina", mediatest.EncodedPNG(t, 300, 200), "me.png")
	if got := flashOn(t, gina.c, groupID); got != "Welcome to the group!" {
		t.Fatalf("flash %q", got)
	}
	src := rosterAvatar(t, olga, groupID, "Gina")
	if !strings.HasPrefix(src, "/media/profile/"+url.PathEscape(gina.id.MemberKey)+"/") || !strings.HasSuffix(src, "_s.jpg") {
		t.Fatalf("avatar %q", src)
	}
	img := olga.c.Get(src)
	if img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("avatar: %d %s", img.StatusCode, img.Header.Get("Content-Type"))
	}
	// A guest's profile keeps them out of the Users directory.
	p, err := a.Accounts.Profile(ctx, gina.id.MemberKey)
	if err != nil || p.DisplayName != "Gina" || p.Email != "" || !p.Enabled {
		t.Fatalf("guest profile %+v, %v", p, err)
	}
	report, err := a.Accounts.RebuildDirectory(ctx)
	if err != nil || report.Written != 0 || report.Removed != 0 {
		t.Fatalf("directory rebuild after a guest photo: %+v, %v", report, err)
	}
}

func TestJoinAsGuestWithUnusablePhoto(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)

	tom := a.joinWithPhoto(t, groupID, sid, "Tom", []byte("just some text, not a picture\n"), "notes.txt")
	if got := flashOn(t, tom.c, groupID); !strings.Contains(got, "photo couldn't be used") {
		t.Fatalf("flash %q", got)
	}
	if src := rosterAvatar(t, olga, groupID, "Tom"); src != "" {
		t.Fatalf("avatar %q for an unusable photo", src)
	}
	if _, err := a.Accounts.Profile(ctx, tom.id.MemberKey); err == nil {
		t.Fatal("an unusable photo made a profile")
	}

	// No photo: as before, through the multipart form.
	nia := a.joinWithPhoto(t, groupID, sid, "Nia", nil, "")
	if got := flashOn(t, nia.c, groupID); got != "Welcome to the group!" {
		t.Fatalf("flash %q", got)
	}
	if src := rosterAvatar(t, olga, groupID, "Nia"); src != "" {
		t.Fatalf("avatar %q without a photo", src)
	}
}

// A photo that decoding would make too large (16-bit colour: 335 KB on
// disk, 320 MB decoded) is refused from its header; the join stands.
func TestJoinAsGuestWithPhotoTooBigToDecode(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)

	pia := a.joinWithPhoto(t, groupID, sid, "Pia", mediatest.DeepPNG(t, 6320, 6320), "deep.png")
	if got := flashOn(t, pia.c, groupID); !strings.Contains(got, "too large to process") {
		t.Fatalf("flash %q", got)
	}
	if src := rosterAvatar(t, olga, groupID, "Pia"); src != "" {
		t.Fatalf("avatar %q for a refused photo", src)
	}
	if _, err := a.Accounts.Profile(ctx, pia.id.MemberKey); err == nil {
		t.Fatal("a refused photo made a profile")
	}
}

func TestJoinPhotoFieldOnlyForVisitors(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)
	bob := a.signIn(t, "bob@example.com")
	form := bob.c.Get("/join/" + groupID + "/" + sid).Doc(t).Find(testID("join-form"))
	if _, multi := form.Attr("enctype"); form.Length() != 1 || multi || form.Find(testID("join-photo")).Length() != 0 {
		t.Fatal("a signed-in person is offered a photo field")
	}
}

func TestJoinWithTooLargePhotoKeepsTheForm(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)

	c := a.Client()
	c.Get("/join/" + groupID + "/" + sid)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range c.WithCSRF("/", url.Values{"name": {"Gina"}}) {
		w.WriteField(k, v[0])
	}
	f, _ := w.CreateFormFile("photo", "huge.jpg")
	f.Write(bytes.Repeat([]byte{0xff}, account.MaxPhotoBytes+1))
	w.Close()
	req := webtest.NewRequest(t, http.MethodPost, "/join/"+groupID+"/"+sid, &body, "Content-Type", w.FormDataContentType())
	res := c.Do(req)
	doc := res.Doc(t)
	form := doc.Find(testID("join-form"))
	if res.StatusCode != http.StatusRequestEntityTooLarge || form.Length() != 1 {
		t.Fatalf("oversize photo: %d, form %d", res.StatusCode, form.Length())
	}
	if v, _ := form.Find(`input[name="name"]`).Attr("value"); v != "Gina" {
		t.Fatalf("name field holds %q", v)
	}
	errText := form.Find("#join-photo-error").Text()
	if !strings.Contains(errText, "10 MB") {
		t.Fatalf("photo error %q", errText)
	}
	if inv, _ := form.Find(testID("join-photo")).Attr("aria-invalid"); inv != "true" {
		t.Fatal("photo input not marked invalid")
	}
	if a.Who(c) != "" {
		t.Fatal("a refused join signed the visitor in")
	}
	n := 0
	err := a.svc.members.QueryAll(ctx, storage.Query{PartitionKey: groupID}, func(e storage.Entity) error {
		if auth.IsGuestKey(e.RowKey) {
			n++
		}
		return nil
	})
	if err != nil || n != 0 {
		t.Fatalf("guest member rows after a refused join: %d, %v", n, err)
	}
	if got := olga.c.Get("/groups/" + groupID + "/join-sessions/" + sid).Doc(t).Find(testID("joined-person")).Length(); got != 0 {
		t.Fatalf("joined list shows %d people", got)
	}
}

// TestGuestSigningInKeepsNameAndPhoto: "Grandpa Hans", a guest with a
// photo, is told on the sign-in page that his groups come with him, and
// after signing in with an email is still "Grandpa Hans" with his photo,
// not "hans"; the guest profile is gone.
func TestGuestSigningInKeepsNameAndPhoto(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Family")
	hans := a.joinWithPhoto(t, groupID, openJoin(t, olga, groupID), "Grandpa Hans", mediatest.EncodedPNG(t, 400, 300), "hans.png")
	guestKey := hans.id.MemberKey

	hint := hans.c.Get("/signin").Doc(t).Find(testID("signin-guest")).Text()
	if !strings.Contains(hint, "Grandpa Hans") {
		t.Fatalf("the sign-in page does not tell the guest their groups are kept: %q", hint)
	}
	memberKey := a.SignIn(hans.c, "hans@example.com")
	p, err := a.Accounts.Profile(ctx, memberKey)
	if err != nil || p.DisplayName != "Grandpa Hans" || p.PhotoKey == "" || !strings.HasPrefix(p.PhotoKey, memberKey+"/") {
		t.Fatalf("account after sign-in: %v %+v", err, p)
	}
	if _, err := a.Accounts.Profile(ctx, guestKey); err == nil {
		t.Fatal("the guest profile is still there")
	}
	src := rosterAvatar(t, olga, groupID, "Grandpa Hans")
	if !strings.HasPrefix(src, "/media/profile/"+url.PathEscape(memberKey)+"/") {
		t.Fatalf("roster avatar %q", src)
	}
	if img := olga.c.Get(src); img.StatusCode != http.StatusOK || img.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("avatar: %d %s", img.StatusCode, img.Header.Get("Content-Type"))
	}
}

package account_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/web/csrf"
	"github.com/harmony/harmony/internal/web/webtest"
)

// photoBody is the photo form as a browser posts it.
func photoBody(t *testing.T, token, filename string, data []byte) (*bytes.Buffer, string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.WriteField(csrf.Field, token); err != nil {
		t.Fatal(err)
	}
	part, err := w.CreateFormFile("photo", filename)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	w.Close()
	return &body, w.FormDataContentType()
}

// upload posts a photo from the profile page.
func upload(t *testing.T, c *webtest.Client, filename string, data []byte) *webtest.Response {
	t.Helper()
	body, contentType := photoBody(t, c.CSRFToken("/account"), filename, data)
	req := webtest.NewRequest(t, http.MethodPost, "/account/photo", body, "Content-Type", contentType)
	return c.Do(req)
}

// blobs lists the member's photo blobs.
func blobs(t *testing.T, a *accounttest.App, memberKey string) []string {
	t.Helper()
	infos, err := a.Store.Container("profile-images").List(ctx, memberKey+"/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range infos {
		names = append(names, b.Name)
	}
	return names
}

// avatarSrc is the profile page's photo address.
func avatarSrc(t *testing.T, c *webtest.Client) string {
	t.Helper()
	src, _ := c.Get("/account").Doc(t).Find(testID("profile-avatar")).Attr("src")
	return src
}

func TestPhotoUploadStripsEXIFAndIsServed(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "photo@example.com")

	res := upload(t, c, "holiday.jpg", account.JPEGWithEXIF(t, 1200, 900, 1))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	if names := blobs(t, a, key); len(names) != 2 {
		t.Fatalf("stored %v, want two sizes", names)
	}
	src := avatarSrc(t, c)
	if !strings.HasPrefix(src, "/media/profile/") || !strings.HasSuffix(src, ".jpg") {
		t.Fatalf("avatar src %q", src)
	}
	photo := a.Client().Get(src) // anyone with the address may load it
	if photo.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", src, photo.StatusCode)
	}
	h := photo.Header
	if h.Get("Content-Type") != "image/jpeg" || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("Cache-Control") != "public, max-age=31536000, s-maxage=3600, immutable" {
		t.Errorf("headers %v", h)
	}
	if strings.Contains(photo.Body, "Exif") || strings.Contains(photo.Body, account.GPSSecret) {
		t.Error("served photo still has its EXIF block")
	}
	for _, name := range blobs(t, a, key) {
		b, err := a.Store.Container("profile-images").Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b.Data, []byte("Exif")) || bytes.Contains(b.Data, []byte(account.GPSSecret)) {
			t.Errorf("%s keeps EXIF", name)
		}
	}
	// The header's avatar (the small size) follows at once.
	menuImg, _ := c.Get("/").Doc(t).Find(testID("user-menu") + " img").Attr("src")
	if !strings.HasSuffix(menuImg, "_s.jpg") {
		t.Errorf("header avatar %q", menuImg)
	}
}

func TestNewPhotoReplacesTheOld(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "replace@example.com")
	if res := upload(t, c, "a.png", account.EncodedPNG(t, 300, 300)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("first upload: %d", res.StatusCode)
	}
	first := blobs(t, a, key)
	oldSrc := avatarSrc(t, c)
	webp, err := os.ReadFile("testdata/photo.webp")
	if err != nil {
		t.Fatal(err)
	}
	if res := upload(t, c, "b.webp", webp); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("webp upload: %d", res.StatusCode)
	}
	second := blobs(t, a, key)
	if len(second) != 2 || second[0] == first[0] || second[1] == first[1] {
		t.Errorf("blobs before %v, after %v: the old photo should be gone", first, second)
	}
	if res := c.Get(oldSrc); res.StatusCode != http.StatusNotFound {
		t.Errorf("old photo still served: %d", res.StatusCode)
	}
	if res := c.Get(avatarSrc(t, c)); res.StatusCode != http.StatusOK {
		t.Errorf("new photo: %d", res.StatusCode)
	}
}

func TestBadPhotosAreRefusedAndNothingStored(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "bad@example.com")
	cases := []struct {
		name, filename string
		data           []byte
		status         int
		message        string
	}{
		{"text renamed .jpg", "photo.jpg", []byte("just some text, honestly\n"), http.StatusBadRequest, "isn't a JPEG, PNG or WebP"},
		{"41 megapixels", "huge.png", account.PNGHeader(8000, 5125), http.StatusBadRequest, "40 megapixels"},
		// 335 KB and 40 megapixels, but 320 MB once decoded.
		{"16-bit 6320×6320", "deep.png", account.DeepPNG(t, 6320, 6320), http.StatusBadRequest, "too much memory"},
		{"damaged jpeg", "broken.jpg", account.JPEGWithEXIF(t, 64, 64, 1)[:400], http.StatusBadRequest, "couldn't be read"},
		{"empty file", "empty.jpg", nil, http.StatusBadRequest, "Choose a photo"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := upload(t, c, tc.filename, tc.data)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			msg := res.Doc(t).Find(testID("field-error") + `[data-field="photo"]`).Text()
			if !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want it to say %q", msg, tc.message)
			}
			if names := blobs(t, a, key); len(names) != 0 {
				t.Errorf("stored %v", names)
			}
			if p, _ := a.Accounts.Profile(ctx, key); p.PhotoKey != "" {
				t.Errorf("photoKey %q", p.PhotoKey)
			}
		})
	}
}

func TestOversizedUploadIs413(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "big@example.com")
	big := append(account.EncodedPNG(t, 8, 8), make([]byte, 11<<20)...)

	// Declared by Content-Length: refused before reading.
	res := upload(t, c, "big.png", big)
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("11 MB upload: %d, want 413", res.StatusCode)
	}
	// Streamed without a length: cut off by the route's body limit.
	body, contentType := photoBody(t, c.CSRFToken("/account"), "big.png", big)
	req := webtest.NewRequest(t, http.MethodPost, "/account/photo", io.MultiReader(body), "Content-Type", contentType)
	req.ContentLength = -1
	if res := c.Do(req); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 11 MB upload: %d, want 413", res.StatusCode)
	}
	// Just over 10 MB fits the body limit's framing room, but not the
	// photo limit.
	justOver := append(account.EncodedPNG(t, 8, 8), make([]byte, account.MaxPhotoBytes)...)
	if res := upload(t, c, "over.png", justOver); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("10 MB + a PNG: %d, want 413", res.StatusCode)
	}
	if names := blobs(t, a, key); len(names) != 0 {
		t.Errorf("stored %v", names)
	}
	// Other routes keep the site-wide limit.
	form := strings.Repeat("x", int(a.Config.BodyLimit)+1)
	req = webtest.NewRequest(t, http.MethodPost, "/account/profile", strings.NewReader(form), "Content-Type", "application/x-www-form-urlencoded")
	if res := c.Do(req); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("big profile form: %d, want 413", res.StatusCode)
	}
}

func TestMediaURLsAreStrict(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	a.SignIn(c, "media@example.com")
	if res := upload(t, c, "p.png", account.EncodedPNG(t, 64, 64)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	good := avatarSrc(t, c)
	member, file, _ := strings.Cut(strings.TrimPrefix(good, "/media/profile/"), "/")
	for _, path := range []string{
		"/media/profile/" + member + "/" + strings.Replace(file, ".jpg", ".png", 1),
		"/media/profile/" + member + "/" + strings.ToUpper(file),
		"/media/profile/" + member + "/x" + file,
		"/media/profile/" + member + "/..%2F" + file,
		"/media/profile/" + member + "%2F..%2F" + member + "/" + file,
		"/media/profile/guest:abc/" + file,
		"/media/profile/..%2F..%2Fetc/passwd",
		"/media/profile/auth:nobody/" + file,
		"/media/profile/" + member,
		"/media/profile/" + member + "/" + file + "/extra",
	} {
		if res := c.Get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
	}
	if res := c.Get(good); res.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d", good, res.StatusCode)
	}
}

// An OIDC subject with a slash or a bar is escaped in its memberKey; its
// photo URL must still work.
func TestPhotoOfAnEscapedMemberKey(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	key := "auth:" + "google-oauth2~7C12~2F34"
	if !account.ValidMemberKey(key) {
		t.Fatal("fixture key refused")
	}
	if _, err := a.Accounts.OnSignIn(ctx, key, "", "Slash"); err != nil {
		t.Fatal(err)
	}
	p, err := a.Accounts.UploadPhoto(ctx, key, account.EncodedPNG(t, 64, 64))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{account.PhotoURL(key, p.PhotoKey), account.AvatarURL(key, p.PhotoKey)} {
		if res := a.Client().Get(src); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", src, res.StatusCode)
		}
	}
}

// A photo larger than the site-wide BODY_LIMIT (4 MiB) but within the
// photo limit goes through: the upload route has its own body limit.
func TestPhotoLargerThanTheSiteBodyLimit(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "large@example.com")
	data := account.NoisyPNG(t, 1300, 1300)
	if int64(len(data)) <= a.Config.BodyLimit || len(data) > account.MaxPhotoBytes {
		t.Fatalf("fixture is %d bytes; want between BODY_LIMIT %d and 10 MB", len(data), a.Config.BodyLimit)
	}
	if res := upload(t, c, "large.png", data); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload of %d bytes: %d", len(data), res.StatusCode)
	}
	if names := blobs(t, a, key); len(names) != 2 {
		t.Errorf("stored %v", names)
	}
}

// TestPhotoUploadsArePaced: one client has 10 pictures decoded at once,
// then one every 30 seconds; past that the form says why (429) and
// nothing is read or stored.
func TestPhotoUploadsArePaced(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "busy@example.com")
	photo := account.JPEGWithEXIF(t, 64, 64, 1)
	for i := range 10 {
		if res := upload(t, c, "me.jpg", photo); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload %d: %d", i, res.StatusCode)
		}
	}
	before, _ := a.Accounts.Profile(ctx, key)
	res := upload(t, c, "me.jpg", photo)
	if res.StatusCode != http.StatusTooManyRequests || res.Writes(t) != 0 {
		t.Fatalf("an 11th upload at once: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	if msg := res.Doc(t).Find(testID("field-error") + `[data-field="photo"]`).Text(); !strings.Contains(msg, "many files in a row") {
		t.Errorf("message %q", msg)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.PhotoKey != before.PhotoKey {
		t.Error("the refused upload replaced the photo")
	}
	a.Clock.Advance(30 * time.Second)
	if res := upload(t, c, "me.jpg", photo); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an upload 30 s later: %d", res.StatusCode)
	}
}

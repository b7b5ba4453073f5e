package account_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
)

// TestPersonPage: a person's page shows others their name, place and
// about, with "Message" once chat is wired; their own page offers the
// profile form instead; a visitor sees a profile open to everyone, and
// is sent to sign in for any other; to accounts a guest's key, a key of
// nobody, a disabled account and a malformed key are all 404.
func TestPersonPage(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	anna, boris := a.Client(), a.Client()
	annaKey := a.SignIn(anna, "anna@example.com")
	borisKey := a.SignIn(boris, "boris@example.com")
	anna.PostForm("/account/profile", anna.WithCSRF("/account", validProfile()))

	page := auth.ProfileURL(annaKey)
	doc := boris.Get(page).Doc(t)
	if got := doc.Find("#person-name").Text(); got != "Анна Петрова" {
		t.Errorf("name %q", got)
	}
	if doc.Find(testID("person-location")).Text() != "Москва" || !strings.Contains(doc.Find(testID("person-bio")).Text(), "cello") {
		t.Error("place or about missing")
	}
	if doc.Find(testID("person-message")).Length() != 0 {
		t.Error("Message offered without chat")
	}
	a.Accounts.UseMessaging("/chat/private")
	doc = boris.Get(page).Doc(t)
	if v := doc.Find(testID("person-message")).Closest("form").Find(`input[name="member"]`).AttrOr("value", ""); v != annaKey {
		t.Errorf("Message posts member %q", v)
	}
	if d := anna.Get(page).Doc(t); d.Find(testID("person-edit")).Length() != 1 || d.Find(testID("person-message")).Length() != 0 {
		t.Error("her own page: no edit link, or a Message button")
	}
	if res := a.Client().Get(page); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor: %d", res.StatusCode)
	}
	if res := upload(t, anna, "me.jpg", account.JPEGWithEXIF(t, 400, 300, 1)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("photo: %d", res.StatusCode)
	}
	if boris.Get(page).Doc(t).Find("img"+testID("person-photo")).Length() != 1 {
		t.Fatal("her photo is not on her page")
	}
	// "Everyone": a visitor sees her page too, without "Message"; one
	// who may not is sent to sign in, whether or not the account exists.
	visibility := func(v string) {
		t.Helper()
		if res := anna.PostForm("/account/settings", anna.WithCSRF("/account/settings", url.Values{"profileVisibility": {v}, "language": {"ru"}})); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("settings: %d", res.StatusCode)
		}
	}
	visibility("public")
	visitor := a.Client()
	if res := visitor.Get(page); res.StatusCode != http.StatusOK || res.Doc(t).Find(testID("person-location")).Text() != "Москва" || res.Doc(t).Find(testID("person-message")).Length() != 0 {
		t.Errorf("a visitor on a public profile: %d", res.StatusCode)
	}
	if res := visitor.Get("/people/auth:nobody"); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor on nobody's page: %d", res.StatusCode)
	}
	visibility("members")
	if res := visitor.Get(page); res.StatusCode != http.StatusSeeOther {
		t.Errorf("a visitor on a members' profile: %d", res.StatusCode)
	}
	// "Only me": others see her name alone; she still sees it all.
	res := anna.PostForm("/account/settings", anna.WithCSRF("/account/settings", url.Values{"profileVisibility": {"private"}, "language": {"ru"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	doc = boris.Get(page).Doc(t)
	if doc.Find("#person-name").Text() != "Анна Петрова" || doc.Find(testID("person-private")).Length() != 1 {
		t.Error("a private profile: no name, or no word that it is private")
	}
	if body := doc.Find(testID("person-page")).Text(); strings.Contains(body, "Москва") || strings.Contains(body, "cello") || doc.Find("img"+testID("person-photo")).Length() != 0 {
		t.Error("a private profile shows its place, its about or its photo to others")
	}
	if d := anna.Get(page).Doc(t); d.Find(testID("person-location")).Text() != "Москва" || d.Find(testID("person-private")).Length() != 0 {
		t.Error("her own private page hides her details from her")
	}
	for _, key := range []string{"guest:abc", "auth:nobody", "not-a-key", "auth:%2F"} {
		if res := boris.Get("/people/" + key); res.StatusCode != http.StatusNotFound {
			t.Errorf("/people/%s: %d", key, res.StatusCode)
		}
	}
	if _, err := a.Accounts.SetEnabled(ctx, borisKey, false); err != nil {
		t.Fatal(err)
	}
	if res := anna.Get(auth.ProfileURL(borisKey)); res.StatusCode != http.StatusNotFound {
		t.Errorf("a disabled account's page: %d", res.StatusCode)
	}
}

package account_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

func newApp(t *testing.T) *accounttest.App {
	return accounttest.New(t, accounttest.Options{})
}

// validProfile is a profile form that passes; cases change one field.
func validProfile() url.Values {
	return url.Values{
		"displayName": {"Анна Петрова"},
		"bio":         {"Plays the cello on Sundays."},
		"location":    {"Москва"},
		"gender":      {"female"},
		"birthDate":   {"2000-05-18"}, // 29 on the test clock's 2030-05-17
		"timezone":    {"Europe/Moscow"},
	}
}

func testID(id string) string { return `[data-testid="` + id + `"]` }

func TestProfileEditRoundTrip(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "anna@example.com")

	res := c.Get("/account")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /account: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if v, _ := doc.Find(testID("profile-form") + ` input[name="displayName"]`).Attr("value"); v != "anna" {
		t.Errorf("first display name %q, want the email's local part", v)
	}
	if doc.Find(testID("profile-age")).Length() != 0 {
		t.Error("age shown without a birth date")
	}

	res = c.PostForm("/account/profile", c.WithCSRF("/account", validProfile()))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account" {
		t.Fatalf("save: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	doc = c.Get("/account").Doc(t)
	if doc.Find(testID("flash")).Length() != 1 {
		t.Error("no flash after saving")
	}
	if age := doc.Find(testID("profile-age")).Text(); !strings.Contains(age, "29") {
		t.Errorf("age %q, want 29", age)
	}
	if menu := doc.Find(testID("user-menu")).Text(); !strings.Contains(menu, "Анна Петрова") {
		t.Errorf("header %q does not show the new name at once", menu)
	}
	form := doc.Find(testID("profile-form"))
	for name, want := range map[string]string{"displayName": "Анна Петрова", "location": "Москва", "birthDate": "2000-05-18"} {
		if v, _ := form.Find(`input[name="` + name + `"]`).Attr("value"); v != want {
			t.Errorf("%s shows %q, want %q", name, v, want)
		}
	}
	if v := form.Find(`textarea[name="bio"]`).Text(); v != "Plays the cello on Sundays." {
		t.Errorf("bio shows %q", v)
	}
	if v, _ := form.Find(`select[name="timezone"] option[selected]`).Attr("value"); v != "Europe/Moscow" {
		t.Errorf("timezone shows %q", v)
	}
	if v, _ := form.Find(`select[name="gender"] option[selected]`).Attr("value"); v != "female" {
		t.Errorf("gender shows %q", v)
	}
	// The flash is shown once.
	if c.Get("/account").Doc(t).Find(testID("flash")).Length() != 0 {
		t.Error("flash shown twice")
	}

	p, err := a.Accounts.Profile(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if p.DisplayName != "Анна Петрова" || p.Bio != "Plays the cello on Sundays." || p.Location != "Москва" ||
		p.Gender != "female" || p.BirthDate != "2000-05-18" || p.Timezone != "Europe/Moscow" || p.Email != "anna@example.com" {
		t.Errorf("stored %+v", p)
	}
}

func TestProfileValidation(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "val@example.com")
	before, err := a.Accounts.Profile(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, field, value string
	}{
		{"empty name", "displayName", "   "},
		{"name too long", "displayName", strings.Repeat("n", account.MaxDisplayName+1)},
		{"name with control character", "displayName", "Anna\x07"},
		{"name with bidi override", "displayName", "Anna\u202e"},
		{"bio too long", "bio", strings.Repeat("b", account.MaxBio+1)},
		{"location too long", "location", strings.Repeat("l", account.MaxLocation+1)},
		{"unknown gender", "gender", "robot"},
		{"birth date not a date", "birthDate", "yesterday"},
		{"birth date impossible", "birthDate", "2001-02-30"},
		{"birth date in the future", "birthDate", "2031-01-01"},
		{"twelve years old", "birthDate", "2017-06-01"},
		{"older than 120", "birthDate", "1900-01-01"},
		{"unknown time zone", "timezone", "Mars/Olympus"},
		{"server's zone", "timezone", "Local"},
		{"time zone path", "timezone", "../../etc/passwd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			form := validProfile()
			form.Set(tc.field, tc.value)
			res := c.PostForm("/account/profile", c.WithCSRF("/account", form))
			if res.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.StatusCode)
			}
			doc := res.Doc(t)
			errs := doc.Find(testID("field-error"))
			if errs.Length() != 1 {
				t.Fatalf("%d field errors, want 1", errs.Length())
			}
			if f, _ := errs.Attr("data-field"); f != tc.field {
				t.Errorf("error on %q, want %q", f, tc.field)
			}
			if strings.TrimSpace(errs.Text()) == "" || strings.Contains(errs.Text(), "account.error") {
				t.Errorf("error text %q is not a message", errs.Text())
			}
			// The other fields come back as typed.
			if v, _ := doc.Find(`input[name="location"]`).Attr("value"); tc.field != "location" && v != "Москва" {
				t.Errorf("location re-shown as %q", v)
			}
			after, err := a.Accounts.Profile(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if after.ETag != before.ETag || after.DisplayName != before.DisplayName {
				t.Errorf("profile written: %+v", after)
			}
		})
	}
}

func TestProfileBoundaries(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "edge@example.com")
	form := url.Values{
		"displayName": {strings.Repeat("я", account.MaxDisplayName)},
		"bio":         {strings.Repeat("б", account.MaxBio)},
		"location":    {strings.Repeat("л", account.MaxLocation)},
		"birthDate":   {"2017-05-17"}, // 13 today
	}
	res := c.PostForm("/account/profile", c.WithCSRF("/account", form))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("limits themselves refused: %d", res.StatusCode)
	}
	p, _ := a.Accounts.Profile(ctx, key)
	if p.Gender != "" || p.Timezone != "" || p.BirthDate != "2017-05-17" {
		t.Errorf("stored %+v", p)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "set@example.com")

	doc := c.Get("/account/settings").Doc(t)
	form := doc.Find(testID("settings-form"))
	if v, _ := form.Find(`select[name="profileVisibility"] option[selected]`).Attr("value"); v != "members" {
		t.Errorf("default visibility %q", v)
	}
	if form.Find(`input[name="notificationsEnabled"][checked]`).Length() != 1 {
		t.Error("notifications not on by default")
	}

	for _, tc := range []struct{ field, value string }{
		{"profileVisibility", "friends"},
		{"language", "de"},
	} {
		before, _ := a.Accounts.Settings(ctx, key)
		f := url.Values{"profileVisibility": {"public"}, "language": {"ru"}}
		f.Set(tc.field, tc.value)
		res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", f))
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s=%s: status %d", tc.field, tc.value, res.StatusCode)
		}
		if f, _ := res.Doc(t).Find(testID("field-error")).Attr("data-field"); f != tc.field {
			t.Errorf("%s=%s: error on %q", tc.field, tc.value, f)
		}
		if after, _ := a.Accounts.Settings(ctx, key); after.ETag != before.ETag || after.ETag == "" {
			t.Errorf("%s=%s: settings written", tc.field, tc.value)
		}
	}

	f := url.Values{"profileVisibility": {"private"}, "language": {"ru"}, "anonymousLikes": {"on"}, "emailNotifications": {"on"}}
	res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", f))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/settings" {
		t.Fatalf("save: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	s, _ := a.Accounts.Settings(ctx, key)
	if s.ProfileVisibility != "private" || s.Language != "ru" || !s.AnonymousLikes || s.NotificationsEnabled || !s.EmailNotifications {
		t.Errorf("stored %+v", s)
	}
	// The language follows at once, on every page, whatever the browser says.
	res = c.Get("/", "Accept-Language", "en")
	if lang, _ := res.Doc(t).Find("html").Attr("lang"); lang != "ru" {
		t.Errorf("page language %q after choosing ru", lang)
	}
}

// TestEmailAreas: the settings choose which parts of the app email their
// notices (all of them at first); the choice is kept, shown, and left
// alone by a form that does not offer it; a part that is not one is
// refused and writes nothing.
func TestEmailAreas(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "areas@example.com")
	ticked := func() []string {
		var out []string
		c.Get("/account/settings").Doc(t).Find(testID("email-areas") + ` input[name="emailAbout"][checked]`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("value", ""))
		})
		return out
	}
	if got := ticked(); !slices.Equal(got, account.EmailAreas) {
		t.Fatalf("at first: %v", got)
	}
	save := func(f url.Values) *webtest.Response {
		base := url.Values{"profileVisibility": {"members"}, "language": {"en"}, "notificationsEnabled": {"on"}, "emailNotifications": {"on"}}
		for k, v := range f {
			base[k] = v
		}
		return c.PostForm("/account/settings", c.WithCSRF("/account/settings", base))
	}
	if res := save(url.Values{"emailAreasShown": {"on"}, "emailAbout": {"events", "chat"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", res.StatusCode)
	}
	s, _ := a.Accounts.Settings(ctx, key)
	if got := ticked(); !slices.Equal(got, []string{"events", "chat"}) || s.Emails("forum.notify.reply") || !s.Emails("events.notify.update") {
		t.Errorf("after choosing events and chat: %v, stored %q", got, s.EmailOff)
	}
	if res := save(url.Values{}); res.StatusCode != http.StatusSeeOther || !slices.Equal(ticked(), []string{"events", "chat"}) {
		t.Error("a form without the choice changed it")
	}
	before, _ := a.Accounts.Settings(ctx, key)
	res := save(url.Values{"emailAreasShown": {"on"}, "emailAbout": {"events", "spam"}})
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`[data-field="emailAbout"]`).Length() != 1 {
		t.Fatalf("an unknown part: %d", res.StatusCode)
	}
	if after, _ := a.Accounts.Settings(ctx, key); after.ETag != before.ETag {
		t.Error("an unknown part was written")
	}
}

func TestPreferences(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "prefs@example.com")
	valid := func() url.Values {
		return url.Values{"ageRangeMin": {"25"}, "ageRangeMax": {"40"}, "maxDistanceKm": {"50"}, "showMe": {"women"}}
	}
	cases := []struct{ name, field, value string }{
		{"min below 18", "ageRangeMin", "17"},
		{"max above 99", "ageRangeMax", "100"},
		{"min above max", "ageRangeMax", "24"},
		{"not a number", "ageRangeMin", "twenty"},
		{"distance zero", "maxDistanceKm", "0"},
		{"distance too far", "maxDistanceKm", "20001"},
		{"distance fraction", "maxDistanceKm", "1.5"},
		{"unknown show me", "showMe", "aliens"},
	}
	for _, tc := range cases {
		f := valid()
		f.Set(tc.field, tc.value)
		res := c.PostForm("/account/preferences", c.WithCSRF("/account/preferences", f))
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d", tc.name, res.StatusCode)
			continue
		}
		if f, _ := res.Doc(t).Find(testID("field-error")).Attr("data-field"); f != tc.field {
			t.Errorf("%s: error on %q", tc.name, f)
		}
		if p, _ := a.Accounts.Preferences(ctx, key); p.ETag != "" {
			t.Errorf("%s: preferences written", tc.name)
		}
	}
	res := c.PostForm("/account/preferences", c.WithCSRF("/account/preferences", valid()))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", res.StatusCode)
	}
	p, _ := a.Accounts.Preferences(ctx, key)
	if p.AgeRangeMin != 25 || p.AgeRangeMax != 40 || p.MaxDistanceKm != 50 || p.ShowMe != "women" {
		t.Errorf("stored %+v", p)
	}
	doc := c.Get("/account/preferences").Doc(t)
	if v, _ := doc.Find(`input[name="ageRangeMin"]`).Attr("value"); v != "25" {
		t.Errorf("form shows %q", v)
	}
}

func TestAccountPagesNeedAnAccount(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	for _, path := range []string{"/account", "/account/settings", "/account/preferences", "/account/sessions"} {
		res := c.Get(path)
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
			t.Errorf("anonymous GET %s: %d to %q", path, res.StatusCode, res.Header.Get("Location"))
		}
	}
	res := c.PostForm("/account/profile", c.WithCSRF("/", validProfile()))
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous POST: %d", res.StatusCode)
	}
}

func TestUnsafeRoutesNeedCSRF(t *testing.T) {
	t.Parallel()
	webtest.AssertUnsafeRoutesNeedCSRF(t, newApp(t).Echo)
}

// A profile without a zone takes the browser's once (static/js/zone.js
// posts it); a zone chosen by hand stays, and a bad name is refused.
func TestFirstVisitAdoptsTheBrowserZone(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "zone@example.com")
	body := c.Get("/").Doc(t).Find("body")
	if url, _ := body.Attr("data-zone-url"); url != "/account/timezone" {
		t.Fatalf("a profile without a zone does not ask for the browser's: %q", url)
	}
	if res := c.PostForm("/account/timezone", c.WithCSRF("/", url.Values{"timezone": {"Mars/Olympus"}})); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a bad zone: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Timezone != "" {
		t.Fatalf("a refused zone was saved: %q", p.Timezone)
	}
	if res := c.PostForm("/account/timezone", c.WithCSRF("/", url.Values{"timezone": {"Asia/Tokyo"}})); res.StatusCode != http.StatusNoContent {
		t.Fatalf("adopt: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Timezone != "Asia/Tokyo" {
		t.Fatalf("profile zone %q", p.Timezone)
	}
	page := c.Get("/account/sessions").Doc(t)
	if _, asks := page.Find("body").Attr("data-zone-url"); asks {
		t.Error("the page still asks for the browser's zone")
	}
	if !strings.Contains(page.Find(`[data-testid="account-sessions"]`).Text(), "Tokyo, UTC+9") {
		t.Error("the session does not carry the adopted zone")
	}
	// Another browser later does not move a zone already set.
	if res := c.PostForm("/account/timezone", c.WithCSRF("/", url.Values{"timezone": {"Europe/Paris"}})); res.StatusCode != http.StatusNoContent {
		t.Fatalf("second adopt: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(ctx, key); p.Timezone != "Asia/Tokyo" {
		t.Errorf("a set zone moved to %q", p.Timezone)
	}
}

// The footer's switch changes a signed-in person's language setting, which
// would otherwise beat the cookie the switch sets.
func TestFooterSwitchChangesTheSetting(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "switch@example.com")
	if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", url.Values{
		"language": {"en"}, "profileVisibility": {"public"},
	})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("settings: %d", res.StatusCode)
	}
	res := c.PostForm("/lang", c.WithCSRF("/", url.Values{"lang": {"ru"}, "next": {"/account/settings"}}))
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("switch: %d", res.StatusCode)
	}
	if lang, _ := c.Get("/account/settings").Doc(t).Find("html").Attr("lang"); lang != "ru" {
		t.Errorf("after the switch the page is in %q", lang)
	}
	if s, _ := a.Accounts.Settings(ctx, key); s.Language != "ru" {
		t.Errorf("setting %q, want ru", s.Language)
	}
	if res := c.PostForm("/lang", c.WithCSRF("/", url.Values{"lang": {"xx"}})); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown language: %d", res.StatusCode)
	}
}

// A saved profile change reaches the sessions even when the request's
// context ends right after the profile write (the browser moved on):
// the session refresh does not inherit the cancellation.
func TestSessionsFollowAProfileChangeWhoseRequestEnded(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c := a.Client()
	key := a.SignIn(c, "gone@example.com")
	p, err := a.Accounts.Profile(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	// The session has no zone yet, so the page asks the browser for one.
	if _, asks := c.Get("/").Doc(t).Find("body").Attr("data-zone-url"); !asks {
		t.Fatal("a session without a zone does not ask for one")
	}
	p.Timezone = "Europe/Berlin"
	ended, cancel := context.WithCancel(ctx)
	cancel()
	a.Accounts.RefreshDisplayForTest(ended, key, p)
	if _, asks := c.Get("/").Doc(t).Find("body").Attr("data-zone-url"); asks {
		t.Fatal("the session missed the change")
	}
}

// An admin's settings also offer the moderation queue's emails, ticked
// at first; unticked, a report's notice comes by no email, while the
// other parts still do. Someone else's form does not offer it, and
// saving theirs leaves it as it was.
func TestAdminsChooseReportEmails(t *testing.T) {
	t.Parallel()
	a := accounttest.New(t, accounttest.Options{Env: map[string]string{"ADMIN_EMAILS": "boss@example.com"}})
	boss, ann := a.Client(), a.Client()
	bossKey := a.SignIn(boss, "boss@example.com")
	annKey := a.SignIn(ann, "ann@example.com")
	box := func(c *webtest.Client) *goquery.Selection {
		return c.Get("/account/settings").Doc(t).Find(testID("email-about-admin"))
	}
	if b := box(boss); b.Length() != 1 || b.AttrOr("checked", "no") == "no" {
		t.Fatal("an admin's settings do not offer report emails, ticked")
	}
	if box(ann).Length() != 0 {
		t.Error("someone else's settings offer report emails")
	}
	save := func(c *webtest.Client, f url.Values) {
		t.Helper()
		base := url.Values{"profileVisibility": {"members"}, "language": {"en"}, "notificationsEnabled": {"on"}, "emailNotifications": {"on"}, "emailAreasShown": {"on"}}
		for k, v := range f {
			base[k] = v
		}
		if res := c.PostForm("/account/settings", c.WithCSRF("/account/settings", base)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", res.StatusCode)
		}
	}
	save(boss, url.Values{"emailAreaOffered": account.EmailAreasFor(true), "emailAbout": account.EmailAreas})
	s, _ := a.Accounts.Settings(ctx, bossKey)
	if s.Emails("admin.notify.report") || !s.Emails("forum.notify.reply") || box(boss).AttrOr("checked", "no") != "no" {
		t.Errorf("unticked: stored %q", s.EmailOff)
	}
	save(ann, url.Values{"emailAreaOffered": account.EmailAreas, "emailAbout": {"groups"}})
	if s, _ := a.Accounts.Settings(ctx, annKey); !s.Emails("admin.notify.report") || s.Emails("chat.notify.message") {
		t.Errorf("someone else's save: stored %q", s.EmailOff)
	}
}

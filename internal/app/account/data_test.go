package account_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/account/accounttest"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// fakeData is a module that keeps one thing about every member: it
// exports it (or fails to, when failing) and counts its forgets.
type fakeData struct {
	failing bool
	// forgetFails is how many forgets fail before one works.
	forgetFails int
	forgot      []string
}

func (*fakeData) Slug() string        { return "fake" }
func (*fakeData) Routes(e *echo.Echo) {}

func (f *fakeData) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	if err := to.JSON("fake/things.json", map[string]string{"owner": m.Email}); err != nil {
		return err
	}
	if f.failing {
		return errors.New("fake: the disk is on fire")
	}
	return nil
}

// PreviewForget says the member's one group passes on: the platform
// hands the account module every Previewer, and the confirmation page
// lists what they say.
func (f *fakeData) PreviewForget(ctx context.Context, m memberdata.Member) ([]memberdata.Consequence, error) {
	return []memberdata.Consequence{{What: "Fake club", URL: "/fake/club", Outcome: "passes to " + m.Email + "'s friend"}}, nil
}

func (f *fakeData) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if f.forgetFails > 0 {
		f.forgetFails--
		return errors.New("fake: not now")
	}
	f.forgot = append(f.forgot, m.Key)
	return nil
}

func newDataApp(t *testing.T, opts accounttest.Options) (*accounttest.App, *fakeData) {
	f := &fakeData{}
	opts.Modules = append(opts.Modules, func(*platform.Core) (web.Module, error) { return f, nil })
	return accounttest.New(t, opts), f
}

// zipNames are the files of a zip body.
func zipNames(t *testing.T, body string) []string {
	t.Helper()
	z, err := zip.NewReader(strings.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	var names []string
	for _, f := range z.File {
		names = append(names, f.Name)
	}
	return names
}

func TestDownloadYourData(t *testing.T) {
	t.Parallel()
	a, fake := newDataApp(t, accounttest.Options{})
	c := a.Client()
	a.SignIn(c, "zip@example.com")
	page := c.Get("/account/data")
	if page.StatusCode != http.StatusOK || page.Doc(t).Find(testID("data-download")).Length() != 1 || page.Doc(t).Find(testID("data-delete-link")).Length() != 1 {
		t.Fatalf("the data tab: %d", page.StatusCode)
	}
	res := c.PostForm("/account/data/download", c.WithCSRF("/account/data", nil))
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/zip" || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
	}
	names := zipNames(t, res.Body)
	for _, want := range []string{"README.txt", "account/profile.json", "account/settings.json", "account/sessions.json", "fake/things.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("the archive lacks %s: %v", want, names)
		}
	}
	z, _ := zip.NewReader(strings.NewReader(res.Body), int64(len(res.Body)))
	for _, f := range z.File {
		r, _ := f.Open()
		b, _ := io.ReadAll(r)
		if f.Name == "README.txt" && (!strings.Contains(string(b), "fake/") || !strings.Contains(string(b), "account/")) {
			t.Errorf("the README does not name the folders:\n%s", b)
		}
		if f.Name == "fake/things.json" && !bytes.Contains(b, []byte("zip@example.com")) {
			t.Errorf("the fake module's file: %s", b)
		}
	}

	// One download per ten minutes.
	res = c.PostForm("/account/data/download", c.WithCSRF("/account/data", nil))
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "10 minutes") {
		t.Errorf("a second download at once: %d %.300s", res.StatusCode, res.Body)
	}
	a.Clock.Advance(account.DownloadEvery)

	// An exporter's error is an error page, not a zip cut short, and
	// the download that failed does not count.
	fake.failing = true
	res = c.PostForm("/account/data/download", c.WithCSRF("/account/data", nil))
	if res.StatusCode != http.StatusInternalServerError || strings.Contains(res.Header.Get("Content-Type"), "zip") || !strings.Contains(res.Body, "could not be put together") {
		t.Errorf("a failing export: %d %s %.300s", res.StatusCode, res.Header.Get("Content-Type"), res.Body)
	}
	fake.failing = false
	if res := c.PostForm("/account/data/download", c.WithCSRF("/account/data", nil)); res.StatusCode != http.StatusOK {
		t.Errorf("the download after a failed one: %d", res.StatusCode)
	}
	// Without a token, nothing.
	if res := c.PostForm("/account/data/download", nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a download without the CSRF token: %d", res.StatusCode)
	}
}

// forgetTasks counts the account.forget tasks waiting.
func forgetTasks(t *testing.T, a *accounttest.App) int {
	t.Helper()
	n := 0
	err := a.Store.Table(tasks.Table).QueryAll(t.Context(), storage.Query{PartitionKey: "q", RowKeyPrefix: "t|"}, func(e storage.Entity) error {
		if e.Props["kind"] == account.ForgetKind {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDeleteYourAccount(t *testing.T) {
	t.Parallel()
	a, fake := newDataApp(t, accounttest.Options{})
	const email = "leaving@example.com"
	laptop, phone := a.Client(), a.Client()
	key := a.SignIn(laptop, email)
	a.SignIn(phone, email)

	page := laptop.Get("/account/data/delete")
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Body, "Deleted member") || !strings.Contains(page.Body, email) {
		t.Fatalf("the confirmation page: %d", page.StatusCode)
	}
	shared := page.Doc(t).Find(testID("delete-shared") + " li")
	if shared.Length() != 1 || strings.Join(strings.Fields(shared.Text()), " ") != "Fake club: passes to "+email+"'s friend" || shared.Find(`a[href="/fake/club"]`).Length() != 1 {
		t.Errorf("what the deletion does to what they run: %q", shared.Text())
	}
	// Without the token, or with the wrong word: refused, nothing changes.
	if res := laptop.PostForm("/account/data/delete", url.Values{"confirm": {email}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a deletion without the CSRF token: %d", res.StatusCode)
	}
	res := laptop.PostForm("/account/data/delete", laptop.WithCSRF("/account/data/delete", url.Values{"confirm": {"someone@example.com"}}))
	if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(`#confirm[aria-invalid="true"]`).Length() != 1 {
		t.Errorf("a wrong confirmation: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(t.Context(), key); p.DeletedAt != nil || a.Who(phone) != key || forgetTasks(t, a) != 0 {
		t.Fatal("a refused deletion changed something")
	}

	res = laptop.PostForm("/account/data/delete", laptop.WithCSRF("/account/data/delete", url.Values{"confirm": {" LEAVING@example.com "}}))
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/deleted" {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if a.Who(laptop) != "" || a.Who(phone) != "" {
		t.Error("a session of the closed account still works")
	}
	if res := laptop.Get("/account/deleted"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "being deleted") {
		t.Errorf("the page after: %d", res.StatusCode)
	}
	// A double submit queues nothing more.
	if err := a.Accounts.CloseAccount(t.Context(), key, email, accountMail()); err != nil {
		t.Fatal(err)
	}
	if n := forgetTasks(t, a); n != 1 {
		t.Errorf("%d forget tasks queued, want 1", n)
	}
	// While it is being deleted (its first run fails and waits for a
	// retry), a sign-in by code is refused and says so.
	fake.forgetFails = 1
	if res := a.TrySignIn(a.Client(), email); res.StatusCode != http.StatusForbidden || !strings.Contains(res.Body, "being deleted") {
		t.Errorf("a sign-in while the account closes: %d %.300s", res.StatusCode, res.Body)
	}

	a.Clock.Advance(time.Hour) // past the queue's backoff
	mails := a.Mail()          // runs the tasks: the forget, then its mail
	if len(fake.forgot) != 1 || fake.forgot[0] != key {
		t.Errorf("the module forgot %v", fake.forgot)
	}
	if left := memberdatatest.Traces(t, a.Store, memberdatatest.Member(key, email), "UserProfiles", "Users", "UserSettings", "UserPreferences", "Sessions", "AccountsByEmail", "OtpCodes", tasks.Table); len(left) > 0 {
		t.Errorf("rows left naming the member: %v", left)
	}
	if !slices.ContainsFunc(a.Mail(), func(m mailItem) bool { return m.To == email && strings.Contains(m.Subject, "deleted") }) {
		t.Errorf("no mail says the account was deleted: %+v", mails)
	}
	// The address signs up again to a new, empty account.
	if again := a.SignIn(a.Client(), email); again == key {
		t.Error("signing up again reached the deleted account")
	}
}

func TestDeletionRetriesAfterAFailure(t *testing.T) {
	t.Parallel()
	var faults memberdatatest.Faults
	a, fake := newDataApp(t, accounttest.Options{Wrap: faults.Wrap})
	c := a.Client()
	const email = "retry@example.com"
	key := a.SignIn(c, email)
	if res := c.PostForm("/account/data/delete", c.WithCSRF("/account/data/delete", url.Values{"confirm": {email}})); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	// A module's forget fails: the task is retried with the backoff.
	fake.forgetFails = 1
	if rep, err := a.Tasks.RunDue(t.Context()); err != nil || rep.Retried != 1 {
		t.Fatalf("the failing run: %+v %v", rep, err)
	}
	if _, err := a.Accounts.Profile(t.Context(), key); err != nil {
		t.Fatalf("the profile went though the modules' forget failed: %v", err)
	}
	// The next run is cut short by storage, after its first write.
	a.Clock.Advance(time.Hour)
	faults.FailAfter(2) // the claim, then one write of the forget
	rep, err := a.Tasks.RunDue(t.Context())
	faults.Heal()
	if err != nil || rep.Done != 0 {
		t.Fatalf("the run cut short: %+v %v", rep, err)
	}
	// The one after finishes it.
	a.Clock.Advance(6 * time.Hour)
	if rep, err := a.Tasks.RunDue(t.Context()); err != nil || rep.Done < 1 {
		t.Fatalf("the retry: %+v %v", rep, err)
	}
	if _, err := a.Accounts.Profile(t.Context(), key); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the profile after the retry: %v", err)
	}
	if left := memberdatatest.Traces(t, a.Store, memberdatatest.Member(key, email), "UserProfiles", "Users", "UserSettings", "Sessions", "AccountsByEmail"); len(left) > 0 {
		t.Errorf("rows left: %v", left)
	}
}

func TestTheLastAdminCannotDeleteTheirAccount(t *testing.T) {
	t.Parallel()
	a, _ := newDataApp(t, accounttest.Options{})
	c := a.Client()
	const email = "boss@example.com"
	key := a.SignIn(c, email)
	if _, err := a.Accounts.SetRole(t.Context(), key, account.RoleAdmin, true); err != nil {
		t.Fatal(err)
	}
	res := c.PostForm("/account/data/delete", c.WithCSRF("/account/data/delete", url.Values{"confirm": {email}}))
	if res.StatusCode != http.StatusConflict || res.Doc(t).Find(testID("form-errors")).Length() != 1 {
		t.Fatalf("the last admin's deletion: %d", res.StatusCode)
	}
	if p, _ := a.Accounts.Profile(t.Context(), key); p.DeletedAt != nil || a.Who(c) != key || forgetTasks(t, a) != 0 {
		t.Fatal("the refused deletion changed something")
	}
	// With a second admin, they may go.
	other := a.SignIn(a.Client(), "deputy@example.com")
	if _, err := a.Accounts.SetRole(t.Context(), other, account.RoleAdmin, true); err != nil {
		t.Fatal(err)
	}
	if res := c.PostForm("/account/data/delete", c.WithCSRF("/account/data/delete", url.Values{"confirm": {email}})); res.StatusCode != http.StatusSeeOther {
		t.Errorf("an admin with a deputy: %d", res.StatusCode)
	}
}

type mailItem = mail.Delivered

func accountMail() mail.Message { return mail.Message{Subject: "gone", Text: "gone"} }

package platform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
)

// Demo content: "web seed demo" (or DEMO=1, or the banner's button in
// development) fills an empty store with a cast of people and, through
// every module that implements DemoSeeder, what they would have made:
// groups with plans, prompts with votes, notifications. A newcomer then
// sees a living product instead of empty pages.

// DemoPerson is one member of the demo cast. Sign in as one with their
// email: in development the code shows at /dev/mailbox.
type DemoPerson struct {
	Key      string // memberKey, set when the account is made
	Email    string
	Name     string
	Lang     string // "en" or "ru"
	Timezone string
	// Role is an account role the cast member holds ("" for none): Anna
	// makes the demo's events, Olga co-organizes one.
	Role string
}

// DemoCast is who the demo content is about, and the instant it is
// written at (plans are in the weeks after it).
type DemoCast struct {
	People []DemoPerson
	Now    time.Time
}

// Person is the cast member with the given email's local part ("anna").
func (c DemoCast) Person(local string) DemoPerson {
	for _, p := range c.People {
		if strings.HasPrefix(p.Email, local+"@") {
			return p
		}
	}
	panic("platform: no demo person " + local) // a typo in a seeder
}

// DemoSeeder is a module with demo content.
type DemoSeeder interface {
	SeedDemo(ctx context.Context, cast DemoCast) error
}

// demoPeople are the cast: English and Russian speakers in three zones.
var demoPeople = []DemoPerson{
	{Email: "anna@demo.example", Name: "Anna Smith", Lang: "en", Timezone: "Europe/London", Role: account.RoleOrganizer},
	{Email: "tom@demo.example", Name: "Tom Smith", Lang: "en", Timezone: "Europe/London"},
	{Email: "lily@demo.example", Name: "Lily Chen", Lang: "en", Timezone: "America/New_York"},
	{Email: "boris@demo.example", Name: "Борис Иванов", Lang: "ru", Timezone: "Europe/Moscow"},
	{Email: "masha@demo.example", Name: "Маша Иванова", Lang: "ru", Timezone: "Europe/Moscow"},
	{Email: "olga@demo.example", Name: "Ольга Петрова", Lang: "ru", Timezone: "Asia/Yekaterinburg", Role: account.RoleOrganizer},
}

// DemoPeople are the demo's cast, for tests that pick one of them.
func DemoPeople() []DemoPerson { return slices.Clone(demoPeople) }

// DemoSignIn is the address the banner and the docs suggest signing in
// with.
const DemoSignIn = "anna@demo.example"

// ErrNotEmpty refuses demo content on a store that has people already.
var ErrNotEmpty = errors.New("platform: the store has accounts already; demo content goes into an empty store only")

// Empty reports whether no one has an account yet.
func (a *App) Empty(ctx context.Context) (bool, error) {
	rows, _, err := a.Core.Accounts.ListUsers(ctx, nil, 1)
	return len(rows) == 0, err
}

// SeedDemo makes the cast's accounts and runs every module's demo seeder,
// on an empty store only (ErrNotEmpty). It returns a one-line summary.
func (a *App) SeedDemo(ctx context.Context) (string, error) {
	empty, err := a.Empty(ctx)
	if err != nil {
		return "", err
	}
	if !empty {
		return "", ErrNotEmpty
	}
	cast := DemoCast{Now: a.Core.Now().UTC()}
	for _, p := range demoPeople {
		if p.Key, err = a.Core.Auth.EnsureAccount(ctx, p.Email, p.Name); err != nil {
			return "", fmt.Errorf("platform: demo account %s: %w", p.Email, err)
		}
		if errs, err := a.Core.Accounts.UpdateProfile(ctx, p.Key, account.ProfileInput{DisplayName: p.Name, Timezone: p.Timezone}); err != nil || len(errs) > 0 {
			return "", fmt.Errorf("platform: demo profile %s: %v %v", p.Email, err, errs)
		}
		settings := account.SettingsInput{ProfileVisibility: "public", Language: p.Lang, NotificationsEnabled: true, EmailNotifications: true}
		if errs, err := a.Core.Accounts.UpdateSettings(ctx, p.Key, settings); err != nil || len(errs) > 0 {
			return "", fmt.Errorf("platform: demo settings %s: %v %v", p.Email, err, errs)
		}
		if p.Role != "" {
			if _, err := a.Core.Accounts.SetRole(ctx, p.Key, p.Role, true); err != nil {
				return "", fmt.Errorf("platform: demo role %s: %w", p.Email, err)
			}
		}
		cast.People = append(cast.People, p)
	}
	var seeded []string
	for _, m := range a.Modules {
		if s, ok := m.(DemoSeeder); ok {
			if err := s.SeedDemo(ctx, cast); err != nil {
				return "", fmt.Errorf("platform: demo content of %s: %w", m.Slug(), err)
			}
			seeded = append(seeded, m.Slug())
		}
	}
	return fmt.Sprintf("demo: %d people; content from %s; sign in as %s", len(cast.People), strings.Join(seeded, ", "), DemoSignIn), nil
}

// demoModule offers demo content in development: a banner on the home
// page of an empty store, and POST /dev/demo, which fills it. Both answer
// loopback clients only, like the development mailbox.
type demoModule struct {
	app *App
	// filled is set once the store has people: from then on nothing is
	// offered, and nothing is checked.
	filled atomic.Bool
	// emptyUntil caches an empty answer for a few seconds, so a busy
	// home page does not walk the directory on every request.
	emptyUntil atomic.Int64
}

// emptyFor is how long an empty answer is reused.
const emptyFor = 10 * time.Second

func (*demoModule) Slug() string { return "demo" }

func (d *demoModule) Routes(e *echo.Echo) {
	e.POST("/dev/demo", d.seed)
}

// offered reports whether this request may be offered demo content.
func (d *demoModule) offered(c echo.Context) bool {
	if d.filled.Load() || !web.FromLoopback(c.Request()) {
		return false
	}
	now := d.app.Core.Now()
	if now.UnixNano() < d.emptyUntil.Load() {
		return true
	}
	empty, err := d.app.Empty(c.Request().Context())
	if err != nil || !empty {
		d.filled.Store(err == nil)
		return false
	}
	d.emptyUntil.Store(now.Add(emptyFor).UnixNano())
	return true
}

// Banner is the offer, on the home page, for a visitor.
func (d *demoModule) Banner(c echo.Context) templ.Component {
	if c.Request().URL.Path != "/" || auth.From(c) != nil || !d.offered(c) {
		return nil
	}
	return components.DemoBanner()
}

// seed is POST /dev/demo: fill the empty store, then go and sign in as
// the demo person.
func (d *demoModule) seed(c echo.Context) error {
	if !web.FromLoopback(c.Request()) {
		return echo.ErrNotFound
	}
	ctx := c.Request().Context()
	summary, err := d.app.SeedDemo(ctx)
	if errors.Is(err, ErrNotEmpty) {
		return web.FlashRedirect(c, "demo.flash.not_empty", "/")
	}
	if err != nil {
		return err
	}
	d.filled.Store(true)
	d.emptyUntil.Store(0)
	d.app.Core.Log.InfoContext(ctx, "demo content added", "summary", summary)
	return web.FlashRedirect(c, "demo.flash.seeded", "/signin?email="+DemoSignIn)
}

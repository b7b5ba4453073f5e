// Package platform is the composition root: it builds the core every
// module is built on (mail, cursors, the job runner, the daily counters,
// the change feed, identity and accounts), builds the modules it is given on that core,
// wires what they declare through small optional interfaces, provisions
// their tables and containers, and returns the router. Production
// (cmd/web) and the test harnesses build the app with the same Build.
//
// A module is a web.Module (a slug and its routes) built by a Factory. It
// may also implement:
//   - Tabler and Containerer: the tables and blob containers it owns,
//     provisioned at start;
//   - JobProvider: its background jobs, run by the core's runner (one-off
//     tasks register their kinds on Core.Tasks instead);
//   - Seeder: what a start needs done first (the prompt tag catalog; the
//     groups' comments moved to the comments kit's keys, and the People
//     rows to their spread keys, once);
//   - Rebuilder: the repairs of its derived tables from their canonical
//     rows, which "web reindex <subject>" and the admin buttons run;
//   - RebuildRunner: given every Rebuilder (the admin section);
//   - Migrator: moves its rows kept in an older layout to the current
//     one, which "web migrate <subject>" runs once after an upgrade;
//   - moderation.Source: takes down the content of its kinds that members
//     reported; Reported: files members' reports with the queue;
//     ReportQueue: the queue (the admin section), given every Source;
//   - DemoSeeder: its demo content (demo.go);
//   - Counted: its daily counters, one section of the admin metrics page;
//   - Drainer: told when the server starts shutting down (open streams);
//   - auth.GuestUpgrader and auth.EmailLinker: called when a guest signs
//     in, or an account verifies its first email;
//   - memberdata.Exporter and memberdata.Forgetter: what it keeps about a
//     member, written into their "Download my data" archive and erased
//     when they delete their account (the account module runs them, in
//     module order, then auth's rows and its own); memberdata.Previewer:
//     what the deletion would do to what the member shares (a group
//     passed on, an event cancelled), listed before they confirm.
//
// Adding a module is one Factory in the list cmd/web passes to Build.
package platform

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Core is what every module may be built with.
type Core struct {
	Config   *config.Config
	Store    *storage.Store
	Log      *slog.Logger
	Now      func() time.Time
	Mailer   mail.Sender
	Cursors  *storage.Cursors
	Jobs     *jobs.Runner
	Tasks    *tasks.Queue
	Metrics  *metrics.Daily
	Auth     *auth.Service
	Accounts *account.Service
	// Live is the instance's change feed: modules publish their writes
	// to it and their streams subscribe (internal/live).
	Live *live.Feed
}

// Factory builds one module on the core.
type Factory func(*Core) (web.Module, error)

// Optional interfaces a module may implement (see the package comment).
type (
	Tabler      interface{ Tables() []string }
	Containerer interface{ Containers() []string }
	JobProvider interface{ Jobs() []jobs.Job }
	Seeder      interface {
		Seed(ctx context.Context) error
	}
	// Rebuilder recomputes a module's derived tables (indexes,
	// directories) from their canonical rows: the repair after a write
	// that stopped half way. Rebuild is idempotent and its report says
	// what it fixed; RebuildSubject names it: web reindex <subject>.
	Rebuilder interface {
		RebuildSubject() string
		Rebuild(ctx context.Context) (fmt.Stringer, error)
	}
	// Migrator moves a module's rows kept in an older layout to the
	// current one: web migrate <subject>. Migrate is idempotent (a rerun
	// finishes an interrupted run, one more changes nothing) and its
	// report says what it moved.
	Migrator interface {
		MigrateSubject() string
		Migrate(ctx context.Context) (fmt.Stringer, error)
	}
	// RebuildRunner is handed every module's Rebuilder once all are
	// built: the admin section's rebuild buttons.
	RebuildRunner interface {
		UseRebuilders([]Rebuilder)
	}
	// ReportQueue is the moderation queue (the admin section), handed
	// every module that is a moderation.Source once all are built.
	ReportQueue interface {
		moderation.Queue
		UseReportSources([]moderation.Source)
	}
	// Reported lets members report its content: it is handed the queue.
	Reported interface {
		UseReports(moderation.Queue)
	}
	// Counted registers its daily counters with the site's and counts
	// them (metrics.Daily.Counting); the admin metrics page shows them,
	// one section per module.
	Counted interface{ CountWith(*metrics.Daily) }
	// Drainer ends its long-lived responses (chat streams) when the
	// server starts shutting down, so the shutdown does not wait for
	// them.
	Drainer interface{ Drain() }
)

// Drain tells every Drainer module, and the change feed, the server is
// shutting down.
func (a *App) Drain() {
	a.Core.Live.Drain()
	for _, m := range a.Modules {
		if d, ok := m.(Drainer); ok {
			d.Drain()
		}
	}
}

// Options adjust a build.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Mailer replaces the one the configuration names (tests catch mail).
	Mailer mail.Sender
}

// App is the built application.
type App struct {
	*web.Server
	Core    *Core
	Modules []web.Module
	// Tables are every table the app owns (for key migration), and
	// Containers every blob container.
	Tables     []string
	Containers []string
	// Rebuilders are the modules' repairs, in module order.
	Rebuilders []Rebuilder
	// Migrators are the modules' moves to their current layout.
	Migrators []Migrator
}

// Build builds the core and the modules of factories on store, wires and
// provisions them, and returns the app (jobs not started).
func Build(ctx context.Context, cfg *config.Config, store *storage.Store, log *slog.Logger, opts Options, factories ...Factory) (*App, error) {
	core, err := newCore(cfg, store, log, opts)
	if err != nil {
		return nil, err
	}
	modules := []web.Module{core.Auth, core.Accounts}
	for _, f := range factories {
		m, err := f(core)
		if err != nil {
			return nil, fmt.Errorf("platform: build a module: %w", err)
		}
		modules = append(modules, m)
	}
	// In development an empty store offers demo content.
	var demo *demoModule
	if !cfg.IsProduction() {
		demo = &demoModule{}
		modules = append(modules, demo)
	}
	// The profile learns a newly verified email before modules read it.
	core.Auth.OnEmailLinked(core.Accounts)
	tables := append(core.Jobs.Tables(), metrics.Table, tasks.Table)
	tables = append(tables, core.Live.Tables()...)
	var containers []string
	var rebuilders []Rebuilder
	var migrators []Migrator
	for _, m := range modules {
		if r, ok := m.(Rebuilder); ok {
			rebuilders = append(rebuilders, r)
		}
		if r, ok := m.(Migrator); ok {
			migrators = append(migrators, r)
		}
		if u, ok := m.(auth.GuestUpgrader); ok {
			core.Auth.OnGuestUpgrade(u)
		}
		if l, ok := m.(auth.EmailLinker); ok && m != web.Module(core.Accounts) && m != web.Module(core.Auth) {
			core.Auth.OnEmailLinked(l)
		}
		if c, ok := m.(Counted); ok {
			c.CountWith(core.Metrics)
		}
		if t, ok := m.(Tabler); ok {
			tables = append(tables, t.Tables()...)
		}
		if c, ok := m.(Containerer); ok {
			containers = append(containers, c.Containers()...)
		}
		if j, ok := m.(JobProvider); ok {
			for _, job := range j.Jobs() {
				if err := core.Jobs.Add(job); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := core.Accounts.UseMemberData(memberData(core, modules)); err != nil {
		return nil, err
	}
	var sources []moderation.Source
	var queue ReportQueue
	for _, m := range modules {
		if r, ok := m.(RebuildRunner); ok {
			r.UseRebuilders(rebuilders)
		}
		if src, ok := m.(moderation.Source); ok {
			sources = append(sources, src)
		}
		if q, ok := m.(ReportQueue); ok {
			queue = q
		}
	}
	if queue != nil {
		queue.UseReportSources(sources)
		for _, m := range modules {
			if r, ok := m.(Reported); ok {
				r.UseReports(queue)
			}
		}
	}
	tables, containers = unique(tables), unique(containers)
	if err := store.Provision(ctx, tables, containers); err != nil {
		return nil, err
	}
	for _, m := range modules {
		if s, ok := m.(Seeder); ok {
			if err := s.Seed(ctx); err != nil {
				return nil, fmt.Errorf("platform: seed %s: %w", m.Slug(), err)
			}
		}
	}
	srv, err := web.New(web.Deps{
		Config:       cfg,
		Logger:       log,
		Version:      config.Version,
		UserLanguage: core.Auth.UserLanguage,
		SaveLanguage: func(c echo.Context, lang i18n.Lang) error {
			id := auth.Account(c)
			if id == nil {
				return nil
			}
			return core.Accounts.SetLanguage(c.Request().Context(), id.MemberKey, string(lang))
		},
		Middleware: []echo.MiddlewareFunc{core.Auth.Middleware()},
		Modules:    modules,
		Now:        opts.Now,
	})
	if err != nil {
		return nil, err
	}
	app := &App{Server: srv, Core: core, Modules: modules, Tables: tables, Containers: containers, Rebuilders: rebuilders, Migrators: migrators}
	if demo != nil {
		demo.app = app
	}
	return app, nil
}

// memberData are the modules that export and forget a member's data, in
// module order; auth and the account module run their own parts
// themselves, auth's after the modules' and the account's last.
func memberData(core *Core, modules []web.Module) account.MemberData {
	d := account.MemberData{Auth: core.Auth, Tasks: core.Tasks, Mailer: core.Mailer}
	for _, m := range modules {
		if m == web.Module(core.Auth) || m == web.Module(core.Accounts) {
			continue
		}
		if e, ok := m.(memberdata.Exporter); ok {
			d.Exporters = append(d.Exporters, e)
		}
		if f, ok := m.(memberdata.Forgetter); ok {
			d.Forgetters = append(d.Forgetters, f)
		}
		if p, ok := m.(memberdata.Previewer); ok {
			d.Previewers = append(d.Previewers, p)
		}
	}
	return d
}

// newCore builds what every module is built on. auth and account need
// each other (auth asks account for the profile at sign-in, account asks
// auth for the sessions); auth.ProfilesFunc lets auth be built first.
func newCore(cfg *config.Config, store *storage.Store, log *slog.Logger, opts Options) (*Core, error) {
	c := &Core{Config: cfg, Store: store, Log: log, Now: opts.Now}
	if c.Now == nil {
		c.Now = time.Now
	}
	var err error
	if c.Cursors, err = storage.NewCursors(cfg.CursorKeys...); err != nil {
		return nil, err
	}
	c.Jobs = jobs.New(store, log, jobs.Options{Now: opts.Now})
	// One-off tasks: the runner drains them, and an enqueue wakes it.
	c.Tasks = tasks.New(store, log, tasks.Options{Now: c.Now, Holder: c.Jobs.Holder()})
	c.Tasks.WakeWith(func() { c.Jobs.Kick(tasks.JobName) })
	for _, j := range c.Tasks.Jobs() {
		if err := c.Jobs.Add(j); err != nil {
			return nil, err
		}
	}
	// Mail goes out through the queue, off the request path.
	sender := opts.Mailer
	if sender == nil {
		if sender, err = mail.FromConfig(cfg, log); err != nil {
			return nil, err
		}
	}
	if sender != nil {
		if c.Mailer, err = mail.NewQueued(c.Tasks, sender); err != nil {
			return nil, err
		}
	}
	c.Metrics = metrics.NewDaily(store, c.Now)
	c.Live = live.New(store, log, c.Now, live.Options{})
	if err := c.Jobs.Add(c.Live.SweepJob()); err != nil {
		return nil, err
	}
	profiles := auth.ProfilesFunc(func(ctx context.Context, memberKey, email, displayName string) (auth.ProfileState, error) {
		return c.Accounts.OnSignIn(ctx, memberKey, email, displayName)
	})
	if c.Auth, err = auth.New(store, cfg, profiles, c.Mailer, log, c.Now); err != nil {
		return nil, err
	}
	if err := c.Jobs.Add(c.Auth.PurgeSessionsJob()); err != nil {
		return nil, err
	}
	c.Accounts = account.New(store, c.Auth, log, c.Now)
	return c, nil
}

// unique keeps the first of each name, in order.
func unique(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

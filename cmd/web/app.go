package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/app/prompts"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// app is the built application: the router, and the background jobs that
// serve starts and stops around it.
type app struct {
	*web.Server
	Jobs *jobs.Runner
	// Tables are every table the modules own (for key migration).
	Tables []string
}

// newServer builds every module on store, provisions their tables and
// containers, and returns the router and the job runner (not started).
// serve and the tests build the app the same way. now nil means time.Now.
func newServer(ctx context.Context, cfg *config.Config, log *slog.Logger, store *storage.Store, now func() time.Time) (*app, error) {
	mailer, err := mail.FromConfig(cfg, log)
	if err != nil {
		return nil, err
	}
	logMailer(log, mailer)
	cursors, err := storage.NewCursors(cfg.CursorKeys...)
	if err != nil {
		return nil, err
	}
	// Modules add their jobs (runner.Add) as they are built.
	runner := jobs.New(store, log, jobs.Options{Now: now})

	// auth and account need each other: auth asks account for the profile
	// at sign-in, account asks auth for the sessions. ProfilesFunc lets
	// auth be built first.
	var accounts *account.Service
	profiles := auth.ProfilesFunc(func(ctx context.Context, memberKey, email, displayName string) (auth.ProfileState, error) {
		return accounts.OnSignIn(ctx, memberKey, email, displayName)
	})
	authService, err := auth.New(store, cfg, profiles, mailer, log, now)
	if err != nil {
		return nil, err
	}
	accounts = account.New(store, authService, log, now)
	adminModule := admin.New(store, accounts, cursors, log, now)
	groupsModule := groups.New(store, accounts, mailer, cursors, cfg.BaseURL.String(), log, now)
	promptsModule := prompts.New(store, accounts, cursors, log, now)
	promptsModule.UseSeedTags(promptSeedTags(cfg))
	accounts.CountNewUsers(adminModule.Metrics())
	wireAI(cfg.OpenAI, log, now, adminModule, accounts, groupsModule)
	groupsModule.CountMetrics(adminModule.Metrics())
	groupsModule.UseInviteLimits(groups.InviteLimits{PerHour: cfg.InviteLimitHour, PerDay: cfg.InviteLimitDay})
	groupsModule.UseGuests(authService)
	groupsModule.UseGuestPhotos(accounts)
	authService.OnGuestUpgrade(groupsModule)
	// The profile learns a newly verified email before groups reads it.
	authService.OnEmailLinked(accounts)
	authService.OnEmailLinked(groupsModule)
	if err := runner.Add(authService.PurgeSessionsJob()); err != nil {
		return nil, err
	}
	if err := runner.Add(groupsModule.PurgeJob()); err != nil {
		return nil, err
	}

	var tables []string
	tables = append(tables, runner.Tables()...)
	tables = append(tables, authService.Tables()...)
	tables = append(tables, accounts.Tables()...)
	tables = append(tables, adminModule.Tables()...)
	tables = append(tables, groupsModule.Tables()...)
	tables = append(tables, promptsModule.Tables()...)
	containers := append(accounts.Containers(), groupsModule.Containers()...)
	if err := store.Provision(ctx, tables, containers); err != nil {
		return nil, err
	}
	if err := promptsModule.Seed(ctx); err != nil {
		return nil, err
	}

	srv, err := web.New(web.Deps{
		Config:       cfg,
		Logger:       log,
		Version:      config.Version,
		UserLanguage: authService.UserLanguage,
		Middleware:   []echo.MiddlewareFunc{authService.Middleware()},
		Modules:      []web.Module{authService, accounts, adminModule, groupsModule, promptsModule},
		Now:          now,
	})
	if err != nil {
		return nil, err
	}
	return &app{Server: srv, Jobs: runner, Tables: tables}, nil
}

// logMailer says at start where sign-in codes go.
func logMailer(log *slog.Logger, mailer mail.Sender) {
	switch mailer.(type) {
	case nil:
		log.Warn("no SMTP_URL: sign-in by email code is off")
	case *mail.DevMailbox:
		log.Info("no SMTP_URL: mail is logged and shown at /dev/mailbox")
	default:
		log.Info("mail goes out through SMTP_URL")
	}
}

// promptSeedTags are PROMPT_TAGS as the prompts module takes them (nil:
// its built-in list).
func promptSeedTags(cfg *config.Config) []prompts.DefaultTag {
	var tags []prompts.DefaultTag
	for _, t := range cfg.PromptTags {
		tags = append(tags, prompts.DefaultTag{Tag: t.Slug, English: t.English, Russian: t.Russian})
	}
	return tags
}

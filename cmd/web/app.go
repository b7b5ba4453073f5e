package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/harmony/harmony/internal/app/prompts"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/platform"
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
	// Rebuilders are the modules' repairs (web reindex).
	Rebuilders []platform.Rebuilder
	// Built is the whole app (demo content, the task queue).
	Built *platform.App
}

// newServer builds the app on store with the platform's composition root
// and the modules list (modules.go), and returns the router and the job
// runner (not started). serve, the commands and the tests build the app
// the same way. now nil means time.Now.
func newServer(ctx context.Context, cfg *config.Config, log *slog.Logger, store *storage.Store, now func() time.Time) (*app, error) {
	a, err := platform.Build(ctx, cfg, store, log, platform.Options{Now: now}, modules()...)
	if err != nil {
		return nil, err
	}
	logMailer(log, a.Core.Mailer)
	return &app{Server: a.Server, Jobs: a.Core.Jobs, Tables: a.Tables, Rebuilders: a.Rebuilders, Built: a}, nil
}

// seedDemo fills an empty store with demo content and delivers what it
// queued (the inboxes), returning the summary.
func (a *app) seedDemo(ctx context.Context) (string, error) {
	summary, err := a.Built.SeedDemo(ctx)
	if err != nil {
		return "", err
	}
	if _, err := a.Built.Core.Tasks.RunDue(ctx); err != nil {
		return "", err
	}
	return summary, nil
}

// logMailer says at start where sign-in codes go.
func logMailer(log *slog.Logger, mailer mail.Sender) {
	switch mail.Delivering(mailer).(type) {
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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/storage"
)

const reindexUsage = "usage: web reindex prompts|users [settings flags]"

// rebuild builds one module on store, runs its repair and returns the
// report to print.
type rebuild func(ctx context.Context, cfg *config.Config, store *storage.Store, log *slog.Logger) (fmt.Stringer, error)

// reindexSubjects are what "web reindex" rebuilds, in the order the usage
// names them.
var reindexSubjects = []struct {
	name string
	run  rebuild
}{
	{"prompts", reindexPrompts},
	{"users", reindexUsers},
}

// reindexCmd is "web reindex prompts|users": it rebuilds the subject's
// derived tables from its canonical table and prints what it fixed.
func reindexCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	subject, args := subjectOf(args)
	var run rebuild
	names := make([]string, 0, len(reindexSubjects))
	for _, s := range reindexSubjects {
		names = append(names, s.name)
		if s.name == subject {
			run = s.run
		}
	}
	if run == nil {
		return unknownSubject("reindex", subject, reindexUsage, names...)
	}
	cfg, store, log, err := openCommandStore(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	rep, err := run(ctx, cfg, store, log)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, rep)
	return err
}

// reindexPrompts rebuilds every prompt index from the Prompts table.
func reindexPrompts(ctx context.Context, cfg *config.Config, store *storage.Store, log *slog.Logger) (fmt.Stringer, error) {
	svc, err := promptsModule(ctx, cfg, store, log)
	if err != nil {
		return nil, err
	}
	return svc.Reindex(ctx)
}

// reindexUsers rebuilds the Users directory from UserProfiles. The
// rebuild touches no session, so the account module is built without the
// auth service newServer gives it.
func reindexUsers(ctx context.Context, _ *config.Config, store *storage.Store, log *slog.Logger) (fmt.Stringer, error) {
	svc := account.New(store, nil, log, time.Now)
	if err := store.Provision(ctx, svc.Tables(), nil); err != nil {
		return nil, err
	}
	return svc.RebuildDirectory(ctx)
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/platform"
)

const reindexUsage = "usage: web reindex blog|chat|events|forum|groups|people|prompts|store|users [settings flags]"

// reindexSubjects are the subjects of the app's rebuilds (the modules'
// platform.Rebuilder), known before anything is opened so that a bad
// command line touches nothing; a test keeps the list equal to the app's.
var reindexSubjects = []string{"blog", "chat", "events", "forum", "groups", "people", "prompts", "store", "users"}

// reindexCmd is "web reindex blog|chat|events|forum|groups|people|prompts|store|users": it builds the app on the
// configured store, runs the subject's rebuild (its derived tables from
// their canonical rows) and prints what it fixed.
func reindexCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	subject, args := subjectOf(args)
	if !slices.Contains(reindexSubjects, subject) {
		return unknownSubject("reindex", subject, reindexUsage, reindexSubjects...)
	}
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	r := rebuilderOf(a.Rebuilders, subject)
	if r == nil {
		return fmt.Errorf("the app has no rebuild %q", subject)
	}
	rep, err := r.Rebuild(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, rep)
	return err
}

// rebuilderOf is the rebuild of subject, or nil.
func rebuilderOf(rs []platform.Rebuilder, subject string) platform.Rebuilder {
	for _, r := range rs {
		if r.RebuildSubject() == subject {
			return r
		}
	}
	return nil
}

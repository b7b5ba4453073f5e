package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// "web tasks" prints the counts and the dead tasks with their ids;
// "web tasks retry ID" queues one again, once, and "web tasks retry-all
// KIND" the rest of its kind.
func TestTasksCommandListsAndRetriesDeadTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := envOf(map[string]string{"DATA_DIR": filepath.Join(t.TempDir(), "data")})
	a, closeStore, err := openCommandApp(ctx, nil, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// Another instance's task of a kind this one does not run, failing
	// for good.
	q := tasks.New(a.Built.Core.Store, slog.New(slog.NewTextHandler(io.Discard, nil)), tasks.Options{})
	k, err := tasks.Register(q, "test.bounce", func(context.Context, string) error {
		return tasks.Permanent(errors.New("smtp: 550 no such mailbox"))
	})
	for i := 1; i <= 2 && err == nil; i++ {
		err = k.Enqueue(ctx, fmt.Sprintf("bounce|%d", i), "payload")
	}
	if err == nil {
		_, err = q.RunDue(ctx)
	}
	closeStore()
	if err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	if code := run([]string{"tasks"}, env, &out, &errOut); code != 0 {
		t.Fatalf("tasks: exit %d: %s", code, errOut.String())
	}
	listed := out.String()
	ref := regexp.MustCompile(`(?m)^(d-\d{19}-[0-9A-Z]{26})  test\.bounce  .*  1 attempts  key bounce\|1\n    smtp: 550 no such mailbox$`).FindStringSubmatch(listed)
	if ref == nil || !regexp.MustCompile(`(?m)^ *test\.bounce +0 +0 +0 +2 *$`).MatchString(listed) {
		t.Fatalf("tasks printed:\n%s", listed)
	}
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"tasks", "retry", ref[1]}, 0, "to run again"},
		{[]string{"tasks", "retry", ref[1]}, 1, "no such dead task"},
		{[]string{"tasks", "retry"}, 2, "run which task"},
		{[]string{"tasks", "retry-all", "test.bounce"}, 0, "queued 1 failed test.bounce tasks"},
		{[]string{"tasks", "retry-all", "test.bounce"}, 1, `no task of kind "test.bounce" failed for good`},
		{[]string{"tasks", "retry-all", "no kind!"}, 1, "failed for good"},
		{[]string{"tasks", "retry-all"}, 2, "of which kind"},
		{[]string{"tasks", "purge"}, 2, "retry-all"},
	} {
		out.Reset()
		errOut.Reset()
		if code := run(tc.args, env, &out, &errOut); code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.says) {
			t.Errorf("%v: exit %d, %q %q; want %d, %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.says)
		}
	}
	out.Reset()
	run([]string{"tasks"}, env, &out, &errOut)
	if !regexp.MustCompile(`(?m)^ *test\.bounce +2 +0 +0 +0 *$`).MatchString(out.String()) || !strings.Contains(out.String(), "\nnone\n") {
		t.Errorf("after the retries:\n%s", out.String())
	}

	// The retries are in the moderation log, as those from /admin/tasks
	// are, by an operator at the command line.
	if a, closeStore, err = openCommandApp(ctx, nil, env, io.Discard); err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	adm, _ := web.ModuleOf[*admin.Service](a.Built.Modules)
	entries, err := adm.RecentLog(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Action != "tasks.retry_kind" || entries[0].TargetName != "test.bounce (1)" || entries[0].Actor != "" ||
		entries[1].Action != "tasks.retry" || !strings.HasPrefix(entries[1].TargetName, "test.bounce ") || entries[1].Actor != "" {
		t.Errorf("the moderation log after the retries: %+v", entries)
	}
}

// Every kind of task the app registers is described on /admin/tasks, in
// both languages: a new kind needs its "admin.tasks.kind.…" text.
func TestEveryTaskKindIsDescribed(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, nil)
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	kinds := a.Built.Core.Tasks.Kinds()
	if len(kinds) < 10 {
		t.Fatalf("only %d kinds registered: %v", len(kinds), kinds)
	}
	for _, kind := range kinds {
		key := "admin.tasks.kind." + kind
		for _, l := range i18n.Supported() {
			if !slices.Contains(cat.Keys(l), key) {
				t.Errorf("%s: no %s", l, key)
			}
		}
	}
}

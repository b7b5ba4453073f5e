package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

const tasksUsage = "usage: web tasks [retry ID | retry-all KIND] [settings flags]"

// tasksCmd is "web tasks": the task queue's counts by kind and its dead
// tasks, as /admin/tasks shows them; "web tasks retry ID" runs a dead one
// again (the next drain of a running server takes it), and "web tasks
// retry-all KIND" every dead one of a kind (as many as a press of the
// page's "Run all again" does), through the admin module as the page's
// buttons do, so the moderation log has them too.
func tasksCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	sub, args := subjectOf(args)
	var ref string
	switch sub {
	case "":
	case "retry":
		if ref, args = subjectOf(args); ref == "" {
			return usagef("run which task again? Name it by the id \"web tasks\" prints.\n%s", tasksUsage)
		}
	case "retry-all":
		if ref, args = subjectOf(args); ref == "" {
			return usagef("run the failed tasks of which kind again? Name it as \"web tasks\" prints it.\n%s", tasksUsage)
		}
	default:
		return unknownSubject("tasks", sub, tasksUsage, "retry", "retry-all")
	}
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	if sub == "" {
		return printTasks(ctx, a.Built.Core.Tasks, stdout)
	}
	adm, ok := web.ModuleOf[*admin.Service](a.Built.Modules)
	if !ok {
		return errors.New("web tasks: the app has no admin module")
	}
	if sub == "retry-all" {
		n, err := adm.RetryKind(ctx, admin.Actor{}, ref)
		if n > 0 {
			fmt.Fprintf(stdout, "queued %d failed %s tasks to run again now\n", n, ref)
		}
		if errors.Is(err, admin.ErrNoTask) {
			return fmt.Errorf("no task of kind %q failed for good (\"web tasks\" lists them): %w", ref, err)
		}
		return err
	}
	t, err := adm.RetryTask(ctx, admin.Actor{}, ref)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "queued %s (%s) to run again now\n", t.ID, t.Kind)
	return err
}

// printTasks writes the summary, then every dead task, newest first.
func printTasks(ctx context.Context, q *tasks.Queue, w io.Writer) error {
	s, err := q.Summarize(ctx)
	if err != nil {
		return err
	}
	n := func(v int, capped bool) string {
		if capped && v >= tasks.MaxCounted {
			return fmt.Sprintf("%d+", v)
		}
		return fmt.Sprint(v)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\twaiting\tretrying\trunning\tdead\t")
	for _, k := range append(s.Kinds, tasks.KindCounts{Kind: "all", Counts: s.Counts}) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", k.Kind, n(k.Waiting, s.MoreWaiting), n(k.Retrying, s.MoreWaiting), n(k.Running, s.MoreWaiting), n(k.Dead, s.MoreDead))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "due now: %s\n", n(s.DueNow, s.MoreWaiting))
	var from *storage.Continuation
	for first := true; first || from != nil; first = false {
		var dead []tasks.TaskRow
		if dead, from, err = q.DeadPage(ctx, from, 100); err != nil {
			return err
		}
		if first {
			fmt.Fprintf(w, "\nfailed for good, newest first (web tasks retry ID runs one again):\n")
			if len(dead) == 0 {
				fmt.Fprintln(w, "none")
			}
		}
		for _, t := range dead {
			fmt.Fprintf(w, "%s  %s  %s  %d attempts", t.Ref(), t.Kind, t.Due.UTC().Format(time.DateTime+" UTC"), t.Attempts)
			if t.Key != "" {
				fmt.Fprintf(w, "  key %s", t.Key)
			}
			fmt.Fprintf(w, "\n    %s\n", strings.ReplaceAll(t.LastError, "\n", "\n    "))
		}
	}
	return nil
}

// Command web is the Harmony server. "web" or "web serve" runs it; "web -h"
// lists every setting. Later subcommands (seed, reindex) join the table in
// commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/harmony/harmony/internal/config"
)

// command is one subcommand. Each reads its own settings from args and env.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", "run the web server (the default)", serve},
		{"version", "print the version", printVersion},
		{"seed", "demo: fill an empty store with demo content; prompts --count N [--seed S]: add N synthetic prompts (load tests)", seedCmd},
		{"reindex", "blog: rebuild the blog's cards (BlogIndex) from BlogPosts, and queue new posts' announcements to followers;\n           chat: put private chats back in their people's lists (UserChats) from Chats and Messages;\n           events: rebuild the listing and My events from Events and EventAttendees, and queue the reminders and offer lapses to come;\n           forum: rebuild the topic lists and title search from the topics, and recount sections;\n           groups: rebuild UserGroups from GroupMembers and the groups' upcoming summaries, and queue the reminders to come;\n           people: finish the likes, matches and card photos a crash left half done, from the sent likes;\n           prompts: rebuild the prompt indexes from the Prompts table;\n           store: rebuild the store's cards (StoreIndex) from StoreItems, and tell who still waits for an item back in stock;\n           users: rebuild the Users directory from UserProfiles", reindexCmd},
		{"forget", "MEMBERKEY|EMAIL: erase now an account its owner asked to delete (closed), as its\n           account.forget task would: the repair after that task failed for good", forgetCmd},
		{"tasks", "the background task queue's counts by kind and its failed tasks;\n           retry ID: run a failed task again (the ID \"web tasks\" prints);\n           retry-all KIND: run the failed tasks of a kind again", tasksCmd},
		{"migrate", "keys [--dry-run]: rewrite data written before keys were escaped\n           without '%' (one-off; rebuilds the derived tables after);\n           comments: move appointments' comments to the comments kit's keys", migrateCmd},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and turns its result into an exit code.
func run(args []string, env config.LookupEnv, stdout, stderr io.Writer) int {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	var cmd *command
	for _, c := range commands() {
		if c.name == name {
			cmd = &c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "web: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.run(ctx, args, env, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return 0
	case errors.As(err, new(*usageError)):
		fmt.Fprintf(stderr, "web %s: %v\n", name, err)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "web %s: %v\n", name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Harmony %s: one community app for families, clubs and fan communities.\n\n", config.Version)
	fmt.Fprintln(w, "Usage:\n  web [command] [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nWith nothing set, \"web\" serves http://127.0.0.1:8080 (loopback only) in development mode on the\nembedded store in ./data.")
	fmt.Fprintln(w)
	config.Usage(w)
}

func printVersion(_ context.Context, _ []string, _ config.LookupEnv, stdout, _ io.Writer) error {
	_, err := fmt.Fprintln(stdout, config.Version)
	return err
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/prompts"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// usageError is a command line a command cannot run. run prints it and
// exits with status 2, before anything is opened or written.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// maxSeedCount guards against a typo that would fill the disk.
const maxSeedCount = 10_000_000

const seedUsage = "usage: web seed prompts --count N [--seed S] | web seed demo [settings flags]"

// seedCmd is "web seed prompts --count N [--seed S]": it adds N synthetic
// prompts to the catalog of the configured store (the same settings as
// serve), for demos, benchmarks and load tests.
func seedCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		return flag.ErrHelp
	}
	subject, args := subjectOf(args)
	switch subject {
	case "demo":
		return seedDemoCmd(ctx, args, env, stdout, stderr)
	case "prompts":
	default:
		return unknownSubject("seed", subject, seedUsage, "demo", "prompts")
	}
	own, settings := splitFlags(args, "count", "seed")
	fs := flag.NewFlagSet("web seed prompts", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	count := fs.Int("count", 0, "how many prompts to add")
	seed := fs.Int64("seed", 1, "the generator's seed: the same seed gives the same prompts")
	if err := fs.Parse(own); err != nil {
		return usagef("%v\n%s", err, seedUsage)
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "count" })
	switch {
	case !given:
		return usagef("--count is required\n%s", seedUsage)
	case *count < 1 || *count > maxSeedCount:
		return usagef("--count must be between 1 and %d, got %d\n%s", maxSeedCount, *count, seedUsage)
	}

	cfg, log, err := loadCommandConfig(settings, env, stderr)
	if err != nil {
		return err
	}
	// A seed writes hundreds of thousands of transactions: the embedded
	// store skips the fsync of each and syncs the file once at the end.
	store, err := openStoreWith(ctx, cfg, embedded.Options{NoSync: true})
	if err != nil {
		return fmt.Errorf("open %s storage: %w", cfg.Backend(), err)
	}
	closed := false
	defer func() {
		if !closed {
			store.Close()
		}
	}()
	svc, err := promptsModule(ctx, cfg, store, log)
	if err != nil {
		return err
	}
	start, lastPct := time.Now(), -1
	rep, err := svc.SeedSynthetic(ctx, *count, prompts.SyntheticOptions{Seed: *seed, Progress: func(done, total int) {
		if pct := 100 * done / total; pct/5 != lastPct/5 || done == total {
			lastPct = pct
			fmt.Fprintf(stderr, "seeding prompts: %d/%d (%d%%), %s\n", done, total, pct, time.Since(start).Round(time.Second))
		}
	}})
	if err != nil {
		return err
	}
	closed = true
	if err := closeAndSync(store, cfg); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, rep)
	return err
}

// seedDemoCmd is "web seed demo": demo content for every module that has
// some, into an empty store (a store with accounts is refused, untouched).
func seedDemoCmd(ctx context.Context, args []string, env config.LookupEnv, stdout, stderr io.Writer) error {
	a, closeStore, err := openCommandApp(ctx, args, env, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	if a.Built.Core.Config.IsProduction() {
		return errors.New("demo content is for development; production refuses it")
	}
	summary, err := a.seedDemo(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, summary)
	return err
}

// wantsHelp reports whether args ask for the usage (-h, -help, --help).
func wantsHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" })
}

// subjectOf splits "prompts --count 5" into the subject and the flags.
func subjectOf(args []string) (string, []string) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", args
	}
	return args[0], args[1:]
}

// unknownSubject refuses a missing or unknown subject, naming the ones the
// command knows.
func unknownSubject(cmd, subject, usage string, known ...string) error {
	subjects := "the only subject is " + strconv.Quote(known[0])
	if len(known) > 1 {
		quoted := make([]string, len(known))
		for i, k := range known {
			quoted[i] = strconv.Quote(k)
		}
		subjects = "the subjects are " + strings.Join(quoted, ", ")
	}
	if subject == "" {
		return usagef("%s what? %s.\n%s", cmd, strings.ToUpper(subjects[:1])+subjects[1:], usage)
	}
	return usagef("cannot %s %q: %s\n%s", cmd, subject, subjects, usage)
}

// splitFlags takes the flags named in own (with their values) out of args;
// the rest are settings flags for config.Load.
func splitFlags(args []string, own ...string) (mine, rest []string) {
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || !slices.Contains(own, name) {
			rest = append(rest, args[i])
			continue
		}
		mine = append(mine, args[i])
		if !hasValue && i+1 < len(args) {
			i++
			mine = append(mine, args[i])
		}
	}
	return mine, rest
}

// loadCommandConfig reads the settings as serve does (environment, then
// flags) and gives a development store its keys.
func loadCommandConfig(args []string, env config.LookupEnv, stderr io.Writer) (*config.Config, *slog.Logger, error) {
	cfg, err := config.Load(args, env)
	if err != nil {
		return nil, nil, err
	}
	if _, err := cfg.EnsureDevSecrets(); err != nil {
		return nil, nil, err
	}
	log := newLogger(cfg, stderr)
	slog.SetDefault(log) // the storage front's warnings about unreadable rows
	return cfg, log, nil
}

// openCommandStore loads a command's settings and opens the store they
// name; the caller closes it.
// openCommandApp opens the configured store and builds the app on it, as
// serve does, for the commands that work through the modules (reindex,
// migrate, seed demo). closeStore closes the store.
func openCommandApp(ctx context.Context, args []string, env config.LookupEnv, stderr io.Writer) (a *app, closeStore func() error, err error) {
	cfg, store, log, err := openCommandStore(ctx, args, env, stderr)
	if err != nil {
		return nil, nil, err
	}
	if a, err = newServer(ctx, cfg, log, store, nil); err != nil {
		store.Close()
		return nil, nil, err
	}
	return a, store.Close, nil
}

func openCommandStore(ctx context.Context, args []string, env config.LookupEnv, stderr io.Writer) (*config.Config, *storage.Store, *slog.Logger, error) {
	cfg, log, err := loadCommandConfig(args, env, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open %s storage: %w", cfg.Backend(), err)
	}
	return cfg, store, log, nil
}

// promptsModule builds the prompts module on store as newServer does (no
// profiles: the commands show no author names), and makes sure its tables
// and tag catalog exist.
func promptsModule(ctx context.Context, cfg *config.Config, store *storage.Store, log *slog.Logger) (*prompts.Service, error) {
	cursors, err := storage.NewCursors(cfg.CursorKeys...)
	if err != nil {
		return nil, err
	}
	svc := prompts.New(store, nil, cursors, log, time.Now)
	svc.UseSeedTags(promptSeedTags(cfg))
	if err := store.Provision(ctx, svc.Tables(), nil); err != nil {
		return nil, err
	}
	if err := svc.Seed(ctx); err != nil {
		return nil, err
	}
	return svc, nil
}

// closeAndSync closes the store and, for the embedded store written
// without fsync, flushes its file to disk once.
func closeAndSync(store *storage.Store, cfg *config.Config) error {
	if err := store.Close(); err != nil {
		return err
	}
	if cfg.AzureConnectionString != "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(cfg.DataDir, "harmony.db"), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

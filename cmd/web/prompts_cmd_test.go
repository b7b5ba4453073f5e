package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSeedAndReindexPrompts(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	env := envOf(map[string]string{"DATA_DIR": dataDir})

	var out, errOut bytes.Buffer
	if code := run([]string{"seed", "prompts", "--count", "50"}, env, &out, &errOut); code != 0 {
		t.Fatalf("seed: exit %d, stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "seeded 50 synthetic prompts") {
		t.Errorf("seed printed %q", out.String())
	}
	if !strings.Contains(errOut.String(), "seeding prompts: 50/50 (100%)") {
		t.Errorf("no progress on stderr: %q", errOut.String())
	}

	out.Reset()
	errOut.Reset()
	if code := run([]string{"reindex", "prompts"}, env, &out, &errOut); code != 0 {
		t.Fatalf("reindex: exit %d, stderr %s", code, errOut.String())
	}
	// A seed writes what the normal path writes, so the rebuild reads
	// every prompt and has nothing to fix.
	if got := out.String(); !strings.Contains(got, "50 read") || !strings.Contains(got, "fixed 0 index rows written, 0 deleted, 0 vote counts, 0 tag counts, 0 lookups") {
		t.Errorf("reindex printed %q", got)
	}

	// The same seed again is refused; another seed adds more.
	out.Reset()
	errOut.Reset()
	if code := run([]string{"seed", "prompts", "-count=10"}, env, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "already exist") {
		t.Errorf("same seed again: exit %d, stderr %q", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"seed", "prompts", "--count", "10", "--seed", "2", "-data-dir", dataDir}, envOf(nil), &out, &errOut); code != 0 {
		t.Fatalf("another seed, settings as flags: exit %d, stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "seeded 10 synthetic prompts") {
		t.Errorf("seed printed %q", out.String())
	}
}

func TestSeedAndReindexRefuseBadArguments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"seed"}, "seed what?"},
		{[]string{"seed", "prompts"}, "--count is required"},
		{[]string{"seed", "prompts", "--count", "-5"}, "--count must be between 1 and"},
		{[]string{"seed", "prompts", "--count", "0"}, "--count must be between 1 and"},
		{[]string{"seed", "prompts", "--count", "many"}, `invalid value "many" for flag -count`},
		{[]string{"seed", "prompts", "--count", "5", "--seed", "x"}, `invalid value "x" for flag -seed`},
		{[]string{"seed", "users", "--count", "5"}, `cannot seed "users"`},
		{[]string{"reindex"}, "reindex what?"},
		{[]string{"reindex", "everything"}, `cannot reindex "everything"`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			var out, errOut bytes.Buffer
			if code := run(c.args, envOf(map[string]string{"DATA_DIR": dataDir}), &out, &errOut); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(errOut.String(), c.want) || !strings.Contains(errOut.String(), "usage: web ") {
				t.Errorf("stderr %q lacks %q and the usage line", errOut.String(), c.want)
			}
			if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
				t.Errorf("a refused command touched DATA_DIR (%v)", err)
			}
		})
	}
}

func TestHelpListsSeedAndReindex(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"seed", "-h"}, {"reindex", "prompts", "--help"}} {
		var out, errOut bytes.Buffer
		if code := run(args, envOf(nil), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		for _, want := range []string{"seed     demo: fill an empty store with demo content; prompts --count N [--seed S]", "reindex  blog: rebuild the blog's cards", "chat: put private chats back in their people's lists", "people: finish the likes, matches", "events: rebuild the listing and My events", "forum: rebuild the topic lists", "groups: rebuild UserGroups", "prompts: rebuild the prompt indexes", "users: rebuild the Users directory"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: usage lacks %q", args, want)
			}
		}
	}
}

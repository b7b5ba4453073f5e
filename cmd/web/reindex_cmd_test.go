package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web/webtest"
)

func TestReindexUsersRestoresTheDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := filepath.Join(t.TempDir(), "data")
	env := envOf(map[string]string{"DATA_DIR": dataDir})

	// Two accounts, one of whose directory rows a failure lost.
	b, err := embedded.Open(dataDir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(b, storage.Options{})
	accounts := account.New(store, nil, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Now)
	if err := store.Provision(ctx, accounts.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"auth:anna", "auth:boris"} {
		if _, err := accounts.OnSignIn(ctx, key, strings.TrimPrefix(key, "auth:")+"@example.org", ""); err != nil {
			t.Fatal(err)
		}
	}
	rows, _, err := accounts.ListUsers(ctx, nil, 10)
	if err != nil || len(rows) != 2 {
		t.Fatalf("directory before: %d rows, %v", len(rows), err)
	}
	if err := store.Table("Users").Delete(ctx, rows[0].PartitionKey, rows[0].RowKey, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	store.Close()

	for _, want := range []string{
		"users: 2 profiles read; fixed 1 directory rows written, 0 removed",
		"users: 2 profiles read; fixed 0 directory rows written, 0 removed", // idempotent
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"reindex", "users"}, env, &out, &errOut); code != 0 {
			t.Fatalf("reindex users: exit %d, stderr %s", code, errOut.String())
		}
		if got := strings.TrimSpace(out.String()); got != want {
			t.Errorf("reindex users printed %q, want %q", got, want)
		}
	}
}

func TestReindexRefusesAnUnknownSubject(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"reindex", "everything"}, {"reindex"}, {"reindex", "-data-dir", "x"}} {
		dataDir := filepath.Join(t.TempDir(), "data")
		var out, errOut bytes.Buffer
		if code := run(args, envOf(map[string]string{"DATA_DIR": dataDir}), &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if got := errOut.String(); !strings.Contains(got, `ubjects are "blog", "chat", "events", "forum", "groups", "people", "prompts", "store", "users"`) || !strings.Contains(got, "usage: web reindex blog|chat|events|forum|groups|people|prompts|store|users") {
			t.Errorf("%v: stderr %q", args, got)
		}
	}
}

// The subjects "web reindex" accepts are exactly the app's rebuilds, which
// the modules declare (platform.Rebuilder).
func TestReindexSubjectsAreTheAppsRebuilds(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, nil)
	var got []string
	for _, r := range a.Rebuilders {
		got = append(got, r.RebuildSubject())
	}
	want := slices.Clone(reindexSubjects)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the app rebuilds %v, web reindex knows %v", got, reindexSubjects)
	}
}

// TestRebuildButtonsOfEveryModule: the admin overview has a button for
// each of the app's rebuilds, and each, pressed on the demo store, runs
// in the background to "done". The tags and users pages' buttons post to
// the same place.
func TestRebuildButtonsOfEveryModule(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, map[string]string{"ADMIN_EMAILS": platform.DemoSignIn})
	if _, err := a.Built.SeedDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := webtest.NewClient(t, a.Handler())
	signIn(t, c, platform.DemoSignIn)
	for page, form := range map[string]string{"/admin/tags": "reindex-form", "/admin/users": "rebuild-directory-form"} {
		action := c.Get(page).Doc(t).Find(`[data-testid="`+form+`"]`).AttrOr("action", "")
		if subject, ok := strings.CutPrefix(action, "/admin/rebuild/"); !ok || !slices.ContainsFunc(a.Rebuilders, func(r platform.Rebuilder) bool { return r.RebuildSubject() == subject }) {
			t.Errorf("%s's rebuild button posts to %q", page, action)
		}
	}
	for _, r := range a.Rebuilders {
		subject := r.RebuildSubject()
		row := `[data-testid="admin-rebuild-` + subject + `"]`
		action := c.Get("/admin").Doc(t).Find(row+" form").AttrOr("action", "")
		res := c.PostForm(action, c.WithCSRF("/admin", nil))
		if action != "/admin/rebuild/"+subject || res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: the button posts to %q: %d", subject, action, res.StatusCode)
		}
		state := "running"
		for deadline := time.Now().Add(time.Minute); state == "running" && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			state = c.Get("/admin").Doc(t).Find(row).AttrOr("data-state", "")
		}
		if state != "done" {
			t.Errorf("%s: the rebuild ended %q", subject, state)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/storage"
)

func TestMigrateKeyText(t *testing.T) {
	t.Parallel()
	hashed := auth.AuthMemberKey(strings.Repeat("/", 255))
	for old, want := range map[string]string{
		"auth:tenant%2Fuser+1":               "auth:tenant~2Fuser+1",
		"auth:plain":                         "auth:plain",
		"u|auth:tenant%252Fuser":             "u|auth:tenant~2Fuser",
		"u|auth:plain":                       "u|auth:plain",
		"m:auth:a%252Fb":                     "m:auth:a~2Fb",
		"g:01AB|a:01CD":                      "g:01AB|a:01CD",
		"t|c%2B%2B%7Cx":                      "t|c++~7Cx",
		"2030-05-17|org%2Fvision":            "2030-05-17|org~2Fvision",
		"auth:" + strings.Repeat("%2F", 255): hashed,
		"auth:Анна":                          auth.AuthMemberKey("Анна"),
		"title|100%25 sure":                  "title|100~25 sure",
	} {
		got := migrateKeyText(old)
		if got != want {
			t.Errorf("migrateKeyText(%q) = %q, want %q", old, got, want)
		}
		if err := storage.ValidateKey(got); err != nil {
			t.Errorf("migrateKeyText(%q) = %q: %v", old, got, err)
		}
		if again := migrateKeyText(got); again != got {
			t.Errorf("a second migration of %q gives %q", got, again)
		}
	}
	if got := migrateValue("auth:a%2Fb/0123.jpg"); got != "auth:a~2Fb/0123.jpg" {
		t.Errorf("photo blob name → %q", got)
	}
}

// Rows written by the old scheme (keys holding '%', memberKeys escaped
// twice) move to their new keys; references in properties and photo blobs
// follow; a second run finds nothing.
func TestMigrateKeysRewritesOldRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, store, b := newTestAppOnBackend(t, nil)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	const oldMember = "auth:tenant%2Fann"
	newMember := auth.AuthMemberKey("tenant/ann")
	// The backend takes what the front now refuses.
	for _, w := range []struct {
		table string
		e     storage.Entity
	}{
		{"Sessions", storage.Entity{PartitionKey: oldMember, RowKey: "s1", Props: map[string]any{"MemberKey": oldMember}}},
		{"AppointmentParticipants", storage.Entity{PartitionKey: "g:G1|a:A1", RowKey: "m:auth:tenant%252Fann", Props: map[string]any{"memberKey": oldMember}}},
		{"PromptVotes", storage.Entity{PartitionKey: "p|P1", RowKey: "u|auth:tenant%252Fann", Props: map[string]any{"VoterId": oldMember}}},
		{"GroupMembers", storage.Entity{PartitionKey: "G1", RowKey: auth.UserKey("ann@example.com"), Props: map[string]any{"memberKey": oldMember}}},
		{"UserProfiles", storage.Entity{PartitionKey: oldMember, RowKey: "profile", Props: map[string]any{"photoKey": oldMember + "/0123.jpg"}}},
	} {
		if _, err := b.Upsert(ctx, w.table, w.e, storage.Replace); err != nil {
			t.Fatalf("%s: %v", w.table, err)
		}
	}
	if _, err := store.Container("profile-images").Put(ctx, oldMember+"/0123.jpg", []byte("jpeg"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}

	dry, err := migrateKeys(ctx, store, a.Tables, []string{"profile-images"}, true, log)
	if err != nil || dry.rows != 4 || dry.props != 1 || dry.blobs != 1 {
		t.Fatalf("dry run: %v, %v", dry, err)
	}
	if _, err := b.Get(ctx, "Sessions", oldMember, "s1"); err != nil {
		t.Fatal("the dry run wrote")
	}
	rep, err := migrateKeys(ctx, store, a.Tables, []string{"profile-images"}, false, log)
	if err != nil || rep.rows != 4 || rep.props != 1 || rep.blobs != 1 {
		t.Fatalf("migration: %v, %v", rep, err)
	}
	for _, want := range []struct{ table, pk, rk, prop, value string }{
		{"Sessions", newMember, "s1", "MemberKey", newMember},
		{"AppointmentParticipants", "g:G1|a:A1", "m:" + newMember, "memberKey", newMember},
		{"PromptVotes", "p|P1", "u|" + newMember, "VoterId", newMember},
		{"GroupMembers", "G1", auth.UserKey("ann@example.com"), "memberKey", newMember},
		{"UserProfiles", newMember, "profile", "photoKey", newMember + "/0123.jpg"},
	} {
		e, err := store.Table(want.table).Get(ctx, want.pk, want.rk)
		if err != nil {
			t.Errorf("%s (%q, %q): %v", want.table, want.pk, want.rk, err)
			continue
		}
		if e.Props[want.prop] != want.value {
			t.Errorf("%s.%s = %v, want %q", want.table, want.prop, e.Props[want.prop], want.value)
		}
	}
	for _, old := range []struct{ table, pk, rk string }{{"Sessions", oldMember, "s1"}, {"PromptVotes", "p|P1", "u|auth:tenant%252Fann"}} {
		if _, err := b.Get(ctx, old.table, old.pk, old.rk); err == nil {
			t.Errorf("old %s row left", old.table)
		}
	}
	if _, err := store.Container("profile-images").Get(ctx, newMember+"/0123.jpg"); err != nil {
		t.Errorf("photo blob not moved: %v", err)
	}
	again, err := migrateKeys(ctx, store, a.Tables, []string{"profile-images"}, false, log)
	if err != nil || again.rows+again.props+again.blobs != 0 {
		t.Fatalf("second run: %v, %v", again, err)
	}
}

func TestMigrateCommand(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"DATA_DIR": t.TempDir()})
	var out, errOut bytes.Buffer
	if code := run([]string{"migrate", "keys", "--dry-run"}, env, &out, &errOut); code != 0 || !strings.Contains(out.String(), "keys: scanned") {
		t.Fatalf("migrate keys --dry-run: exit %d, %q %q", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"migrate", "nothing"}, env, &out, &errOut); code != 2 {
		t.Fatalf("migrate nothing: exit %d", code)
	}
	if code := run([]string{"-h"}, env, &out, &errOut); code != 0 || !strings.Contains(out.String(), "migrate  keys [--dry-run]") {
		t.Fatalf("help does not list migrate: %q", out.String())
	}
}

// The subjects "web migrate" accepts beside "keys" are exactly the app's
// migrations (platform.Migrator); "web migrate comments" moves an
// appointment comment kept by its bare ULID to the comments kit's keys,
// and a second run finds nothing.
func TestMigrateComments(t *testing.T) {
	t.Parallel()
	a, _ := newTestAppOnStore(t, nil)
	var got []string
	for _, m := range a.Built.Migrators {
		got = append(got, m.MigrateSubject())
	}
	if !slices.Equal(got, migrateSubjects) {
		t.Fatalf("the app migrates %v, web migrate knows %v", got, migrateSubjects)
	}

	dir := t.TempDir()
	env := envOf(map[string]string{"DATA_DIR": dir})
	var out, errOut bytes.Buffer
	if code := run([]string{"migrate", "keys"}, env, &out, &errOut); code != 0 {
		t.Fatalf("migrate keys on an empty store: exit %d, %q", code, errOut.String())
	}
	_, store, _, err := openCommandStore(t.Context(), nil, env, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	old := storage.Entity{PartitionKey: "g:G1|a:A1", RowKey: "01JTCY1XK0AAAAAAAAAAAAAAAA", Props: map[string]any{
		"authorKey": "m:ann", "authorName": "Ann", "body": "I'll bring the cake", "createdAt": created, "isDeleted": false,
	}}
	if _, err := store.Table("AppointmentComments").Insert(t.Context(), old); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, want := range []string{"moved 1 ", "moved 0 "} {
		out.Reset()
		if code := run([]string{"migrate", "comments"}, env, &out, &errOut); code != 0 || !strings.Contains(out.String(), want) {
			t.Fatalf("migrate comments: exit %d, %q %q; want %q", code, out.String(), errOut.String(), want)
		}
	}
	_, store, _, err = openCommandStore(t.Context(), nil, env, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rows, err := storage.All[comments.Row](t.Context(), store.Table("AppointmentComments"), storage.Query{PartitionKey: "g:G1|a:A1"})
	if err != nil || len(rows) != 1 || rows[0].RowKey != comments.Key(created, old.RowKey) || rows[0].Body != "I'll bring the cake" {
		t.Fatalf("after the migration: %+v, %v", rows, err)
	}
}

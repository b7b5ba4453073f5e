package memberdata_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// counting counts a backend's writes and its queries that scan a table.
type counting struct {
	storage.Backend
	writes, scans atomic.Int64
}

func (c *counting) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	c.writes.Add(1)
	return c.Backend.Insert(ctx, table, e)
}

func (c *counting) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if q.Scan {
		c.scans.Add(1)
	}
	return c.Backend.Query(ctx, table, q)
}

// Footprints: Where answers with the scan until they are complete, then
// with one query of each partition the member wrote in (a key with
// the key delimiter and escape included), which finds what the scan
// finds; a member's second mark in a partition writes nothing; Forget
// takes theirs and no one else's; a failed mark says so.
func TestFootprintsLeadToAMembersRows(t *testing.T) {
	ctx := t.Context()
	c := &counting{}
	store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { c.Backend = b; return c }, memberdata.FootprintsTable, "Logs")
	logs := store.Table("Logs")
	now := func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) }
	f := memberdata.NewFootprints(store, "chat", now)
	other := memberdata.NewFootprints(store, "forum", now)
	write := func(member, part, rk string) {
		t.Helper()
		if err := f.Mark(ctx, member, part); err != nil {
			t.Fatal(err)
		}
		if _, err := logs.Insert(ctx, storage.Entity{PartitionKey: part, RowKey: rk, Props: map[string]any{"sender": member}}); err != nil {
			t.Fatal(err)
		}
	}
	// Rows from before the footprints: none recorded for them.
	if _, err := logs.Insert(ctx, storage.Entity{PartitionKey: "room-old", RowKey: "m1", Props: map[string]any{"sender": "auth:ann"}}); err != nil {
		t.Fatal(err)
	}
	scan := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "sender", Op: storage.Eq, Value: "auth:ann"}}}
	rowsOf := func() []string {
		t.Helper()
		var keys []string
		err := f.QueryAll(ctx, logs, "auth:ann", scan, func(e storage.Entity) error {
			keys = append(keys, e.PartitionKey+"/"+e.RowKey)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(keys)
		return keys
	}

	write("auth:ann", "room-general", "m1")
	before := c.writes.Load()
	write("auth:ann", "room-general", "m2")
	if n := c.writes.Load() - before; n != 1 {
		t.Errorf("a second message in the same chat wrote %d rows, want 1 (no footprint)", n)
	}
	write("auth:ann", "group|a~b", "m1")
	write("auth:bob", "room-general", "m3")
	if err := other.Mark(ctx, "auth:ann", "topic-1"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"", memberdata.Forgotten} {
		before := c.writes.Load()
		if err := f.Mark(ctx, k, "room-general"); err != nil || c.writes.Load() != before {
			t.Errorf("a mark for %q: %v, %d writes", k, err, c.writes.Load()-before)
		}
	}

	// Not complete: the scan itself, which finds the old row too.
	if qs, err := f.Where(ctx, "auth:ann", scan); err != nil || len(qs) != 1 || !qs[0].Scan {
		t.Fatalf("before they are complete: %+v, %v", qs, err)
	}
	want := []string{"group|a~b/m1", "room-general/m1", "room-general/m2", "room-old/m1"}
	if got := rowsOf(); !slices.Equal(got, want) {
		t.Errorf("by the scan: %v, want %v", got, want)
	}

	// The rebuild records the old row's footprint and completes them.
	r := f.Recorder()
	err := logs.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"sender"}}, func(e storage.Entity) error {
		s, _ := e.Props["sender"].(string)
		r.Add(s, e.PartitionKey)
		return nil
	})
	if err == nil {
		err = r.Done(ctx)
	}
	if err != nil || r.Found != 4 || r.Added != 1 {
		t.Fatalf("the rebuild: %v, %v", r, err)
	}
	scans := c.scans.Load()
	if got := rowsOf(); !slices.Equal(got, want) {
		t.Errorf("by the footprints: %v, want %v", got, want)
	}
	if c.scans.Load() != scans {
		t.Error("a complete set of footprints still scanned")
	}
	if parts, done, err := f.Partitions(ctx, "auth:ann"); err != nil || !done || len(parts) != 3 {
		t.Errorf("ann's chats: %v, %v, %v", parts, done, err)
	}
	// Another instance learns they are complete from the store.
	if done, err := memberdata.NewFootprints(store, "chat", now).Complete(ctx); err != nil || !done {
		t.Errorf("complete on another instance: %v, %v", done, err)
	}
	if done, err := other.Complete(ctx); err != nil || done {
		t.Errorf("the forum's are complete too: %v, %v", done, err)
	}

	if err := f.Forget(ctx, "auth:ann"); err != nil {
		t.Fatal(err)
	}
	if parts, _, _ := f.Partitions(ctx, "auth:ann"); len(parts) != 0 {
		t.Errorf("ann's footprints after Forget: %v", parts)
	}
	if parts, _, _ := f.Partitions(ctx, "auth:bob"); !slices.Equal(parts, []string{"room-general"}) {
		t.Errorf("bob's footprints after ann's Forget: %v", parts)
	}
	if n, _ := storage.All[memberdata.FootprintRow](ctx, store.Table(memberdata.FootprintsTable), storage.Query{PartitionKey: "auth:ann"}); len(n) != 1 {
		t.Errorf("ann's forum footprint went with her chat ones: %v", n)
	}
	// Forgotten, then writing again (a test's member): marked again.
	write("auth:ann", "room-general", "m4")
	if parts, _, _ := f.Partitions(ctx, "auth:ann"); !slices.Equal(parts, []string{"room-general"}) {
		t.Errorf("a mark after Forget: %v", parts)
	}
}

// A mark the store refuses is an error, and is tried again next time.
func TestAFailedFootprintIsAnError(t *testing.T) {
	ctx := t.Context()
	fail := &atomic.Bool{}
	store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return refusing{b, fail} }, memberdata.FootprintsTable)
	f := memberdata.NewFootprints(store, "chat", time.Now)
	fail.Store(true)
	if err := f.Mark(ctx, "auth:ann", "room-general"); !errors.Is(err, errRefused) {
		t.Fatalf("a refused mark: %v", err)
	}
	fail.Store(false)
	if err := f.Mark(ctx, "auth:ann", "room-general"); err != nil {
		t.Fatal(err)
	}
	if n, _ := storage.All[memberdata.FootprintRow](ctx, store.Table(memberdata.FootprintsTable), storage.Query{PartitionKey: "auth:ann"}); len(n) != 1 {
		t.Errorf("footprints after the retry: %v", n)
	}
}

var errRefused = errors.New("refused")

type refusing struct {
	storage.Backend
	fail *atomic.Bool
}

func (r refusing) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if r.fail.Load() {
		return "", errRefused
	}
	return r.Backend.Insert(ctx, table, e)
}

// A start on a store with none of the module's rows marks its
// footprints complete at once; on a store with rows of before it reads
// nothing, and the job reads them, once: its next runs read nothing.
func TestAStartAndTheJob(t *testing.T) {
	ctx := t.Context()
	c := &counting{}
	store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { c.Backend = b; return c }, memberdata.FootprintsTable, "Logs", "Empty")
	logs := store.Table("Logs")
	empty := func(t *storage.Table) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) { return memberdata.Empty(ctx, t, storage.Query{Scan: true}) }
	}
	read := func(ctx context.Context, add func(string, string)) error {
		return logs.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
			s, _ := e.Props["sender"].(string)
			add(s, e.PartitionKey)
			return nil
		})
	}
	fresh := memberdata.NewFootprints(store, "fresh", time.Now)
	if err := fresh.Start(ctx, empty(store.Table("Empty"))); err != nil {
		t.Fatal(err)
	}
	if done, err := fresh.Complete(ctx); err != nil || !done {
		t.Errorf("a new store's footprints: complete %v, %v", done, err)
	}

	if _, err := logs.Insert(ctx, storage.Entity{PartitionKey: "room-old", RowKey: "m1", Props: map[string]any{"sender": "auth:ann"}}); err != nil {
		t.Fatal(err)
	}
	old := memberdata.NewFootprints(store, "chat", time.Now)
	scans := c.scans.Load()
	if err := old.Start(ctx, empty(logs)); err != nil {
		t.Fatal(err)
	}
	if done, _ := old.Complete(ctx); done || c.scans.Load()-scans != 1 {
		t.Errorf("a start on a store of before: complete %v, %d scans (its look for a row)", done, c.scans.Load()-scans)
	}
	job := old.Job("chat-footprints", read, slog.New(slog.DiscardHandler))
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if parts, done, err := old.Partitions(ctx, "auth:ann"); err != nil || !done || !slices.Equal(parts, []string{"room-old"}) {
		t.Errorf("after the job: %v, %v, %v", parts, done, err)
	}
	scans = c.scans.Load()
	if err := job.Run(ctx); err != nil || c.scans.Load() != scans {
		t.Errorf("the job again: %v, %d scans", err, c.scans.Load()-scans)
	}
}

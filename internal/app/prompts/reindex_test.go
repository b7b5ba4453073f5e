package prompts

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// crashAfterCanonical is a backend that fails every write to the index
// tables while armed: the process "dies" right after the canonical write.
type crashAfterCanonical struct {
	storage.Backend
	armed atomic.Bool
}

var errCrash = errors.New("injected failure after the canonical write")

func (c *crashAfterCanonical) fails(table string) bool {
	return c.armed.Load() && table != promptsTable && table != votesTable && table != tagCatalogTable
}

func (c *crashAfterCanonical) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if c.fails(table) {
		return "", errCrash
	}
	return c.Backend.Upsert(ctx, table, e, mode)
}

func (c *crashAfterCanonical) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if c.fails(table) {
		return errCrash
	}
	return c.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

func ids(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.PromptID+" "+it.Title)
	}
	return out
}

// TestReindexRepairsInjectedFailure breaks the index writes right after
// the canonical write of a create, an edit, a delete and a vote, shows the
// public catalog is then wrong, runs the rebuild, and checks the catalog
// is right again and a second rebuild finds nothing.
func TestReindexRepairsInjectedFailure(t *testing.T) {
	t.Parallel()
	var crash *crashAfterCanonical
	f := newFixtureOn(t, embedded.Options{NoSync: true}, func(b storage.Backend) storage.Backend {
		crash = &crashAfterCanonical{Backend: b}
		return crash
	})
	kept := f.mustCreate(t, alice, input("Kept as it is", "writing"))
	edited := f.mustCreate(t, alice, input("Old title", "writing"))
	deleted := f.mustCreate(t, alice, input("Deleted one", "fun"))
	voted := f.mustCreate(t, alice, input("Voted one", "fun"))
	before := ids(f.pageAll(t, Listing{}))

	crash.armed.Store(true)
	f.clock.Advance(CreateInterval)
	if _, err := f.svc.Create(ctx, alice, input("Created in the crash", "writing")); !errors.Is(err, errCrash) {
		t.Fatalf("create: %v, want the injected failure", err)
	}
	if _, err := f.svc.Update(ctx, alice, edited.PromptID, edited.Revision, input("New title", "data")); !errors.Is(err, errCrash) {
		t.Fatalf("edit: %v", err)
	}
	if err := f.svc.Delete(ctx, alice, deleted.PromptID); !errors.Is(err, errCrash) {
		t.Fatalf("delete: %v", err)
	}
	if _, err := f.svc.Vote(ctx, bob, voted.PromptID, Like); !errors.Is(err, errCrash) {
		t.Fatalf("vote: %v", err)
	}
	crash.armed.Store(false)

	// The catalog is now wrong: it still shows the old state.
	if got := ids(f.pageAll(t, Listing{})); !slices.Equal(got, before) {
		t.Fatalf("the injected failure changed the catalog: %v", got)
	}

	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsWritten == 0 || rep.RowsDeleted == 0 {
		t.Errorf("report %s: expected writes and deletes", rep)
	}
	t.Log(rep)

	newest := f.pageAll(t, Listing{})
	var titles []string
	for _, it := range newest {
		titles = append(titles, it.Title)
	}
	want := []string{"Created in the crash", "Voted one", "New title", "Kept as it is"}
	if !slices.Equal(titles, want) {
		t.Errorf("newest after rebuild = %v, want %v", titles, want)
	}
	if got := f.pageAll(t, Listing{Tags: []string{"fun"}}); len(got) != 1 || got[0].PromptID != voted.PromptID || got[0].Likes != 1 {
		t.Errorf("tag fun after rebuild = %+v", got)
	}
	if got := f.pageAll(t, Listing{Tags: []string{"data"}}); len(got) != 1 || got[0].PromptID != edited.PromptID {
		t.Errorf("tag data after rebuild = %+v", got)
	}
	if got := f.pageAll(t, Listing{Q: "old"}); len(got) != 0 {
		t.Errorf("old title still found: %+v", got)
	}
	if got := f.pageAll(t, Listing{Sort: SortLiked}); len(got) != 4 || got[0].PromptID != voted.PromptID {
		t.Errorf("most liked after rebuild = %v", ids(got))
	}
	tags, _ := f.svc.AllTags(ctx)
	for _, tg := range tags {
		want := map[string]int64{"writing": 2, "fun": 1, "data": 1}[tg.Tag]
		if tg.PromptCount != want {
			t.Errorf("tag %s count %d, want %d", tg.Tag, tg.PromptCount, want)
		}
	}
	_ = kept

	again, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.Fixed() != 0 || again.Prompts != 5 {
		t.Errorf("second rebuild: %s", again)
	}
}

// TestReindexRecountsVotes: a vote row whose count never reached the
// prompt (the process died between the two writes) is counted.
func TestReindexRecountsVotes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Half voted"))
	if _, err := f.svc.setVote(ctx, bob, p.PromptID, Like); err != nil {
		t.Fatal(err)
	}
	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if rep.VotesRecounted != 1 || got.Likes != 1 {
		t.Errorf("report %s, likes %d", rep, got.Likes)
	}
	f.indexCounts(t, got, 1, 0)
}

func TestReindexOfHealthyCatalogFixesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for i, title := range []string{"One", "Two", "Три"} {
		p := f.mustCreate(t, alice, input(title, "writing"))
		if i == 1 {
			if _, err := f.svc.Vote(ctx, bob, p.PromptID, Dislike); err != nil {
				t.Fatal(err)
			}
		}
	}
	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fixed() != 0 || rep.Prompts != 3 {
		t.Errorf("healthy catalog: %s", rep)
	}
}

// scanHook runs once, the first time the rebuild reads table in full:
// a request's change landing while the rebuild holds an old copy.
type scanHook struct {
	storage.Backend
	table string
	once  sync.Once
	run   func()
}

func (h *scanHook) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if table == h.table && q.Scan && h.run != nil {
		h.once.Do(h.run)
	}
	return h.Backend.Query(ctx, table, q)
}

// TestReindexDoesNotRelistAPromptChangedMeanwhile: a prompt made private,
// and one renamed, after the rebuild read them and before it wrote their
// index rows, are not listed again from the old copies: not in the
// newest list, its tags or the title search, and the old title is free
// for its author again.
func TestReindexDoesNotRelistAPromptChangedMeanwhile(t *testing.T) {
	t.Parallel()
	var hook *scanHook
	f := newFixtureOn(t, embedded.Options{NoSync: true}, func(b storage.Backend) storage.Backend {
		hook = &scanHook{Backend: b, table: newestIndexTable}
		return hook
	})
	hidden := f.mustCreate(t, alice, input("Soon private", "fun"))
	renamed := f.mustCreate(t, alice, input("Old name", "writing"))
	// The index rows are lost (a failure after the canonical writes), so
	// the rebuild will write them from what it read.
	for _, tb := range []string{newestIndexTable, tagIndexTable, titleSearchTable, likedIndexTable} {
		rows, _ := storage.All[storage.Entity](ctx, f.svc.store.Table(tb), storage.Query{Scan: true})
		for _, e := range rows {
			f.svc.store.Table(tb).Delete(ctx, e.PartitionKey, e.RowKey, storage.AnyETag)
		}
	}
	hook.run = func() {
		private := input("Soon private", "fun")
		private.Visibility = Private
		if _, err := f.svc.Update(ctx, alice, hidden.PromptID, hidden.Revision, private); err != nil {
			t.Errorf("make private: %v", err)
		}
		if _, err := f.svc.Update(ctx, alice, renamed.PromptID, renamed.Revision, input("New name", "writing")); err != nil {
			t.Errorf("rename: %v", err)
		}
	}
	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 2 {
		t.Errorf("report %s: want 2 changed meanwhile", rep)
	}
	if got := ids(f.pageAll(t, Listing{})); !slices.Equal(got, []string{renamed.PromptID + " New name"}) {
		t.Errorf("newest after the rebuild: %v", got)
	}
	for _, l := range []Listing{{Tags: []string{"fun"}}, {Q: "private"}, {Q: "old"}} {
		if got := f.pageAll(t, l); len(got) != 0 {
			t.Errorf("%+v lists %v", l, ids(got))
		}
	}
	tags, _ := f.svc.AllTags(ctx)
	for _, tg := range tags {
		if want := map[string]int64{"writing": 1}[tg.Tag]; tg.PromptCount != want {
			t.Errorf("tag %s counts %d, want %d", tg.Tag, tg.PromptCount, want)
		}
	}
	f.clock.Advance(CreateInterval)
	if _, err := f.svc.Create(ctx, alice, input("Old name")); err != nil {
		t.Errorf("the old title is not free again: %v", err)
	}
	if again, err := f.svc.Reindex(ctx); err != nil || again.Fixed() != 0 {
		t.Errorf("a second rebuild: %s, %v", again, err)
	}
}

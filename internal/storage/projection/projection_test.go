package projection_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/storage/storetest"
)

var ctx = context.Background()

// A toy canonical row: a book, listed under each of its tags, and not at
// all while it is a draft.
type book struct {
	PK      string `table:"PartitionKey"`
	RK      string `table:"RowKey"`
	ETag    string `table:"ETag"`
	Title   string `table:"title"`
	Tags    string `table:"tags"`
	Draft   bool   `table:"draft"`
	Updated string `table:"updated"`
	Indexed string `table:"indexed"` // the record of a Recorded projection
}

type tagRow struct {
	PK    string `table:"PartitionKey"` // tag
	RK    string `table:"RowKey"`       // book id
	Title string `table:"title"`
}

type shelf struct {
	books, byTag *storage.Table
	p            *projection.Projection[book]
}

func newShelf(t *testing.T) shelf {
	return newShelfIn(storetest.Open(t, "Books", "BooksByTag"))
}

func newShelfIn(store *storage.Store) shelf {
	s := shelf{books: store.Table("Books"), byTag: store.Table("BooksByTag")}
	s.p = &projection.Projection[book]{
		Canonical:  s.books,
		Derived:    []*storage.Table{s.byTag},
		Recorded:   "indexed",
		Derivative: func(e storage.Entity) bool { return e.PartitionKey != "meta" },
		Rows: func(b book) ([]projection.Row, error) {
			if b.Draft {
				return nil, nil
			}
			var rows []projection.Row
			for _, tag := range strings.Fields(b.Tags) {
				r, err := projection.RowOf(s.byTag, tagRow{PK: tag, RK: b.RK, Title: b.Title})
				if err != nil {
					return nil, err
				}
				rows = append(rows, r)
			}
			return rows, nil
		},
	}
	return s
}

// write saves b, then its derived rows, as a module's command does.
func (s shelf) write(t *testing.T, before *book, b book) {
	t.Helper()
	if _, err := storage.Upsert(ctx, s.books, b); err != nil {
		t.Fatal(err)
	}
	if err := s.p.Sync(ctx, before, &b); err != nil {
		t.Fatal(err)
	}
}

// listed is tag → titles, from the derived table.
func (s shelf) listed(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	rows, err := storage.All[tagRow](ctx, s.byTag, storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.PK != "meta" {
			out[r.PK] = append(out[r.PK], r.Title)
		}
	}
	return out
}

func TestSyncFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	b := book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi classic"}
	s.write(t, nil, b)
	if got := s.listed(t); len(got["scifi"]) != 1 || len(got["classic"]) != 1 {
		t.Fatalf("after insert: %v", got)
	}
	// A new title and one tag fewer: the old tag's row goes.
	after := b
	after.Title, after.Tags = "Dune Messiah", "scifi"
	s.write(t, &b, after)
	if got := s.listed(t); len(got) != 1 || got["scifi"][0] != "Dune Messiah" {
		t.Fatalf("after edit: %v", got)
	}
	// Back to draft: nothing listed.
	draft := after
	draft.Draft = true
	s.write(t, &after, draft)
	if got := s.listed(t); len(got) != 0 {
		t.Fatalf("a draft is listed: %v", got)
	}
}

// Change writes the canonical row under its ETag and then moves its
// derived rows; a change that declines writes nothing, a missing row is
// the caller's error, and derived rows that fail leave the canonical row
// written with ErrBehind.
func TestChangeWritesTheRowThenItsDerivedRows(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	errNoBook := errors.New("no such book")
	b := book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi classic"}
	s.write(t, nil, b)
	counted, counter := storage.WithCounter(ctx)
	got, err := s.p.Change(counted, "b", "1", errNoBook, func(b *book) error {
		b.Title, b.Tags = "Dune Messiah", "scifi"
		return nil
	})
	if err != nil || got.Title != "Dune Messiah" || got.ETag == "" {
		t.Fatalf("change: %+v, %v", got, err)
	}
	if l := s.listed(t); len(l) != 1 || l["scifi"][0] != "Dune Messiah" {
		t.Fatalf("after the change: %v", l)
	}
	// One read (the change's own), the row, one derived row written and
	// one deleted, and the record: the follow starts from the version
	// the change wrote.
	if c := counter.Snapshot(); c.Reads != 1 || c.Writes != 4 || c.Total() != 5 {
		t.Errorf("a change cost %s", c)
	}
	// The row comes back as it stands, record and ETag included: a
	// write at its ETag goes through.
	if got.Indexed == "" {
		t.Errorf("the returned row has no record: %+v", got)
	}
	if got.ETag, err = storage.Update(ctx, s.books, got, got.ETag); err != nil {
		t.Fatalf("a write at the returned ETag: %v", err)
	}
	// A change that declines writes nothing: the ETag stays.
	same, err := s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
		b.Title = "never written"
		return storage.ErrNoChange
	})
	if err != nil || same.ETag != got.ETag {
		t.Fatalf("declined change: %+v, %v", same, err)
	}
	if stored, _ := storage.Get[book](ctx, s.books, "b", "1"); stored.Title != "Dune Messiah" {
		t.Fatalf("declined change wrote %q", stored.Title)
	}
	if _, err := s.p.Change(ctx, "b", "2", errNoBook, func(*book) error { return nil }); !errors.Is(err, errNoBook) {
		t.Fatalf("missing row: %v", err)
	}
	// A derived row Azure would refuse: the book is written, its listing
	// is behind, and Repair has what it needs.
	got, err = s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
		b.Tags = "bad%key"
		return nil
	})
	if !errors.Is(err, projection.ErrBehind) || !errors.Is(err, storage.ErrInvalidKey) || got.Tags != "bad%key" {
		t.Fatalf("derived rows failing: %+v, %v", got, err)
	}
	if stored, _ := storage.Get[book](ctx, s.books, "b", "1"); stored.Tags != "bad%key" {
		t.Fatalf("the canonical row was not kept: %+v", stored)
	}
}

// A write that stopped between the canonical row and its derived rows is
// repaired from the canonical row.
func TestRepairFinishesAHalfFinishedWrite(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	b := book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi"}
	s.write(t, nil, b)
	// The process dies after the canonical write.
	b.Title = "Dune (2nd ed.)"
	if _, err := storage.Upsert(ctx, s.books, b); err != nil {
		t.Fatal(err)
	}
	if got := s.listed(t); got["scifi"][0] != "Dune" {
		t.Fatalf("the injected crash did not leave the index stale: %v", got)
	}
	if err := s.p.Repair(ctx, "b", "1"); err != nil {
		t.Fatal(err)
	}
	if got := s.listed(t); got["scifi"][0] != "Dune (2nd ed.)" {
		t.Fatalf("after repair: %v", got)
	}
	if err := s.p.Repair(ctx, "b", "missing"); err != nil {
		t.Errorf("repairing a missing row: %v", err)
	}
}

// failing refuses every write of a derived row whose PartitionKey is
// "doomed", and every delete of one whose PartitionKey is "fragile", as
// a store that stopped answering would.
type failing struct{ storage.Backend }

func (f failing) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if e.PartitionKey == "doomed" {
		return "", storage.ErrTransient
	}
	return f.Backend.Upsert(ctx, table, e, mode)
}

func (f failing) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if pk == "fragile" {
		return storage.ErrTransient
	}
	return f.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

// A change whose rows fail half way (a good row written, the next one
// refused by the store) leaves the canonical row with its intent, which
// names the good row: the next change removes it. So does a change whose
// rows were refused before any was written (a bad key).
func TestAChangeThatFailedHalfWayLeavesNoRowBehind(t *testing.T) {
	t.Parallel()
	s := newShelfIn(storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return failing{b} }, "Books", "BooksByTag"))
	errNoBook := errors.New("no such book")
	s.write(t, nil, book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi"})
	for _, tags := range []string{"fantasy doomed", "bad%key"} {
		_, err := s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
			b.Tags = tags
			return nil
		})
		if !errors.Is(err, projection.ErrBehind) {
			t.Fatalf("tags %q: %v", tags, err)
		}
	}
	if got := s.listed(t); len(got["fantasy"]) != 1 {
		t.Fatalf("the good row was not written before the refused one: %v", got)
	}
	if _, err := s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
		b.Tags = "classic"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := s.listed(t); len(got) != 1 || len(got["classic"]) != 1 {
		t.Fatalf("after the next change: %v", got)
	}
	// A module's own write, without Intend: its follow records the
	// intent before it writes a row.
	prev, err := storage.Get[book](ctx, s.books, "b", "1")
	if err != nil {
		t.Fatal(err)
	}
	next := prev
	next.Tags = "romance doomed"
	if _, err := storage.Update(ctx, s.books, next, next.ETag); err != nil {
		t.Fatal(err)
	}
	if err := s.p.Sync(ctx, &prev, &next); !errors.Is(err, storage.ErrTransient) {
		t.Fatalf("sync: %v", err)
	}
	if _, err := s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
		b.Tags = "poetry"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := s.listed(t); len(got) != 1 || len(got["poetry"]) != 1 {
		t.Fatalf("after a failed sync and the next change: %v", got)
	}
	if rep, err := s.p.Rebuild(ctx); err != nil || rep != (projection.Report{Canonical: 1}) {
		t.Errorf("a rebuild found work: %+v, %v", rep, err)
	}
}

// A change that moves its rows carries its intent in its own write: it
// costs the read, the row, the new derived row, the old one's delete and
// the record, and no write of the intent alone. A module's write made
// without Intend costs the follow that one write more.
func TestChangeCarriesItsIntent(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t, "Books", "BooksByUpdate")
	books, list := store.Table("Books"), store.Table("BooksByUpdate")
	p := byUpdate(books, list)
	if _, err := storage.Insert(ctx, books, book{PK: "b", RK: "1", Title: "Dune", Updated: "0001"}); err != nil {
		t.Fatal(err)
	}
	if err := p.Follow(ctx, "b", "1"); err != nil {
		t.Fatal(err)
	}
	counted, counter := storage.WithCounter(ctx)
	if _, err := p.Change(counted, "b", "1", storage.ErrNotFound, func(b *book) error { b.Updated = "0002"; return nil }); err != nil {
		t.Fatal(err)
	}
	if c := counter.Snapshot(); c.Reads != 1 || c.Writes != 4 || c.Total() != 5 {
		t.Errorf("a change that moves its row cost %s", c)
	}
	b, err := storage.Get[book](ctx, books, "b", "1")
	if err != nil {
		t.Fatal(err)
	}
	b.Updated = "0003"
	if _, err := storage.Update(ctx, books, b, b.ETag); err != nil {
		t.Fatal(err)
	}
	counted, counter = storage.WithCounter(ctx)
	if err := p.Follow(counted, "b", "1"); err != nil {
		t.Fatal(err)
	}
	if c := counter.Snapshot(); c.Reads != 1 || c.Writes != 4 {
		t.Errorf("following a write made without its intent cost %s", c)
	}
	rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true})
	if err != nil || len(rows) != 1 || rows[0].RK != "0003|1" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
}

// Sync of a deleted row removes the rows its last version recorded.
func TestSyncOfADeletedRowRemovesItsRows(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	s.write(t, nil, book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi classic"})
	s.write(t, nil, book{PK: "b", RK: "2", Title: "Emma", Tags: "classic"})
	last, err := storage.Get[book](ctx, s.books, "b", "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.books.Delete(ctx, "b", "1", last.ETag); err != nil {
		t.Fatal(err)
	}
	if err := s.p.Sync(ctx, &last, nil); err != nil {
		t.Fatal(err)
	}
	if got := s.listed(t); len(got) != 1 || len(got["classic"]) != 1 || got["classic"][0] != "Emma" {
		t.Fatalf("after the delete: %v", got)
	}
}

// Delete removes the canonical row at its ETag, then its derived rows;
// a row changed since stays with its rows, a row gone already is
// deleted, and derived rows that fail leave the canonical row deleted
// with ErrBehind.
func TestDeleteRemovesTheRowThenItsDerivedRows(t *testing.T) {
	t.Parallel()
	s := newShelfIn(storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return failing{b} }, "Books", "BooksByTag"))
	s.write(t, nil, book{PK: "b", RK: "1", Title: "Dune", Tags: "scifi classic"})
	s.write(t, nil, book{PK: "b", RK: "2", Title: "Emma", Tags: "classic"})
	s.write(t, nil, book{PK: "b", RK: "3", Title: "Solaris", Tags: "fragile"})
	dune, err := storage.Get[book](ctx, s.books, "b", "1")
	if err != nil {
		t.Fatal(err)
	}
	stale := dune
	stale.ETag = "W/\"stale\""
	if err := s.p.Delete(ctx, stale); !errors.Is(err, storage.ErrPrecondition) {
		t.Fatalf("a delete at a stale ETag: %v", err)
	}
	if got := s.listed(t); len(got["scifi"]) != 1 {
		t.Fatalf("a refused delete removed derived rows: %v", got)
	}
	if err := s.p.Delete(ctx, dune); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Get[book](ctx, s.books, "b", "1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the canonical row stays: %v", err)
	}
	if got := s.listed(t); len(got) != 2 || len(got["classic"]) != 1 || got["classic"][0] != "Emma" {
		t.Fatalf("after the delete: %v", got)
	}
	if err := s.p.Delete(ctx, dune); err != nil {
		t.Errorf("deleting a deleted row again: %v", err)
	}
	solaris, err := storage.Get[book](ctx, s.books, "b", "3")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.p.Delete(ctx, solaris); !errors.Is(err, projection.ErrBehind) {
		t.Fatalf("derived rows that failed: %v", err)
	}
	if _, err := storage.Get[book](ctx, s.books, "b", "3"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the canonical row of a delete behind stays: %v", err)
	}
}

// Rebuild writes missing and stale rows, deletes orphans, keeps rows that
// are not derived rows, and a second run has nothing to do.
func TestRebuildFromTheCanonicalRows(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	for _, b := range []book{
		{PK: "b", RK: "1", Title: "Dune", Tags: "scifi"},
		{PK: "b", RK: "2", Title: "Emma", Tags: "classic romance"},
		{PK: "b", RK: "3", Title: "Notes", Tags: "misc", Draft: true},
	} {
		s.write(t, nil, b)
	}
	// Damage: a lost row, a stale row, an orphan, and a meta row to keep.
	if err := s.byTag.Delete(ctx, "romance", "2", storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := s.byTag.Upsert(ctx, storage.Entity{PartitionKey: "scifi", RowKey: "1", Props: map[string]any{"title": "Old"}}, storage.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := s.byTag.Insert(ctx, storage.Entity{PartitionKey: "scifi", RowKey: "9", Props: map[string]any{"title": "Ghost"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.byTag.Insert(ctx, storage.Entity{PartitionKey: "meta", RowKey: "top", Props: map[string]any{"n": int64(3)}}); err != nil {
		t.Fatal(err)
	}
	rep, err := s.p.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep != (projection.Report{Canonical: 3, Written: 2, Removed: 1}) {
		t.Errorf("report %+v", rep)
	}
	got := s.listed(t)
	if len(got["scifi"]) != 1 || got["scifi"][0] != "Dune" || len(got["romance"]) != 1 || len(got["misc"]) != 0 {
		t.Errorf("after rebuild: %v", got)
	}
	if _, err := s.byTag.Get(ctx, "meta", "top"); err != nil {
		t.Errorf("the meta row was swept: %v", err)
	}
	if rep, _ := s.p.Rebuild(ctx); rep != (projection.Report{Canonical: 3}) {
		t.Errorf("second run %+v", rep)
	}
}

// Apply leaves equal rows alone and reports a failing write.
func TestApplyWritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	s := newShelf(t)
	r, _ := projection.RowOf(s.byTag, tagRow{PK: "scifi", RK: "1", Title: "Dune"})
	counted, counter := storage.WithCounter(ctx)
	if err := projection.Apply(counted, []projection.Row{r}, []projection.Row{r}, nil); err != nil {
		t.Fatal(err)
	}
	if n := counter.Snapshot().Total(); n != 0 {
		t.Errorf("an unchanged row cost %d calls", n)
	}
	bad, _ := projection.RowOf(s.byTag, tagRow{PK: "bad%key", RK: "1"})
	if err := projection.Apply(ctx, nil, []projection.Row{bad}, nil); !errors.Is(err, storage.ErrInvalidKey) {
		t.Errorf("a bad key: %v", err)
	}
}

// byUpdate lists every book under its last update, so each write moves
// its row: the shape of an activity index.
func byUpdate(books, list *storage.Table) *projection.Projection[book] {
	return &projection.Projection[book]{
		Canonical: books,
		Derived:   []*storage.Table{list},
		Recorded:  "indexed",
		Rows: func(b book) ([]projection.Row, error) {
			r, err := projection.RowOf(list, tagRow{PK: "all", RK: b.Updated + "|" + b.RK, Title: b.Title})
			return []projection.Row{r}, err
		},
	}
}

// Many writers of one row at once, each following it: the list ends
// with exactly one row, the row's last state, on both backends. Moving
// rows from each writer's before to its after leaves older rows standing
// here; the recorded state does not.
func TestRecordedFollowHoldsUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	for name, open := range storetest.Backends(t, "Books", "BooksByUpdate") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := open(t)
			books, list := store.Table("Books"), store.Table("BooksByUpdate")
			p := byUpdate(books, list)
			if _, err := storage.Insert(ctx, books, book{PK: "b", RK: "1", Title: "v0", Updated: "0000"}); err != nil {
				t.Fatal(err)
			}
			if err := p.Follow(ctx, "b", "1"); err != nil {
				t.Fatal(err)
			}
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				next int
			)
			for w := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 8 {
						_, err := p.Change(ctx, "b", "1", storage.ErrNotFound, func(b *book) error {
							mu.Lock()
							next++
							b.Updated, b.Title = fmt.Sprintf("%04d", next), fmt.Sprintf("v%d by %d", next, w)
							mu.Unlock()
							return nil
						})
						// On a loaded machine a writer can lose every one of
						// its attempts at the row itself: that write did not
						// happen, which is no concern of the follow's.
						if errors.Is(err, storage.ErrConflict) && !errors.Is(err, projection.ErrBehind) {
							continue
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			final, err := storage.Get[book](ctx, books, "b", "1")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].RK != final.Updated+"|1" || rows[0].Title != final.Title {
				t.Fatalf("listed %+v; the book is at %s %q", rows, final.Updated, final.Title)
			}
			if rep, err := p.Rebuild(ctx); err != nil || rep != (projection.Report{Canonical: 1}) {
				t.Fatalf("a rebuild found work after the writers: %+v, %v", rep, err)
			}
		})
	}
}

// A recorded projection repairs a write that stopped anywhere: after the
// canonical row (the record is old, so the next Follow moves the rows),
// and after the derived rows but before the record (the rows it wrote
// are found from the record next time). Rebuild puts a lost row and a
// missing record right, and then has nothing to do.
func TestRecordedFollowRepairsAHalfFinishedWrite(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t, "Books", "BooksByUpdate")
	books, list := store.Table("Books"), store.Table("BooksByUpdate")
	p := byUpdate(books, list)
	listed := func() []string {
		t.Helper()
		rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.RK+" "+r.Title)
		}
		return out
	}
	if _, err := storage.Insert(ctx, books, book{PK: "b", RK: "1", Title: "Dune", Updated: "0001"}); err != nil {
		t.Fatal(err)
	}
	counted, counter := storage.WithCounter(ctx)
	if err := p.Follow(counted, "b", "1"); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 1 || got[0] != "0001|1 Dune" {
		t.Fatalf("after the first follow: %v", got)
	}
	// Following a row already followed reads it and writes nothing.
	before := counter.Snapshot().Total()
	if err := p.Follow(counted, "b", "1"); err != nil {
		t.Fatal(err)
	}
	if n := counter.Snapshot().Total() - before; n != 1 {
		t.Errorf("following a followed row cost %d calls, want 1 read", n)
	}
	// The process dies after the canonical write.
	b, _ := storage.Get[book](ctx, books, "b", "1")
	b.Updated, b.Title = "0002", "Dune Messiah"
	if _, err := storage.Update(ctx, books, b, b.ETag); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 1 || got[0] != "0001|1 Dune" {
		t.Fatalf("the injected crash did not leave the list stale: %v", got)
	}
	if err := p.Repair(ctx, "b", "1"); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 1 || got[0] != "0002|1 Dune Messiah" {
		t.Fatalf("after the repair: %v", got)
	}
	// The process dies after writing the derived rows of a change, before
	// the record: the change wrote its intent, so the next follow removes
	// the row written for it.
	b, _ = storage.Get[book](ctx, books, "b", "1")
	b.Updated = "0003"
	if err := p.Intend(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Update(ctx, books, b, b.ETag); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Upsert(ctx, list, tagRow{PK: "all", RK: "0003|1", Title: b.Title}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Change(ctx, "b", "1", storage.ErrNotFound, func(x *book) error { x.Updated = "0004"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 1 || got[0] != "0004|1 Dune Messiah" {
		t.Fatalf("after the next change: %v", got)
	}
	// Damage: a lost row, a lost record, and an orphan (a row another
	// tool wrote).
	if err := list.Delete(ctx, "all", "0004|1", storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Upsert(ctx, list, tagRow{PK: "all", RK: "0009|1", Title: "Ghost"}); err != nil {
		t.Fatal(err)
	}
	if _, err := books.Update(ctx, storage.Entity{PartitionKey: "b", RowKey: "1", Props: map[string]any{"indexed": ""}}, storage.Merge, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	rep, err := p.Rebuild(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep != (projection.Report{Canonical: 1, Written: 1, Removed: 1}) {
		t.Errorf("rebuild %+v", rep)
	}
	if got := listed(); len(got) != 1 || got[0] != "0004|1 Dune Messiah" {
		t.Fatalf("after the rebuild: %v", got)
	}
	if rep, _ := p.Rebuild(ctx); rep != (projection.Report{Canonical: 1}) {
		t.Errorf("second rebuild %+v", rep)
	}
	if n := counter.Snapshot().Total(); n == 0 {
		t.Error("the counter counted nothing")
	}
}

// A row written before its projection recorded has no record: the first
// Sync takes before's rows for what is there, so the upgrade leaves no
// row behind, and records from then on.
func TestRecordedSyncTakesOverAnUnrecordedRow(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t, "Books", "BooksByUpdate")
	books, list := store.Table("Books"), store.Table("BooksByUpdate")
	now := byUpdate(books, list)
	// An older version wrote the book and its row, and no record.
	b := book{PK: "b", RK: "1", Title: "Dune", Updated: "0001"}
	if _, err := storage.Insert(ctx, books, b); err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Insert(ctx, list, tagRow{PK: "all", RK: "0001|1", Title: "Dune"}); err != nil {
		t.Fatal(err)
	}
	after, err := now.Change(ctx, "b", "1", storage.ErrNotFound, func(x *book) error { x.Updated = "0002"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].RK != "0002|1" {
		t.Fatalf("after the first recorded change: %+v", rows)
	}
	if stored, _ := storage.Get[book](ctx, books, "b", "1"); stored.Indexed == "" || after.Updated != "0002" {
		t.Fatalf("no record kept: %+v", stored)
	}
}

// A Recorder with a record of its own (here the title its rows show)
// says which record each follow replaced, runs Moving before the rows
// move, and does nothing for a row already followed.
func TestRecorderSaysWhatItReplaced(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t, "Books", "BooksByUpdate")
	books, list := store.Table("Books"), store.Table("BooksByUpdate")
	rowOf := func(b book, title string) ([]projection.Row, error) {
		r, err := projection.RowOf(list, tagRow{PK: "all", RK: b.RK, Title: title})
		return []projection.Row{r}, err
	}
	var moving []string
	r := &projection.Recorder[book]{
		Canonical: books,
		Property:  "indexed",
		Rows:      func(b book) ([]projection.Row, error) { return rowOf(b, b.Title) },
		Record:    func(b book, _ []projection.Row) (string, error) { return b.Title, nil },
		Recorded:  func(b book, title string) ([]projection.Row, error) { return rowOf(b, title) },
		Moving: func(_ context.Context, b book, from string) error {
			moving = append(moving, from+"→"+b.Title)
			return nil
		},
	}
	if _, err := storage.Insert(ctx, books, book{PK: "b", RK: "1", Title: "Dune"}); err != nil {
		t.Fatal(err)
	}
	f, err := r.Follow(ctx, "b", "1")
	if err != nil || !f.Moved || f.From != "" || f.Row.Title != "Dune" {
		t.Fatalf("first follow: %+v, %v", f, err)
	}
	if f, err := r.Follow(ctx, "b", "1"); err != nil || f.Moved {
		t.Fatalf("a followed row moved again: %+v, %v", f, err)
	}
	if _, err := storage.Change(ctx, books, "b", "1", storage.ErrNotFound, func(b *book) error { b.Title = "Emma"; return nil }); err != nil {
		t.Fatal(err)
	}
	if f, err = r.Follow(ctx, "b", "1"); err != nil || !f.Moved || f.From != "Dune" || f.Row.Title != "Emma" {
		t.Fatalf("after a change: %+v, %v", f, err)
	}
	rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true})
	if err != nil || len(rows) != 1 || rows[0].Title != "Emma" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	if strings.Join(moving, ",") != "→Dune,Dune→Emma" {
		t.Errorf("Moving saw %v", moving)
	}
}

// A row deleted while a follow writes its rows leaves none of them.
func TestRecorderCleansUpAfterARowDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t, "Books", "BooksByUpdate")
	books, list := store.Table("Books"), store.Table("BooksByUpdate")
	p := byUpdate(books, list)
	r := &projection.Recorder[book]{
		Canonical: books,
		Property:  "indexed",
		Rows:      p.Rows,
		Record:    func(b book, _ []projection.Row) (string, error) { return b.Updated, nil },
		Recorded:  func(book, string) ([]projection.Row, error) { return nil, nil },
		// Another request deletes the book after this follow read it.
		Moving: func(ctx context.Context, b book, _ string) error {
			return books.Delete(ctx, b.PK, b.RK, storage.AnyETag)
		},
	}
	if _, err := storage.Insert(ctx, books, book{PK: "b", RK: "1", Title: "Dune", Updated: "0001"}); err != nil {
		t.Fatal(err)
	}
	f, err := r.Follow(ctx, "b", "1")
	if err != nil || f.Moved {
		t.Fatalf("follow: %+v, %v", f, err)
	}
	if rows, err := storage.All[tagRow](ctx, list, storage.Query{Scan: true}); err != nil || len(rows) != 0 {
		t.Fatalf("rows of a deleted book: %+v, %v", rows, err)
	}
}

// TestStood: a write whose derived rows alone failed stands (nil, and a
// warning naming it); any other error, or none, is the caller's as it is.
func TestStood(t *testing.T) {
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	ctx := context.Background()
	behind := fmt.Errorf("%w: %w", projection.ErrBehind, errors.New("index down"))
	if err := projection.Stood(ctx, log, behind, "cards behind", "post", "p1"); err != nil {
		t.Errorf("a write behind: %v", err)
	}
	if got := logged.String(); !strings.Contains(got, "cards behind") || !strings.Contains(got, "post=p1") || !strings.Contains(got, "index down") {
		t.Errorf("the warning: %q", got)
	}
	other := errors.New("row refused")
	if err := projection.Stood(ctx, log, other, "x"); err != other {
		t.Errorf("another error: %v", err)
	}
	if err := projection.Stood(ctx, nil, nil, "x"); err != nil {
		t.Errorf("no error: %v", err)
	}
}

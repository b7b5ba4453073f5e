package projection_test

import (
	"context"
	"errors"
	"strings"
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
	store := storetest.Open(t, "Books", "BooksByTag")
	s := shelf{books: store.Table("Books"), byTag: store.Table("BooksByTag")}
	s.p = &projection.Projection[book]{
		Canonical:  s.books,
		Derived:    []*storage.Table{s.byTag},
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
	got, err := s.p.Change(ctx, "b", "1", errNoBook, func(b *book) error {
		b.Title, b.Tags = "Dune Messiah", "scifi"
		return nil
	})
	if err != nil || got.Title != "Dune Messiah" || got.ETag == "" {
		t.Fatalf("change: %+v, %v", got, err)
	}
	if l := s.listed(t); len(l) != 1 || l["scifi"][0] != "Dune Messiah" {
		t.Fatalf("after the change: %v", l)
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

package prompts

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web/webtest"
)

var ctx = context.Background()

type fixture struct {
	svc   *Service
	clock *webtest.Clock
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	return newFixtureOn(t, embedded.Options{NoSync: true}, nil)
}

// newFixtureOn builds the module on an embedded store with opts; wrap,
// when set, wraps the backend (failure injection).
func newFixtureOn(t *testing.T, opts embedded.Options, wrap func(storage.Backend) storage.Backend) fixture {
	t.Helper()
	f := buildFixture(t, opts, wrap)
	if err := f.svc.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// newUnseededFixture is a first start: the tables exist, Seed has not run.
func newUnseededFixture(t *testing.T) fixture {
	t.Helper()
	return buildFixture(t, embedded.Options{NoSync: true}, nil)
}

func buildFixture(t *testing.T, opts embedded.Options, wrap func(storage.Backend) storage.Backend) fixture {
	t.Helper()
	backend, err := embedded.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	var b storage.Backend = backend
	if wrap != nil {
		b = wrap(backend)
	}
	store := storage.New(b, storage.Options{})
	cursors, err := storage.NewCursors([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	clock := webtest.NewClock(time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC))
	svc := New(store, nil, cursors, slog.New(slog.NewTextHandler(io.Discard, nil)), clock.Now)
	if err := store.Provision(ctx, svc.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	return fixture{svc: svc, clock: clock}
}

const alice, bob = "auth:alice", "auth:bob"

func input(title string, tags ...string) Input {
	return Input{Title: title, Text: "Explain {{topic}} simply.", Tags: tags, Visibility: Public}
}

// mustCreate creates a prompt, first moving the clock past the create
// rate limit.
func (f fixture) mustCreate(t *testing.T, author string, in Input) PromptRow {
	t.Helper()
	f.clock.Advance(CreateInterval)
	p, err := f.svc.Create(ctx, author, in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// has reports whether table holds the row at pk, rk.
func has(t *testing.T, table *storage.Table, pk, rk string) bool {
	t.Helper()
	_, err := table.Get(ctx, pk, rk)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	many := []string{"writing", "coding", "marketing", "education", "research", "productivity", "creative", "business", "translation", "data", "design"}
	cases := []struct {
		name  string
		in    Input
		field func(FieldErrors) string
		want  string
	}{
		{"empty title", Input{Title: "  ", Text: "x", Visibility: Public}, func(f FieldErrors) string { return f.Title }, "prompts.error.title_required"},
		{"title 201", Input{Title: strings.Repeat("я", 201), Text: "x", Visibility: Public}, func(f FieldErrors) string { return f.Title }, "prompts.error.title_long"},
		{"empty text", Input{Title: "t", Text: "", Visibility: Public}, func(f FieldErrors) string { return f.Text }, "prompts.error.text_required"},
		{"text 3001", Input{Title: "t", Text: strings.Repeat("ж", 3001), Visibility: Public}, func(f FieldErrors) string { return f.Text }, "prompts.error.text_long"},
		{"11 tags", Input{Title: "t", Text: "x", Tags: many, Visibility: Public}, func(f FieldErrors) string { return f.Tags }, "prompts.error.tags_many"},
		{"unknown tag", Input{Title: "t", Text: "x", Tags: []string{"nope"}, Visibility: Public}, func(f FieldErrors) string { return f.Tags }, "prompts.error.tag_unknown"},
		{"bad visibility", Input{Title: "t", Text: "x", Visibility: "friends"}, func(f FieldErrors) string { return f.Visibility }, "prompts.error.visibility"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Create(ctx, alice, c.in)
			var inv *InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("err = %v, want InvalidError", err)
			}
			if got := c.field(inv.Fields); got != c.want {
				t.Errorf("field error = %q, want %q", got, c.want)
			}
		})
	}
	page, err := f.svc.ListMine(ctx, alice, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Prompts) != 0 {
		t.Errorf("invalid input wrote %d prompts", len(page.Prompts))
	}
	// The limits themselves are allowed: 200, 3000, 10 tags.
	ok := Input{Title: strings.Repeat("я", 200), Text: strings.Repeat("ж", 3000), Tags: many[:10], Visibility: Private}
	if _, err := f.svc.Create(ctx, alice, ok); err != nil {
		t.Errorf("at the limits: %v", err)
	}
}

func TestDuplicateTitle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.mustCreate(t, alice, input("Code Review"))
	f.clock.Advance(CreateInterval)
	if _, err := f.svc.Create(ctx, alice, input("  code   REVIEW ")); !errors.Is(err, ErrDuplicateTitle) {
		t.Fatalf("same normalised title: err = %v, want ErrDuplicateTitle", err)
	}
	if _, err := f.svc.Create(ctx, bob, input("Code Review")); err != nil {
		t.Errorf("another author, same title: %v", err)
	}
	// Renaming onto a taken title is refused too.
	other := f.mustCreate(t, alice, input("Other"))
	if _, err := f.svc.Update(ctx, alice, other.PromptID, f.rev(t, alice, other.PromptID), input("CODE review")); !errors.Is(err, ErrDuplicateTitle) {
		t.Errorf("rename onto a taken title: err = %v", err)
	}
}

// rev is the prompt's current revision, as an edit form opened now holds.
func (f fixture) rev(t *testing.T, author, id string) int64 {
	t.Helper()
	p, err := f.svc.Mine(ctx, author, id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Revision
}

func TestIndexesFollowChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.svc
	p := f.mustCreate(t, alice, input("Write cover letters", "writing", "business"))
	npk, nrk := newestKey(p.CreatedAt, p.PromptID)
	tag := func(name string) bool { pk, rk := tagIndexKey(name, p.PromptID); return has(t, s.tagIndex, pk, rk) }
	tok := func(tk string) bool { pk, rk := titleTokenKey(tk, p.PromptID); return has(t, s.titleSearch, pk, rk) }
	if !has(t, s.newestIndex, npk, nrk) || !tag("writing") || !tag("business") || !tok("cover") || !tok("cov") || !tok("lett") {
		t.Fatal("a public prompt is missing from its indexes after create")
	}

	// Tag diff and retitle.
	in := input("Write resumes", "writing", "coding")
	p2, err := s.Update(ctx, alice, p.PromptID, f.rev(t, alice, p.PromptID), in)
	if err != nil {
		t.Fatal(err)
	}
	if tag("business") || !tag("coding") || !tag("writing") || tok("cover") || !tok("resumes") {
		t.Error("tag diff or retitle not reflected in the indexes")
	}
	if p2.CreatedAt != p.CreatedAt || !has(t, s.newestIndex, npk, nrk) {
		t.Error("the newest row moved on an edit")
	}

	// Private: gone from every public index.
	in.Visibility = Private
	if _, err := s.Update(ctx, alice, p.PromptID, f.rev(t, alice, p.PromptID), in); err != nil {
		t.Fatal(err)
	}
	if has(t, s.newestIndex, npk, nrk) || tag("writing") || tok("resumes") {
		t.Error("a private prompt is still indexed")
	}

	// Public again, then deleted: gone everywhere, title free again.
	in.Visibility = Public
	if _, err := s.Update(ctx, alice, p.PromptID, f.rev(t, alice, p.PromptID), in); err != nil {
		t.Fatal(err)
	}
	if !has(t, s.newestIndex, npk, nrk) || !tag("coding") {
		t.Fatal("public again but not indexed")
	}
	if err := s.Delete(ctx, alice, p.PromptID); err != nil {
		t.Fatal(err)
	}
	lpk, lrk := likedKey(0, p.CreatedAt, p.PromptID)
	if has(t, s.newestIndex, npk, nrk) || has(t, s.likedIndex, lpk, lrk) || tag("coding") || tag("writing") || tok("resumes") || tok("res") {
		t.Error("a deleted prompt is still indexed")
	}
	if _, err := s.Open(ctx, alice, p.PromptID, false); !errors.Is(err, ErrNoPrompt) {
		t.Errorf("deleted prompt opens: %v", err)
	}
	f.clock.Advance(CreateInterval)
	if _, err := s.Create(ctx, alice, input("Write resumes")); err != nil {
		t.Errorf("title not freed by delete: %v", err)
	}
}

func TestPrivatePromptIsNotFoundForOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := input("Secret")
	in.Visibility = Private
	p := f.mustCreate(t, alice, in)
	if _, err := f.svc.Open(ctx, alice, p.PromptID, false); err != nil {
		t.Errorf("author cannot open their private prompt: %v", err)
	}
	for _, viewer := range []string{bob, ""} {
		if _, err := f.svc.Open(ctx, viewer, p.PromptID, false); !errors.Is(err, ErrNoPrompt) {
			t.Errorf("viewer %q: err = %v, want ErrNoPrompt", viewer, err)
		}
	}
	if _, err := f.svc.Open(ctx, bob, "not-an-id", false); !errors.Is(err, ErrNoPrompt) {
		t.Errorf("bad id: %v", err)
	}
}

func TestEditWithStaleRevision(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Original"))
	stale := f.rev(t, alice, p.PromptID)
	// A vote changes the row's ETag but not its revision: no conflict.
	if _, err := f.svc.Vote(ctx, bob, p.PromptID, Like); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(ctx, alice, p.PromptID, stale, input("First tab")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(ctx, alice, p.PromptID, stale, input("Second tab")); !errors.Is(err, ErrStale) {
		t.Fatalf("stale edit: err = %v, want ErrStale", err)
	}
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if got.Title != "First tab" || got.Likes != 1 {
		t.Errorf("title = %q, likes = %d: the stale edit overwrote", got.Title, got.Likes)
	}
}

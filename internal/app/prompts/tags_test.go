package prompts

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
	"github.com/oklog/ulid/v2"
)

func tagNames(tags []TagRow) []string {
	var out []string
	for _, t := range tags {
		out = append(out, t.Tag)
	}
	return out
}

func TestSeedIsIdempotentAndKeepsAdminChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := f.svc.UpdateTag(ctx, "fun", "Jokes", "Шутки", false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	all, _ := f.svc.AllTags(ctx)
	if len(all) != len(DefaultTags) {
		t.Fatalf("%d tags after a second seed", len(all))
	}
	i := slices.IndexFunc(all, func(r TagRow) bool { return r.Tag == "fun" })
	if all[i].DisplayName != "Jokes" || all[i].IsActive {
		t.Errorf("seed undid the admin's change: %+v", all[i])
	}
}

func TestSeedUsesConfiguredTagsOnlyOnFirstStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // seeded with DefaultTags
	f.svc.UseSeedTags([]DefaultTag{{"only", "Only", "Только"}})
	if err := f.svc.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	all, _ := f.svc.AllTags(ctx)
	if slices.Contains(tagNames(all), "only") {
		t.Error("a later start seeded into a catalog that has tags")
	}

	fresh := newUnseededFixture(t)
	fresh.svc.UseSeedTags([]DefaultTag{{"only", "Only", "Только"}, {"also", "Also", ""}})
	if err := fresh.svc.Seed(ctx); err != nil {
		t.Fatal(err)
	}
	all, _ = fresh.svc.AllTags(ctx)
	if got := tagNames(all); !slices.Equal(got, []string{"only", "also"}) {
		t.Errorf("first start seeded %v", got)
	}
	if all[1].Name("ru") != "Also" {
		t.Errorf("missing Russian name falls back to %q", all[1].Name("ru"))
	}
}

func TestAdminTagOperations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.svc
	if err := s.AddTag(ctx, "prompt-eng", "Prompt engineering", "Промпт-инжиниринг"); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTag(ctx, "prompt-eng", "Again", ""); !errors.Is(err, ErrTagExists) {
		t.Errorf("duplicate add: %v", err)
	}
	for _, bad := range []struct{ tag, en, field string }{
		{"Bad Tag", "x", "tag"}, {"", "x", "tag"}, {"-x", "x", "tag"}, {"a|b", "x", "tag"},
		{"ok", "", "english"}, {"ok", string(make([]rune, 41)), "english"},
	} {
		var inv formrule.FieldErrors
		if err := s.AddTag(ctx, bad.tag, bad.en, ""); !errors.As(err, &inv) || inv[bad.field] == "" {
			t.Errorf("AddTag(%q, %q) = %v, want invalid %s", bad.tag, bad.en, err, bad.field)
		}
	}
	active, _ := s.ActiveTags(ctx)
	if last := active[len(active)-1]; last.Tag != "prompt-eng" || last.Name("ru") != "Промпт-инжиниринг" {
		t.Errorf("new tag not last or misnamed: %+v", last)
	}

	// Order: move "coding" (second) up to first, then down again.
	if err := s.MoveTag(ctx, "coding", -1); err != nil {
		t.Fatal(err)
	}
	active, _ = s.ActiveTags(ctx)
	if got := tagNames(active)[:2]; !slices.Equal(got, []string{"coding", "writing"}) {
		t.Errorf("after move up: %v", got)
	}
	if err := s.MoveTag(ctx, "coding", -1); err != nil { // already first: no-op
		t.Fatal(err)
	}
	if err := s.MoveTag(ctx, "nope", 1); !errors.Is(err, ErrNoTag) {
		t.Errorf("move unknown: %v", err)
	}

	// Deactivate: gone from choices and refused for new prompts, but a
	// prompt that has it keeps it, shows it, and may be edited keeping it.
	p := f.mustCreate(t, alice, input("Uses fun", "fun", "writing"))
	if err := s.UpdateTag(ctx, "fun", "Fun", "Развлечения", false); err != nil {
		t.Fatal(err)
	}
	active, _ = s.ActiveTags(ctx)
	if slices.Contains(tagNames(active), "fun") {
		t.Error("deactivated tag still offered")
	}
	f.clock.Advance(time.Minute)
	var inv *InvalidError
	if _, err := s.Create(ctx, bob, input("New fun", "fun")); !errors.As(err, &inv) || inv.Fields.Tags == "" {
		t.Errorf("create with a deactivated tag: %v", err)
	}
	if _, err := s.Update(ctx, alice, p.PromptID, p.Revision, input("Uses fun still", "fun", "writing")); err != nil {
		t.Errorf("edit keeping a deactivated tag: %v", err)
	}
	if got := f.pageAll(t, Listing{Tags: []string{"fun"}}); len(got) != 1 {
		t.Errorf("the prompt left the deactivated tag's listing: %v", ids(got))
	}
	if err := s.UpdateTag(ctx, "nope", "X", "", true); !errors.Is(err, ErrNoTag) {
		t.Errorf("rename unknown: %v", err)
	}
}

func TestCreateRateLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.mustCreate(t, alice, input("First"))
	f.clock.Advance(10 * time.Second)
	_, err := f.svc.Create(ctx, alice, input("Second"))
	var soon *TooSoonError
	if !errors.As(err, &soon) || soon.Wait != 20*time.Second {
		t.Fatalf("second create after 10 s: %v, want TooSoonError{20s}", err)
	}
	if _, err := f.svc.Create(ctx, bob, input("Bob's")); err != nil {
		t.Errorf("another author is not limited: %v", err)
	}
	mine, _ := f.svc.ListMine(ctx, alice, nil)
	if len(mine.Prompts) != 1 {
		t.Errorf("the refused create wrote: %d prompts", len(mine.Prompts))
	}
	f.clock.Advance(20 * time.Second)
	if _, err := f.svc.Create(ctx, alice, input("Second")); err != nil {
		t.Errorf("after 30 s: %v", err)
	}
	// A create refused for its title does not start the wait: the author
	// fixes the title and sends again at once.
	f.clock.Advance(CreateInterval)
	if _, err := f.svc.Create(ctx, alice, input("Second")); !errors.Is(err, ErrDuplicateTitle) {
		t.Fatalf("a duplicate title: %v", err)
	}
	if _, err := f.svc.Create(ctx, alice, input("Third")); err != nil {
		t.Errorf("right after a refused title: %v", err)
	}
}

// TestConcurrentCreatesAreLimited: eight creates at once by one author
// make one prompt; the others wait their turn (the wait counts in the
// store, at a row's ETag, not from a read of the newest prompt).
func TestConcurrentCreatesAreLimited(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var wg sync.WaitGroup
	var made, soon atomic.Int32
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.svc.Create(ctx, alice, input(fmt.Sprint("Burst ", i)))
			var tooSoon *TooSoonError
			switch {
			case err == nil:
				made.Add(1)
			case errors.As(err, &tooSoon):
				soon.Add(1)
			default:
				t.Errorf("create %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	mine, _ := f.svc.ListMine(ctx, alice, nil)
	if made.Load() != 1 || soon.Load() != 7 || len(mine.Prompts) != 1 {
		t.Fatalf("%d made, %d told to wait, %d prompts", made.Load(), soon.Load(), len(mine.Prompts))
	}
}

func TestPromptIDsCountDown(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := newPromptID(t0), newPromptID(t0.Add(time.Millisecond))
	if !(b < a) || !storage.IsID(a) {
		t.Errorf("later id %s does not sort before %s", b, a)
	}
	if got := promptTime(a); !got.Equal(t0) {
		t.Errorf("promptTime = %v", got)
	}
}

// promptTime is the creation time encoded in a promptId (the create
// cooldown once read it; the tests check ids still encode it).
func promptTime(id string) time.Time {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return time.Time{}
	}
	return ulid.Time(ulid.MaxTime() - u.Time())
}

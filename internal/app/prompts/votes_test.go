package prompts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// indexCounts reads the counts the newest and tag indexes show for p and
// whether the most-liked index holds exactly one row for it, at the key
// its score calls for.
func (f fixture) indexCounts(t *testing.T, p PromptRow, likes, dislikes int64) {
	t.Helper()
	pk, rk := newestKey(p.CreatedAt, p.PromptID)
	e, err := f.svc.newestIndex.Get(ctx, pk, rk)
	if err != nil {
		t.Fatal(err)
	}
	var n NewestRow
	if err := storage.Unmarshal(e, &n); err != nil {
		t.Fatal(err)
	}
	if n.Likes != likes || n.Dislikes != dislikes {
		t.Errorf("newest index shows %d/%d, want %d/%d", n.Likes, n.Dislikes, likes, dislikes)
	}
	for _, tag := range splitTags(p.Tags) {
		pk, rk := tagIndexKey(tag, p.PromptID)
		e, err := f.svc.tagIndex.Get(ctx, pk, rk)
		if err != nil {
			t.Fatal(err)
		}
		if e.Props["Likes"] != likes || e.Props["Dislikes"] != dislikes {
			t.Errorf("tag %s shows %v/%v, want %d/%d", tag, e.Props["Likes"], e.Props["Dislikes"], likes, dislikes)
		}
	}
	var rows []string
	err = f.svc.likedIndex.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if e.Props["PromptId"] == p.PromptID {
			rows = append(rows, e.PartitionKey+" "+e.RowKey)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wpk, wrk := likedKey(likes-dislikes, p.CreatedAt, p.PromptID)
	if len(rows) != 1 || rows[0] != wpk+" "+wrk {
		t.Errorf("most-liked rows %v, want exactly [%s %s]", rows, wpk, wrk)
	}
}

func TestVoteTransitions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Vote on me", "fun"))
	steps := []struct {
		value           int
		likes, dislikes int64
	}{
		{Like, 1, 0},    // none → like
		{Like, 1, 0},    // like → like (no change)
		{Dislike, 0, 1}, // like → dislike
		{NoVote, 0, 0},  // dislike → none
		{Dislike, 0, 1}, // none → dislike
		{Like, 1, 0},    // dislike → like
		{NoVote, 0, 0},  // like → none
		{NoVote, 0, 0},  // none → none
		{Dislike, 0, 1}, // none → dislike
		{Dislike, 0, 1}, // dislike → dislike
	}
	for i, s := range steps {
		tally, err := f.svc.Vote(ctx, bob, p.PromptID, s.value)
		if err != nil {
			t.Fatal(err)
		}
		if tally.Likes != s.likes || tally.Dislikes != s.dislikes || tally.Mine != s.value {
			t.Errorf("step %d: tally %+v, want %d/%d mine %d", i, tally, s.likes, s.dislikes, s.value)
		}
		got, _ := f.svc.Mine(ctx, alice, p.PromptID)
		if got.Likes != s.likes || got.Dislikes != s.dislikes {
			t.Errorf("step %d: row %d/%d", i, got.Likes, got.Dislikes)
		}
		if mine, _ := f.svc.MyVote(ctx, bob, p.PromptID); mine != s.value {
			t.Errorf("step %d: my vote %d", i, mine)
		}
		f.indexCounts(t, p, s.likes, s.dislikes)
	}
}

func TestVoteRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Mine"))
	if _, err := f.svc.Vote(ctx, alice, p.PromptID, Like); !errors.Is(err, ErrOwnPrompt) {
		t.Errorf("own prompt: %v", err)
	}
	in := input("Hidden")
	in.Visibility = Private
	hidden := f.mustCreate(t, alice, in)
	if _, err := f.svc.Vote(ctx, bob, hidden.PromptID, Like); !errors.Is(err, ErrNoPrompt) {
		t.Errorf("someone else's private prompt: %v", err)
	}
	if _, err := f.svc.Vote(ctx, bob, p.PromptID, 2); err == nil {
		t.Error("vote value 2 accepted")
	}
	if _, err := f.svc.Vote(ctx, bob, "nope", Like); !errors.Is(err, ErrNoPrompt) {
		t.Errorf("bad id: %v", err)
	}
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if got.Likes != 0 || got.Dislikes != 0 {
		t.Errorf("refused votes counted: %d/%d", got.Likes, got.Dislikes)
	}
}

// TestVoteConcurrency200Voters has 200 people like one prompt at once,
// through two Service instances on one store (two app instances), so the
// ETag retries across instances are exercised: exactly 200 likes, and one
// most-liked row at the right key.
func TestVoteConcurrency200Voters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Popular", "fun"))
	other := New(f.svc.store, nil, f.svc.cursors, f.svc.log, f.clock.Now)
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		svc := f.svc
		if i%2 == 1 {
			svc = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := svc.Vote(ctx, fmt.Sprintf("auth:voter%03d", i), p.PromptID, Like); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if got.Likes != 200 || got.Dislikes != 0 {
		t.Fatalf("likes = %d, dislikes = %d, want 200/0", got.Likes, got.Dislikes)
	}
	// The instances' reconciles may interleave; one more (any later
	// request) settles the indexes, and no stray most-liked row remains.
	if err := f.svc.reconcile(ctx, alice, p.PromptID); err != nil {
		t.Fatal(err)
	}
	f.indexCounts(t, got, 200, 0)
}

// TestVoteConcurrencyOneVoter200Times has one person send 200 likes at once:
// exactly one like.
func TestVoteConcurrencyOneVoter200Times(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Clicked a lot"))
	var wg sync.WaitGroup
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.svc.Vote(ctx, bob, p.PromptID, Like); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if got.Likes != 1 || got.Dislikes != 0 {
		t.Fatalf("likes = %d, dislikes = %d, want 1/0", got.Likes, got.Dislikes)
	}
	f.indexCounts(t, got, 1, 0)
}

// TestVotesAndEditsConverge races votes against edits of the title and
// tags: afterwards the indexes match the row exactly (one most-liked row,
// the latest counts, the latest title and tags).
func TestVotesAndEditsConverge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Racing", "fun", "writing"))
	var wg sync.WaitGroup
	for i := 0; i < 60; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := []int{Like, Dislike, NoVote}[i%3]
			if _, err := f.svc.Vote(ctx, fmt.Sprintf("auth:v%d", i%20), p.PromptID, v); err != nil {
				t.Error(err)
			}
		}()
	}
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tags := [][]string{{"fun"}, {"data", "writing"}}[i%2]
			err := storage.Optimistic(ctx, 50, func(context.Context) error {
				_, err := f.svc.Update(ctx, alice, p.PromptID, f.rev(t, alice, p.PromptID), input(fmt.Sprintf("Racing %d", i), tags...))
				if errors.Is(err, ErrStale) {
					return storage.ErrPrecondition
				}
				return err
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := f.svc.Mine(ctx, alice, p.PromptID)
	if got.IndexedState != stateOf(&got) {
		t.Errorf("recorded state %q, row calls for %q", got.IndexedState, stateOf(&got))
	}
	f.indexCounts(t, got, got.Likes, got.Dislikes)
	// A rebuild finds nothing to fix.
	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fixed() != 0 {
		t.Errorf("reindex after the race fixed %s", rep)
	}
}

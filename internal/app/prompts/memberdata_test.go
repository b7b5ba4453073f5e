package prompts

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
)

// promptDeletesRefused refuses, while armed, every delete in the
// Prompts table: a run that stops once a prompt is copied to its new
// place and before its old row goes.
type promptDeletesRefused struct {
	storage.Backend
	armed atomic.Bool
}

var errRefused = errors.New("the process stopped")

func (b *promptDeletesRefused) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if b.armed.Load() && strings.HasSuffix(table, promptsTable) {
		return errRefused
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

// TestDeletingAnAccountInThePrompts: ann's archive holds her prompts,
// votes and saves and nobody else's prompt. Her deletion, cut short,
// is finished by the next run: her public prompt stays in the catalog
// "by Deleted member", with bob's vote and save of it; her private
// prompt is gone; her votes are taken back from the counts; nothing in
// the module's tables names her; the rebuild finds nothing to fix; and
// one more run changes nothing.
func TestDeletingAnAccountInThePrompts(t *testing.T) {
	t.Parallel()
	crash := &promptDeletesRefused{}
	a := newPromptsAppOn(t, func(b storage.Backend) storage.Backend { crash.Backend = b; return crash })
	ann, bob := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com")
	shared := a.createPrompt(t, ann, promptForm("Weekly meal planner", "Plan dinners for {{people}}.", "public", "writing"))
	private := a.createPrompt(t, ann, promptForm("My diary helper", "Summarize my day.", "private", "writing"))
	dropped := a.createPrompt(t, ann, promptForm("Dropped idea", "Nothing.", "public", "fun"))
	if res := post(t, ann.c, "/prompts/"+dropped+"/delete", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	liked := a.createPrompt(t, bob, promptForm("Explain a pull request", "Explain this diff.", "public", "coding"))
	disliked := a.createPrompt(t, bob, promptForm("Limerick maker", "Write a limerick.", "public", "fun"))
	for _, v := range []struct {
		u     user
		id    string
		value int
	}{{ann, liked, Like}, {ann, disliked, Dislike}, {bob, shared, Like}} {
		if _, err := a.svc.Vote(ctx, v.u.key, v.id, v.value); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct {
		u  user
		id string
	}{{bob, shared}, {ann, liked}} {
		if err := a.svc.SetSaved(ctx, s.u.key, s.id, true); err != nil {
			t.Fatal(err)
		}
	}
	m := memberdatatest.Member(ann.key, "ann@example.com")

	arch := &memberdatatest.Archive{}
	if err := a.svc.ExportMember(ctx, m, arch); err != nil {
		t.Fatal(err)
	}
	text := arch.Text()
	for _, want := range []string{"prompts/prompts.json", "Weekly meal planner", "My diary helper", "prompts/votes.json", liked, `"dislike"`, "prompts/saved.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("the archive lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"Dropped idea", "Explain a pull request", bob.key} {
		if strings.Contains(text, not) {
			t.Errorf("the archive holds %q:\n%s", not, text)
		}
	}

	crash.armed.Store(true)
	if err := a.svc.ForgetMember(ctx, m); !errors.Is(err, errRefused) {
		t.Fatalf("a forget cut short: %v", err)
	}
	crash.armed.Store(false)
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	tables := a.svc.Tables()
	if left := memberdatatest.Traces(t, a.Store, m, tables...); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}

	page := bob.c.Get("/prompts/" + shared).Doc(t)
	if by := page.Find(testID("prompt-author")).Text(); !strings.Contains(by, "Deleted member") {
		t.Errorf("the shared prompt's author: %q", by)
	}
	for _, id := range []string{private, dropped} {
		if res := bob.c.Get("/prompts/" + id); res.StatusCode != http.StatusNotFound {
			t.Errorf("ann's prompt %s after her deletion: %d", id, res.StatusCode)
		}
	}
	if got := strings.Join(ids(newestAll(t, a.svc)), " "); !strings.Contains(got, shared) || strings.Contains(got, private) {
		t.Errorf("the catalog after the deletion: %v", got)
	}
	if saved, gone := savedIDs(t, bob); !slices.Equal(saved, []string{shared}) || len(gone) != 0 {
		t.Errorf("bob's saved list: %v, gone %v", saved, gone)
	}
	for id, want := range map[string]Tally{shared: {Likes: 1}, liked: {}, disliked: {}} {
		p, err := a.svc.Open(ctx, bob.key, id, false)
		if err != nil || p.Likes != want.Likes || p.Dislikes != want.Dislikes {
			t.Errorf("%s counts %d/%d, want %d/%d (%v)", id, p.Likes, p.Dislikes, want.Likes, want.Dislikes, err)
		}
	}
	if v, err := a.svc.MyVote(ctx, bob.key, shared); err != nil || v != Like {
		t.Errorf("bob's vote on the shared prompt: %d, %v", v, err)
	}

	rep, err := a.svc.Reindex(ctx)
	if err != nil || rep.Fixed() != 0 {
		t.Errorf("the rebuild after the deletion: %s, %v", rep, err)
	}
	before := memberdatatest.Snapshot(t, a.Store, tables...)
	if err := a.svc.ForgetMember(ctx, m); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, a.Store, tables...); after != before {
		t.Errorf("a second forget wrote:\n%s\n→\n%s", before, after)
	}
}

// newestAll is every prompt of the newest catalog.
func newestAll(t *testing.T, svc *Service) []Item {
	return fixture{svc: svc}.pageAll(t, Listing{})
}

// oldRowDeletes runs, once, before a delete of the row at pk, rk in the
// Prompts table: a vote landing on a prompt's old row as its author's
// deletion moves it.
type oldRowDeletes struct {
	storage.Backend
	pk, rk string
	before func()
	ran    atomic.Bool
}

func (b *oldRowDeletes) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if strings.HasSuffix(table, promptsTable) && pk == b.pk && rk == b.rk && b.before != nil && !b.ran.Swap(true) {
		b.before()
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

// TestVotesFollowAPromptMovedByItsAuthorsDeletion: a vote that read a
// prompt before its author's deletion moved it, and counts on the old row
// just before that row goes, is counted on the moved prompt; a vote that
// comes after the old row went counts on the moved prompt too, instead of
// failing; the counts then agree with the votes (the rebuild fixes
// nothing).
func TestVotesFollowAPromptMovedByItsAuthorsDeletion(t *testing.T) {
	t.Parallel()
	hook := &oldRowDeletes{}
	a := newPromptsAppOn(t, func(b storage.Backend) storage.Backend { hook.Backend = b; return hook })
	ann, bob := a.signIn(t, "ann@example.com"), a.signIn(t, "bob@example.com")
	carol, dave := a.signIn(t, "carol@example.com"), a.signIn(t, "dave@example.com")
	shared := a.createPrompt(t, ann, promptForm("Weekly meal planner", "Plan dinners for {{people}}.", "public", "writing"))
	if _, err := a.svc.Vote(ctx, bob.key, shared, Like); err != nil {
		t.Fatal(err)
	}
	// A vote that read the prompt under ann before it moved, as Vote
	// goes on: its row, its count on the partition it read, the indexes
	// of the row it counted on.
	lateVote := func(voter user) error {
		old, err := a.svc.setVote(ctx, voter.key, shared, Like)
		if err != nil {
			return err
		}
		p, err := a.svc.addVote(ctx, ann.key, shared, old, Like)
		if err != nil {
			return err
		}
		return a.svc.reconcile(ctx, p.AuthorID, shared)
	}
	hook.pk, hook.rk = promptKey(ann.key, shared)
	hook.before = func() {
		if err := lateVote(carol); err != nil {
			t.Errorf("carol's vote on the old row: %v", err)
		}
	}
	if err := a.svc.ForgetMember(ctx, memberdatatest.Member(ann.key, "ann@example.com")); err != nil {
		t.Fatal(err)
	}
	if !hook.ran.Load() {
		t.Fatal("the old row was never deleted: the test did not race")
	}
	if err := lateVote(dave); err != nil {
		t.Fatalf("dave's vote after the move: %v", err)
	}
	p, err := a.svc.Open(ctx, bob.key, shared, false)
	if err != nil || p.Likes != 3 || !memberdata.IsForgotten(p.AuthorID) {
		t.Fatalf("the moved prompt: %d likes by %q (%v), want 3 by the forgotten author", p.Likes, p.AuthorID, err)
	}
	if rep, err := a.svc.Reindex(ctx); err != nil || rep.Fixed() != 0 {
		t.Errorf("the rebuild after the votes: %s, %v", rep, err)
	}
}

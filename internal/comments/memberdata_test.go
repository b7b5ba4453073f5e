package comments_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// TestForgetAuthor: an account's deletion leaves its author's comments
// and replies in their threads, written by Forgotten with no name, the
// others' as they were, and no row naming them; a run that fails part
// way is finished by the next, and a run after that changes nothing.
func TestForgetAuthor(t *testing.T) {
	ctx := t.Context()
	faults := &memberdatatest.Faults{}
	store := storetest.OpenWrapped(t, faults.Wrap, "Comments", "Quota")
	th := newThread(t, store)
	th.Replies, th.Limit.Max = true, 10
	annKeys := map[string]bool{}
	for _, thread := range []string{"T1", "T2", "T3"} {
		c, err := th.Add(ctx, thread, ann, "ann on "+thread)
		if err != nil {
			t.Fatal(err)
		}
		annKeys[thread+" "+c.RowKey] = true
		b, err := th.Add(ctx, thread, bob, "bob on "+thread)
		if err != nil {
			t.Fatal(err)
		}
		_, r, err := th.Reply(ctx, thread, b.RowKey, ann, "ann answers bob")
		if err != nil {
			t.Fatal(err)
		}
		annKeys[thread+" "+r.RowKey] = true
		if _, _, err := th.Reply(ctx, thread, c.RowKey, bob, "bob answers ann"); err != nil {
			t.Fatal(err)
		}
	}
	m := memberdata.Member{Key: ann.MemberKey}

	arch := &memberdatatest.Archive{}
	mine, err := th.Authored(ctx, ann.MemberKey)
	if err != nil || len(mine) != 6 {
		t.Fatalf("ann authored %d, %v; want 6", len(mine), err)
	}
	if err := arch.JSON("blog/comments.json", mine); err != nil {
		t.Fatal(err)
	}
	if text := arch.Text(); strings.Contains(text, "bob on") || !strings.Contains(text, "ann answers bob") {
		t.Fatalf("ann's archive: %s", text)
	}

	faults.FailAfter(2)
	if err := th.ForgetAuthor(ctx, ann.MemberKey); !errors.Is(err, memberdatatest.ErrInjected) {
		t.Fatalf("a forget failing part way: %v", err)
	}
	faults.Heal()
	if left := memberdatatest.Traces(t, store, m, "Comments", "Quota"); len(left) == 0 {
		t.Fatal("the failed run forgot everything")
	}
	if err := th.ForgetAuthor(ctx, ann.MemberKey); err != nil {
		t.Fatal(err)
	}
	if left := memberdatatest.Traces(t, store, m, "Comments", "Quota"); len(left) > 0 {
		t.Fatalf("rows still naming ann: %v", left)
	}
	before := memberdatatest.Snapshot(t, store, "Comments")
	if err := th.ForgetAuthor(ctx, ann.MemberKey); err != nil {
		t.Fatal(err)
	}
	if after := memberdatatest.Snapshot(t, store, "Comments"); after != before {
		t.Fatalf("a second forget changed rows:\n%s\n→\n%s", before, after)
	}

	var forgotten int
	en := memberdatatest.English(t)
	for _, thread := range []string{"T1", "T2", "T3"} {
		page, err := th.Page(ctx, thread, nil, 10)
		if err != nil || len(page.Rows) != 4 {
			t.Fatalf("%s after the forget: %+v, %v", thread, page.Rows, err)
		}
		for _, r := range page.Rows {
			switch {
			case annKeys[thread+" "+r.RowKey]:
				forgotten++
				if r.AuthorKey != memberdata.Forgotten || r.AuthorName != "" || r.Author(en) != "Deleted member" || !strings.HasPrefix(r.Body, "ann") {
					t.Errorf("ann's comment: %+v, shown as %q", r, r.Author(en))
				}
			case r.AuthorKey != bob.MemberKey || r.Author(en) != "Bob":
				t.Errorf("bob's comment changed: %+v", r)
			}
		}
	}
	if forgotten != 6 {
		t.Fatalf("%d of ann's 6 comments stayed", forgotten)
	}
	// Bob may still comment as before; the quota row of ann's went.
	if _, err := th.Add(ctx, "T1", bob, "still here"); err != nil {
		t.Fatal(err)
	}
}

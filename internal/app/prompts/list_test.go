package prompts

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// pageAll reads every page of l through the cursors, as a browser would,
// and fails on a repeated prompt or a runaway listing.
func (f fixture) pageAll(t *testing.T, l Listing) []Item {
	t.Helper()
	var (
		all    []Item
		cursor *storage.Cursor
		seen   = map[string]bool{}
	)
	for pages := 0; ; pages++ {
		if pages > 2000 {
			t.Fatal("paging does not end")
		}
		page, err := f.svc.List(ctx, l, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if seen[it.PromptID] {
				t.Fatalf("%s repeated on page %d", it.PromptID, pages)
			}
			seen[it.PromptID] = true
		}
		all = append(all, page.Items...)
		if page.Next == "" {
			return all
		}
		c, err := f.svc.cursors.Decode(l.CursorQuery(), page.Next)
		if err != nil {
			t.Fatal(err)
		}
		cursor = &c
	}
}

// setCounts gives a prompt vote counts the way a vote does (the counts on
// the row, then reconcile), without casting each vote.
func (f fixture) setCounts(t *testing.T, p PromptRow, likes, dislikes int64) {
	t.Helper()
	_, err := f.svc.prompts.Update(ctx, storage.Entity{PartitionKey: p.PartitionKey, RowKey: p.RowKey,
		Props: map[string]any{"Likes": likes, "Dislikes": dislikes}}, storage.Merge, storage.AnyETag)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.reconcile(ctx, p.AuthorID, p.PromptID); err != nil {
		t.Fatal(err)
	}
}

// catalogPrompt is what the paging tests expect of one public prompt.
type catalogPrompt struct {
	id      string
	created time.Time
	score   int64
	tags    []string
}

// buildCatalog creates n prompts over about 25 months with two empty
// months, every fifth private, tags by divisibility (writing: i%2,
// coding: i%3, data: i%5) and scores spread over many score buckets.
func buildCatalog(t *testing.T, f fixture, n int) []catalogPrompt {
	t.Helper()
	var public []catalogPrompt
	authors := []string{alice, bob, "auth:carol", "auth:dan"}
	for i := 0; i < n; i++ {
		if i > 0 && i%(n/25) == 0 {
			f.clock.Advance(29 * 24 * time.Hour)
			if i == 10*(n/25) {
				f.clock.Advance(62 * 24 * time.Hour) // two empty months
			}
		}
		var tags []string
		for _, d := range []struct {
			tag string
			mod int
		}{{"writing", 2}, {"coding", 3}, {"data", 5}} {
			if i%d.mod == 0 {
				tags = append(tags, d.tag)
			}
		}
		in := input(fmt.Sprintf("Catalog prompt %04d", i), tags...)
		if i%5 == 4 {
			in.Visibility = Private
		}
		p := f.mustCreate(t, authors[i%len(authors)], in)
		score := int64((i * 7919) % 1500) // 0..1499: buckets 0 to 11
		if i%11 == 0 {
			score = -int64(i % 7)
		}
		if score != 0 {
			f.setCounts(t, p, max(score, 0), max(-score, 0))
		}
		if in.Visibility == Public {
			public = append(public, catalogPrompt{p.PromptID, p.CreatedAt, score, tags})
		}
	}
	return public
}

// TestCatalogPaging2500 pages through a 2,500-prompt catalog newest first
// (across month buckets, two of them empty), most liked (across score
// buckets) and by the AND tag filter, on a store that returns full pages
// and on one that returns short and empty pages at random: every listing
// holds exactly the prompts it should, in order, none repeated.
func TestCatalogPaging2500(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts embedded.Options
	}{
		{"FullPages", embedded.Options{NoSync: true}},
		{"ShortPages", embedded.Options{NoSync: true, ShortPages: true, Seed: 7}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixtureOn(t, mode.opts, nil)
			f.svc.pageSize = 30
			public := buildCatalog(t, f, 2500)

			newest := slices.Clone(public)
			slices.SortFunc(newest, func(a, b catalogPrompt) int { return b.created.Compare(a.created) })
			t.Run("Newest", func(t *testing.T) {
				expectOrder(t, f.pageAll(t, Listing{}), newest)
			})
			t.Run("MostLiked", func(t *testing.T) {
				liked := slices.Clone(newest)
				slices.SortStableFunc(liked, func(a, b catalogPrompt) int { return int(b.score - a.score) })
				expectOrder(t, f.pageAll(t, Listing{Sort: SortLiked}), liked)
			})
			for _, tags := range [][]string{{"writing"}, {"writing", "coding"}, {"coding", "data", "writing"}} {
				t.Run("Tags="+strings.Join(tags, "+"), func(t *testing.T) {
					var want []catalogPrompt
					for _, p := range newest {
						if hasAll(p.tags, tags) {
							want = append(want, p)
						}
					}
					if len(want) < 10 {
						t.Fatalf("fixture gives only %d prompts", len(want))
					}
					expectOrder(t, f.pageAll(t, Listing{Tags: tags}), want)
				})
			}
		})
	}
}

func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// expectOrder checks that got lists exactly want, in want's order.
func expectOrder(t *testing.T, got []Item, want []catalogPrompt) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("listed %d prompts, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i].PromptID != want[i].id {
			t.Fatalf("item %d is %s, want %s (no repeats, no gaps, right order)", i, got[i].PromptID, want[i].id)
		}
	}
}

func TestNewestSkipsEmptyMonthsCheaply(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p := f.mustCreate(t, alice, input("Lonely prompt"))
	f.clock.Advance(200 * 24 * time.Hour) // about 7 empty months since
	cctx, counter := storage.WithCounter(ctx)
	page, err := f.svc.List(cctx, Listing{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].PromptID != p.PromptID || page.Next != "" {
		t.Fatalf("page = %+v", page)
	}
	// One query per month bucket, no more: an empty month is one query.
	if q := counter.Snapshot().Queries; q > 9 {
		t.Errorf("%d queries for 8 month buckets", q)
	}
}

// TestTagFilterDrivesSmallestTag checks that a two-tag filter reads the
// rarer tag's partition: its cost follows the smaller tag.
func TestTagFilterDrivesSmallestTag(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.pageSize = 5
	for i := 0; i < 40; i++ {
		tags := []string{"writing"}
		if i%10 == 0 {
			tags = append(tags, "fun")
		}
		f.mustCreate(t, alice, input(fmt.Sprintf("Tagged %d", i), tags...))
	}
	cctx, counter := storage.WithCounter(ctx)
	page, err := f.svc.List(cctx, Listing{Tags: []string{"writing", "fun"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 4 {
		t.Fatalf("got %d prompts, want 4", len(page.Items))
	}
	// The catalog read plus one query of the 4-row "fun" partition.
	if q := counter.Snapshot().Queries; q != 2 {
		t.Errorf("%d queries, want 2 (catalog + the smaller tag)", q)
	}
}

func TestUnknownTagListsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.mustCreate(t, alice, input("Something", "writing"))
	page, err := f.svc.List(ctx, Listing{Tags: []string{"writing", "no-such-tag"}}, nil)
	if err != nil || len(page.Items) != 0 {
		t.Errorf("page = %+v, err = %v", page, err)
	}
}

func TestForeignOrForgedCursorsAreRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, c := range []storage.Cursor{
		{Bucket: "fun|" + newPromptID(f.clock.Now())}, // driver not among the tags
		{Bucket: "writing|not-an-id"},
		{Bucket: "writing"},
	} {
		if _, err := f.svc.List(ctx, Listing{Tags: []string{"writing"}}, &c); err == nil {
			t.Errorf("tag cursor %q accepted", c.Bucket)
		}
	}
	for _, c := range []storage.Cursor{{Bucket: "s|a|b"}, {Bucket: "s|a|b|-1"}, {Bucket: "s|a|b|99999"}, {Bucket: "x|a|b|0"}} {
		if _, err := f.svc.List(ctx, Listing{Q: "code"}, &c); err == nil {
			t.Errorf("search cursor %q accepted", c.Bucket)
		}
	}
	if _, err := f.svc.List(ctx, Listing{Sort: SortLiked}, &storage.Cursor{Bucket: "99"}); err == nil {
		t.Error("liked cursor outside the buckets accepted")
	}
}

func TestListingURLsAreCanonical(t *testing.T) {
	t.Parallel()
	a := Listing{Sort: "liked", Tags: []string{" Coding", "writing", "coding"}, Q: "  go  "}
	b := Listing{Sort: "liked", Tags: []string{"writing", "coding"}, Q: "go"}
	if a.CursorQuery() != b.CursorQuery() {
		t.Errorf("%q != %q", a.CursorQuery(), b.CursorQuery())
	}
	if got := a.Normalize().Values().Encode(); got != "q=go&sort=liked&tag=coding&tag=writing" {
		t.Errorf("values = %q", got)
	}
	if got := (Listing{Sort: "bogus"}).Normalize().Sort; got != SortNewest {
		t.Errorf("unknown sort normalises to %q", got)
	}
}

func TestMineListsNewestFirstWithPrivate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.pageSize = 2
	var want []string
	for i := 0; i < 5; i++ {
		in := input(fmt.Sprintf("Mine %d", i))
		if i%2 == 0 {
			in.Visibility = Private
		}
		want = append([]string{f.mustCreate(t, alice, in).PromptID}, want...)
	}
	f.mustCreate(t, bob, input("Not mine"))
	gone := f.mustCreate(t, alice, input("Deleted"))
	if err := f.svc.Delete(ctx, alice, gone.PromptID); err != nil {
		t.Fatal(err)
	}
	var got []string
	var cursor *storage.Cursor
	for {
		page, err := f.svc.ListMine(ctx, alice, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Prompts {
			got = append(got, p.PromptID)
		}
		if page.Next == "" {
			break
		}
		c, err := f.svc.cursors.Decode(MineQuery(alice), page.Next)
		if err != nil {
			t.Fatal(err)
		}
		cursor = &c
	}
	if !slices.Equal(got, want) {
		t.Errorf("mine = %v, want %v", got, want)
	}
	if _, err := f.svc.cursors.Decode(MineQuery(bob), f.svc.cursors.Encode(MineQuery(alice), storage.Cursor{})); err == nil {
		t.Error("alice's cursor accepted for bob's list")
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mk := func(title string, tags ...string) string {
		return f.mustCreate(t, alice, input(title, tags...)).PromptID
	}
	letter := mk("Write a cover letter", "writing")
	letters := mk("Cover letters for developers", "writing", "coding")
	review := mk("Code review checklist", "coding")
	russian := mk("Объясни квантовую физику простыми словами", "education")
	russian2 := mk("Простое объяснение налогов")
	tree := mk("Ёлка своими руками")
	in := input("Secret cover letter")
	in.Visibility = Private
	f.mustCreate(t, alice, in)

	cases := []struct {
		q    string
		tags []string
		want []string
	}{
		// Ranked by matches (whole words beat prefixes), then newest.
		{"cover letter", nil, []string{letter, letters}},
		{"letters", nil, []string{letters}},
		{"let", nil, []string{letters, letter}},
		{"COVER", nil, []string{letters, letter}},
		{"cover", []string{"coding"}, []string{letters}},
		{"review code", nil, []string{review}},
		{"code", nil, []string{review}},
		{"квант", nil, []string{russian}},
		{"КВАНТОВУЮ физику", nil, []string{russian}},
		{"прост", nil, []string{russian2, russian}},
		{"простыми", nil, []string{russian}},
		{"елка", nil, []string{tree}},
		{"ЁЛКА руками", nil, []string{tree}},
		{"cover quantum", nil, nil},
		{"??", nil, nil},
		{"secret", nil, nil},
	}
	for _, c := range cases {
		var got []string
		for _, it := range f.pageAll(t, Listing{Q: c.q, Tags: c.tags}) {
			got = append(got, it.PromptID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("search %q %v = %v, want %v", c.q, c.tags, got, c.want)
		}
	}
}

// TestSearchPagingAcrossWindows pages a search whose matches span several
// ranking windows, on short pages: each match once.
func TestSearchPagingAcrossWindows(t *testing.T) {
	t.Parallel()
	f := newFixtureOn(t, embedded.Options{NoSync: true, ShortPages: true, Seed: 3}, nil)
	f.svc.pageSize = 7
	want := map[string]bool{}
	for i := 0; i < searchWindow+120; i++ {
		title := fmt.Sprintf("Letter number %d", i)
		if i%3 == 0 {
			title = fmt.Sprintf("Letters batch %d", i)
		}
		want[f.mustCreate(t, alice, input(title)).PromptID] = true
	}
	got := f.pageAll(t, Listing{Q: "lett"})
	if len(got) != len(want) {
		t.Errorf("found %d, want %d", len(got), len(want))
	}
	for _, it := range got {
		if !want[it.PromptID] {
			t.Errorf("unexpected %s", it.PromptID)
		}
	}
}

// TestMostLikedStartsAtTopBucketInUse: the walk skips the empty buckets
// above the most popular prompt, and a prompt voted higher raises it.
func TestMostLikedStartsAtTopBucketInUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.svc.pageSize = 5
	var ps []PromptRow
	for i := 0; i < 8; i++ {
		ps = append(ps, f.mustCreate(t, alice, input(fmt.Sprintf("Liked %d", i))))
	}
	f.setCounts(t, ps[0], 3, 0) // bucket 2
	cctx, counter := storage.WithCounter(ctx)
	page, err := f.svc.List(cctx, Listing{Sort: SortLiked}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Items[0].PromptID != ps[0].PromptID {
		t.Fatalf("first is %s", page.Items[0].Title)
	}
	// Buckets 2, 1 and 0 only: three queries, not one per bucket of 24.
	if q := counter.Snapshot().Queries; q != 3 {
		t.Errorf("%d queries, want 3", q)
	}
	f.setCounts(t, ps[5], 5000, 0) // bucket 13
	page, err = f.svc.List(ctx, Listing{Sort: SortLiked}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Items[0].PromptID != ps[5].PromptID || page.Items[1].PromptID != ps[0].PromptID {
		t.Errorf("order after a climb: %v", ids(page.Items))
	}
}

package prompts

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/harmony/harmony/internal/storage"
)

// seedSynthetic seeds n synthetic prompts into a fresh fixture.
func seedSynthetic(t *testing.T, n int, opts SyntheticOptions) (fixture, SyntheticReport) {
	t.Helper()
	f := newFixture(t)
	rep, err := f.svc.SeedSynthetic(ctx, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f, rep
}

// countRows counts every row of table.
func countRows(t *testing.T, table *storage.Table) int {
	t.Helper()
	n := 0
	if err := table.QueryAll(ctx, storage.Query{Scan: true}, func(storage.Entity) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSeedSyntheticCatalog(t *testing.T) {
	t.Parallel()
	var progress []int
	f, rep := seedSynthetic(t, 500, SyntheticOptions{Seed: 7, Authors: 60, Workers: 3,
		Progress: func(done, total int) { progress = append(progress, done) }})
	s := f.svc
	if rep.Prompts != 500 || rep.Public+rep.Private != 500 || rep.Private == 0 || rep.Public < 400 {
		t.Fatalf("report %+v", rep)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 500 {
		t.Errorf("progress %v", progress)
	}
	now := f.clock.Now()
	if rep.Newest.After(now) || rep.Oldest.Before(now.AddDate(0, -syntheticMonths, 0)) || rep.Newest.Sub(rep.Oldest) < 700*24*time.Hour {
		t.Errorf("created %s to %s: not spread over the 24 months before %s", rep.Oldest, rep.Newest, now)
	}

	// The newest catalog lists every public prompt once, newest first.
	items := f.pageAll(t, Listing{})
	if len(items) != rep.Public {
		t.Fatalf("catalog lists %d prompts, want %d public", len(items), rep.Public)
	}
	for i := 1; i < len(items); i++ {
		if items[i].CreatedAt.After(items[i-1].CreatedAt) {
			t.Fatalf("item %d (%s) is newer than item %d", i, items[i].CreatedAt, i-1)
		}
	}

	// Counts match the vote rows, no author votes on their own prompt,
	// and the tail is long while most prompts have few votes.
	var votes, few, many int
	for _, it := range items {
		var likes, dislikes int64
		pk, _ := voteKey(it.PromptID, "")
		err := s.votes.QueryAll(ctx, storage.Query{PartitionKey: pk}, func(e storage.Entity) error {
			var v VoteRow
			if err := storage.Unmarshal(e, &v); err != nil {
				return err
			}
			if v.VoterID == it.AuthorID {
				t.Errorf("%s votes on their own prompt", v.VoterID)
			}
			switch v.VoteValue {
			case Like:
				likes++
			case Dislike:
				dislikes++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if likes != it.Likes || dislikes != it.Dislikes {
			t.Errorf("%s: row says %d/%d, votes say %d/%d", it.PromptID, it.Likes, it.Dislikes, likes, dislikes)
		}
		n := int(likes + dislikes)
		votes += n
		if n <= 2 {
			few++
		}
		if n >= 20 {
			many++
		}
	}
	if votes != rep.Votes {
		t.Errorf("%d vote rows, report says %d", votes, rep.Votes)
	}
	if few < len(items)/2 || many == 0 {
		t.Errorf("votes not skewed: %d of %d prompts have ≤2, %d have ≥20", few, len(items), many)
	}

	// Titles in both languages, each author's titles distinct, and each
	// claimed; tags 1–4 from the catalog.
	var russian, english, withVariables int
	titles := map[string]bool{}
	var prompts []PromptRow
	err := s.prompts.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if strings.HasPrefix(e.PartitionKey, "id|") || strings.HasPrefix(e.RowKey, titleClaimPrefix) {
			return nil
		}
		var p PromptRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		prompts = append(prompts, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 500 {
		t.Fatalf("%d prompt rows, want 500", len(prompts))
	}
	for _, p := range prompts {
		if strings.ContainsFunc(p.Title, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
			russian++
		} else {
			english++
		}
		key := p.AuthorID + "\x00" + p.TitleNormalized
		if titles[key] {
			t.Errorf("%s has %q twice", p.AuthorID, p.Title)
		}
		titles[key] = true
		if !has(t, s.prompts, p.PartitionKey, titleClaimPrefix+storage.EscapeKey(p.TitleNormalized)) {
			t.Errorf("%s: no title claim", p.PromptID)
		}
		if got, err := s.Open(ctx, p.AuthorID, p.PromptID, false); err != nil || got.Title != p.Title {
			t.Errorf("%s does not open by id: %v", p.PromptID, err)
		}
		if n := len(splitTags(p.Tags)); n < 1 || n > 4 {
			t.Errorf("%s has %d tags", p.PromptID, n)
		}
		if strings.Contains(p.PromptText, "{{") {
			withVariables++
		}
	}
	if withVariables < 100 || withVariables > 490 {
		t.Errorf("%d of 500 texts have {{variables}}, want some but not all", withVariables)
	}
	if russian < 150 || english < 150 {
		t.Errorf("%d Russian and %d English titles, want about half each", russian, english)
	}

	// Tag counts are the public prompts per tag.
	want := map[string]int64{}
	for _, p := range prompts {
		if p.Visibility == Public {
			for _, tag := range splitTags(p.Tags) {
				want[tag]++
			}
		}
	}
	tags, err := s.ActiveTags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range tags {
		if tag.PromptCount != want[tag.Tag] {
			t.Errorf("tag %s counts %d, want %d", tag.Tag, tag.PromptCount, want[tag.Tag])
		}
	}
}

func TestSeedSyntheticNeedsNoReindex(t *testing.T) {
	t.Parallel()
	f, _ := seedSynthetic(t, 500, SyntheticOptions{Seed: 3, Authors: 40})
	rep, err := f.svc.Reindex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fixed() != 0 || rep.Skipped != 0 || rep.Prompts != 500 {
		t.Errorf("reindex after a synthetic seed: %s", rep)
	}
}

func TestSeedSyntheticIsDeterministic(t *testing.T) {
	t.Parallel()
	rows := func(f fixture) []string {
		var out []string
		err := f.svc.prompts.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
			var p PromptRow
			if err := storage.Unmarshal(e, &p); err != nil {
				return err
			}
			out = append(out, e.PartitionKey+"|"+e.RowKey+"|"+p.Title+"|"+p.Tags+"|"+p.PromptText+"|"+p.IndexedState)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, _ := seedSynthetic(t, 120, SyntheticOptions{Seed: 11, Authors: 20})
	b, _ := seedSynthetic(t, 120, SyntheticOptions{Seed: 11, Authors: 20, Workers: 1})
	c, _ := seedSynthetic(t, 120, SyntheticOptions{Seed: 12, Authors: 20})
	ra, rb, rc := rows(a), rows(b), rows(c)
	if strings.Join(ra, "\n") != strings.Join(rb, "\n") {
		t.Error("the same seed gave different prompts")
	}
	if strings.Join(ra, "\n") == strings.Join(rc, "\n") {
		t.Error("another seed gave the same prompts")
	}
}

func TestSeedSyntheticTwiceWithOneSeedWritesNothing(t *testing.T) {
	t.Parallel()
	f, _ := seedSynthetic(t, 50, SyntheticOptions{Seed: 5, Authors: 10})
	before := countRows(t, f.svc.prompts) + countRows(t, f.svc.votes) + countRows(t, f.svc.newestIndex)
	f.clock.Advance(time.Hour)
	if _, err := f.svc.SeedSynthetic(ctx, 80, SyntheticOptions{Seed: 5, Authors: 10}); !errors.Is(err, ErrSyntheticExists) {
		t.Fatalf("second run with the same seed: err = %v, want ErrSyntheticExists", err)
	}
	if after := countRows(t, f.svc.prompts) + countRows(t, f.svc.votes) + countRows(t, f.svc.newestIndex); after != before {
		t.Errorf("the refused run wrote: %d rows before, %d after", before, after)
	}
	// Another seed adds to the catalog.
	rep, err := f.svc.SeedSynthetic(ctx, 80, SyntheticOptions{Seed: 6, Authors: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.pageAll(t, Listing{})); got < rep.Public+40 {
		t.Errorf("catalog lists %d after a second seed of %d public", got, rep.Public)
	}
}

// The first month reaches back to the oldest synthetic prompt, also when
// the catalog began later (it begins at the first start).
func TestSeedSyntheticMovesTheFirstMonthBack(t *testing.T) {
	t.Parallel()
	f, rep := seedSynthetic(t, 60, SyntheticOptions{Seed: 1})
	first, err := f.svc.catalogFirstMonth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if oldest := storage.MonthBucket(rep.Oldest); first > oldest {
		t.Errorf("first month %s is after the oldest prompt's month %s", first, oldest)
	}
	// A fresh process (no cached month) reads the moved month from the store.
	f.svc.mu.Lock()
	f.svc.firstMonth = ""
	f.svc.mu.Unlock()
	if got, err := f.svc.catalogFirstMonth(ctx); err != nil || got != first {
		t.Errorf("stored first month %q (%v), want %q", got, err, first)
	}
}

func TestSyntheticTitles(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	russian := 0
	for j := range titleSpace {
		tt := titleAt(j)
		norm := normalizeTitle(tt.text)
		if seen[norm] {
			t.Fatalf("title %d %q repeats", j, tt.text)
		}
		seen[norm] = true
		if n := len(strings.Fields(tt.text)); n < 3 || n > 7 {
			t.Errorf("%q has %d words", tt.text, n)
		}
		if tt.russian {
			russian++
		}
	}
	if share := float64(russian) / float64(titleSpace); share < 0.4 || share > 0.6 {
		t.Errorf("%.0f%% of titles are Russian", 100*share)
	}
	// One author's titles stay distinct past the whole space.
	g := newSynthGen(SyntheticOptions{Seed: 9, Authors: 5}, time.Now(), 10, nil)
	mine := map[string]bool{}
	for k := range titleSpace + 50 {
		tt := g.title(3, k)
		if mine[normalizeTitle(tt.text)] {
			t.Fatalf("author's title %d %q repeats", k, tt.text)
		}
		mine[normalizeTitle(tt.text)] = true
	}
	for _, want := range []string{"объясни квантовую физику простыми словами", "write a cover letter for junior developers"} {
		if !seen[want] {
			t.Errorf("no title %q", want)
		}
	}
}

func TestSyntheticPromptIDs(t *testing.T) {
	t.Parallel()
	g := newSynthGen(SyntheticOptions{Seed: 2, Authors: 10}, time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC), 100, nil)
	var prev string
	for i := range 100 {
		p := g.prompt(i).row
		if !storage.IsID(p.PromptID) || !promptTime(p.PromptID).Equal(p.CreatedAt) {
			t.Fatalf("id %s does not encode %s", p.PromptID, p.CreatedAt)
		}
		if p.PromptID <= prev {
			t.Fatalf("ids do not grow as prompts get older: %s after %s", p.PromptID, prev)
		}
		prev = p.PromptID
	}
}

package prompts

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/harmony/harmony/internal/storage"
)

// Synthetic catalogs ("web seed prompts", the benchmarks in bench_test.go).
//
// SeedSynthetic writes exactly the rows Create, Vote and reconcile would
// have written, already in their final state, so Reindex finds nothing to
// fix: the Prompts row (IndexedState included), its title claim and id
// lookup, the PromptVotes rows behind Likes and Dislikes, every index row
// and the TagCatalog counts. It skips the per-prompt round trips of the
// normal path and writes rows grouped by partition, up to 100 to a
// transaction, from a few goroutines, one chunk of prompts at a time, so a
// million prompts take minutes and bounded memory.

// SyntheticOptions tune SeedSynthetic. The zero value is usable.
type SyntheticOptions struct {
	// Seed makes a run repeatable: the same seed, count and clock give the
	// same prompts. The seed also names the authors, so runs with different
	// seeds add to each other and never clash on a title.
	Seed int64
	// Authors is the size of the author (and voter) pool; 0 means 3000.
	Authors int
	// Workers is how many goroutines write at once; 0 means 4.
	Workers int
	// Progress, when set, is called after each chunk with the number of
	// prompts written so far and the total.
	Progress func(done, total int)
}

// SyntheticReport says what SeedSynthetic wrote.
type SyntheticReport struct {
	Prompts      int // prompts created
	Public       int
	Private      int
	Votes        int // PromptVotes rows
	Authors      int // distinct authors
	Rows         int // table rows written, all tables
	Transactions int // storage transactions used to write them
	// Oldest and Newest bound the prompts' creation times.
	Oldest, Newest time.Time
	Elapsed        time.Duration
}

func (r SyntheticReport) String() string {
	return fmt.Sprintf("prompts: seeded %d synthetic prompts (%d public, %d private) by %d authors with %d votes, created %s to %s; %d rows in %d transactions in %s",
		r.Prompts, r.Public, r.Private, r.Authors, r.Votes,
		r.Oldest.Format("2006-01-02"), r.Newest.Format("2006-01-02"),
		r.Rows, r.Transactions, r.Elapsed.Round(time.Millisecond))
}

// ErrSyntheticExists is a second run with a seed whose prompts are
// already in the store.
var ErrSyntheticExists = errors.New("prompts: synthetic prompts with this seed already exist")

const (
	// syntheticMonths is how far back synthetic prompts go.
	syntheticMonths = 24
	// syntheticChunk is how many prompts are generated and written at a
	// time: large enough to fill transactions, small enough to bound memory.
	syntheticChunk = 5000
	// maxSyntheticVotes caps the long tail of votes on one prompt.
	maxSyntheticVotes = 400
	// privateShare of synthetic prompts are private.
	privateShare = 0.1
)

// SyntheticAuthor is the memberKey of author (or voter) i of a seed's pool.
// The "synthetic:" prefix is no sign-in method's, so these never collide
// with real members.
func SyntheticAuthor(seed int64, i int) string {
	return fmt.Sprintf("synthetic:s%d-u%04d", seed, i+1)
}

// SeedSynthetic creates n synthetic prompts (about 90% public) by a pool
// of synthetic authors, with titles in English and Russian, 1–4 tags from
// the active catalog, creation times spread evenly over the 24 months
// before now, and votes from other pool members (most prompts get 0–2, a
// long tail a few hundred). A second run with the same seed fails with
// ErrSyntheticExists before writing anything.
func (s *Service) SeedSynthetic(ctx context.Context, n int, opts SyntheticOptions) (SyntheticReport, error) {
	start := time.Now()
	if n < 0 {
		return SyntheticReport{}, fmt.Errorf("prompts: synthetic count %d is negative", n)
	}
	if opts.Authors <= 0 {
		opts.Authors = 3000
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	active, err := s.ActiveTags(ctx)
	if err != nil {
		return SyntheticReport{}, err
	}
	gen := newSynthGen(opts, s.now(), n, active)
	rep := SyntheticReport{}
	if n == 0 {
		return rep, nil
	}
	chunk := gen.chunk(0, min(syntheticChunk, n))
	if err := s.checkSeedUnused(ctx, opts.Seed, chunk[0].row); err != nil {
		return rep, err
	}
	// The walk of the newest index stops at the catalog's first month, so
	// it must reach back before the first row lands there.
	if err := s.coverMonth(ctx, storage.MonthBucket(gen.oldest)); err != nil {
		return rep, err
	}
	w := &synthWriter{workers: opts.Workers}
	tagCounts := map[string]int64{}
	top := 0 // the highest most-liked bucket seeded
	for done := 0; ; chunk = gen.chunk(done, min(syntheticChunk, n-done)) {
		canonical, indexes := s.synthBatches(chunk)
		// Canonical rows first, as the normal path does: if the run dies
		// between the two, Reindex rebuilds the indexes from them.
		if err := w.write(ctx, canonical); err != nil {
			return rep, err
		}
		if err := w.write(ctx, indexes); err != nil {
			return rep, err
		}
		for _, sp := range chunk {
			p := &sp.row
			if p.Visibility == Public {
				rep.Public++
				top = max(top, likedBucket(p.Likes-p.Dislikes))
				for _, t := range splitTags(p.Tags) {
					tagCounts[t]++
				}
			} else {
				rep.Private++
			}
			rep.Votes += len(sp.votes)
			if rep.Newest.IsZero() || p.CreatedAt.After(rep.Newest) {
				rep.Newest = p.CreatedAt
			}
			if rep.Oldest.IsZero() || p.CreatedAt.Before(rep.Oldest) {
				rep.Oldest = p.CreatedAt
			}
		}
		done += len(chunk)
		rep.Prompts = done
		if opts.Progress != nil {
			opts.Progress(done, n)
		}
		if done == n {
			break
		}
	}
	if err := s.addTagCounts(ctx, tagCounts); err != nil {
		return rep, err
	}
	if err := s.raiseLikedTop(ctx, top); err != nil {
		return rep, err
	}
	for _, k := range gen.perAuthor {
		if k > 0 {
			rep.Authors++
		}
	}
	rep.Rows, rep.Transactions = int(w.rows.Load()), int(w.txs.Load())
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// checkSeedUnused refuses a run whose first prompt's title is already
// claimed: the same seed ran here before (titles and authors follow the
// seed), and writing again would fail halfway on a duplicate.
func (s *Service) checkSeedUnused(ctx context.Context, seed int64, first PromptRow) error {
	pk, rk := titleClaimKey(first.AuthorID, first.TitleNormalized)
	_, err := s.prompts.Get(ctx, pk, rk)
	switch {
	case err == nil:
		return fmt.Errorf("%w (seed %d): pass another seed to add more", ErrSyntheticExists, seed)
	case errors.Is(err, storage.ErrNotFound):
		return nil
	}
	return err
}

// synthPrompt is one generated prompt with its votes.
type synthPrompt struct {
	row   PromptRow
	votes []VoteRow
}

// synthBatches groups a chunk's rows by table and partition: the canonical
// rows (Prompts with title claims and lookups, PromptVotes) and the index
// rows, each written as the normal path writes them (inserts for the
// canonical rows, replacing upserts for the indexes).
func (s *Service) synthBatches(chunk []synthPrompt) (canonical, indexes *txBatch) {
	canonical, indexes = newTxBatch(), newTxBatch()
	for i := range chunk {
		p := &chunk[i].row
		canonical.add(s.prompts, storage.TxInsert, p.PartitionKey, *p)
		cpk, crk := titleClaimKey(p.AuthorID, p.TitleNormalized)
		canonical.add(s.prompts, storage.TxInsert, cpk, TitleClaimRow{PartitionKey: cpk, RowKey: crk, PromptID: p.PromptID})
		lpk, lrk := promptLookupKey(p.PromptID)
		canonical.add(s.prompts, storage.TxInsert, lpk, PromptLookupRow{PartitionKey: lpk, RowKey: lrk, PromptID: p.PromptID, AuthorID: p.AuthorID})
		for _, v := range chunk[i].votes {
			canonical.add(s.votes, storage.TxInsert, v.PartitionKey, v)
		}
		for _, r := range s.indexRows(p) {
			indexes.add(r.Table, storage.TxUpsert, r.Entity.PartitionKey, r.Entity)
		}
	}
	return canonical, indexes
}

// txBatch is rows grouped by table and partition, in first-seen order.
type txBatch struct {
	groups map[string]*txGroup
	order  []*txGroup
}

type txGroup struct {
	table *storage.Table
	kind  storage.TxKind
	rows  []any // tagged row structs, marshalled by the writer, or entities
}

func newTxBatch() *txBatch { return &txBatch{groups: map[string]*txGroup{}} }

func (b *txBatch) add(table *storage.Table, kind storage.TxKind, pk string, row any) {
	key := table.Name() + "\x00" + pk
	g := b.groups[key]
	if g == nil {
		g = &txGroup{table: table, kind: kind}
		b.groups[key] = g
		b.order = append(b.order, g)
	}
	g.rows = append(g.rows, row)
}

// synthWriter writes batches with a few goroutines and counts what it wrote.
type synthWriter struct {
	workers   int
	rows, txs atomic.Int64
}

// write writes every group of b, each in transactions of at most
// storage.MaxTxOps operations and storage.MaxTxBytes bytes.
func (w *synthWriter) write(ctx context.Context, b *txBatch) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(w.workers)
	for _, grp := range b.order {
		g.Go(func() error { return w.writeGroup(ctx, grp) })
	}
	return g.Wait()
}

func (w *synthWriter) writeGroup(ctx context.Context, grp *txGroup) error {
	ops := make([]storage.TxOp, 0, min(len(grp.rows), storage.MaxTxOps))
	size := 0
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		if err := grp.table.Transact(ctx, ops); err != nil {
			return fmt.Errorf("prompts: seed %s (%s): %w", grp.table.Name(), ops[0].Entity.PartitionKey, err)
		}
		w.rows.Add(int64(len(ops)))
		w.txs.Add(1)
		ops, size = ops[:0], 0
		return nil
	}
	for _, row := range grp.rows {
		e, ok := row.(storage.Entity)
		if !ok {
			var err error
			if e, err = storage.Marshal(row); err != nil {
				return err
			}
		}
		n := storage.EntitySize(e)
		if len(ops) == storage.MaxTxOps || size+n > storage.MaxTxBytes {
			if err := flush(); err != nil {
				return err
			}
		}
		ops = append(ops, storage.TxOp{Kind: grp.kind, Entity: e, Mode: storage.Replace})
		size += n
	}
	return flush()
}

// synthGen generates prompts newest first, so prompt ids (which count down
// in time) and reverse-time keys grow through a run: most partitions are
// appended to in key order, which B-tree stores like bbolt write fastest.
type synthGen struct {
	rng       *rand.Rand
	entropy   io.Reader
	seed      int64
	now       time.Time
	oldest    time.Time
	n         int
	perAuthor []int // prompts generated so far per author: title uniqueness
	tags      []string
	tagCum    []float64 // cumulative popularity of tags
	titleMul  int       // a step coprime with titleSpace (see title)
}

func newSynthGen(opts SyntheticOptions, now time.Time, n int, active []TagRow) *synthGen {
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x9e3779b97f4a7c15))
	now = now.UTC().Truncate(time.Millisecond)
	g := &synthGen{
		rng:       rng,
		entropy:   rngReader{rng},
		seed:      opts.Seed,
		now:       now,
		oldest:    now.AddDate(0, -syntheticMonths, 0),
		n:         n,
		perAuthor: make([]int, opts.Authors),
	}
	// Tags are popular in catalog order, falling off like 1/rank^0.8.
	total := 0.0
	for i, t := range active {
		g.tags = append(g.tags, t.Tag)
		total += 1 / math.Pow(float64(i+1), 0.8)
		g.tagCum = append(g.tagCum, total)
	}
	g.titleMul = coprimeStep(titleSpace, 7919+int(uint64(opts.Seed)%1000))
	return g
}

// chunk generates prompts from, from+1, ... from+size-1 of the run.
func (g *synthGen) chunk(from, size int) []synthPrompt {
	out := make([]synthPrompt, size)
	for i := range out {
		out[i] = g.prompt(from + i)
	}
	return out
}

// prompt generates prompt i of the run (0 is the newest).
func (g *synthGen) prompt(i int) synthPrompt {
	r := g.rng
	// Stratified times: prompt i falls in the i-th of n equal slices of
	// the window, so times are uniform and strictly newest first.
	span := g.now.Sub(g.oldest)
	frac := (float64(i) + r.Float64()) / float64(g.n)
	created := g.now.Add(-time.Duration(frac * float64(span))).Truncate(time.Millisecond)

	// A few authors write much more than most (density ∝ 1/x^(1/3)).
	a := min(int(float64(len(g.perAuthor))*math.Pow(r.Float64(), 1.5)), len(g.perAuthor)-1)
	author := SyntheticAuthor(g.seed, a)
	k := g.perAuthor[a]
	g.perAuthor[a]++
	t := g.title(a, k)

	tags := g.pickTags(t.category)
	id := newPromptIDFrom(created, g.entropy)
	pk, rk := promptKey(author, id)
	p := PromptRow{
		PartitionKey: pk, RowKey: rk, PromptID: id, AuthorID: author,
		Title: t.text, TitleNormalized: normalizeTitle(t.text), PromptText: g.text(t),
		Tags: strings.Join(tags, ";"), Visibility: Public, CreatedAt: created, UpdatedAt: created,
		Revision: 1,
	}
	if r.Float64() < privateShare {
		p.Visibility = Private
	}
	var votes []VoteRow
	if p.Visibility == Public {
		votes = g.votes(&p, a)
	}
	p.IndexedState = stateOf(&p)
	return synthPrompt{row: p, votes: votes}
}

// votes draws a prompt's votes: a Pareto count (about 56% of prompts get
// none, 73% at most 2, 0.4% a hundred or more) from consecutive members of
// the pool other than the author, each a like with the prompt's own
// probability.
func (g *synthGen) votes(p *PromptRow, author int) []VoteRow {
	r := g.rng
	n := int(math.Pow(1-r.Float64(), -1/1.2) - 1)
	n = min(n, maxSyntheticVotes, len(g.perAuthor)-1)
	if n == 0 {
		return nil
	}
	likeRate := 0.55 + 0.43*r.Float64()
	start := r.IntN(len(g.perAuthor))
	votes := make([]VoteRow, 0, n)
	for j := 0; len(votes) < n; j++ {
		voter := (start + j) % len(g.perAuthor)
		if voter == author {
			continue
		}
		value := int64(Like)
		if r.Float64() >= likeRate {
			value = Dislike
			p.Dislikes++
		} else {
			p.Likes++
		}
		voterID := SyntheticAuthor(g.seed, voter)
		at := p.CreatedAt.Add(time.Duration(r.Float64() * float64(g.now.Sub(p.CreatedAt)))).Truncate(time.Millisecond)
		pk, rk := voteKey(p.PromptID, voterID)
		votes = append(votes, VoteRow{PartitionKey: pk, RowKey: rk, PromptID: p.PromptID, VoterID: voterID, VoteValue: value, UpdatedAt: at})
	}
	return votes
}

// pickTags gives 1–4 distinct active tags: the category's own tag when
// active, then popular ones.
func (g *synthGen) pickTags(category int) []string {
	if len(g.tags) == 0 {
		return nil
	}
	want := 1 + g.rng.IntN(4)
	var tags []string
	home := synthCategories[category].Tag
	for _, t := range g.tags {
		if t == home {
			tags = append(tags, t)
		}
	}
	for tries := 0; len(tags) < min(want, len(g.tags)) && tries < 50; tries++ {
		x := g.rng.Float64() * g.tagCum[len(g.tagCum)-1]
		i := 0
		for g.tagCum[i] < x {
			i++
		}
		if !slices.Contains(tags, g.tags[i]) {
			tags = append(tags, g.tags[i])
		}
	}
	return tags
}

// synthTitle is a generated title and what it was built from.
type synthTitle struct {
	text     string
	russian  bool
	category int
}

// title is author a's k-th title. Titles are numbered 0..titleSpace-1;
// the author's k-th takes number (titleMul·k + offset(a)) mod titleSpace,
// which runs through every number once before any repeats, so an author's
// titles are distinct (past titleSpace of them a " (2)" suffix keeps them
// so) while different authors' sequences start in different places.
func (g *synthGen) title(a, k int) synthTitle {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", g.seed, a)
	offset := int(h.Sum64() % uint64(titleSpace))
	t := titleAt((g.titleMul*(k%titleSpace) + offset) % titleSpace)
	if round := k / titleSpace; round > 0 {
		t.text += fmt.Sprintf(" (%d)", round+1)
	}
	return t
}

// titleAt is title number j: English numbers first, then Russian; within
// a language, (category, verb, object) pairs times qualifiers.
func titleAt(j int) synthTitle {
	russian := j >= titleSpaceEN
	if russian {
		j -= titleSpaceEN
	}
	quals := synthQualifiersEN
	if russian {
		quals = synthQualifiersRU
	}
	q := quals[j%len(quals)]
	j /= len(quals)
	for c, cat := range synthCategories {
		verbs, objects := cat.VerbsEN, cat.ObjectsEN
		if russian {
			verbs, objects = cat.VerbsRU, cat.ObjectsRU
		}
		if pairs := len(verbs) * len(objects); j >= pairs {
			j -= pairs
			continue
		}
		return synthTitle{
			text:     verbs[j%len(verbs)] + " " + objects[j/len(verbs)] + " " + q,
			russian:  russian,
			category: c,
		}
	}
	panic("prompts: title number out of range")
}

// text writes a prompt text for t: an optional role, the title as the
// task, and a few instructions, some with {{variables}}.
func (g *synthGen) text(t synthTitle) string {
	r := g.rng
	roles, details := synthRolesEN, synthDetailsEN
	if t.russian {
		roles, details = synthRolesRU, synthDetailsRU
	}
	var b strings.Builder
	if r.IntN(3) > 0 {
		b.WriteString(roles[r.IntN(len(roles))])
		b.WriteByte(' ')
	}
	b.WriteString(t.text)
	b.WriteByte('.')
	n := 1 + r.IntN(4)
	start := r.IntN(len(details))
	for i := range n {
		b.WriteByte(' ')
		b.WriteString(details[(start+i*3)%len(details)])
	}
	return b.String()
}

// coprimeStep is the first number from start up that shares no factor
// with n.
func coprimeStep(n, start int) int {
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	for s := start; ; s++ {
		if gcd(s, n) == 1 {
			return s % n
		}
	}
}

// rngReader is ULID entropy from the run's generator, so ids follow the seed.
type rngReader struct{ r *rand.Rand }

func (e rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e.r.Uint32())
	}
	return len(p), nil
}

// synthCategory is a family of titles: verbs that fit its objects, in both
// languages (Russian objects in the accusative, as the verbs want), and
// the tag its prompts carry first.
type synthCategory struct {
	Tag       string   `json:"tag"`
	VerbsEN   []string `json:"verbsEn"`
	ObjectsEN []string `json:"objectsEn"`
	VerbsRU   []string `json:"verbsRu"`
	ObjectsRU []string `json:"objectsRu"`
}

// synthWordsJSON holds the word lists. Every title is verb + object +
// qualifier: 3–7 words. Objects are unique within a language, so distinct
// numbers give distinct titles.
//
//go:embed synthetic_words.json
var synthWordsJSON []byte

var synthWords = func() (w struct {
	Categories   []synthCategory `json:"categories"`
	QualifiersEN []string        `json:"qualifiersEn"`
	QualifiersRU []string        `json:"qualifiersRu"`
	RolesEN      []string        `json:"rolesEn"`
	RolesRU      []string        `json:"rolesRu"`
	DetailsEN    []string        `json:"detailsEn"`
	DetailsRU    []string        `json:"detailsRu"`
}) {
	if err := json.Unmarshal(synthWordsJSON, &w); err != nil {
		panic("prompts: synthetic_words.json: " + err.Error())
	}
	return w
}()

var (
	synthCategories                      = synthWords.Categories
	synthQualifiersEN, synthQualifiersRU = synthWords.QualifiersEN, synthWords.QualifiersRU
	synthRolesEN, synthRolesRU           = synthWords.RolesEN, synthWords.RolesRU
	synthDetailsEN, synthDetailsRU       = synthWords.DetailsEN, synthWords.DetailsRU
)

// titleSpaceEN and titleSpace count the distinct titles: English, and both
// languages together.
var titleSpaceEN, titleSpace = func() (int, int) {
	en, ru := 0, 0
	for _, c := range synthCategories {
		en += len(c.VerbsEN) * len(c.ObjectsEN)
		ru += len(c.VerbsRU) * len(c.ObjectsRU)
	}
	en *= len(synthQualifiersEN)
	ru *= len(synthQualifiersRU)
	return en, en + ru
}()

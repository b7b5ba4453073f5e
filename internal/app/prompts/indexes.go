package prompts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/textsearch"
)

// How the indexes follow the canonical Prompts row.
//
// Every command writes the Prompts row first (with its ETag) and then calls
// reconcile, which brings the five index tables to what the row says they
// must hold. The row itself records what the indexes hold, in IndexedState,
// so reconcile always knows the exact diff: rows the recorded state had and
// the current state does not are deleted; rows that are new, or whose
// denormalised content (title, tags, counts) changed, are written. It then
// records the new state on the row with the row's ETag.
//
// Concurrent reconciles converge. If the ETag write fails, somebody changed
// the row meanwhile; the loser reads the row again, deletes the rows it
// wrote that the fresh state does not want, and rewrites those it does (its
// writes may have landed after the winner's). Any write that lands after the
// last successful ETag write therefore belongs to a reconcile whose own ETag
// write then fails and repairs it. That loop is the projection kit's
// (projection.Recorder), which the forum and events use too; this file says
// what the prompts' record and rows are. In one process reconciles of one
// prompt also take a striped lock, so they queue instead of racing.
//
// If the process dies between the canonical write and the ETag write, the
// recorded state is still the old one and the next reconcile of the prompt,
// or "web reindex prompts" (reindex.go), finishes the job.

// indexedState is what the indexes hold for a listed prompt: every field
// that shapes an index row's key or content.
type indexedState struct {
	Title     string    `json:"t"`
	Tags      string    `json:"g,omitempty"`
	Likes     int64     `json:"l,omitempty"`
	Dislikes  int64     `json:"d,omitempty"`
	UpdatedAt time.Time `json:"u"`
}

// listed reports whether p belongs in the indexes: public, live and not
// taken down. No index can leak a private, deleted or hidden prompt.
func listed(p *PromptRow) bool {
	return p != nil && !p.IsDeleted && p.Visibility == Public && p.HiddenAt == nil
}

// stateOf is the IndexedState p calls for ("" when it is not listed).
func stateOf(p *PromptRow) string {
	if !listed(p) {
		return ""
	}
	b, err := json.Marshal(indexedState{Title: p.Title, Tags: p.Tags, Likes: p.Likes, Dislikes: p.Dislikes, UpdatedAt: p.UpdatedAt.UTC()})
	if err != nil {
		panic(err) // plain strings, numbers and a time always marshal
	}
	return string(b)
}

// asIndexed is p as a recorded state describes it, or nil when the state
// is "" (nothing indexed) or unreadable (then reconcile rewrites all).
func asIndexed(p *PromptRow, state string) *PromptRow {
	if state == "" {
		return nil
	}
	var st indexedState
	if err := json.Unmarshal([]byte(state), &st); err != nil {
		return nil
	}
	q := *p
	q.Title, q.TitleNormalized, q.Tags = st.Title, normalizeTitle(st.Title), st.Tags
	q.Likes, q.Dislikes, q.UpdatedAt = st.Likes, st.Dislikes, st.UpdatedAt
	// A recorded state was listed: whatever unlisted p since (a delete,
	// going private, a take-down) was not so then.
	q.IsDeleted, q.Visibility, q.HiddenAt = false, Public, nil
	return &q
}

// indexRow is one row some index holds for a prompt.
type indexRow = projection.Row

// index is row v of table t.
func index(t *storage.Table, v any) indexRow { return indexRow{Table: t, Entity: mustMarshal(v)} }

// indexRows are the rows the indexes hold for p (none unless listed).
func (s *Service) indexRows(p *PromptRow) []indexRow {
	if !listed(p) {
		return nil
	}
	var rows []indexRow
	pk, rk := newestKey(p.CreatedAt, p.PromptID)
	rows = append(rows, index(s.newestIndex, NewestRow{
		PartitionKey: pk, RowKey: rk, Card: p.card(), TitleNormalized: p.TitleNormalized, UpdatedAt: p.UpdatedAt,
	}))
	pk, rk = likedKey(p.Likes-p.Dislikes, p.CreatedAt, p.PromptID)
	rows = append(rows, index(s.likedIndex, LikedRow{PartitionKey: pk, RowKey: rk, Card: p.card(), Score: p.Likes - p.Dislikes}))
	for _, tag := range splitTags(p.Tags) {
		pk, rk := tagIndexKey(tag, p.PromptID)
		rows = append(rows, index(s.tagIndex, TagIndexRow{PartitionKey: pk, RowKey: rk, Tag: tag, Card: p.card(), Visibility: p.Visibility}))
	}
	for _, tok := range textsearch.Tokens(p.Title) {
		pk, rk := titleTokenKey(tok, p.PromptID)
		rows = append(rows, index(s.titleSearch, TitleTokenRow{
			PartitionKey: pk, RowKey: rk, Token: tok, PromptID: p.PromptID, Title: p.Title, Tags: p.Tags,
			Visibility: p.Visibility, AuthorID: p.AuthorID, CreatedAt: p.CreatedAt,
		}))
	}
	return rows
}

// reconcileAttempts bounds one reconcile's ETag retries. Each retry means
// another writer changed the row; under a storm of votes the last voter's
// reconcile finishes the job.
const reconcileAttempts = 64

// newIndexer is the recorded-state loop (projection.Recorder) over the
// prompts: the record is IndexedState, the rows indexRows.
func (s *Service) newIndexer() *projection.Recorder[PromptRow] {
	return &projection.Recorder[PromptRow]{
		Canonical: s.prompts,
		Property:  "IndexedState",
		Rows:      func(p PromptRow) ([]projection.Row, error) { return s.indexRows(&p), nil },
		Record:    func(p PromptRow, _ []projection.Row) (string, error) { return stateOf(&p), nil },
		Recorded: func(p PromptRow, state string) ([]projection.Row, error) {
			had := s.indexRows(asIndexed(&p, state))
			if had == nil {
				s.log.Warn("prompts: unreadable IndexedState, rewriting", "prompt", p.PromptID)
			}
			return had, nil
		},
		// The most-liked walk starts at the top bucket in use: raise it
		// before the row lands there, so no listing can miss it.
		Moving: func(ctx context.Context, p PromptRow, from string) error {
			if b := enteredBucket(asIndexed(&p, from), &p); b > 0 {
				return s.raiseLikedTop(ctx, b)
			}
			return nil
		},
		Attempts: reconcileAttempts,
	}
}

// reconcile brings the indexes of one prompt in step with its Prompts row
// (see the comment at the top of this file). A missing row is nothing to do.
func (s *Service) reconcile(ctx context.Context, authorID, promptID string) error {
	defer s.locks.lock(promptID)()
	pk, rk := promptKey(authorID, promptID)
	f, err := s.indexer.Follow(ctx, pk, rk)
	if errors.Is(err, storage.ErrConflict) {
		// Every attempt lost to another change of the row. Each change is
		// followed by its writer's own reconcile, and the last of them
		// sees the final row, so the indexes still converge: the command
		// that got here has landed and must not report failure.
		s.log.WarnContext(ctx, "prompts: reconcile lost every race; a later one finishes", "prompt", promptID, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("prompts: reconcile %s: %w", promptID, err)
	}
	if !f.Moved {
		return nil
	}
	// The counts only steer the AND filter and label the chips, and
	// reindex makes them exact, so a failure here is logged, not returned.
	if err := s.addTagCounts(ctx, tagCountDiff(asIndexed(&f.Row, f.From), &f.Row)); err != nil {
		s.log.WarnContext(ctx, "prompts: tag counts", "prompt", promptID, "err", err)
	}
	return nil
}

// tagCountDiff is the change of each tag's public prompt count when the
// indexes move from before to after.
func tagCountDiff(before, after *PromptRow) map[string]int64 {
	d := map[string]int64{}
	if listed(before) {
		for _, t := range splitTags(before.Tags) {
			d[t]--
		}
	}
	if listed(after) {
		for _, t := range splitTags(after.Tags) {
			d[t]++
		}
	}
	for t, n := range d {
		if n == 0 {
			delete(d, t)
		}
	}
	return d
}

// addTagCounts moves the TagCatalog counts by d, each at its ETag.
func (s *Service) addTagCounts(ctx context.Context, d map[string]int64) error {
	for tag, n := range d {
		if err := s.editTag(ctx, tag, func(t *TagRow) { t.PromptCount = max(t.PromptCount+n, 0) }); err != nil {
			return fmt.Errorf("prompts: count tag %s: %w", tag, err)
		}
	}
	return nil
}

// enteredBucket is the most-liked bucket after moved into, when it is
// not bucket 0 and not where before was; 0 otherwise.
func enteredBucket(before, after *PromptRow) int {
	if !listed(after) {
		return 0
	}
	b := likedBucket(after.Likes - after.Dislikes)
	if b == 0 || listed(before) && likedBucket(before.Likes-before.Dislikes) == b {
		return 0
	}
	return b
}

// likedTop is the highest most-liked bucket that may hold a prompt, from
// the index's meta row; the whole range when the row is missing. A walk
// starts there, so empty buckets above the most popular prompt cost
// nothing. The top only rises (raiseLikedTop) until reindex sets it
// exactly, so a prompt is never above it.
func (s *Service) likedTop(ctx context.Context) (int, error) {
	pk, rk := likedMetaKey()
	m, err := storage.Get[LikedMetaRow](ctx, s.likedIndex, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return likedBuckets - 1, nil
	}
	if err != nil {
		return 0, err
	}
	return int(min(max(m.Top, 0), likedBuckets-1)), nil
}

// raiseLikedTop makes the top bucket at least b.
func (s *Service) raiseLikedTop(ctx context.Context, b int) error {
	pk, rk := likedMetaKey()
	_, err := storage.Modify(ctx, s.likedIndex, pk, rk, func(m *LikedMetaRow, _ bool) error {
		if m.Top >= int64(b) {
			return storage.ErrNoChange
		}
		m.Top = int64(b)
		return nil
	})
	return err
}

// setLikedTop sets the top bucket to exactly b (reindex).
func (s *Service) setLikedTop(ctx context.Context, b int) error {
	pk, rk := likedMetaKey()
	_, err := s.likedIndex.Upsert(ctx, mustMarshal(LikedMetaRow{PartitionKey: pk, RowKey: rk, Top: int64(b)}), storage.Replace)
	return err
}

// stripedLocks serialise work on one prompt inside one process.
type stripedLocks [64]sync.Mutex

func (l *stripedLocks) lock(key string) (unlock func()) {
	h := fnv.New32a()
	h.Write([]byte(key))
	m := &l[h.Sum32()%uint32(len(l))]
	m.Lock()
	return m.Unlock
}

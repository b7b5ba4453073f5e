package prompts

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// ReindexReport says what a rebuild found and fixed. A rebuild of indexes
// that were right reports zero fixes.
type ReindexReport struct {
	Prompts        int // canonical prompt rows read
	RowsWritten    int // index rows written because missing or wrong
	RowsDeleted    int // index rows deleted because no prompt wants them
	VotesRecounted int // prompts whose Likes/Dislikes were corrected from PromptVotes
	TagsRecounted  int // tags whose PromptCount was corrected
	LookupsFixed   int // id lookup and title claim rows written or removed
	Skipped        int // prompts changed while the rebuild ran, put right from their rows as they are now
}

// Fixed is how many rows the rebuild changed.
func (r ReindexReport) Fixed() int {
	return r.RowsWritten + r.RowsDeleted + r.VotesRecounted + r.TagsRecounted + r.LookupsFixed
}

func (r ReindexReport) String() string {
	s := fmt.Sprintf("prompts: %d read; fixed %d index rows written, %d deleted, %d vote counts, %d tag counts, %d lookups",
		r.Prompts, r.RowsWritten, r.RowsDeleted, r.VotesRecounted, r.TagsRecounted, r.LookupsFixed)
	if r.Skipped > 0 {
		s += fmt.Sprintf("; %d prompts changed meanwhile, put right as they are now", r.Skipped)
	}
	return s
}

// Reindex rebuilds every prompt index table from the Prompts table, the
// truth: counts from PromptVotes, then the newest, most-liked, tag and
// title rows, the id lookup and title claim rows, and the tag counts. It
// is idempotent: it compares what each table holds with what the prompts
// call for and writes only the difference, so a second run reports zero.
//
// It reads every table in full, once: memory grows with the catalog (a
// fingerprint per index row, about a gigabyte at a million prompts). A
// prompt changed by a request while it runs is found when its record is
// written at the ETag read (for every prompt whose rows it wrote, even
// when the record stands): the rows its old copy called for are taken
// away again and it is reconciled as it is now (undoStale), so a prompt
// made private meanwhile is not listed again from the old copy.
func (s *Service) Reindex(ctx context.Context) (ReindexReport, error) {
	var rep ReindexReport
	votes, err := s.countVotes(ctx)
	if err != nil {
		return rep, err
	}
	prompts, lookups, claims, err := s.readPrompts(ctx)
	if err != nil {
		return rep, err
	}
	rep.Prompts = len(prompts)

	// want maps each index row's fingerprint to its content's fingerprint
	// and its prompt; rows still unseen after the scan are written.
	want := map[uint64]wantRow{}
	tagCounts := map[string]int64{}
	oldest, top := "", 0
	for i := range prompts {
		p := &prompts[i]
		if v := votes[p.PromptID]; !p.IsDeleted && (v.likes != p.Likes || v.dislikes != p.Dislikes) {
			p.Likes, p.Dislikes = v.likes, v.dislikes
			etag, err := s.prompts.Update(ctx, storage.Entity{PartitionKey: p.PartitionKey, RowKey: p.RowKey,
				Props: map[string]any{"Likes": p.Likes, "Dislikes": p.Dislikes}}, storage.Merge, p.ETag)
			switch {
			case errors.Is(err, storage.ErrPrecondition):
				rep.Skipped++
				p.ETag = "" // changed meanwhile: its own reconcile owns it
			case err != nil:
				return rep, err
			default:
				rep.VotesRecounted++
				p.ETag = etag
			}
		}
		if err := s.fixLookups(ctx, p, lookups, claims, &rep); err != nil {
			return rep, err
		}
		for _, r := range s.indexRows(p) {
			want[fingerprint(r.ID())] = wantRow{content: contentOf(r.Entity), prompt: int32(i)}
		}
		if listed(p) {
			for _, t := range splitTags(p.Tags) {
				tagCounts[t]++
			}
			if m := storage.MonthBucket(p.CreatedAt); oldest == "" || m < oldest {
				oldest = m
			}
			top = max(top, likedBucket(p.Likes-p.Dislikes))
		}
	}
	if err := s.removeStrayLookups(ctx, prompts, lookups, claims, &rep); err != nil {
		return rep, err
	}
	// wrote marks the prompts whose rows the rebuild writes.
	wrote := make([]bool, len(prompts))
	for _, t := range []*storage.Table{s.newestIndex, s.likedIndex, s.tagIndex, s.titleSearch} {
		if err := s.sweepIndex(ctx, t, want, prompts, wrote, &rep); err != nil {
			return rep, err
		}
	}
	// Rows no table held.
	for id, w := range want {
		if w.seen {
			continue
		}
		if err := s.writeWanted(ctx, id, &prompts[w.prompt]); err != nil {
			return rep, err
		}
		rep.RowsWritten++
		wrote[w.prompt] = true
	}
	for i := range prompts {
		p := &prompts[i]
		st := stateOf(p)
		if p.ETag == "" || st == p.IndexedState && !wrote[i] {
			continue
		}
		// Recorded at the ETag read: a prompt whose rows the rebuild
		// wrote is checked this way even when its record stands, since
		// a change meanwhile (made private, deleted, renamed) may have
		// taken away the rows just written from the old copy.
		_, err := s.prompts.Update(ctx, storage.Entity{PartitionKey: p.PartitionKey, RowKey: p.RowKey,
			Props: map[string]any{"IndexedState": st}}, storage.Merge, p.ETag)
		if errors.Is(err, storage.ErrPrecondition) {
			rep.Skipped++
			now, err := s.undoStale(ctx, p)
			if err != nil {
				return rep, err
			}
			// The tag counts follow the prompt as it is now.
			for _, q := range []*PromptRow{p, now} {
				if q == nil || !listed(q) {
					continue
				}
				for _, t := range splitTags(q.Tags) {
					tagCounts[t] += map[bool]int64{true: -1, false: 1}[q == p]
				}
			}
		} else if err != nil {
			return rep, err
		}
	}
	if err := s.fixTagCounts(ctx, tagCounts, &rep); err != nil {
		return rep, err
	}
	if oldest != "" {
		if err := s.coverMonth(ctx, oldest); err != nil {
			return rep, err
		}
	}
	if err := s.fixLikedTop(ctx, top, &rep); err != nil {
		return rep, err
	}
	s.log.InfoContext(ctx, rep.String())
	return rep, nil
}

// undoStale puts right the index rows of p, a copy read before the
// prompt changed: the rows the copy called for and the prompt as it is
// now does not are deleted, and the prompt's own rows are written from
// it as it is now, until a read after the writes finds it unchanged (a
// change meanwhile is followed by its own request's reconcile too). It
// returns the prompt as it is now, nil when it is gone.
func (s *Service) undoStale(ctx context.Context, p *PromptRow) (*PromptRow, error) {
	pk, rk := promptKey(p.AuthorID, p.PromptID)
	stale := *p
	for range reconcileAttempts {
		now, err := storage.Get[PromptRow](ctx, s.prompts, pk, rk)
		gone := errors.Is(err, storage.ErrNotFound)
		if err != nil && !gone {
			return nil, err
		}
		keep := map[string]bool{}
		var rows []indexRow
		if !gone {
			rows = s.indexRows(&now)
		}
		for _, r := range rows {
			keep[r.ID()] = true
		}
		for _, r := range s.indexRows(&stale) {
			if keep[r.ID()] {
				continue
			}
			if err := r.Table.Delete(ctx, r.Entity.PartitionKey, r.Entity.RowKey, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return nil, err
			}
		}
		for _, r := range rows {
			if _, err := r.Table.Upsert(ctx, r.Entity, storage.Replace); err != nil {
				return nil, err
			}
		}
		// The old title's claim, if the rebuild wrote it back: the title
		// is free once the prompt has another, or is gone.
		if gone || now.IsDeleted || now.TitleNormalized != stale.TitleNormalized {
			cpk, crk := titleClaimKey(stale.AuthorID, stale.TitleNormalized)
			if c, err := storage.Get[TitleClaimRow](ctx, s.prompts, cpk, crk); err == nil && c.PromptID == stale.PromptID {
				if err := s.prompts.Delete(ctx, cpk, crk, c.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
					return nil, err
				}
			}
		}
		if gone {
			return nil, nil
		}
		after, err := storage.Get[PromptRow](ctx, s.prompts, pk, rk)
		switch {
		case err == nil && after.ETag == now.ETag:
			return &now, nil // unchanged since its rows were written
		case err != nil && !errors.Is(err, storage.ErrNotFound):
			return nil, err
		}
		stale = now // changed or gone meanwhile: again, from that
	}
	return &stale, nil
}

type wantRow struct {
	content uint64
	prompt  int32
	seen    bool
}

type voteCount struct{ likes, dislikes int64 }

// countVotes reads PromptVotes in full and counts each prompt's votes.
func (s *Service) countVotes(ctx context.Context) (map[string]voteCount, error) {
	out := map[string]voteCount{}
	err := s.votes.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"PromptId", "VoteValue"}}, func(e storage.Entity) error {
		id, _ := e.Props["PromptId"].(string)
		v, _ := e.Props["VoteValue"].(int64)
		c := out[id]
		switch v {
		case Like:
			c.likes++
		case Dislike:
			c.dislikes++
		}
		out[id] = c
		return nil
	})
	return out, err
}

// readPrompts reads the Prompts table in full: prompt rows, and the id
// lookup and title claim rows keyed by their ids.
func (s *Service) readPrompts(ctx context.Context) ([]PromptRow, map[string]PromptLookupRow, map[string]TitleClaimRow, error) {
	var prompts []PromptRow
	lookups := map[string]PromptLookupRow{}
	claims := map[string]TitleClaimRow{}
	err := s.prompts.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		switch {
		case strings.HasPrefix(e.PartitionKey, "id|"):
			var l PromptLookupRow
			if err := storage.Unmarshal(e, &l); err != nil {
				return err
			}
			lookups[l.PromptID] = l
		case strings.HasPrefix(e.RowKey, titleClaimPrefix):
			var c TitleClaimRow
			if err := storage.Unmarshal(e, &c); err != nil {
				return err
			}
			claims[c.PartitionKey+"\x00"+c.RowKey] = c
		default:
			var p PromptRow
			if err := storage.Unmarshal(e, &p); err != nil {
				return err
			}
			prompts = append(prompts, p)
		}
		return nil
	})
	return prompts, lookups, claims, err
}

// fixLookups makes sure a live prompt has its id lookup and title claim.
func (s *Service) fixLookups(ctx context.Context, p *PromptRow, lookups map[string]PromptLookupRow, claims map[string]TitleClaimRow, rep *ReindexReport) error {
	if l, ok := lookups[p.PromptID]; !ok || l.AuthorID != p.AuthorID {
		lpk, lrk := promptLookupKey(p.PromptID)
		if _, err := s.prompts.Upsert(ctx, mustMarshal(PromptLookupRow{PartitionKey: lpk, RowKey: lrk, PromptID: p.PromptID, AuthorID: p.AuthorID}), storage.Replace); err != nil {
			return err
		}
		rep.LookupsFixed++
	}
	if p.IsDeleted {
		return nil
	}
	pk, rk := titleClaimKey(p.AuthorID, p.TitleNormalized)
	if _, ok := claims[pk+"\x00"+rk]; ok {
		return nil
	}
	_, err := s.prompts.Insert(ctx, mustMarshal(TitleClaimRow{PartitionKey: pk, RowKey: rk, PromptID: p.PromptID}))
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	if err == nil {
		rep.LookupsFixed++
		claims[pk+"\x00"+rk] = TitleClaimRow{PartitionKey: pk, RowKey: rk, PromptID: p.PromptID}
	}
	return err
}

// removeStrayLookups deletes title claims whose prompt is gone or deleted
// or has another title now, so the title is free again.
func (s *Service) removeStrayLookups(ctx context.Context, prompts []PromptRow, _ map[string]PromptLookupRow, claims map[string]TitleClaimRow, rep *ReindexReport) error {
	live := map[string]bool{}
	for _, p := range prompts {
		if !p.IsDeleted {
			pk, rk := titleClaimKey(p.AuthorID, p.TitleNormalized)
			live[pk+"\x00"+rk+"\x00"+p.PromptID] = true
		}
	}
	for key, c := range claims {
		if live[key+"\x00"+c.PromptID] {
			continue
		}
		if err := s.prompts.Delete(ctx, c.PartitionKey, c.RowKey, c.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
			return err
		}
		rep.LookupsFixed++
	}
	return nil
}

// sweepIndex reads one index table in full: rows no prompt wants are
// deleted, rows with the wrong content rewritten, the rest marked seen.
func (s *Service) sweepIndex(ctx context.Context, t *storage.Table, want map[uint64]wantRow, prompts []PromptRow, wrote []bool, rep *ReindexReport) error {
	newestMeta, _ := catalogMetaKey()
	likedMeta, _ := likedMetaKey()
	return t.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if t == s.newestIndex && e.PartitionKey == newestMeta || t == s.likedIndex && e.PartitionKey == likedMeta {
			return nil
		}
		id := fingerprint(t.Name() + "\x00" + e.PartitionKey + "\x00" + e.RowKey)
		w, ok := want[id]
		switch {
		case !ok:
			if err := t.Delete(ctx, e.PartitionKey, e.RowKey, e.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
				return err
			}
			rep.RowsDeleted++
			return nil
		case w.content != contentOf(e):
			if err := s.writeWanted(ctx, id, &prompts[w.prompt]); err != nil {
				return err
			}
			rep.RowsWritten++
			wrote[w.prompt] = true
		}
		w.seen = true
		want[id] = w
		return nil
	})
}

// writeWanted writes the index row of p whose fingerprint is id.
func (s *Service) writeWanted(ctx context.Context, id uint64, p *PromptRow) error {
	for _, r := range s.indexRows(p) {
		if fingerprint(r.ID()) == id {
			_, err := r.Table.Upsert(ctx, r.Entity, storage.Replace)
			return err
		}
	}
	return nil
}

// fixTagCounts sets each tag's PromptCount to the count of listed prompts.
func (s *Service) fixTagCounts(ctx context.Context, counts map[string]int64, rep *ReindexReport) error {
	tags, err := s.AllTags(ctx)
	if err != nil {
		return err
	}
	for _, t := range tags {
		if t.PromptCount == counts[t.Tag] {
			continue
		}
		n := counts[t.Tag]
		if err := s.editTag(ctx, t.Tag, func(r *TagRow) { r.PromptCount = n }); err != nil {
			return err
		}
		rep.TagsRecounted++
	}
	return nil
}

// fixLikedTop sets the most-liked top bucket to the highest in use. A top
// below a prompt hides it from the list (a fix); one above costs empty
// queries and is lowered without counting as a fix.
func (s *Service) fixLikedTop(ctx context.Context, top int, rep *ReindexReport) error {
	cur, err := s.likedTop(ctx)
	if err != nil || cur == top {
		return err
	}
	if cur < top {
		rep.RowsWritten++
	}
	return s.setLikedTop(ctx, top)
}

// coverMonth moves the catalog's first month back to month if it is later,
// so the newest walk reaches every bucket.
func (s *Service) coverMonth(ctx context.Context, month string) error {
	first, err := s.catalogFirstMonth(ctx)
	if err != nil || month >= first {
		return err
	}
	pk, rk := catalogMetaKey()
	if _, err := s.newestIndex.Upsert(ctx, mustMarshal(CatalogMetaRow{PartitionKey: pk, RowKey: rk, FirstMonth: month}), storage.Replace); err != nil {
		return err
	}
	s.mu.Lock()
	s.firstMonth, s.firstMonthRead = month, s.now()
	s.mu.Unlock()
	return nil
}

func fingerprint(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// contentOf fingerprints an entity's properties, in name order, with
// times in UTC, so a row read back compares equal to the row marshalled.
func contentOf(e storage.Entity) uint64 {
	names := make([]string, 0, len(e.Props))
	for k := range e.Props {
		names = append(names, k)
	}
	slices.Sort(names)
	h := fnv.New64a()
	for _, k := range names {
		v := e.Props[k]
		if t, ok := v.(time.Time); ok {
			v = t.UTC().Format(time.RFC3339Nano)
		}
		fmt.Fprintf(h, "%s=%T:%v\x00", k, v, v)
	}
	return h.Sum64()
}

// mustMarshal marshals a row type of this package, which always works.
func mustMarshal(row any) storage.Entity {
	e, err := storage.Marshal(row)
	if err != nil {
		panic(err)
	}
	return e
}

// RebuildSubject and Rebuild make the prompt indexes' repair one of the
// app's rebuilds (platform.Rebuilder): web reindex prompts.
func (s *Service) RebuildSubject() string { return "prompts" }

// Rebuild is Reindex.
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) { return s.Reindex(ctx) }

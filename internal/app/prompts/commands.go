package prompts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// activeTagSet is the set of tags a prompt may take.
func (s *Service) activeTagSet(ctx context.Context) (map[string]bool, error) {
	tags, err := s.ActiveTags(ctx)
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(tags))
	for _, t := range tags {
		set[t.Tag] = true
	}
	return set, nil
}

// Create adds a prompt by authorID (a memberKey). The prompt row and its
// title claim go in one transaction (a duplicate title writes nothing),
// then the id lookup row, then the indexes.
func (s *Service) Create(ctx context.Context, authorID string, in Input) (PromptRow, error) {
	active, err := s.activeTagSet(ctx)
	if err != nil {
		return PromptRow{}, err
	}
	in, invalid := validate(in, active)
	if invalid != nil {
		return PromptRow{}, invalid
	}
	now := s.now().UTC()
	wait, release, err := s.creates.Take(ctx, authorID, now)
	if err != nil {
		return PromptRow{}, err
	}
	if wait > 0 {
		return PromptRow{}, &TooSoonError{Wait: wait}
	}
	id := newPromptID(now)
	pk, rk := promptKey(authorID, id)
	p := PromptRow{
		PartitionKey: pk, RowKey: rk, PromptID: id, AuthorID: authorID,
		Title: in.Title, TitleNormalized: normalizeTitle(in.Title), PromptText: in.Text,
		Tags: strings.Join(in.Tags, ";"), Visibility: in.Visibility, CreatedAt: now, UpdatedAt: now,
		Revision: 1,
	}
	var tx storage.Tx
	err = tx.Insert(p).Insert(titleClaim(authorID, p.TitleNormalized, id)).Commit(ctx, s.prompts)
	if err != nil {
		release() // nothing was created: no wait for the next try
		if errors.Is(err, storage.ErrExists) {
			return PromptRow{}, ErrDuplicateTitle
		}
		return PromptRow{}, err
	}
	s.counts.Add(ctx, NewPrompts)
	lpk, lrk := promptLookupKey(id)
	lookup, err := storage.Marshal(PromptLookupRow{PartitionKey: lpk, RowKey: lrk, PromptID: id, AuthorID: authorID})
	if err != nil {
		return PromptRow{}, err
	}
	if _, err := s.prompts.Upsert(ctx, lookup, storage.Replace); err != nil {
		return PromptRow{}, err
	}
	return p, s.reconcile(ctx, authorID, id)
}

func titleClaim(authorID, normalized, promptID string) TitleClaimRow {
	pk, rk := titleClaimKey(authorID, normalized)
	return TitleClaimRow{PartitionKey: pk, RowKey: rk, PromptID: promptID}
}

// editAttempts bounds the ETag retries of an edit or a delete. Votes move
// the row's ETag too, so a popular prompt may need many tries; each
// re-reads and re-applies the edit, which is safe.
const editAttempts = 100

// Update edits the author's prompt if it is still at revision, the one
// the form was opened on; otherwise ErrStale and nothing is written. Votes
// do not change the revision, so they never make a form stale; the write
// itself is conditional on the row's ETag, so an edit racing another edit
// or a vote retries (or fails) instead of overwriting. A new title moves
// the title claim in the same transaction.
func (s *Service) Update(ctx context.Context, authorID, promptID string, revision int64, in Input) (PromptRow, error) {
	var p PromptRow
	err := storage.Optimistic(ctx, editAttempts, func(ctx context.Context) error {
		old, err := s.Mine(ctx, authorID, promptID)
		if err != nil {
			return err
		}
		if revision != old.Revision {
			return ErrStale
		}
		active, err := s.activeTagSet(ctx)
		if err != nil {
			return err
		}
		// Tags deactivated since the prompt was tagged may stay on it.
		for _, t := range splitTags(old.Tags) {
			active[t] = true
		}
		in, invalid := validate(in, active)
		if invalid != nil {
			return invalid
		}
		p = old
		p.ETag = ""
		p.Title, p.TitleNormalized, p.PromptText = in.Title, normalizeTitle(in.Title), in.Text
		p.Tags, p.Visibility, p.UpdatedAt = strings.Join(in.Tags, ";"), in.Visibility, s.now().UTC()
		p.Revision++
		var tx storage.Tx
		tx.Replace(p, old.ETag)
		if p.TitleNormalized != old.TitleNormalized {
			cpk, crk := titleClaimKey(authorID, old.TitleNormalized)
			tx.Delete(cpk, crk, storage.AnyETag).Insert(titleClaim(authorID, p.TitleNormalized, promptID))
		}
		err = tx.Commit(ctx, s.prompts)
		if errors.Is(err, storage.ErrExists) {
			return ErrDuplicateTitle
		}
		return err
	})
	if err != nil {
		return PromptRow{}, err
	}
	return p, s.reconcile(ctx, authorID, promptID)
}

// Delete soft-deletes the author's prompt, frees its title and removes it
// from every index.
func (s *Service) Delete(ctx context.Context, authorID, promptID string) error {
	err := storage.Optimistic(ctx, editAttempts, func(ctx context.Context) error {
		old, err := s.Mine(ctx, authorID, promptID)
		if err != nil {
			return err
		}
		p := old
		p.ETag, p.IsDeleted, p.UpdatedAt = "", true, s.now().UTC()
		cpk, crk := titleClaimKey(authorID, old.TitleNormalized)
		var tx storage.Tx
		return tx.Replace(p, old.ETag).Delete(cpk, crk, storage.AnyETag).Commit(ctx, s.prompts)
	})
	if err != nil {
		return err
	}
	return s.reconcile(ctx, authorID, promptID)
}

// Mine reads a live prompt of authorID; ErrNoPrompt otherwise.
func (s *Service) Mine(ctx context.Context, authorID, promptID string) (PromptRow, error) {
	if !storage.IsID(promptID) {
		return PromptRow{}, ErrNoPrompt
	}
	p, err := s.load(ctx, authorID, promptID)
	if errors.Is(err, storage.ErrNotFound) || err == nil && p.IsDeleted {
		return PromptRow{}, ErrNoPrompt
	}
	return p, err
}

// load reads a Prompts row, deleted or not.
func (s *Service) load(ctx context.Context, authorID, promptID string) (PromptRow, error) {
	pk, rk := promptKey(authorID, promptID)
	return storage.Get[PromptRow](ctx, s.prompts, pk, rk)
}

// CreateInterval is the least time between two prompts of one author.
const CreateInterval = 30 * time.Second

// TooSoonError is a create within CreateInterval of the author's last one
// (counted by a quota.Cooldown, so creates at once cannot all pass).
type TooSoonError struct{ Wait time.Duration }

func (e *TooSoonError) Error() string {
	return fmt.Sprintf("prompts: wait %s before creating another prompt", e.Wait.Round(time.Second))
}

// Open reads a prompt by id alone for viewerID ("" for a visitor), an
// admin when admin. A private prompt is ErrNoPrompt for anyone but its
// author, and one taken down (HiddenAt) for anyone but its author and
// the admins.
func (s *Service) Open(ctx context.Context, viewerID, promptID string, admin bool) (PromptRow, error) {
	authorID, err := s.authorOf(ctx, promptID)
	if err != nil {
		return PromptRow{}, err
	}
	p, err := s.Mine(ctx, authorID, promptID)
	if err != nil {
		return PromptRow{}, err
	}
	mine := p.AuthorID == viewerID
	if p.Visibility != Public && !mine || p.HiddenAt != nil && !mine && !admin {
		return PromptRow{}, ErrNoPrompt
	}
	return p, nil
}

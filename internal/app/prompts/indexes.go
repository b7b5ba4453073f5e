package prompts

import (
	"context"
	"errors"

	"github.com/harmony/harmony/internal/storage"
)

// indexRow is one row some index holds for a prompt.
type indexRow struct {
	table *storage.Table
	row   any
	pk    string
	rk    string
}

func (r indexRow) id() string { return r.table.Name() + "\x00" + r.pk + "\x00" + r.rk }

// indexRows are the rows the indexes hold for p. Only public, live
// prompts are indexed, so no index can leak a private or deleted one.
func (s *Service) indexRows(p *PromptRow) []indexRow {
	if p == nil || p.IsDeleted || p.Visibility != Public {
		return nil
	}
	var rows []indexRow
	pk, rk := newestKey(p.CreatedAt, p.PromptID)
	rows = append(rows, indexRow{s.newestIndex, NewestRow{
		PartitionKey: pk, RowKey: rk, PromptID: p.PromptID, AuthorID: p.AuthorID,
		Title: p.Title, TitleNormalized: p.TitleNormalized, Tags: p.Tags,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Likes: p.Likes, Dislikes: p.Dislikes,
	}, pk, rk})
	pk, rk = likedKey(p.Likes-p.Dislikes, p.CreatedAt, p.PromptID)
	rows = append(rows, indexRow{s.likedIndex, LikedRow{
		PartitionKey: pk, RowKey: rk, PromptID: p.PromptID, AuthorID: p.AuthorID,
		Title: p.Title, Tags: p.Tags, CreatedAt: p.CreatedAt,
		Likes: p.Likes, Dislikes: p.Dislikes, Score: p.Likes - p.Dislikes,
	}, pk, rk})
	for _, tag := range splitTags(p.Tags) {
		pk, rk := tagIndexKey(tag, p.PromptID)
		rows = append(rows, indexRow{s.tagIndex, TagIndexRow{
			PartitionKey: pk, RowKey: rk, Tag: tag, PromptID: p.PromptID, AuthorID: p.AuthorID,
			Visibility: p.Visibility, CreatedAt: p.CreatedAt, Likes: p.Likes, Dislikes: p.Dislikes,
		}, pk, rk})
	}
	for _, tok := range titleTokens(p.Title) {
		pk, rk := titleTokenKey(tok, p.PromptID)
		rows = append(rows, indexRow{s.titleSearch, TitleTokenRow{
			PartitionKey: pk, RowKey: rk, Token: tok, PromptID: p.PromptID,
			Visibility: p.Visibility, AuthorID: p.AuthorID, CreatedAt: p.CreatedAt,
		}, pk, rk})
	}
	return rows
}

// syncIndexes moves the indexes from what they hold for before to what
// they must hold for after: rows only before had are deleted, and every
// row of after is written (its denormalised fields may have changed).
// Either side may be nil. Each write is idempotent, so a retry or a
// rebuild converges.
func (s *Service) syncIndexes(ctx context.Context, before, after *PromptRow) error {
	want := s.indexRows(after)
	keep := make(map[string]bool, len(want))
	for _, r := range want {
		keep[r.id()] = true
	}
	for _, r := range s.indexRows(before) {
		if keep[r.id()] {
			continue
		}
		if err := r.table.Delete(ctx, r.pk, r.rk, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	for _, r := range want {
		e, err := storage.Marshal(r.row)
		if err != nil {
			return err
		}
		if _, err := r.table.Upsert(ctx, e, storage.Replace); err != nil {
			return err
		}
	}
	return nil
}

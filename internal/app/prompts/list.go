package prompts

import (
	"context"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// NewestPage is one page of the public catalog, newest first.
type NewestPage struct {
	Prompts []NewestRow
	// Next is the next page's cursor token, "" on the last page.
	Next string
}

// newestQuery names the newest listing for its cursors.
const newestQuery = "prompts/newest"

// ListPublicNewest reads one page of public prompts, newest first. It
// walks the month buckets from this month back to the catalog's first
// month; the cursor carries the bucket and the continuation inside it, so
// prompts added meanwhile never shift a deep page (no repeats, no gaps).
func (s *Service) ListPublicNewest(ctx context.Context, cursor *storage.Cursor) (NewestPage, error) {
	first, err := s.catalogFirstMonth(ctx)
	if err != nil {
		return NewestPage{}, err
	}
	oldest, err := time.Parse("200601", first)
	if err != nil {
		return NewestPage{}, err
	}
	w := storage.Walk{
		Buckets: storage.Months{Newest: s.now(), Oldest: oldest},
		Limit:   s.pageSize,
		Fetch: func(ctx context.Context, bucket string, cont *storage.Continuation, limit int) (storage.Page, error) {
			return s.newestIndex.Query(ctx, storage.Query{PartitionKey: newestPartition(bucket), Limit: limit, Continuation: cont})
		},
	}
	ents, next, err := w.Run(ctx, cursor)
	if err != nil {
		return NewestPage{}, err
	}
	out := NewestPage{Prompts: make([]NewestRow, len(ents))}
	for i, e := range ents {
		if err := storage.Unmarshal(e, &out.Prompts[i]); err != nil {
			return NewestPage{}, err
		}
	}
	if next != nil {
		out.Next = s.cursors.Encode(newestQuery, *next)
	}
	return out, nil
}

// MinePage is one page of an author's own prompts.
type MinePage struct {
	Prompts []PromptRow
	Next    string
}

// mineQuery names an author's list for its cursors, so one person's
// token is refused for another.
func mineQuery(authorID string) string { return "prompts/mine|" + authorID }

// ListMine reads one page of the author's live prompts, public and
// private, in id (creation) order. Title claims sort after every id and
// are left out by the range.
func (s *Service) ListMine(ctx context.Context, authorID string, cursor *storage.Cursor) (MinePage, error) {
	q := storage.Query{
		PartitionKey: authorPartition(authorID),
		RowKeyTo:     titleClaimPrefix,
		Filters:      []storage.Filter{{Name: "IsDeleted", Op: storage.Eq, Value: false}},
		Limit:        s.pageSize,
	}
	if cursor != nil {
		q.Continuation = cursor.Next
	}
	page, err := s.prompts.Query(ctx, q)
	if err != nil {
		return MinePage{}, err
	}
	out := MinePage{Prompts: make([]PromptRow, len(page.Entities))}
	for i, e := range page.Entities {
		if err := storage.Unmarshal(e, &out.Prompts[i]); err != nil {
			return MinePage{}, err
		}
	}
	if page.Next != nil {
		out.Next = s.cursors.Encode(mineQuery(authorID), storage.Cursor{Next: page.Next})
	}
	return out, nil
}

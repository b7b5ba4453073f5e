package prompts

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Item is one prompt in a listing, read from an index row alone.
type Item struct {
	PromptID  string
	AuthorID  string
	Title     string
	Tags      []string
	CreatedAt time.Time
	Likes     int64
	Dislikes  int64
	// Counts reports whether Likes and Dislikes are known (search rows do
	// not carry them).
	Counts bool
}

// Page is one page of a listing.
type Page struct {
	Items []Item
	// Next is the next page's cursor token, "" on the last page.
	Next string
}

// Sorts of the public catalog.
const (
	SortNewest = "newest"
	SortLiked  = "liked"
)

// Listing is what a catalog URL asks for: a sort, tags that must all be on
// a prompt (AND), and a title search. A search ranks by matches; tags
// without a search list newest first.
type Listing struct {
	Sort string
	Tags []string
	Q    string
}

// Normalize cleans a listing from a URL: a known sort, lower-cased unique
// tags in a stable order, at most MaxTags of them, and a trimmed query.
func (l Listing) Normalize() Listing {
	if l.Sort != SortLiked {
		l.Sort = SortNewest
	}
	var tags []string
	seen := map[string]bool{} // a URL may repeat tag thousands of times
	for _, t := range l.Tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	slices.Sort(tags)
	if len(tags) > MaxTags {
		tags = tags[:MaxTags]
	}
	l.Tags = tags
	l.Q = strings.TrimSpace(l.Q)
	if len([]rune(l.Q)) > MaxTitleLength {
		l.Q = string([]rune(l.Q)[:MaxTitleLength])
	}
	return l
}

// CursorQuery names the listing for its cursors, so a token from one
// listing is refused by another.
func (l Listing) CursorQuery() string {
	l = l.Normalize()
	return "prompts/list?" + l.Values().Encode()
}

// Values are the listing as URL query parameters (sort, tag, q), for
// shareable links; defaults are left out.
func (l Listing) Values() url.Values {
	v := url.Values{}
	if l.Sort == SortLiked {
		v.Set("sort", SortLiked)
	}
	for _, t := range l.Tags {
		v.Add("tag", t)
	}
	if l.Q != "" {
		v.Set("q", l.Q)
	}
	return v
}

// List reads one page of the public catalog as l asks.
func (s *Service) List(ctx context.Context, l Listing, cursor *storage.Cursor) (Page, error) {
	l = l.Normalize()
	var (
		page Page
		next *storage.Cursor
		err  error
	)
	switch {
	case l.Q != "":
		page, next, err = s.search(ctx, l, cursor)
	case len(l.Tags) > 0:
		page, next, err = s.listTagged(ctx, l.Tags, cursor)
	case l.Sort == SortLiked:
		page, next, err = s.listLiked(ctx, cursor)
	default:
		page, next, err = s.listNewest(ctx, cursor)
	}
	if err != nil {
		return Page{}, err
	}
	if next != nil {
		page.Next = s.cursors.Encode(l.CursorQuery(), *next)
	}
	return page, nil
}

// listNewest walks the month buckets of the newest index from this month
// back to the catalog's first month. The cursor carries the bucket and the
// continuation inside it, so prompts added meanwhile never shift a deep
// page (no repeats, no gaps); empty months cost one query each, and a page
// spends at most Walk.MaxCalls of them before it returns short with a
// cursor.
func (s *Service) listNewest(ctx context.Context, cursor *storage.Cursor) (Page, *storage.Cursor, error) {
	first, err := s.catalogFirstMonth(ctx)
	if err != nil {
		return Page{}, nil, err
	}
	oldest, err := time.Parse("200601", first)
	if err != nil {
		return Page{}, nil, err
	}
	return walkIndex[NewestRow](ctx, s.newestIndex, newestPartition, cursor, storage.Walk{
		Buckets: storage.Months{Newest: s.now(), Oldest: oldest},
		Limit:   s.pageSize,
	})
}

// listLiked walks the most-liked buckets from the highest in use down;
// inside a bucket rows sort by score, then newest. There are at most
// likedBuckets buckets and the walk starts at the top one in use (one
// point read), so a page costs a few queries at any catalog size.
func (s *Service) listLiked(ctx context.Context, cursor *storage.Cursor) (Page, *storage.Cursor, error) {
	top, err := s.likedTop(ctx)
	if err != nil {
		return Page{}, nil, err
	}
	return walkIndex[LikedRow](ctx, s.likedIndex, likedPartition, cursor, storage.Walk{
		Buckets:  storage.Scores{High: top, Low: 0, Width: likedBucketWidth},
		Limit:    s.pageSize,
		MaxCalls: likedBuckets + 2,
	})
}

// walkIndex runs w from cursor over the listing index t, whose partition
// part names for each bucket, and shows its rows' cards.
func walkIndex[R carded](ctx context.Context, t *storage.Table, part func(bucket string) string, cursor *storage.Cursor, w storage.Walk) (Page, *storage.Cursor, error) {
	w.Fetch = func(ctx context.Context, bucket string, cont *storage.Continuation, limit int) (storage.Page, error) {
		return t.Query(ctx, storage.Query{PartitionKey: part(bucket), Limit: limit, Continuation: cont})
	}
	ents, next, err := w.Run(ctx, cursor)
	if err != nil {
		return Page{}, nil, err
	}
	items, err := itemsOf[R](ctx, t, ents)
	return Page{Items: items}, next, err
}

// carded is a listing index row: it carries a Card.
type carded interface{ item() Item }

// itemsOf unmarshals index rows of t (leaving out, with a warning, any
// that another tool wrote unreadably) and turns each into an Item.
func itemsOf[R carded](ctx context.Context, t *storage.Table, ents []storage.Entity) ([]Item, error) {
	rows, err := storage.Decode[R](ctx, t, ents)
	if err != nil {
		return nil, err
	}
	out := make([]Item, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.item())
	}
	return out, nil
}

// MinePage is one page of an author's own prompts.
type MinePage struct {
	Prompts []PromptRow
	Next    string
}

// MineQuery names an author's list for its cursors, so one person's token
// is refused for another.
func MineQuery(authorID string) string { return "prompts/mine|" + authorID }

// ListMine reads one page of the author's live prompts, public and
// private, newest first (ids count down in time). Title claims sort after
// every id and are left out by the range.
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
	rows, next, err := storage.TakePage[PromptRow](ctx, s.prompts, q, s.pageSize)
	if err != nil {
		return MinePage{}, err
	}
	out := MinePage{Prompts: rows}
	if next != nil {
		out.Next = s.cursors.Encode(MineQuery(authorID), storage.Cursor{Next: next})
	}
	return out, nil
}

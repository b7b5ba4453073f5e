package prompts

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/textsearch"
)

// Tag filter and title search. Both read one index partition in row key
// order and check the rest of the request on the rows themselves: TagIndex
// and TitleSearchIndex rows carry the prompt's title and all its tags, so
// "is it also tagged b and c" and "does the title also have word w" cost no
// further read. Row keys are promptIds, which count down in time, so both
// read newest first.
//
// Their cursors do not carry the store's continuation token. They carry
// the driving partition and the last row key the page consumed, and the
// next page reads strictly after it (storage.PrefixEnd). A page may stop
// anywhere inside a storage page, yet the next one starts exactly after
// the last prompt shown: no repeats and no gaps at any depth, whatever
// the store's page sizes (short and empty pages included). Prompts created
// after the first page sort before it and are not shown by later pages,
// as in every newest-first feed; prompts tagged later appear where their
// id puts them.

// maxFilterCalls bounds the queries one filtered page spends. When the
// tags rarely meet, a page comes back short with a cursor ("load more")
// instead of scanning on.
const maxFilterCalls = 12

// filterFetch is how many rows one query of a filter reads when most rows
// may not match.
const filterFetch = 200

// scan reads partition pk of table in row key order, starting strictly
// after "after" ("" = from the start), and keeps rows match accepts until
// it has limit of them or has spent maxFilterCalls queries. It returns the
// kept rows and the row key to resume after ("" when the partition ended).
func scan(ctx context.Context, table *storage.Table, pk, after string, limit, fetch int, match func(storage.Entity) bool) ([]storage.Entity, string, error) {
	q := storage.Query{PartitionKey: pk}
	if after != "" {
		q.RowKeyFrom = storage.PrefixEnd(after)
	}
	var out []storage.Entity
	last := after
	for calls := 0; calls < maxFilterCalls; calls++ {
		q.Limit = fetch
		page, err := table.Query(ctx, q)
		if err != nil {
			return nil, "", err
		}
		for _, e := range page.Entities {
			last = e.RowKey
			if match(e) {
				out = append(out, e)
				if len(out) == limit {
					return out, last, nil
				}
			}
		}
		if page.Next == nil {
			return out, "", nil
		}
		q.Continuation = page.Next
	}
	return out, last, nil
}

// filterCursor is a tag filter's or search's position: the driving
// partition's name and the last row key consumed.
func filterCursor(driver, after string) *storage.Cursor {
	if after == "" {
		return nil
	}
	return &storage.Cursor{Bucket: driver + "|" + after}
}

// parseFilterCursor splits a filter cursor; driver must be one of allowed.
func parseFilterCursor(c *storage.Cursor, allowed []string) (driver, after string, err error) {
	driver, after, ok := strings.Cut(c.Bucket, "|")
	if !ok || !slices.Contains(allowed, driver) || !storage.IsID(after) || c.Next != nil {
		return "", "", fmt.Errorf("%w: not a filter position", storage.ErrBadCursor)
	}
	return driver, after, nil
}

// hasAllTags reports whether the stored tag list holds every tag wanted.
func hasAllTags(stored string, want []string) bool {
	have := splitTags(stored)
	for _, t := range want {
		if !slices.Contains(have, t) {
			return false
		}
	}
	return true
}

// listTagged lists public prompts carrying every one of tags, newest
// first. It drives the smallest tag partition (TagCatalog counts say which)
// and checks the other tags on each row. The driver is fixed in the cursor,
// so a count changing between pages cannot switch partitions midway.
func (s *Service) listTagged(ctx context.Context, tags []string, cursor *storage.Cursor) (Page, *storage.Cursor, error) {
	driver, after := "", ""
	if cursor != nil {
		var err error
		if driver, after, err = parseFilterCursor(cursor, tags); err != nil {
			return Page{}, nil, err
		}
	} else {
		all, err := s.AllTags(ctx)
		if err != nil {
			return Page{}, nil, err
		}
		counts := map[string]int64{}
		for _, t := range all {
			counts[t.Tag] = t.PromptCount
		}
		for _, t := range tags {
			n, known := counts[t]
			if !known {
				return Page{}, nil, nil // no prompt can carry an unknown tag
			}
			if driver == "" || n < counts[driver] {
				driver = t
			}
		}
	}
	fetch := s.pageSize
	if len(tags) > 1 {
		fetch = filterFetch
	}
	pk, _ := tagIndexKey(driver, "")
	ents, last, err := scan(ctx, s.tagIndex, pk, after, s.pageSize, fetch, func(e storage.Entity) bool {
		stored, _ := e.Props["Tags"].(string)
		return hasAllTags(stored, tags)
	})
	if err != nil {
		return Page{}, nil, err
	}
	items, err := itemsOf[TagIndexRow](ctx, s.tagIndex, ents)
	return Page{Items: items}, filterCursor(driver, last), err
}

// searchWindow is how many candidates one ranking window holds.
const searchWindow = 500

// search finds public prompts whose title has every word of l.Q (as a word
// or a word prefix) and every tag of l.Tags. It reads the partition of the
// query's longest word (the most selective) in windows of about
// searchWindow rows, newest first, ranks each window by textsearch.Score and then
// newest, and pages through the ranked window by offset. So results are
// ranked within recency windows, and a very common word at a million
// prompts still answers in a few queries. The cursor pins the window by
// its first and end row keys, and a window is re-read by key range, never
// by how many rows the store returned, so short pages and prompts created
// meanwhile cannot shift a deep page.
func (s *Service) search(ctx context.Context, l Listing, cursor *storage.Cursor) (Page, *storage.Cursor, error) {
	q := textsearch.Query(l.Q)
	if len(q) == 0 {
		return Page{}, nil, nil
	}
	pk, _ := titleTokenKey(textsearch.Driver(q).Token, "")
	var (
		w      searchPos
		window []storage.Entity
		err    error
	)
	if cursor == nil {
		window, w.to, err = s.openWindow(ctx, pk, "")
		if len(window) > 0 {
			w.from = window[0].RowKey
		}
	} else {
		if w, err = parseSearchCursor(cursor); err != nil {
			return Page{}, nil, err
		}
		if w.offset == 0 {
			window, w.to, err = s.openWindow(ctx, pk, w.from)
		} else {
			window, err = s.readWindow(ctx, pk, w.from, w.to)
		}
	}
	if err != nil {
		return Page{}, nil, err
	}
	type hit struct {
		row   TitleTokenRow
		score int
	}
	var hits []hit
	rows, err := storage.Decode[TitleTokenRow](ctx, s.titleSearch, window)
	if err != nil {
		return Page{}, nil, err
	}
	for _, r := range rows {
		if sc := textsearch.Score(r.Title, q); sc > 0 && hasAllTags(r.Tags, l.Tags) {
			hits = append(hits, hit{r, sc})
		}
	}
	// Rows come newest first; a stable sort keeps that order among equals.
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	if w.offset > len(hits) {
		return Page{}, nil, fmt.Errorf("%w: offset past the window", storage.ErrBadCursor)
	}
	stop := min(w.offset+s.pageSize, len(hits))
	var page Page
	for _, h := range hits[w.offset:stop] {
		page.Items = append(page.Items, Item{PromptID: h.row.PromptID, AuthorID: h.row.AuthorID, Title: h.row.Title, Tags: splitTags(h.row.Tags), CreatedAt: h.row.CreatedAt})
	}
	switch {
	case stop < len(hits):
		return page, w.cursor(stop), nil
	case w.to != "":
		return page, searchPos{from: w.to}.cursor(0), nil
	}
	return page, nil, nil
}

// searchPos is a search cursor: the window [from, to) of the driving
// partition ("" to = up to the end) and the offset into its ranked hits.
// An offset of 0 opens a new window at from.
type searchPos struct {
	from, to string
	offset   int
}

func (p searchPos) cursor(offset int) *storage.Cursor {
	return &storage.Cursor{Bucket: "s|" + p.from + "|" + p.to + "|" + strconv.Itoa(offset)}
}

// parseSearchCursor reads "s|{from}|{to}|{offset}".
func parseSearchCursor(c *storage.Cursor) (searchPos, error) {
	bad := fmt.Errorf("%w: not a search position", storage.ErrBadCursor)
	parts := strings.Split(c.Bucket, "|")
	if len(parts) != 4 || parts[0] != "s" || c.Next != nil || len(parts[1]) > 64 || len(parts[2]) > 64 {
		return searchPos{}, bad
	}
	offset, err := strconv.Atoi(parts[3])
	if err != nil || offset < 0 || offset > searchWindow {
		return searchPos{}, bad
	}
	return searchPos{from: parts[1], to: parts[2], offset: offset}, nil
}

// openWindow reads a new window of pk from "from" (inclusive): about
// searchWindow rows. to is where the next window starts, "" when the
// partition ended inside this one.
func (s *Service) openWindow(ctx context.Context, pk, from string) ([]storage.Entity, string, error) {
	q := storage.Query{PartitionKey: pk, RowKeyFrom: from}
	var rows []storage.Entity
	for calls := 0; calls < maxFilterCalls && len(rows) < searchWindow; calls++ {
		q.Limit = searchWindow - len(rows)
		page, err := s.titleSearch.Query(ctx, q)
		if err != nil {
			return nil, "", err
		}
		rows = append(rows, page.Entities...)
		if page.Next == nil {
			return rows, "", nil
		}
		q.Continuation = page.Next
	}
	if len(rows) == 0 {
		// Only empty pages so far: the next window starts where this began.
		if from == "" {
			return nil, "", nil
		}
		return nil, from, nil
	}
	return rows, storage.PrefixEnd(rows[len(rows)-1].RowKey), nil
}

// readWindow re-reads the window [from, to) of pk in full.
func (s *Service) readWindow(ctx context.Context, pk, from, to string) ([]storage.Entity, error) {
	var rows []storage.Entity
	err := s.titleSearch.QueryAll(ctx, storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: to}, func(e storage.Entity) error {
		if len(rows) > 2*searchWindow {
			return fmt.Errorf("%w: window too large", storage.ErrBadCursor)
		}
		rows = append(rows, e)
		return nil
	})
	return rows, err
}

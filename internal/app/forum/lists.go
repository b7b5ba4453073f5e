package forum

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/textsearch"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// The reader's lists and search.
//
// "Unread" (topics they opened with posts they have not read) and "New"
// (topics they never opened) read the whole forum's activity partition
// newest first, back to the cutoff, and check each row against the
// reader's markers, read a batch at a time: no row is written for anyone
// when someone posts. A page spends at most listScans queries of
// listFetch rows; a reader who has read everything recent gets a short
// page with "load more" rather than a long wait.
//
// Search finds topics whose title has every word of the query, as a word
// or a word prefix (textsearch, as the prompt catalog does): the topic's
// title tokens are rows of TopicActivityIndex ("q|{token}", newest
// topic first), written when the title is, not on every reply.

const (
	listFetch = 50
	listScans = 4
)

// scanAll reads the whole forum's activity rows from after (a row key,
// "" for the newest) back to the cutoff, keeping those keep accepts,
// until it has pageSize of them or spent listScans queries; next is
// where to resume ("" at the end).
func (s *Service) scanAll(ctx context.Context, memberKey, after string, keep func(a ActivityRow, rd Reader) bool) (rows []ActivityRow, rd Reader, next string, err error) {
	end := storage.ReverseTicks(s.now().Add(-cutoff))
	rd = Reader{MemberKey: memberKey, Markers: map[string]ReadRow{}}
	last := after // the last row consumed
	for scan := range listScans {
		from := ""
		if last != "" {
			from = storage.PrefixEnd(last)
		}
		page, more, err := storage.Take[ActivityRow](ctx, s.activity, storage.Query{PartitionKey: allPart, RowKeyFrom: from, RowKeyTo: end}, listFetch)
		if err != nil {
			return nil, rd, "", err
		}
		if len(page) == 0 {
			return rows, rd, "", nil
		}
		ids := make([]string, len(page))
		for i, a := range page {
			ids[i] = a.TopicID
		}
		batch, err := s.readMarkers(ctx, memberKey, ids, scan == 0)
		if err != nil {
			return nil, rd, "", err
		}
		if scan == 0 {
			rd.AllAt, rd.SectionAt, rd.Muted, rd.MutedSections = batch.AllAt, batch.SectionAt, batch.Muted, batch.MutedSections
		}
		for k, v := range batch.Markers {
			rd.Markers[k] = v
		}
		for _, a := range page {
			last = a.RowKey
			if keep(a, rd) {
				rows = append(rows, a)
				if len(rows) == pageSize {
					return rows, rd, a.RowKey, nil
				}
			}
		}
		if !more {
			return rows, rd, "", nil
		}
	}
	// Out of queries for this page: the next one goes on from the last
	// row read, kept or not.
	return rows, rd, last, nil
}

// readerList renders /forum/unread or /forum/new.
func (s *Service) readerList(c echo.Context, kind string, keep func(u Unread) bool) error {
	ctx := c.Request().Context()
	me := person(c)
	after := ""
	if tok := c.QueryParam("cursor"); tok != "" {
		v, err := s.cursors.Open("forum-"+kind+"|"+me.MemberKey, tok)
		if err != nil {
			return err
		}
		after = v
	}
	now := s.now()
	names := s.sectionNames(ctx)
	rows, rd, next, err := s.scanAll(ctx, me.MemberKey, after, func(a ActivityRow, rd Reader) bool {
		return names[a.Section] != "" && keep(rd.unreadOf(a, now)) // an archived section's topics are closed
	})
	if err != nil {
		return err
	}
	p := views.ListProps{Heading: i18n.T(ctx, "forum."+kind+".heading"), Lead: i18n.T(ctx, "forum."+kind+".lead"), SignedIn: true, EmptyKey: "forum." + kind + ".empty", MarkAll: true}
	for _, a := range rows {
		p.Topics = append(p.Topics, s.topicItem(c, a, rd, names[a.Section]))
	}
	if next != "" {
		p.NextURL = "/forum/" + kind + "?cursor=" + url.QueryEscape(s.cursors.Seal("forum-"+kind+"|"+me.MemberKey, next))
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Heading, Section: "forum", Content: views.List(p), Fragment: views.TopicRows(p.Topics, p.NextURL)})
}

// unreadList is GET /forum/unread.
func (s *Service) unreadList(c echo.Context) error {
	return s.readerList(c, "unread", func(u Unread) bool { return !u.New && u.N > 0 })
}

// newList is GET /forum/new.
func (s *Service) newList(c echo.Context) error {
	return s.readerList(c, "new", func(u Unread) bool { return u.New })
}

// sectionNames are the open sections' names by slug, in ctx's language.
func (s *Service) sectionNames(ctx context.Context) map[string]string {
	out := map[string]string{}
	sections, err := s.Sections(ctx, false)
	if err != nil {
		return out
	}
	for _, sec := range sections {
		out[sec.RowKey] = sec.Label(ctx)
	}
	return out
}

// SearchRow is a topic under one of its title's tokens: PK
// "q|{token}", RK "{reverse ticks of its creation}|{topicId}".
type SearchRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	TopicID      string    `table:"topicId"`
	Title        string    `table:"title"`
	AuthorName   string    `table:"authorName"`
	Section      string    `table:"section"`
	CreatedAt    time.Time `table:"createdAt"`
}

// searchPart is a token's partition.
func searchPart(token string) string { return "q|" + storage.EscapeKey(token) }

// searchRows are a topic's title token rows (none once deleted).
func (s *Service) searchRows(t TopicRow) ([]projection.Row, error) {
	if t.Deleted {
		return nil, nil
	}
	var out []projection.Row
	for _, tok := range textsearch.Tokens(t.Title) {
		r, err := projection.RowOf(s.activity, SearchRow{
			PartitionKey: searchPart(tok), RowKey: storage.ReverseTicks(t.CreatedAt) + "|" + t.PartitionKey,
			TopicID: t.PartitionKey, Title: t.Title, AuthorName: t.AuthorName, Section: t.Section, CreatedAt: t.CreatedAt,
		})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// searchFetch bounds the rows one search reads.
const searchFetch = 500

// Search finds open topics whose title has every word of q, best
// matches first, then newest; one query of the most selective word's
// partition (its newest searchFetch topics).
func (s *Service) Search(ctx context.Context, q string) ([]SearchRow, error) {
	words := textsearch.Query(q)
	if len(words) == 0 {
		return nil, nil
	}
	rows, _, err := storage.Take[SearchRow](ctx, s.activity, storage.Query{PartitionKey: searchPart(textsearch.Driver(words).Token)}, searchFetch)
	if err != nil {
		return nil, err
	}
	type hit struct {
		row   SearchRow
		score int
	}
	var hits []hit
	for _, r := range rows {
		if sc := textsearch.Score(r.Title, words); sc > 0 {
			hits = append(hits, hit{r, sc})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	out := make([]SearchRow, 0, min(len(hits), pageSize*2))
	for _, h := range hits {
		if len(out) == cap(out) {
			break
		}
		out = append(out, h.row)
	}
	return out, nil
}

// search is GET /forum/search?q=.
func (s *Service) search(c echo.Context) error {
	ctx := c.Request().Context()
	q := strings.TrimSpace(c.QueryParam("q"))
	if len([]rune(q)) > 200 {
		return web.BadRequest(i18n.T(ctx, "forum.error.query"), nil)
	}
	p := views.ListProps{Heading: i18n.T(ctx, "forum.search.heading"), Query: q, Search: true, SignedIn: person(c).MemberKey != "", EmptyKey: "forum.search.empty"}
	if q == "" {
		p.EmptyKey = "forum.search.prompt"
	}
	rows, err := s.Search(ctx, q)
	if err != nil {
		return err
	}
	names := s.sectionNames(ctx)
	marked := textsearch.Terms(q, 8)
	for _, r := range rows {
		if names[r.Section] == "" {
			continue // an archived section's
		}
		p.Topics = append(p.Topics, views.TopicItem{URL: topicURL(r.TopicID), Title: r.Title, Found: textsearch.Excerpt(r.Title, marked, 200), Author: shownName(ctx, r.AuthorName), Section: names[r.Section], LastActivity: when(c, r.CreatedAt), Replies: -1})
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Heading, Section: "forum", Content: views.List(p)})
}

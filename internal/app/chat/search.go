package chat

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/textsearch"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Searching a chat, as Telegram's search in a chat and Zulip's search of
// a stream: the messages holding every word of the query (case and "ё"
// aside, a word found inside another too), newest first, each with an
// excerpt that marks the words and a link that opens the chat at it.
// Table Storage has no text index, so a search reads the log itself, a
// range of searchScan messages (Options.SearchScan) back from the newest (or from where the
// last page stopped) in one query, and says how far back it looked:
// "Search earlier messages" goes on from there. Deleted, expired and
// control entries, "joined" lines and the messages of people the reader
// blocked are never found.

const (
	// searchScan is how many messages one search reads: one query.
	searchScan = 1000
	// searchResults is the most a page of results shows.
	searchResults = 20
	// maxSearchWords bounds the words of a query that count.
	maxSearchWords = 8
	// A client's searches: searchBurst at once, then one every
	// searchEvery (per instance), as previews are paced: each reads and
	// reads through up to searchScan messages.
	searchBurst = 20
	searchEvery = 3 * time.Second
)

// queryRule is a search: one line, at most 100 characters.
var queryRule = formrule.Text{Max: 100}

// Search finds among chatID's messages numbered below before (0: from
// the newest) those holding every one of words (textsearch.Terms), newest
// first: at most searchResults, reading at most searchScan messages.
// next is the number the next page starts below, 0 when the log's start
// was reached; back is when the oldest message it looked at was sent.
func (s *Service) Search(ctx context.Context, chatID string, words []string, before int64, blocked map[string]BlockRow) (found []MessageRow, next int64, back time.Time, err error) {
	to := before - 1
	if before == 0 {
		h, err := s.log.Head(ctx, chatID)
		if err != nil {
			return nil, 0, time.Time{}, err
		}
		to = h.Seq
	}
	return s.searchRange(ctx, chatID, words, to, s.scan, blocked)
}

// searchRange is Search of the scan messages numbered to and below.
func (s *Service) searchRange(ctx context.Context, chatID string, words []string, to int64, scan int, blocked map[string]BlockRow) (found []MessageRow, next int64, back time.Time, err error) {
	from := max(to-int64(scan)+1, 1)
	msgs, err := s.log.Range(ctx, chatID, from, to)
	if err != nil {
		return nil, 0, time.Time{}, err
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if _, hidden := blocked[m.Sender]; hidden || m.DeletedAt != nil || m.Type != TypeText && m.Type != TypeImage {
			continue
		}
		if !textsearch.Contains(richtext.Plain(m.Body, 0), words) {
			continue
		}
		if len(found) == searchResults {
			// More here than a page shows: the next goes on below the
			// last one shown.
			last := found[len(found)-1]
			return found, last.Seq, last.SentAt, nil
		}
		found = append(found, m)
	}
	if from > 1 && len(msgs) > 0 {
		next, back = from, msgs[0].SentAt
	}
	return found, next, back, nil
}

// search is GET /chat/:id/search (?q, ?before): the form, and the
// messages found. A query that breaks queryRule is refused on its field
// (422); a bad ?before is a 400.
func (s *Service) search(c echo.Context) error {
	ctx := c.Request().Context()
	acc, id := accessOf(c), auth.From(c)
	u := chatURL(acc.Chat.RowKey)
	p := views.SearchProps{Name: acc.Title, ChatURL: u, Action: u + "/search", Query: c.QueryParam("q")}
	var before int64
	if b := c.QueryParam("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 2 {
			return web.BadRequest(i18n.T(ctx, "chat.error.cursor"), err)
		}
		before = n
	}
	q, words, answered, err := s.searchWords(c, &p)
	if answered {
		return err
	}
	if len(words) > 0 {
		blocked, err := s.Blocked(ctx, id.MemberKey)
		if err != nil {
			return err
		}
		found, next, back, err := s.Search(ctx, acc.Chat.RowKey, words, before, blocked)
		if err != nil {
			return err
		}
		p.Searched = true
		for _, m := range found {
			p.Results = append(p.Results, views.SearchResult{
				Sender: memberdata.Name(ctx, m.Sender, m.SenderName), When: i18n.DateTime(ctx, m.SentAt.In(id.Location())), Datetime: m.SentAt.UTC().Format(time.RFC3339),
				Excerpt: textsearch.Excerpt(richtext.Plain(m.Body, 0), words, 160), Picture: m.ImageKey != "", URL: messageURL(acc.Chat.RowKey, m.Seq),
			})
		}
		if next > 0 {
			p.MoreURL = p.Action + "?q=" + url.QueryEscape(q) + "&before=" + strconv.FormatInt(next, 10)
			p.Back = i18n.DateTime(ctx, back.In(id.Location()))
		}
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Title(ctx), Section: "chat", Content: views.SearchPage(p)})
}

// searchWords reads a search's query (p.Query): the words sought, or,
// for a query that breaks queryRule (422) or one search too many (429),
// answered true with the page saying so (and its error).
func (s *Service) searchWords(c echo.Context, p *views.SearchProps) (q string, words []string, answered bool, err error) {
	ctx := c.Request().Context()
	errs := formrule.FieldErrors{}
	q = errs.CheckAs("q", queryRule, p.Query, "", "chat.search.too_long")
	status := 0
	if key, bad := errs["q"]; bad {
		p.Error, status = i18n.T(ctx, key, "max", queryRule.Max), http.StatusUnprocessableEntity
	} else if words = textsearch.Terms(q, maxSearchWords); len(words) > 0 && !s.searches.Allow(c.RealIP(), s.now()) {
		p.Error, status = i18n.T(ctx, "chat.search.too_many"), http.StatusTooManyRequests
	}
	if status != 0 {
		return "", nil, true, web.Render(c, status, web.Page{Title: p.Title(ctx), Section: "chat", Content: views.SearchPage(*p)})
	}
	return q, words, false, nil
}

// Searching all one's chats, as Zulip's and Slack's search box: the
// messages holding every word, newest first, each with its chat. With no
// text index, it reads the latest searchAllScan messages of one's
// searchAllChats most recent chats (a query each, headReads at once),
// and says so; a chat's own search goes further back.
const (
	searchAllChats = 20
	searchAllScan  = 200
)

// SearchURL is the search of all one's chats.
const SearchURL = "/chat/search"

// searchAll is GET /chat/search (?q): the form, and the messages found
// in one's chats. Bad queries are refused as a chat's search refuses
// them.
func (s *Service) searchAll(c echo.Context) error {
	ctx, id := c.Request().Context(), auth.From(c)
	p := views.SearchProps{All: true, ChatURL: "/chat", Action: SearchURL, Query: c.QueryParam("q")}
	_, words, answered, err := s.searchWords(c, &p)
	if answered || len(words) == 0 {
		if answered {
			return err
		}
		return web.Render(c, http.StatusOK, web.Page{Title: p.Title(ctx), Section: "chat", Content: views.SearchPage(p)})
	}
	rooms, mine, rowOf, err := s.chatsOf(ctx, id.MemberKey, storage.Query{})
	if err != nil {
		return err
	}
	chats, err := s.recentChats(ctx, id, rooms, mine, rowOf, searchAllChats)
	if err != nil {
		return err
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	found := make([][]MessageRow, len(chats))
	err = storage.Each(ctx, len(chats), headReads, func(ctx context.Context, i int) error {
		if _, gone := blocked[chats[i].acc.Other]; gone && chats[i].acc.Other != "" {
			return nil // a private chat with someone blocked tells nothing
		}
		var err error
		found[i], _, _, err = s.searchRange(ctx, chats[i].head.PartitionKey, words, chats[i].head.Seq, searchAllScan, blocked)
		return err
	})
	if err != nil {
		return err
	}
	type hit struct {
		m    MessageRow
		chat recentChat
	}
	var hits []hit
	for i, ms := range found {
		for _, m := range ms {
			hits = append(hits, hit{m, chats[i]})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return b.m.SentAt.Compare(a.m.SentAt) })
	p.Searched, p.Note = true, i18n.T(ctx, "chat.search.all_note", "messages", searchAllScan, "chats", searchAllChats)
	for _, h := range hits[:min(len(hits), searchResults)] {
		chatID := h.chat.head.PartitionKey
		p.Results = append(p.Results, views.SearchResult{
			Chat: h.chat.title, ChatURL: chatURL(chatID),
			Sender: memberdata.Name(ctx, h.m.Sender, h.m.SenderName), When: i18n.DateTime(ctx, h.m.SentAt.In(id.Location())), Datetime: h.m.SentAt.UTC().Format(time.RFC3339),
			Excerpt: textsearch.Excerpt(richtext.Plain(h.m.Body, 0), words, 160), Picture: h.m.ImageKey != "", URL: messageURL(chatID, h.m.Seq),
		})
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.Title(ctx), Section: "chat", Content: views.SearchPage(p)})
}

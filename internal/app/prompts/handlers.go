package prompts

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/textsearch"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/prompts"
)

// promptURL is a prompt's page, by id alone.
func promptURL(promptID string) string { return "/prompts/" + url.PathEscape(promptID) }

// catalogURL is the catalog showing l, with a page cursor when one is
// given. Its query is what Listing.Values says, so links are shareable.
func catalogURL(l Listing, cursor string) string {
	v := l.Values()
	if cursor != "" {
		v.Set(web.CursorParam, cursor)
	}
	if len(v) == 0 {
		return "/prompts"
	}
	return "/prompts?" + v.Encode()
}

// listingOf reads the catalog's query: sort, tag (repeated) and q.
func listingOf(c echo.Context) Listing {
	return Listing{Sort: c.QueryParam("sort"), Tags: c.QueryParams()["tag"], Q: c.QueryParam("q")}.Normalize()
}

// viewerID is the memberKey of whoever asks, "" for a visitor.
func viewerID(c echo.Context) string {
	if id := auth.From(c); id != nil {
		return id.MemberKey
	}
	return ""
}

// day is the date of t in the reader's language ("2 June 2030").
func day(ctx context.Context, t time.Time) string { return i18n.Date(ctx, t.UTC()) }

// tagBook looks up display names in the whole catalog, retired tags
// included, in the request's language.
type tagBook struct {
	tags map[string]TagRow
	lang string
}

func newTagBook(ctx context.Context, tags []TagRow) tagBook {
	b := tagBook{tags: make(map[string]TagRow, len(tags)), lang: string(i18n.LangOf(ctx))}
	for _, t := range tags {
		b.tags[t.Tag] = t
	}
	return b
}

// name is a tag's display name; a tag the catalog has lost shows its slug.
func (b tagBook) name(tag string) string {
	if t, ok := b.tags[tag]; ok {
		return t.Name(b.lang)
	}
	return tag
}

func (b tagBook) labels(tags []string) []views.TagLabel {
	out := make([]views.TagLabel, 0, len(tags))
	for _, t := range tags {
		out = append(out, views.TagLabel{Tag: t, Name: b.name(t)})
	}
	return out
}

// catalog is GET /prompts[?sort=…&tag=…&q=…&cursor=…]. An htmx search
// gets the results region; an htmx "load more" (it carries a cursor) gets
// the next rows and sentinel only.
func (h *handlers) catalog(c echo.Context) error {
	ctx := c.Request().Context()
	l := listingOf(c)
	cursor, err := web.ReadCursor(c, h.svc.cursors, l.CursorQuery())
	if err != nil {
		return err
	}
	// One query of TagCatalog serves both the chips and the names.
	tags, err := h.svc.AllTags(ctx)
	if err != nil {
		return err
	}
	page, err := h.svc.List(ctx, l, cursor)
	if err != nil {
		return err
	}
	book := newTagBook(ctx, tags)
	cards := make([]views.Card, 0, len(page.Items))
	found := textsearch.Terms(l.Q, 8)
	for _, it := range page.Items {
		card := itemCard(ctx, it, book)
		if len(found) > 0 {
			card.Found = textsearch.Excerpt(it.Title, found, 300)
		}
		cards = append(cards, card)
	}
	next := ""
	if page.Next != "" {
		next = catalogURL(l, page.Next)
	}
	newest, liked := l, l
	newest.Sort, liked.Sort = SortNewest, SortLiked
	p := views.CatalogProps{
		Q: l.Q, Sort: l.Sort, Tags: l.Tags,
		NewestURL: catalogURL(newest, ""), LikedURL: catalogURL(liked, ""),
		Chips: tagChips(l, tags, book), Cards: cards, NextURL: next,
		First: cursor == nil, FirstURL: catalogURL(l, ""),
		CanCreate: auth.From(c).HasAccount(),
	}
	if len(l.Tags) > 0 || l.Q != "" {
		p.ClearURL = catalogURL(Listing{Sort: l.Sort}, "")
	}
	fragment := views.Results(p)
	if cursor != nil {
		fragment = views.Chunk(cards, next)
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "prompts.catalog.heading"),
		Section:  "prompts",
		Content:  views.Catalog(p),
		Fragment: fragment,
	})
}

func itemCard(ctx context.Context, it Item, book tagBook) views.Card {
	return views.Card{
		ID: it.PromptID, Title: it.Title, Href: promptURL(it.PromptID), Tags: book.labels(it.Tags),
		Date: day(ctx, it.CreatedAt), Datetime: it.CreatedAt.UTC().Format(time.RFC3339),
		Counts: it.Counts, Likes: it.Likes, Dislikes: it.Dislikes,
	}
}

// tagChips are the active tags, then any retired tag the URL still
// filters on (so it can be taken out). Each links to the listing with
// that tag toggled and the cursor dropped.
func tagChips(l Listing, tags []TagRow, book tagBook) []views.TagChip {
	var chips []views.TagChip
	chip := func(tag string, count int64) {
		selected := slices.Contains(l.Tags, tag)
		toggled := l
		if selected {
			toggled.Tags = slices.DeleteFunc(slices.Clone(l.Tags), func(t string) bool { return t == tag })
		} else {
			toggled.Tags = append(slices.Clone(l.Tags), tag)
		}
		chips = append(chips, views.TagChip{
			Tag: tag, Name: book.name(tag), Count: count, Selected: selected,
			Href: catalogURL(toggled.Normalize(), ""),
		})
	}
	shown := map[string]bool{}
	for _, t := range tags {
		if t.IsActive {
			chip(t.Tag, t.PromptCount)
			shown[t.Tag] = true
		}
	}
	for _, t := range l.Tags {
		if !shown[t] {
			chip(t, 0)
		}
	}
	return chips
}

// prompt is GET /prompts/:id[?v.name=value…]: the prompt, and its text
// filled with the values given for its {{variables}}.
func (h *handlers) prompt(c echo.Context) error {
	ctx := c.Request().Context()
	me, viewer := viewerID(c), auth.From(c)
	admin := viewer != nil && viewer.Admin
	p, err := h.svc.Open(ctx, me, c.Param("id"), admin)
	if err != nil {
		return err
	}
	vote := views.VoteProps{URL: promptURL(p.PromptID) + "/vote", Likes: p.Likes, Dislikes: p.Dislikes}
	switch {
	case p.AuthorID == me:
		vote.Author = true
	case p.HiddenAt != nil:
		// Taken down: it takes no votes (an admin sees the counts).
	case auth.From(c).HasAccount():
		vote.CanVote = true
		if vote.Mine, err = h.svc.MyVote(ctx, me, p.PromptID); err != nil {
			return err
		}
	default:
		vote.SignInURL = auth.SignInPath(promptURL(p.PromptID))
	}
	book, err := h.tagBook(ctx)
	if err != nil {
		return err
	}
	u := promptURL(p.PromptID)
	props := views.PromptProps{
		ID: p.PromptID, URL: u, Title: p.Title, Text: p.PromptText,
		Tags:    book.labels(splitTags(p.Tags)),
		Author:  h.svc.AuthorName(ctx, p.AuthorID),
		Created: day(ctx, p.CreatedAt), CreatedISO: p.CreatedAt.UTC().Format(time.RFC3339),
		Private: p.Visibility == Private, Vote: vote,
		Editable: vote.Author, EditURL: u + "/edit", DeleteURL: u + "/delete",
	}
	if p.Revision > 1 {
		props.Updated, props.UpdatedISO = day(ctx, p.UpdatedAt), p.UpdatedAt.UTC().Format(time.RFC3339)
	}
	props.Hidden = hiddenSince(c, p.HiddenAt)
	if auth.From(c).HasAccount() {
		props.Save.URL = u + "/save"
		if props.Save.Saved, err = h.svc.Saved(ctx, me, p.PromptID); err != nil {
			return err
		}
	}
	if h.svc.mayReport(viewer, p) {
		props.ReportURL = u + "/report"
	}
	if admin {
		props.HideURL = u + "/hide"
	}
	if props.Variables, props.Filled, err = fillForm(p.PromptText, c.QueryParams()); err != nil {
		return web.BadRequest(i18n.T(ctx, "prompts.error.values_too_long", "max", MaxValue, "filled", maxFilled), err)
	}
	props.Run, props.RunMost = runIn, runMost
	return web.Render(c, http.StatusOK, web.Page{Title: p.Title, Section: "prompts", Content: views.Prompt(props)})
}

// runIn are the assistants a prompt's page opens it in, the prompt as
// the question there (prompts.chat's "Run in"): each takes it in its q
// parameter.
var runIn = []views.RunLink{
	{Name: "ChatGPT", Base: "https://chatgpt.com/?q="},
	{Name: "Claude", Base: "https://claude.ai/new?q="},
	{Name: "Copilot", Base: "https://copilot.microsoft.com/?q="},
	{Name: "Perplexity", Base: "https://www.perplexity.ai/?q="},
}

// runMost is the longest prompt (in characters) a run link carries: an
// address of a few kilobytes, escaped (Cyrillic six bytes a letter),
// which the assistants take; a longer one is copied and pasted.
const runMost = 2000

// voteValues are the vote form's values.
var voteValues = map[string]int{"like": Like, "dislike": Dislike, "none": NoVote}

// vote is POST /prompts/:id/vote (value=like|dislike|none): htmx gets the
// widget with the new counts, a plain form goes back to the prompt.
func (h *handlers) vote(c echo.Context) error {
	ctx := c.Request().Context()
	value, err := web.FormChoice(c, "value", voteValues, "prompts.error.vote_value")
	if err != nil {
		return err
	}
	promptID := c.Param("id")
	tally, err := h.svc.Vote(ctx, auth.From(c).MemberKey, promptID, value)
	if err != nil {
		return err
	}
	u := promptURL(promptID)
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusOK, views.VoteWidget(views.VoteProps{
			URL: u + "/vote", Likes: tally.Likes, Dislikes: tally.Dislikes, Mine: tally.Mine, CanVote: true,
		}))
	}
	return web.Redirect(c, u)
}

// mine is GET /prompts/mine[?cursor=…]: the author's prompts, public and
// private, newest first.
func (h *handlers) mine(c echo.Context) error {
	ctx := c.Request().Context()
	page, cursor, book, err := ownList(h, c, MineQuery, h.svc.ListMine)
	if err != nil {
		return err
	}
	cards := make([]views.Card, 0, len(page.Prompts))
	for _, p := range page.Prompts {
		card := promptCard(ctx, book, p)
		card.Hidden, card.EditURL = p.HiddenAt != nil, promptURL(p.PromptID)+"/edit"
		cards = append(cards, card)
	}
	next := web.NextURL("/prompts/mine", page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "prompts.mine.heading"),
		Section:  "prompts",
		Content:  views.Mine(views.MineProps{Cards: cards, NextURL: next, First: cursor == nil}),
		Fragment: views.Chunk(cards, next),
	})
}

// ownList reads a page of one of the viewer's own lists (their prompts,
// their saved ones) at the request's cursor, which is signed for query,
// and the tag catalog its cards are drawn with.
func ownList[P any](h *handlers, c echo.Context, query func(me string) string, list func(context.Context, string, *storage.Cursor) (P, error)) (P, *storage.Cursor, tagBook, error) {
	var page P
	me := auth.From(c).MemberKey
	cursor, err := web.ReadCursor(c, h.svc.cursors, query(me))
	if err != nil {
		return page, nil, tagBook{}, err
	}
	if page, err = list(c.Request().Context(), me, cursor); err != nil {
		return page, nil, tagBook{}, err
	}
	book, err := h.tagBook(c.Request().Context())
	return page, cursor, book, err
}

// promptCard is prompt p in a list of whole rows (its counts known).
func promptCard(ctx context.Context, book tagBook, p PromptRow) views.Card {
	return views.Card{
		ID: p.PromptID, Title: p.Title, Href: promptURL(p.PromptID), Tags: book.labels(splitTags(p.Tags)),
		Date: day(ctx, p.CreatedAt), Datetime: p.CreatedAt.UTC().Format(time.RFC3339),
		Counts: true, Likes: p.Likes, Dislikes: p.Dislikes, Private: p.Visibility == Private,
	}
}

// tagBook is the tag catalog (its cached query) in the request's
// language.
func (h *handlers) tagBook(ctx context.Context) (tagBook, error) {
	tags, err := h.svc.AllTags(ctx)
	if err != nil {
		return tagBook{}, err
	}
	return newTagBook(ctx, tags), nil
}

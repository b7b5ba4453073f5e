package people

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/people"
)

// Skips, as Hinge's "✕": someone in Discover may be passed over. They
// leave the viewer's Discover, and nothing else: their page, a like
// between the two and a match stand, and nobody is told. "Skipped"
// (/people/skipped) lists them, newest first, each with "Show again";
// with htmx a skipped card turns into a line with "Undo" where it stood.
//
// A skip is a row of PeopleSkips (PK the viewer, RK the skipped
// memberKey), so Discover reads the viewer's skips with one query.
// maxSkips bounds them, which bounds that query.

// SkipsTable holds the skips.
const SkipsTable = "PeopleSkips"

// SkippedURL lists the people the viewer skipped.
const SkippedURL = "/people/skipped"

// maxSkips bounds the people one person skips (Service.skipCap, which
// tests lower).
const maxSkips = 1000

// ErrTooManySkips refuses a skip past maxSkips (409).
var ErrTooManySkips = fault.New(http.StatusConflict, "people.error.skips", "people: too many people skipped", "max", maxSkips)

// SkipRow is one skip: PK the skipper, RK the skipped memberKey.
type SkipRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	At           time.Time `table:"at"`
}

// Skip has me pass over member in Discover. Skipping someone twice
// changes nothing; oneself, a key that is not an account's, or someone
// not in People is not found (404); past maxSkips, 409.
func (s *Service) Skip(ctx context.Context, me, member string) error {
	if me == member || !auth.IsAuthMemberKey(member) {
		return ErrSelf
	}
	if _, err := s.accounts.InPeople(ctx, member); err != nil {
		return err
	}
	skipped, err := s.skipped(ctx, me)
	if err != nil {
		return err
	}
	if _, ok := skipped[member]; ok {
		return nil
	}
	if len(skipped) >= s.skipCap {
		return ErrTooManySkips
	}
	_, err = storage.Upsert(ctx, s.skips, SkipRow{PartitionKey: me, RowKey: member, At: s.now().UTC()})
	return err
}

// Unskip shows member in me's Discover again; someone not skipped
// changes nothing.
func (s *Service) Unskip(ctx context.Context, me, member string) error {
	if me == member || !auth.IsAuthMemberKey(member) {
		return ErrSelf
	}
	err := s.skips.Delete(ctx, me, member, storage.AnyETag)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// skipped are the people me skipped, with when: one query.
func (s *Service) skipped(ctx context.Context, me string) (map[string]time.Time, error) {
	rows, err := storage.All[SkipRow](ctx, s.skips, storage.Query{PartitionKey: me})
	if err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.RowKey] = r.At
	}
	return out, nil
}

// Skipped lists the people me skipped who are still in People, newest
// first (at most MaxListed).
func (s *Service) Skipped(ctx context.Context, st Standing) ([]Person, error) {
	people := make([]other, 0, len(st.Skipped))
	for key, at := range st.Skipped {
		if !st.hidden(key) {
			people = append(people, other{key, at})
		}
	}
	return s.listed(ctx, st, people, s.accounts.InPeople)
}

// skip is POST /people/:member/skip: back to Discover, or, for htmx, the
// line with "Undo" that stands where the card was.
func (h *handlers) skip(c echo.Context) error {
	ctx := c.Request().Context()
	me, member := auth.From(c).MemberKey, c.Param("member")
	if err := h.svc.Skip(ctx, me, member); err != nil {
		return err
	}
	back := web.NextOr(c, DiscoverURL)
	if !web.HTMXFrom(c).Partial {
		return web.FlashRedirect(c, "people.flash.skipped", back)
	}
	return web.RenderFragment(c, http.StatusOK, views.SkippedTile(h.named(c, member, back, false)))
}

// unskip is POST /people/:member/unskip: back to where it was asked (the
// skipped list, by default), or, for htmx, the person's card again.
func (h *handlers) unskip(c echo.Context) error {
	ctx := c.Request().Context()
	me, member := auth.From(c).MemberKey, c.Param("member")
	if err := h.svc.Unskip(ctx, me, member); err != nil {
		return err
	}
	back := web.NextOr(c, SkippedURL)
	if !web.HTMXFrom(c).Partial {
		return web.FlashRedirect(c, "people.flash.unskipped", back)
	}
	_, st, err := h.viewer(ctx, me)
	if err != nil {
		return err
	}
	row, err := h.svc.accounts.InPeople(ctx, member)
	if err != nil {
		return err
	}
	return web.RenderFragment(c, http.StatusOK, views.Tile(card(ctx, st.person(row, h.svc.now().UTC()), back), true))
}

// skippedPage is GET /people/skipped.
func (h *handlers) skippedPage(c echo.Context, me string, _ views.Join, st Standing) error {
	ctx := c.Request().Context()
	var err error
	if st.Skipped, err = h.svc.skipped(ctx, me); err != nil {
		return err
	}
	people, err := h.svc.Skipped(ctx, st)
	if err != nil {
		return err
	}
	v := views.SkippedProps{Tabs: tabs("discover", st)}
	for _, p := range people {
		v.People = append(v.People, card(ctx, p, SkippedURL))
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "people.skipped.title"), Section: "people", Content: views.Skipped(v)})
}

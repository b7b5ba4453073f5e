package events

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/ical"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// My events as a calendar feed: a private URL with a secret token that
// a calendar app subscribes to, listing what the person is going to,
// waiting for ("waitlisted #4") or offered, with the confirmed-only
// details only where they are going. The person turns it on, and
// replaces the token to revoke a URL they shared by mistake.
//
// EventFeeds holds two rows per feed: PK the token, RK "t", naming the
// person (what serving reads), and PK the memberKey, RK "m", naming the
// current token (what the page shows). A token works only while the
// member's row names it (MyCalendar checks), so a replacement writes the
// new token's row, then the member's row at its ETag, and then deletes
// the row of whatever token that write replaced: two replacements at
// once each revoke the one before them, and a crash midway leaves at
// most a token row that does not work.

// FeedsTable holds the calendar feeds' tokens.
const FeedsTable = "EventFeeds"

// ErrNoFeed is a feed URL with no such token (404).
var ErrNoFeed = fault.New(http.StatusNotFound, "events.error.no_feed", "events: no such feed")

type feedRow struct {
	PartitionKey string `table:"PartitionKey"` // token, or memberKey
	RowKey       string `table:"RowKey"`       // "t", or "m"
	ETag         string `table:"ETag"`
	MemberKey    string `table:"memberKey"` // on "t" rows
	Token        string `table:"token"`     // on "m" rows
}

// newFeedToken is 128 random bits in hex.
func newFeedToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// FeedToken is memberKey's current feed token, "" when the feed is off.
func (s *Service) FeedToken(ctx context.Context, memberKey string) (string, error) {
	r, err := storage.Get[feedRow](ctx, s.feeds, memberKey, "m")
	if errors.Is(err, storage.ErrNotFound) {
		return "", nil
	}
	return r.Token, err
}

// ReplaceFeedToken turns memberKey's feed on with a new token; the old
// URL, if any, stops working. The token replaced is the one the member's
// row held when the write took (at its ETag), so of two replacements at
// once the later revokes the earlier's.
func (s *Service) ReplaceFeedToken(ctx context.Context, memberKey string) (string, error) {
	token := newFeedToken()
	if _, err := storage.Insert(ctx, s.feeds, feedRow{PartitionKey: token, RowKey: "t", MemberKey: memberKey}); err != nil {
		return "", err
	}
	var old string
	_, err := storage.Modify(ctx, s.feeds, memberKey, "m", func(r *feedRow, _ bool) error {
		old, r.Token = r.Token, token
		return nil
	})
	if err != nil {
		s.dropFeedRow(ctx, token) // never named, so it never worked
		return "", err
	}
	s.dropFeedRow(ctx, old)
	return token, nil
}

// dropFeedRow deletes the row of a token the member's row no longer
// names ("" for none). It works no more already, so a failure is
// logged and leaves a row that answers 404.
func (s *Service) dropFeedRow(ctx context.Context, token string) {
	if token == "" {
		return
	}
	if err := storage.Forget(ctx, s.feeds, token, "t"); err != nil {
		s.log.WarnContext(ctx, "events: a replaced feed token's row stays", "err", err)
	}
}

// feedURL is a feed's address.
func (s *Service) feedURL(token string) string {
	return s.baseURL + "/events/calendar/" + token + ".ics"
}

// MyCalendar is the feed the token opens: everything its person is
// going to, waiting for or offered, as an RFC 5545 calendar.
func (s *Service) MyCalendar(ctx context.Context, token, host string) ([]byte, error) {
	if len(token) != 32 {
		return nil, ErrNoFeed
	}
	if _, err := hex.DecodeString(token); err != nil {
		return nil, ErrNoFeed
	}
	r, err := storage.Find[feedRow](ctx, s.feeds, token, "t", ErrNoFeed)
	if err != nil {
		return nil, err
	}
	// The member row must still name this token: a feed row left by a
	// replacement that stopped midway is no feed.
	if cur, err := s.FeedToken(ctx, r.MemberKey); err != nil || subtle.ConstantTimeCompare([]byte(cur), []byte(token)) != 1 {
		if err != nil {
			return nil, err
		}
		return nil, ErrNoFeed
	}
	// A disabled or deleted account's feed stops with its sessions: its
	// confirmed-only details (a door code, a meeting link) are for the
	// people going.
	if s.people != nil {
		p, err := s.people.Profile(ctx, r.MemberKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
		if err != nil || !p.Enabled || p.DeletedAt != nil {
			return nil, ErrNoFeed
		}
	}
	mine, err := s.catalog.MyEvents(ctx, r.MemberKey)
	if err != nil {
		return nil, err
	}
	var entries []calendarEntry
	for _, m := range mine {
		en := calendarEntry{Event: m.Event, Confirmed: m.Status == StatusGoing}
		switch m.Status {
		case StatusWaitlist:
			en.Note = "waitlisted #" + strconv.Itoa(m.Position)
		case StatusOffered:
			en.Note = "seat offered until " + m.OfferUntil.UTC().Format("2006-01-02 15:04 UTC")
		case StatusPending:
			en.Note = "awaiting approval"
		}
		entries = append(entries, en)
	}
	return writeCalendar(host, s.now(), "Harmony: my events", entries), nil
}

// myCalendar is GET /events/calendar/:file (":token.ics"): no session,
// the token is the key; anything wrong is the same 404.
func (s *Service) myCalendar(c echo.Context) error {
	file := c.Param("file")
	if len(file) < 4 || file[len(file)-4:] != ".ics" {
		return ErrNoFeed
	}
	body, err := s.MyCalendar(c.Request().Context(), file[:len(file)-4], ical.UIDHost(s.baseURL))
	if err != nil {
		return err
	}
	return web.ServeCalendarFeed(c, body)
}

// replaceFeed is POST /events/mine/feed: turns the feed on, or replaces
// its token (the old URL stops working).
func (s *Service) replaceFeed(c echo.Context) error {
	if _, err := s.ReplaceFeedToken(c.Request().Context(), auth.From(c).MemberKey); err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.feed", myEventsURL)
}

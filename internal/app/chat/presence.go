package chat

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/lru"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Presence (document 003): someone is online while one of their chat
// streams is open or their pages sent a heartbeat in the last two
// minutes, judged when read from the time of their last sign of life.
// Each instance writes a person's row at most once a minute
// (presenceEvery), whatever the number of their streams and tabs, so
// presence costs a write per online person per minute. Anyone may
// appear offline: others then see them offline, whatever they do.

// PresenceTable holds each person's last sign of life.
const PresenceTable = "Presence"

const (
	presencePart  = "presence"
	presenceStale = 2 * time.Minute
	presenceEvery = time.Minute
)

// PresenceRow is one person's presence: PK "presence", RK memberKey.
type PresenceRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	LastSeen     time.Time `table:"lastSeen"`
	Hidden       bool      `table:"hidden"`
	// NoReceipts leaves them out of "seen by" (seen.go).
	NoReceipts bool `table:"noReceipts"`
	// DefaultRoom is the room /chat/default opens for them (document
	// 003), "" for the first fixed room.
	DefaultRoom string `table:"defaultRoom"`
}

// presence is an instance's record of what it wrote when (for the
// remembered people seen most recently).
type presence struct {
	mu      sync.Mutex
	written *lru.Cache[string, time.Time]
}

// Seen records a sign of life from memberKey now: a write only when this
// instance wrote none for them in the last minute.
func (s *Service) Seen(ctx context.Context, memberKey string) {
	now := s.now().UTC()
	s.pres.mu.Lock()
	if s.pres.written == nil {
		s.pres.written = lru.New[string, time.Time](remembered)
	}
	if last, ok := s.pres.written.Get(memberKey); ok && now.Sub(last) < presenceEvery {
		s.pres.mu.Unlock()
		return
	}
	s.pres.written.Put(memberKey, now)
	s.pres.mu.Unlock()
	e := storage.Entity{PartitionKey: presencePart, RowKey: memberKey, Props: map[string]any{"lastSeen": now}}
	if _, err := s.presence.Upsert(ctx, e, storage.Merge); err != nil {
		s.logger.WarnContext(ctx, "chat: presence not written", "err", err)
	}
}

// Online reports whether memberKey is online, as others see them.
func (s *Service) Online(ctx context.Context, memberKey string) (bool, error) {
	p, err := storage.Find[PresenceRow](ctx, s.presence, presencePart, memberKey, nil)
	if err != nil {
		return false, err
	}
	return !p.Hidden && s.now().Sub(p.LastSeen) < presenceStale, nil
}

// Hidden reports whether memberKey appears offline.
func (s *Service) Hidden(ctx context.Context, memberKey string) (bool, error) {
	p, err := storage.Get[PresenceRow](ctx, s.presence, presencePart, memberKey)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return p.Hidden, err
}

// SetHidden sets whether memberKey appears offline.
func (s *Service) SetHidden(ctx context.Context, memberKey string, hidden bool) error {
	e := storage.Entity{PartitionKey: presencePart, RowKey: memberKey, Props: map[string]any{"hidden": hidden}}
	_, err := s.presence.Upsert(ctx, e, storage.Merge)
	return err
}

// heartbeat is POST /chat/presence: a page's sign of life (htmx sends it
// every minute while a chat page is open).
func (s *Service) heartbeat(c echo.Context) error {
	s.Seen(c.Request().Context(), auth.From(c).MemberKey)
	return c.NoContent(http.StatusNoContent)
}

// appearOffline is POST /chat/appear-offline (hidden=true|false).
func (s *Service) appearOffline(c echo.Context) error {
	hidden := c.FormValue("hidden") == "true"
	if err := s.SetHidden(c.Request().Context(), auth.From(c).MemberKey, hidden); err != nil {
		return err
	}
	return web.FlashRedirect(c, map[bool]string{true: "chat.flash.hidden", false: "chat.flash.visible"}[hidden], "/chat")
}

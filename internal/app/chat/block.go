package chat

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
	"github.com/harmony/harmony/views/components"
)

// Blocking. A person can block another: the blocker starts no private
// chat with them, their messages are collapsed for the blocker wherever
// they meet (rooms, groups, events, an earlier private chat), and their
// messages and mentions never notify the blocker. The blocked person is
// not told: their messages go through as before, and nothing they see
// changes. Blocks (PK blocker, RK blocked; TABLES.md) is read once per
// page or stream; the people module will use the same rows.

// BlocksTable holds who blocked whom.
const BlocksTable = "Blocks"

// BlockRow is one block.
type BlockRow struct {
	PartitionKey string    `table:"PartitionKey"` // blocker
	RowKey       string    `table:"RowKey"`       // blocked
	ETag         string    `table:"ETag"`
	Name         string    `table:"name"` // the blocked person's name then
	CreatedAt    time.Time `table:"createdAt"`
}

// ErrBlockedByYou refuses the blocker a private chat with someone they
// blocked (409), saying so.
var ErrBlockedByYou = fault.New(http.StatusConflict, "chat.error.blocked", "chat: you blocked them")

// Block records that blocker blocks other (by name as shown).
func (s *Service) Block(ctx context.Context, blocker, other, name string) error {
	if err := blockable(blocker, other); err != nil {
		return err
	}
	_, err := storage.Upsert(ctx, s.blocks, BlockRow{PartitionKey: blocker, RowKey: other, Name: name, CreatedAt: s.now().UTC()})
	return err
}

// blockable refuses a block of oneself or of no account's key (ErrSelf).
func blockable(blocker, other string) error {
	if blocker == other || !auth.IsAuthMemberKey(other) {
		return ErrSelf
	}
	return nil
}

// Unblock takes a block back.
func (s *Service) Unblock(ctx context.Context, blocker, other string) error {
	if !auth.IsAuthMemberKey(other) {
		return ErrNoChat
	}
	return storage.Forget(ctx, s.blocks, blocker, other)
}

// Blocked are the people memberKey blocked: one query.
func (s *Service) Blocked(ctx context.Context, memberKey string) (map[string]BlockRow, error) {
	rows, err := storage.All[BlockRow](ctx, s.blocks, storage.Query{PartitionKey: memberKey})
	out := make(map[string]BlockRow, len(rows))
	for _, r := range rows {
		out[r.RowKey] = r
	}
	return out, err
}

// HasBlocked reports whether blocker blocked other: one point read. The
// inbox asks it before it delivers a notice (inbox.Blocks), so a
// blocked person's replies, mentions and messages tell the blocker
// nothing in any module.
func (s *Service) HasBlocked(ctx context.Context, blocker, other string) (bool, error) {
	_, err := storage.Get[BlockRow](ctx, s.blocks, blocker, other)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// hasBlocked is HasBlocked for a refusal: a failed read refuses nothing.
func (s *Service) hasBlocked(ctx context.Context, blocker, other string) bool {
	b, _ := s.HasBlocked(ctx, blocker, other)
	return b
}

// block is POST /chat/block (member, name, next), after confirmation;
// unblock is POST /chat/unblock (member).
func (s *Service) block(c echo.Context) error {
	id := auth.From(c)
	if !web.Confirmed(c) {
		if err := blockable(id.MemberKey, c.FormValue("member")); err != nil {
			return err
		}
		return web.AskConfirm(c, blockConfirm(c))
	}
	if err := s.Block(c.Request().Context(), id.MemberKey, c.FormValue("member"), c.FormValue("name")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.flash.blocked", web.NextOr(c, "/chat"))
}

func (s *Service) unblock(c echo.Context) error {
	if err := s.Unblock(c.Request().Context(), auth.From(c).MemberKey, c.FormValue("member")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.flash.unblocked", "/chat")
}

// blockConfirm asks before blocking.
func blockConfirm(c echo.Context) components.ConfirmProps {
	return views.BlockProps(c.Request().Context(), c.FormValue("member"), c.FormValue("name"), web.NextOr(c, ""))
}

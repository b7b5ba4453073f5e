package chat

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Muting, as Telegram's and Zulip's: someone who mutes a chat gets no
// notice of its messages while they are away, and the list shows its
// unread count in grey, with a muted mark; mentions of them still reach
// their inbox, as a mention is meant for them. The flag rides on their
// marker row (UserChatRow), which the list and the chat's page read
// anyway: knowing it costs them nothing. A notice that could go to
// someone reads their row once.

// Mute mutes (on) or unmutes ch for memberKey. Doing what is done
// already writes nothing.
func (s *Service) Mute(ctx context.Context, memberKey string, ch ChatRow, on bool) error {
	_, err := storage.Modify(ctx, s.userChats, memberKey, ch.RowKey, func(r *UserChatRow, exists bool) error {
		if r.Muted == on {
			return storage.ErrNoChange
		}
		if !exists {
			r.Kind, r.JoinedAt = ch.Kind, s.now().UTC()
		}
		r.Muted = on
		return nil
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	// The instance's copy of the marker row has the old ETag; a marker
	// move through it would fail and read the row again, but the copy
	// goes now, so nothing reads the old flag from it.
	s.markers.Delete(memberKey + "|" + ch.RowKey)
	return err
}

// mutes reports whether memberKey muted chatID: one point read, for a
// notice that may go to them. A failed read counts as not muted (the
// notice goes) and is logged.
func (s *Service) mutes(ctx context.Context, memberKey, chatID string) bool {
	r, err := storage.Find[UserChatRow](ctx, s.userChats, memberKey, chatID, nil)
	if err != nil {
		s.logger.WarnContext(ctx, "chat: muted chats not read", "member", memberKey, "err", err)
	}
	return r.Muted
}

// mute is POST /chat/:id/mute (mute=true|false).
func (s *Service) mute(c echo.Context) error {
	on := c.FormValue("mute") == "true"
	ch := accessOf(c).Chat
	if err := s.Mute(c.Request().Context(), auth.From(c).MemberKey, ch, on); err != nil {
		return err
	}
	key := "chat.flash.unmuted"
	if on {
		key = "chat.flash.muted"
	}
	return web.FlashRedirect(c, key, chatURL(ch.RowKey))
}

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
)

// Muting, as Telegram's and Zulip's: someone who mutes a chat, for an
// hour, eight hours, a day, a week or until they unmute it, gets no
// notice of its messages while they are away, and the list shows its
// unread count in grey, with a muted mark; mentions of them still reach
// their inbox, as a mention is meant for them. The flag rides on their
// marker row (UserChatRow), which the list and the chat's page read
// anyway: knowing it costs them nothing. A notice that could go to
// someone reads their row once.

// muteFor are the spans a mute may last, as Telegram offers them;
// "always" lasts until unmuted.
var muteFor = map[string]time.Duration{"1h": time.Hour, "8h": 8 * time.Hour, "1d": 24 * time.Hour, "1w": 7 * 24 * time.Hour, "always": 0}

// MuteSpans are the spans, in the menu's order.
var MuteSpans = []string{"1h", "8h", "1d", "1w", "always"}

// Mute mutes ch for memberKey for span (one of MuteSpans), or unmutes it
// (span ""). Doing what is done already writes nothing.
func (s *Service) Mute(ctx context.Context, memberKey string, ch ChatRow, span string) error {
	d, ok := muteFor[span]
	if !ok && span != "" {
		return ErrBadMute
	}
	var until *time.Time
	if d > 0 {
		u := s.now().UTC().Add(d).Truncate(time.Minute)
		until = &u
	}
	on := span != ""
	_, err := storage.Modify(ctx, s.userChats, memberKey, ch.RowKey, func(r *UserChatRow, exists bool) error {
		if r.Muted == on && (!on || sameTime(r.MutedUntil, until)) {
			return storage.ErrNoChange
		}
		if !exists {
			r.Kind, r.JoinedAt = ch.Kind, s.now().UTC()
		}
		r.Muted, r.MutedUntil = on, until
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

// sameTime says a and b are both nil or the same time.
func sameTime(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}

// ErrBadMute is a span the menu does not offer (400).
var ErrBadMute = fault.New(http.StatusBadRequest, "chat.error.mute", "chat: no such mute span")

// mutes reports whether memberKey muted chatID now: one point read, for
// a notice that may go to them. A failed read counts as not muted (the
// notice goes) and is logged.
func (s *Service) mutes(ctx context.Context, memberKey, chatID string) bool {
	r, err := storage.Find[UserChatRow](ctx, s.userChats, memberKey, chatID, nil)
	if err != nil {
		s.logger.WarnContext(ctx, "chat: muted chats not read", "member", memberKey, "err", err)
	}
	return r.MutedAt(s.now())
}

// mute is POST /chat/:id/mute (mute=1h|8h|1d|1w|always, or off; true and
// false, which older pages post, are always and off).
func (s *Service) mute(c echo.Context) error {
	span := c.FormValue("mute")
	switch span {
	case "off", "false":
		span = ""
	case "true":
		span = "always"
	}
	ch := accessOf(c).Chat
	if err := s.Mute(c.Request().Context(), auth.From(c).MemberKey, ch, span); err != nil {
		return err
	}
	key := "chat.flash.unmuted"
	if span != "" {
		key = "chat.flash.muted"
	}
	return web.FlashRedirect(c, key, chatURL(ch.RowKey))
}

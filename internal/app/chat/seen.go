package chat

import (
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// "Seen by" in private and group chats comes from the read markers
// people already have (UserChats): no row per message. Under the newest
// message the page names who has read up to it, leaving out its sender
// and anyone who turned read receipts off (a flag on their presence
// row). It reads one marker per participant, up to seenLimit.

// seenLimit bounds the markers one page reads for "seen by".
const seenLimit = 20

// SeenBy names who read ch up to seq, but sender.
func (s *Service) SeenBy(ctx context.Context, ch ChatRow, seq int64, sender string) ([]string, error) {
	var people []ParticipantRow
	switch ch.Kind {
	case KindPrivate:
		people = []ParticipantRow{{MemberKey: ch.MemberA, Name: ch.NameA}, {MemberKey: ch.MemberB, Name: ch.NameB}}
	case KindGroup:
		var err error
		people, err = storage.All[ParticipantRow](ctx, s.log.table, storage.Query{PartitionKey: ch.RowKey, RowKeyPrefix: participantPrefix, Limit: seenLimit})
		if err != nil {
			return nil, err
		}
	default:
		return nil, nil
	}
	var out []string
	for _, p := range people {
		if p.MemberKey == sender {
			continue
		}
		r, err := storage.Get[UserChatRow](ctx, s.userChats, p.MemberKey, ch.RowKey)
		if errors.Is(err, storage.ErrNotFound) || err == nil && r.ReadSeq < seq {
			continue
		}
		if err != nil {
			return nil, err
		}
		if pr, err := storage.Get[PresenceRow](ctx, s.presence, presencePart, p.MemberKey); err == nil && pr.NoReceipts {
			continue
		}
		out = append(out, p.Name)
	}
	return out, nil
}

// receipts is POST /chat/receipts (send=true|false): whether the person
// sends read receipts.
func (s *Service) receipts(c echo.Context) error {
	off := c.FormValue("send") == "false"
	e := storage.Entity{PartitionKey: presencePart, RowKey: auth.From(c).MemberKey, Props: map[string]any{"noReceipts": off}}
	if _, err := s.presence.Upsert(c.Request().Context(), e, storage.Merge); err != nil {
		return err
	}
	return web.FlashRedirect(c, map[bool]string{true: "chat.flash.receipts_off", false: "chat.flash.receipts_on"}[off], "/chat")
}

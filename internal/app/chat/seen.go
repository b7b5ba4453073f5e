package chat

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// "Seen by" in private and group chats comes from the read markers
// people already have (UserChats): no row per message. Under the newest
// message the page names who has read up to it, leaving out its sender,
// the viewer (nobody needs telling that they saw it) and anyone who
// turned read receipts off (a flag on their presence row). It reads one
// marker per participant, up to seenLimit.

// seenLimit bounds the markers one page reads for "seen by".
const seenLimit = 20

// Streams keep "seen by" live: a marker moving in a private or group
// chat writes a read row to the activity feed (hub.go), every instance
// watching the chat hears of it, and each stream sends the line again
// when it changed. The line is worked out once per instance for each
// newest message and marker change (seenCache), however many streams
// show it, and at least every seenFresh.
const seenFresh = 30 * time.Second

// seenCache is one chat's last "seen by" on this instance.
type seenCache struct {
	seq     int64
	gen     uint64
	at      time.Time
	readers []reader
}

// reader is someone who read up to a message.
type reader struct{ key, name string }

// namesBut names the readers but viewer.
func namesBut(rs []reader, viewer string) []string {
	var out []string
	for _, r := range rs {
		if r.key != viewer {
			out = append(out, r.name)
		}
	}
	return out
}

// liveSeenBy is SeenBy through the instance's cache.
func (s *Service) liveSeenBy(ctx context.Context, ch ChatRow, seq int64, sender string) ([]reader, error) {
	gen := s.hub.Gen(ch.RowKey)
	now := s.now()
	if c, ok := s.seenLines.Get(ch.RowKey); ok {
		if c.seq == seq && c.gen == gen && now.Sub(c.at) < seenFresh {
			return c.readers, nil
		}
	}
	readers, err := s.seenBy(ctx, ch, seq, sender)
	if err == nil {
		s.seenLines.Put(ch.RowKey, seenCache{seq: seq, gen: gen, at: now, readers: readers})
	}
	return readers, err
}

// seenBy is who read ch up to seq, but sender and those who send no
// receipts.
func (s *Service) seenBy(ctx context.Context, ch ChatRow, seq int64, sender string) ([]reader, error) {
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
	var out []reader
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
		out = append(out, reader{p.MemberKey, p.Name})
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

// statusState is what a stream last sent of the status around the log:
// the newest message it showed (and its sender, "" until known), the
// "seen by" line and the presence; viewer is whose stream it is.
type statusState struct {
	viewer string
	newest int64
	// heard is set once the stream showed a message of a private chat's
	// other person: they wrote, so their presence shows (ChatRow.wrote).
	heard    bool
	sender   string
	known    bool
	seen     string
	presence string
}

// status is the status around acc's log for st's newest message, and
// whether it differs from what st last sent; presence also reads the
// other person's presence (a private chat's heartbeat).
func (s *Service) status(ctx context.Context, acc Access, st *statusState, presence bool) (views.StatusProps, bool, error) {
	ch := acc.Chat
	p := views.StatusProps{Presence: st.presence}
	changed := false
	if presence && acc.Other != "" && (acc.Chat.wrote(acc.Other) || st.heard) {
		on, err := s.Online(ctx, acc.Other)
		if err != nil {
			return p, false, err
		}
		p.Presence = presenceWord(on)
		changed = p.Presence != st.presence
		st.presence = p.Presence
	}
	if ch.Kind == KindPrivate || ch.Kind == KindGroup {
		if !st.known && st.sender == "" && st.newest > 0 {
			// Whose the newest message is: it is in the hub's tail.
			m, err := s.log.Message(ctx, ch.RowKey, st.newest)
			if err != nil && !errors.Is(err, ErrNoMessage) {
				return p, false, err
			}
			st.sender = m.Sender
		}
		st.known = true
		readers, err := s.liveSeenBy(ctx, ch, st.newest, st.sender)
		if err != nil {
			return p, false, err
		}
		names := namesBut(readers, st.viewer)
		p.SeenBy = names
		joined := strings.Join(names, "\x00")
		changed = changed || joined != st.seen
		st.seen = joined
	}
	return p, changed, nil
}

// presenceWord is how the views name a presence.
func presenceWord(online bool) string {
	if online {
		return "online"
	}
	return "offline"
}

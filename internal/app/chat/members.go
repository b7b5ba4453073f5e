package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
)

// Participants and mentions. The first time someone opens a room, group
// or event chat, a participant row (p|{memberKey}) goes into the chat's
// Messages partition; the first time they write there, the log says
// "{name} joined" (a system message, which unread counts leave out). The participants are
// who an @mention can name: "@Anna Smith" or, when no one else shares
// it, "@Anna". Each person mentioned (not the sender) is told in their
// inbox, once per message, if they may open the chat now: participant
// rows stay when someone leaves a group, an event or a private room, so
// each is asked again (mayOpen), for at most richtext.MaxMentioned
// people a message.

// participantPrefix starts every participant row's RowKey.
const participantPrefix = "p|"

// ParticipantRow is one person who joined a chat.
type ParticipantRow struct {
	PartitionKey string    `table:"PartitionKey"` // chatId
	RowKey       string    `table:"RowKey"`       // "p|{memberKey}"
	ETag         string    `table:"ETag"`
	MemberKey    string    `table:"memberKey"`
	Name         string    `table:"name"`
	JoinedAt     time.Time `table:"joinedAt"`
	// Announced is set once the log said they joined (their first
	// message).
	Announced bool `table:"announced"`
}

// seen records who as a participant of ch on their first visit (no
// message: reading is not joining the conversation).
func (s *Service) seen(ctx context.Context, who Person, ch ChatRow) {
	if ch.Kind == KindPrivate {
		return
	}
	// This instance records each person once per chat; a write that
	// failed is tried again on their next visit.
	known := ch.RowKey + "|" + who.MemberKey
	if _, ok := s.participants.GetOrPut(known, true); ok {
		return
	}
	err := s.log.marks.Mark(ctx, who.MemberKey, ch.RowKey)
	if err == nil {
		_, err = storage.Insert(ctx, s.log.table, ParticipantRow{PartitionKey: ch.RowKey, RowKey: participantPrefix + who.MemberKey, MemberKey: who.MemberKey, Name: who.Name, JoinedAt: s.now().UTC()})
	}
	if err != nil && !errors.Is(err, storage.ErrExists) {
		s.participants.Delete(known)
		s.logger.WarnContext(ctx, "chat: participant not recorded", "chat", ch.RowKey, "err", err)
	}
}

// joined records who as a participant of ch when they first write there,
// and says so in the log: "{name} joined" (private chats have their two
// people already, and no such message).
func (s *Service) joined(ctx context.Context, who Person, ch ChatRow) {
	if ch.Kind == KindPrivate {
		return
	}
	first := false
	err := s.log.marks.Mark(ctx, who.MemberKey, ch.RowKey)
	if err == nil {
		_, err = storage.Modify(ctx, s.log.table, ch.RowKey, participantPrefix+who.MemberKey, func(p *ParticipantRow, exists bool) error {
			if exists && p.Announced {
				return storage.ErrNoChange
			}
			if !exists {
				p.MemberKey, p.JoinedAt = who.MemberKey, s.now().UTC()
			}
			p.Name, p.Announced, first = who.Name, true, true
			return nil
		})
	}
	if err != nil || !first {
		if err != nil {
			s.logger.WarnContext(ctx, "chat: participant not recorded", "chat", ch.RowKey, "err", err)
		}
		return
	}
	m, err := s.log.appendEntry(ctx, ch.RowKey, Person{MemberKey: who.MemberKey, Name: who.Name}, TypeSystem, "joined", "", s.ttlOf(ch), 0)
	if err != nil {
		s.logger.WarnContext(ctx, "chat: join not said", "chat", ch.RowKey, "err", err)
		return
	}
	s.hub.Sent(ctx, m)
}

// mentioned are the participants of ch that body names with @ (not the
// sender): one query of the participants, only when body has an @.
func (s *Service) mentioned(ctx context.Context, ch ChatRow, sender, body string) ([]ParticipantRow, error) {
	if !strings.Contains(body, "@") {
		return nil, nil
	}
	var people []ParticipantRow
	if ch.Kind == KindPrivate {
		for _, k := range []struct{ key, name string }{{ch.MemberA, ch.NameA}, {ch.MemberB, ch.NameB}} {
			people = append(people, ParticipantRow{MemberKey: k.key, Name: k.name})
		}
	} else {
		var err error
		people, err = storage.All[ParticipantRow](ctx, s.log.table, storage.Query{PartitionKey: ch.RowKey, RowKeyPrefix: participantPrefix, Limit: 1000})
		if err != nil {
			return nil, err
		}
	}
	named := make([]richtext.Named, len(people))
	for i, p := range people {
		named[i] = richtext.Named{Key: p.MemberKey, Name: p.Name}
	}
	var out []ParticipantRow
	for _, n := range richtext.Mentioned(body, sender, named) {
		out = append(out, ParticipantRow{MemberKey: n.Key, Name: n.Name})
	}
	return out, nil
}

// tellMentioned tells each person m mentions who may open ch now (at
// most richtext.MaxMentioned), in their inbox: a notice carries the
// start of the message, which someone who lost the chat must not read.
// A person hears of mentions in one chat once an hour (the notice's key),
// as of private messages: each notice may be mailed, and a stream of
// "@name" must not become a stream of mail. A private chat's own notice
// (tellOffline) covers mentions in it.
func (s *Service) tellMentioned(ctx context.Context, ch ChatRow, title string, m MessageRow) {
	if s.notifier == nil || m.Type != TypeText || ch.Kind == KindPrivate {
		return
	}
	people, err := s.mentioned(ctx, ch, m.Sender, m.Body)
	if err != nil {
		s.logger.WarnContext(ctx, "chat: mentions not read", "chat", ch.RowKey, "err", err)
		return
	}
	for _, p := range people {
		if err := s.mayOpen(ctx, p.MemberKey, ch); err != nil {
			if !errors.Is(err, ErrNoChat) {
				s.logger.WarnContext(ctx, "chat: mention not checked", "chat", ch.RowKey, "err", err)
			}
			continue
		}
		err := s.notifier.Post(ctx, inbox.Notice{
			To:         []inbox.Recipient{{MemberKey: p.MemberKey}},
			Kind:       "chat.notify.mention",
			Args:       map[string]string{"name": m.SenderName, "chat": title, "preview": preview(m.Body)},
			When:       m.SentAt,
			Link:       chatURL(ch.RowKey) + fmt.Sprintf("#m-%d", m.Seq),
			Key:        fmt.Sprintf("chat.mention|%s|%s|%s", ch.RowKey, p.MemberKey, m.SentAt.UTC().Format("2006010215")),
			From:       m.Sender,
			Ref:        quoteRef(ch, m),
			QuoteUntil: expiry(m),
		})
		if err != nil {
			s.logger.WarnContext(ctx, "chat: mention not posted", "chat", ch.RowKey, "err", err)
		}
	}
}

// Forget deletes a group's or an event's chat whole, for good, once
// what it belongs to is gone (a deleted group's purge): the chat's
// place in each of memberKeys' lists, its pictures, its messages and
// head, then its row. Each part is idempotent and the row goes last, so
// a purge cut short is finished by the next run.
func (s *Service) Forget(ctx context.Context, chatID string, memberKeys []string) error {
	kind, _ := kindOf(chatID)
	if kind != KindGroup && kind != KindEvent {
		return ErrNoChat
	}
	for _, k := range memberKeys {
		if err := storage.Forget(ctx, s.userChats, k, chatID); err != nil {
			return err
		}
	}
	if err := s.images.DeleteAll(ctx, chatID); err != nil {
		return err
	}
	if err := storage.DeletePartition(ctx, s.log.table, chatID); err != nil {
		return err
	}
	pk, rk := chatKey(kind, chatID)
	return storage.Forget(ctx, s.chats, pk, rk)
}

// TypeLeft is a system entry: its sender left what the chat belongs to
// (a group, an event). Streams of that person end at it, on every
// instance, so they stop getting the chat at once.
const TypeLeft = "left"

// Left says in chatID that memberKey left, when the chat exists: the
// groups and events modules call it on removal, leaving and cancelling.
func (s *Service) Left(ctx context.Context, chatID, memberKey, name string) {
	kind, _ := kindOf(chatID)
	ch, err := s.chatRow(ctx, kind, chatID)
	if err != nil {
		return // no chat yet: nothing to end
	}
	m, err := s.log.appendEntry(ctx, ch.RowKey, Person{MemberKey: memberKey, Name: name}, TypeLeft, "left", "", s.ttlOf(ch), 0)
	if err != nil {
		s.logger.WarnContext(ctx, "chat: departure not said", "chat", chatID, "err", err)
		return
	}
	s.hub.Sent(ctx, m)
}

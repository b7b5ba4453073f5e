package chat

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account. A member's messages stay where they were sent
// (their pictures with them), written by memberdata.Forgotten with no
// name kept, and so do the heads whose last message is theirs; a private
// chat stays for the other person, its deleted side Forgotten (it then
// takes no more messages: nobody would read them). Their reactions are
// taken back (each emoji's count is its list of people) as a reaction
// taken back by hand is, so open pages show the new counts live; and their
// participant rows, chat list (read markers, unread counts, mutes,
// rooms joined), presence, blocks both ways, rate-limit rows and the
// live feed's recent rows that carry them go. Rooms have no owner, so
// a room they made goes on. Every step finds what is left by its own
// query, so a run cut short is finished by the next.
//
// The member's rows in the message logs (messages, the log's entries of
// their edits and reactions, heads, participant rows) are found through
// their footprints (memberdata.Footprints: the chats they wrote in, each
// recorded before their first entry there, and gone last), one query of
// each such chat's partition instead of a scan of every chat's log.

// propIs is the query of the rows, in any partition, whose property
// name is value: a scan.
func propIs(name, value string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: name, Op: storage.Eq, Value: value}}}
}

type exportedMessage struct {
	Chat    string     `json:"chat_id"`
	Number  int64      `json:"number"`
	Text    string     `json:"text,omitempty"`
	Picture bool       `json:"picture,omitempty"`
	Sent    time.Time  `json:"sent"`
	Edited  *time.Time `json:"edited,omitempty"`
	Deleted bool       `json:"deleted,omitempty"`
	// ReplyTo is the number of the message it answers (its words are
	// whoever wrote them's: not copied here).
	ReplyTo int64 `json:"reply_to,omitempty"`
}

type exportedChat struct {
	Chat   string    `json:"chat_id"`
	Kind   string    `json:"kind"`
	Joined time.Time `json:"joined"`
	Member string    `json:"room_membership,omitempty"`
	Muted  bool      `json:"muted,omitempty"`
	// Saved are the messages they saved there (saved.go).
	Saved []SavedMark `json:"saved,omitempty"`
}

type exportedBlock struct {
	Name  string    `json:"name"`
	Since time.Time `json:"since"`
}

// ExportMember writes the messages m sent, their chats and the people
// they blocked (by name) into chat/.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	sent, err := memberdata.AllWhere[MessageRow](ctx, s.log.marks, s.log.table, m.Key, propIs("sender", m.Key))
	if err != nil {
		return err
	}
	messages := []exportedMessage{}
	for _, r := range sent {
		if r.Type == TypeText || r.Type == TypeImage {
			messages = append(messages, exportedMessage{Chat: r.PartitionKey, Number: r.Seq, Text: r.Body, Picture: r.ImageKey != "", Sent: r.SentAt, Edited: r.EditedAt, Deleted: r.DeletedAt != nil, ReplyTo: r.ReplyTo})
		}
	}
	rows, err := storage.All[UserChatRow](ctx, s.userChats, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	chats := []exportedChat{}
	for _, r := range rows {
		chats = append(chats, exportedChat{Chat: r.RowKey, Kind: r.Kind, Joined: r.JoinedAt, Member: r.Member, Muted: r.Muted, Saved: storage.ListOf[SavedMark](r.Saved)})
	}
	blocked, err := storage.All[BlockRow](ctx, s.blocks, storage.Query{PartitionKey: m.Key})
	if err != nil {
		return err
	}
	blocks := []exportedBlock{}
	for _, b := range blocked {
		blocks = append(blocks, exportedBlock{Name: b.Name, Since: b.CreatedAt})
	}
	return memberdata.Files(to, "chat", map[string]any{"messages": messages, "chats": chats, "blocked": blocks})
}

// ForgetMember forgets m in the chats (see the top of this file).
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return nil
	}
	for _, step := range []func(context.Context, string) error{
		s.forgetReactions, s.forgetMessages, s.forgetPrivateChats, s.forgetRows, s.log.marks.Forget,
	} {
		if err := step(ctx, m.Key); err != nil {
			return err
		}
	}
	return nil
}

// forgetReactions takes memberKey out of every reaction they gave. A
// message still served changes as when they take one back by hand
// (Service.reshape), by Forgotten: open pages get the new counts live.
// One expired (still in the table, shown to no one) is rewritten alone.
func (s *Service) forgetReactions(ctx context.Context, memberKey string) error {
	q := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "reactions", Op: storage.Gt, Value: ""}}}
	drop := func(_ MessageRow, set reactionSet) error {
		set.drop(memberKey)
		return nil
	}
	forgotten := Person{MemberKey: memberdata.Forgotten}
	return s.log.marks.QueryAll(ctx, s.log.table, memberKey, q, func(e storage.Entity) error {
		rows, err := storage.Decode[MessageRow](ctx, s.log.table, []storage.Entity{e})
		if err != nil || len(rows) == 0 {
			return err
		}
		m := rows[0]
		if !strings.Contains(m.Reactions, memberKey) {
			return nil
		}
		_, err = s.reshape(ctx, m.PartitionKey, m.Seq, forgotten, drop)
		if errors.Is(err, ErrNoMessage) {
			_, err = storage.Change(ctx, s.log.table, m.PartitionKey, m.RowKey, storage.ErrNoChange, func(m *MessageRow) error { return reshaped(m, drop) })
		}
		if errors.Is(err, storage.ErrNoChange) {
			return nil
		}
		return err
	})
}

// forgetMessages rewrites memberKey's messages (and the log's entries
// of their edits, joins and leaves) and the heads whose last message is
// theirs to Forgotten, with no name.
func (s *Service) forgetMessages(ctx context.Context, memberKey string) error {
	err := memberdata.RewriteWhere(ctx, s.log.marks, s.log.table, memberKey, propIs("sender", memberKey), func(m *MessageRow) error {
		if m.Sender != memberKey {
			return storage.ErrNoChange
		}
		m.Sender, m.SenderName = memberdata.Forgotten, ""
		return nil
	})
	if err != nil {
		return err
	}
	return memberdata.RewriteWhere(ctx, s.log.marks, s.log.table, memberKey, propIs("lastSenderKey", memberKey), func(h *HeadRow) error {
		if h.LastSenderKey != memberKey {
			return storage.ErrNoChange
		}
		h.LastSenderKey, h.LastSender = memberdata.Forgotten, ""
		return nil
	})
}

// forgetPrivateChats makes memberKey's side of their private chats
// Forgotten: the private chats their footprints lead to (both people's
// are written as the chat is made), a point read each; before the
// footprints are complete, a query of every private chat.
func (s *Service) forgetPrivateChats(ctx context.Context, memberKey string) error {
	parts, complete, err := s.log.marks.Partitions(ctx, memberKey)
	if err != nil {
		return err
	}
	forget := func(c *ChatRow) error {
		switch memberKey {
		case c.MemberA:
			c.MemberA, c.NameA = memberdata.Forgotten, ""
		case c.MemberB:
			c.MemberB, c.NameB = memberdata.Forgotten, ""
		default:
			return storage.ErrNoChange
		}
		return nil
	}
	if complete {
		for _, id := range parts {
			if kind, _ := kindOf(id); kind != KindPrivate {
				continue
			}
			pk, rk := chatKey(KindPrivate, id)
			if _, err := storage.Change(ctx, s.chats, pk, rk, storage.ErrNoChange, forget); err != nil {
				return err
			}
		}
		return nil
	}
	pk, _ := chatKey(KindPrivate, "")
	for _, side := range []string{"memberA", "memberB"} {
		q := propIs(side, memberKey)
		q.Scan, q.PartitionKey = false, pk
		if err := memberdata.Rewrite(ctx, s.chats, q, forget); err != nil {
			return err
		}
	}
	return nil
}

// forgetRows deletes the rows that are memberKey's alone.
func (s *Service) forgetRows(ctx context.Context, memberKey string) error {
	forget := func(t *storage.Table) func(e storage.Entity) error {
		return func(e storage.Entity) error { return storage.Forget(ctx, t, e.PartitionKey, e.RowKey) }
	}
	if err := s.log.marks.QueryAll(ctx, s.log.table, memberKey, propIs("RowKey", participantPrefix+memberKey), forget(s.log.table)); err != nil {
		return err
	}
	for _, t := range []*storage.Table{s.userChats, s.blocks} {
		if err := storage.DeletePartition(ctx, t, memberKey); err != nil {
			return err
		}
	}
	if err := s.blocks.QueryAll(ctx, propIs("RowKey", memberKey), forget(s.blocks)); err != nil {
		return err
	}
	if err := storage.Forget(ctx, s.presence, presencePart, memberKey); err != nil {
		return err
	}
	// Rate-limit rows are keyed by what they count ("{memberKey}|{chat}",
	// "react|…", "new-private|…"), and the change feed's rows carry the
	// entries sent lately: both are few, read whole.
	err := s.sends.Table.QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
		if !strings.Contains(e.PartitionKey, memberKey) {
			return nil
		}
		return forget(s.sends.Table)(e)
	})
	if err != nil {
		return err
	}
	return s.hub.live.Forget(ctx, memberKey)
}

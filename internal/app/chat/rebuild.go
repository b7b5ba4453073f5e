package chat

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// A send puts a private chat in the other person's list after the
// message is written (addToList). A failure there is logged and the send
// stands, so the chat is missing from their list until the next message
// reaches it, or until this repair.

// RebuildSubject names the repair: web reindex chat, and its button on
// the admin page.
func (s *Service) RebuildSubject() string { return "chat" }

// Rebuild puts every private chat that has a message back in both its
// people's lists, unread from the start for whoever had lost it. It adds
// rows and never changes or removes one: what a list holds besides (read
// markers, rooms joined and left, group and event chats opened) is the
// person's own doing, not derived from anything. It reads the private
// chats' partition and each one's head; running it again adds nothing.
// Then it writes the members' footprints the logs imply and are missing
// (footprintsOf).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	lists, err := s.rebuildLists(ctx)
	if err != nil {
		return lists, err
	}
	marks, err := s.log.marks.Record(ctx, s.footprintsOf)
	return rebuildReport{lists, marks}, err
}

// rebuildReport is what Rebuild did.
type rebuildReport struct {
	lists listsReport
	marks *memberdata.Recorder
}

func (r rebuildReport) String() string { return r.lists.String() + "; " + r.marks.String() }

// footprintsOf reads the chats for the footprints they imply
// (memberdata.Footprints): each chat a member wrote in (a message, an
// edit, a reaction, any entry of the log under their name) or took part
// in (a participant row), and each private chat of theirs. It reads the
// message logs whole once, their senders' and participants' columns,
// and the private chats' partition.
func (s *Service) footprintsOf(ctx context.Context, add func(memberKey, chatID string)) error {
	err := s.log.table.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"sender", "memberKey"}}, func(e storage.Entity) error {
		who, _ := e.Props["sender"].(string)
		if strings.HasPrefix(e.RowKey, participantPrefix) {
			who, _ = e.Props["memberKey"].(string)
		}
		add(who, e.PartitionKey)
		return nil
	})
	if err != nil {
		return err
	}
	return s.chats.QueryAll(ctx, privateChats, func(e storage.Entity) error {
		for _, side := range []string{"memberA", "memberB"} {
			who, _ := e.Props[side].(string)
			add(who, e.RowKey)
		}
		return nil
	})
}

// privateChats reads every private chat's people.
var privateChats = storage.Query{PartitionKey: "chat|" + KindPrivate, Select: []string{"memberA", "memberB"}}

// noChats reports whether the store has no message and no private chat
// yet (memberdata.Footprints.Start).
func (s *Service) noChats(ctx context.Context) (bool, error) {
	none, err := memberdata.Empty(ctx, s.log.table, storage.Query{Scan: true, Select: []string{"RowKey"}})
	if err != nil || !none {
		return false, err
	}
	return memberdata.Empty(ctx, s.chats, privateChats)
}

// rebuildLists puts every private chat that has a message back in both
// its people's lists (Rebuild).
func (s *Service) rebuildLists(ctx context.Context) (listsReport, error) {
	var r listsReport
	pk, _ := chatKey(KindPrivate, "")
	err := s.chats.QueryAll(ctx, storage.Query{PartitionKey: pk, Select: []string{"RowKey", "kind", "memberA", "memberB"}}, func(e storage.Entity) error {
		var ch ChatRow
		if err := storage.Unmarshal(e, &ch); err != nil {
			return err
		}
		h, err := s.log.Head(ctx, ch.RowKey)
		if err != nil {
			return err
		}
		if h.Seq == 0 {
			return nil // started, never written in: in nobody's list
		}
		r.Chats++
		for _, k := range []string{ch.MemberA, ch.MemberB} {
			if memberdata.IsForgotten(k) {
				continue // deleted their account: no list
			}
			_, err := storage.Insert(ctx, s.userChats, UserChatRow{PartitionKey: k, RowKey: ch.RowKey, Kind: KindPrivate, JoinedAt: s.now().UTC()})
			switch {
			case err == nil:
				r.Restored++
			case !errors.Is(err, storage.ErrExists):
				return err
			}
		}
		return nil
	})
	return r, err
}

// listsReport is what Rebuild did.
type listsReport struct{ Chats, Restored int }

func (r listsReport) String() string {
	return fmt.Sprintf("private chats with messages: %d; list entries put back: %d", r.Chats, r.Restored)
}

package chat

import (
	"context"
	"errors"
	"fmt"

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
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
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

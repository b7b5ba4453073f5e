package chat

import (
	"context"
	"fmt"

	"github.com/harmony/harmony/internal/storage"
)

// Message expiry (MESSAGES_TTL, document 003, or a room's own lifetime
// set by admins). A message past its
// ExpiresAt is never served: every read checks it (Live), whether or not
// the sweeper has run. The sweeper deletes expired rows in batches. Every
// message of a chat gets the same TTL when it is sent, so a chat's
// expired messages are the start of its log (a room's lifetime applies
// to messages sent after it was set, so that holds too); the sweeper
// walks every chat, idle ones too (they are in Chats whether or not anyone writes),
// and deletes from the start of each log until the first live row, and
// the pictures of the messages it deleted.

// sweepBatch is how many rows one transaction deletes (one partition).
const sweepBatch = 100

// kinds are every kind of chat, the Chats table's partitions.
var kinds = []string{KindRoom, KindPrivate, KindGroup, KindEvent}

// SweepExpired deletes the expired messages and control entries of
// every chat, and reports how many.
func (s *Service) SweepExpired(ctx context.Context) (int, error) {
	total := 0
	for _, kind := range kinds {
		chats, err := storage.All[ChatRow](ctx, s.chats, storage.Query{PartitionKey: "chat|" + kind, Select: []string{"RowKey"}})
		if err != nil {
			return total, err
		}
		for _, c := range chats {
			n, err := s.sweepChat(ctx, c.RowKey)
			total += n
			if err != nil {
				return total, fmt.Errorf("chat: sweep %s: %w", c.RowKey, err)
			}
		}
	}
	return total, nil
}

// sweepChat deletes the expired start of one chat's log.
func (s *Service) sweepChat(ctx context.Context, chatID string) (int, error) {
	now := s.now()
	total := 0
	for {
		page, err := s.log.table.Query(ctx, storage.Query{PartitionKey: chatID, RowKeyPrefix: messagePrefix, Limit: sweepBatch, Select: []string{"RowKey", "expiresAt", "imageKey"}})
		if err != nil {
			return total, err
		}
		var ops []storage.TxOp
		var pictures []string
		for _, e := range page.Entities {
			var m MessageRow
			if err := storage.Unmarshal(e, &m); err != nil {
				return total, err
			}
			if Live(m, now) {
				break
			}
			ops = append(ops, storage.TxOp{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: chatID, RowKey: m.RowKey}, IfMatch: storage.AnyETag})
			if m.ImageKey != "" {
				pictures = append(pictures, m.ImageKey)
			}
		}
		if len(ops) == 0 {
			return total, nil
		}
		if err := s.log.table.Transact(ctx, ops); err != nil {
			return total, err
		}
		for _, p := range pictures {
			s.images.Delete(ctx, p)
		}
		total += len(ops)
		if len(ops) < len(page.Entities) || page.Next == nil {
			return total, nil
		}
	}
}

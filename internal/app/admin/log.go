package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

const logTable = "ModerationLog"

// targetUser is the target type of actions on accounts; later modules log
// actions on topics, prompts and so on.
const targetUser = "user"

// LogRow is one ModerationLog entry. Rows are only ever inserted.
type LogRow struct {
	PartitionKey string    `table:"PartitionKey"` // yyyyMM of At
	RowKey       string    `table:"RowKey"`       // ReverseTicks(At)|ID: newest first
	ETag         string    `table:"ETag"`
	ID           string    `table:"id"`
	Actor        string    `table:"actor"` // memberKey of the admin
	ActorName    string    `table:"actorName"`
	Action       string    `table:"action"`
	TargetType   string    `table:"targetType"`
	TargetKey    string    `table:"targetKey"`
	TargetName   string    `table:"targetName"` // display name at the time
	Reason       string    `table:"reason"`
	At           time.Time `table:"at"`
}

// logKey is the ModerationLog key: PK the month, RK reverse ticks and the
// entry's id, so a month reads newest first and two entries in the same
// tick stay apart.
func logKey(at time.Time, id string) (pk, rk string) {
	return storage.MonthBucket(at), storage.ReverseTicks(at) + "|" + id
}

// appendLog inserts entry, stamping its time, id and key.
func (s *Service) appendLog(ctx context.Context, entry LogRow) error {
	b := make([]byte, 8)
	rand.Read(b) // never fails
	entry.ID = hex.EncodeToString(b)
	entry.At = s.now().UTC()
	entry.PartitionKey, entry.RowKey = logKey(entry.At, entry.ID)
	e, err := storage.Marshal(entry)
	if err != nil {
		return err
	}
	_, err = s.log.Insert(ctx, e)
	return err
}

// LogAction records another module's moderation action (the forum's
// pins, locks and hidden posts) in the same log.
func (s *Service) LogAction(ctx context.Context, actorKey, actorName, action, targetType, targetKey, targetName, reason string) error {
	return s.appendLog(ctx, LogRow{Actor: actorKey, ActorName: actorName, Action: action, TargetType: targetType, TargetKey: targetKey, TargetName: targetName, Reason: reason})
}

// logMonths is how far back the overview looks for recent entries.
const logMonths = 12

// RecentLog returns up to limit of the newest entries of the last year.
func (s *Service) RecentLog(ctx context.Context, limit int) ([]LogRow, error) {
	entities, _, err := s.walkMonths(ctx, s.log, "", logMonths, limit, nil)
	if err != nil {
		return nil, err
	}
	return storage.Decode[LogRow](ctx, s.log, entities)
}

// walkMonths reads up to limit rows of t's month partitions ({prefix}
// yyyyMM), this month's first and back months months, from cursor.
func (s *Service) walkMonths(ctx context.Context, t *storage.Table, prefix string, months, limit int, cursor *storage.Cursor) ([]storage.Entity, *storage.Cursor, error) {
	now := s.now()
	walk := storage.Walk{
		Buckets:  storage.Months{Newest: now, Oldest: now.AddDate(0, -months, 0)},
		Limit:    limit,
		MaxCalls: months + 2,
		Fetch: func(ctx context.Context, month string, cont *storage.Continuation, n int) (storage.Page, error) {
			return t.Query(ctx, storage.Query{PartitionKey: prefix + month, Limit: n, Continuation: cont})
		},
	}
	return walk.Run(ctx, cursor)
}

// token is the paging token of query's next page, "" for none.
func (s *Service) token(query string, next *storage.Cursor) string {
	if next == nil {
		return ""
	}
	return s.cursors.Encode(query, *next)
}

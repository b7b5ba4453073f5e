package groups

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/storage"
)

// Comments written before the comments kit are keyed otherwise: first by
// their bare ULID (oldest first), then by "-" and the ULID with its
// digits inverted (newest first), and a deleted one was kept, marked
// isDeleted. Both sort before comments.KeyFrom, where the kit's threads
// start, so the kit reads past them; MigrateComments moves them.

// legacyComment is a comment as it was kept before the kit.
type legacyComment struct {
	comments.Row
	IsDeleted bool `table:"isDeleted"`
}

// ulidDigits are Crockford's base 32 digits, in order.
const ulidDigits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// legacyID is the ULID of a comment keyed before the kit: its bare
// RowKey, or the inverse of what follows "-" (each digit d was 31-d).
func legacyID(rk string) string {
	rest, inverted := strings.CutPrefix(rk, "-")
	if !inverted {
		return rk
	}
	b := []byte(rest)
	for i, c := range b {
		if d := strings.IndexByte(ulidDigits, c); d >= 0 {
			b[i] = ulidDigits[len(ulidDigits)-1-d]
		}
	}
	return string(b)
}

// migratedPK and migratedRK are the row that says the table's comments
// are all on the kit's keys: written once MigrateComments has moved them,
// so the start (Seed) reads one row, not the table, from then on. Its
// RowKey sorts after every comment's.
const (
	migratedPK = "meta"
	migratedRK = "~comments-on-the-kit"
)

// Seed moves the comments kept before the kit when the server starts
// (platform.Seeder), once: after that one point read finds the table
// done. Several instances starting at once move each comment once (each
// move is a transaction at the old row's ETag).
func (s *Service) Seed(ctx context.Context) error {
	if _, err := s.comments.Table.Get(ctx, migratedPK, migratedRK); err == nil || !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	moved, dropped, err := s.MigrateComments(ctx)
	if err != nil {
		return err
	}
	if moved+dropped > 0 {
		s.log.InfoContext(ctx, "groups: comments moved to the kit's keys", "moved", moved, "dropped", dropped)
	}
	_, err = s.comments.Table.Upsert(ctx, storage.Entity{PartitionKey: migratedPK, RowKey: migratedRK}, storage.Replace)
	return err
}

// MigrateComments moves every comment keyed before the kit to its key
// (comments.Key of when it was written and its ULID), the new row
// written and the old deleted in one transaction of its thread; a
// deleted one is deleted. It reads the whole table once, so an
// interrupted run is finished by running it again, and a second run
// changes nothing. It returns how many comments it moved and dropped.
func (s *Service) MigrateComments(ctx context.Context) (moved, dropped int, err error) {
	old, err := storage.All[legacyComment](ctx, s.comments.Table, storage.Query{Scan: true, RowKeyTo: comments.KeyFrom})
	if err != nil {
		return 0, 0, err
	}
	for _, c := range old {
		var tx storage.Tx
		tx.Delete(c.PartitionKey, c.RowKey, c.ETag)
		id := legacyID(c.RowKey)
		if !c.IsDeleted && storage.IsID(id) {
			row := c.Row
			row.RowKey, row.ETag = comments.Key(row.CreatedAt, id), ""
			tx.Insert(row)
		}
		err := tx.Commit(ctx, s.comments.Table)
		switch {
		case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrPrecondition):
			continue // moved or deleted meanwhile
		case err != nil:
			return moved, dropped, err
		case c.IsDeleted || !storage.IsID(id):
			dropped++
		default:
			moved++
		}
	}
	return moved, dropped, nil
}

// MigrateSubject names the groups' migration (platform.Migrator): web
// migrate comments.
func (s *Service) MigrateSubject() string { return "comments" }

// Migrate is MigrateComments, reported (platform.Migrator).
func (s *Service) Migrate(ctx context.Context) (fmt.Stringer, error) {
	moved, dropped, err := s.MigrateComments(ctx)
	return commentsMoved{moved, dropped}, err
}

// commentsMoved is what MigrateComments did.
type commentsMoved struct{ moved, dropped int }

func (m commentsMoved) String() string {
	return fmt.Sprintf("comments: moved %d to the comments kit's keys, deleted %d marked deleted", m.moved, m.dropped)
}

package memberdata

import (
	"context"

	"github.com/harmony/harmony/internal/storage"
)

// Rewrite changes every row of t that q finds (a T) as change says,
// each at its ETag (storage.Change; change returning storage.ErrNoChange
// leaves it, and a row gone meanwhile is passed over): how a Forgetter
// rewrites a member's authorship to Forgotten. Each row is written on
// its own, so a run that stops part way leaves the rest to the next,
// whose q finds them still.
func Rewrite[T any](ctx context.Context, t *storage.Table, q storage.Query, change func(row *T) error) error {
	return t.QueryAll(ctx, q, func(e storage.Entity) error {
		_, err := storage.Change(ctx, t, e.PartitionKey, e.RowKey, storage.ErrNoChange, change)
		return err
	})
}

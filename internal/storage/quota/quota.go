// Package quota counts actions per key in fixed windows, in a table, so
// a limit holds across instances: "at most Max registrations per person
// per minute". One row per key (RowKey "w"), reset when its window has
// passed, changed at its ETag.
package quota

import (
	"context"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Limit is Max actions per key per Window, counted in Table; past it,
// Take returns Err.
type Limit struct {
	Table  *storage.Table
	Max    int
	Window time.Duration
	Err    error
}

// windowRow is one key's count in its current window.
type windowRow struct {
	PartitionKey string    `table:"PartitionKey"` // the key
	RowKey       string    `table:"RowKey"`       // "w"
	ETag         string    `table:"ETag"`
	Start        time.Time `table:"start"` // the window's start
	Count        int       `table:"count"`
}

// Take counts one action for key at now, or refuses with l.Err when key
// has used its Max in the window now falls in. A refused action is not
// counted. key must be a valid table key.
func (l Limit) Take(ctx context.Context, key string, now time.Time) error {
	start := now.UTC().Truncate(l.Window)
	_, err := storage.Modify(ctx, l.Table, key, "w", func(r *windowRow, _ bool) error {
		if !r.Start.Equal(start) {
			r.Start, r.Count = start, 0
		}
		if r.Count >= l.Max {
			return l.Err
		}
		r.Count++
		return nil
	})
	return err
}

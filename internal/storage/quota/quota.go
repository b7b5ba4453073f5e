// Package quota counts actions per key in fixed windows, in a table, so
// a limit holds across instances: "at most Max registrations per person
// per minute". One row per key (RowKey "w"), reset when its window has
// passed, changed at its ETag.
package quota

import (
	"context"
	"errors"
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

// Cooldown lets one action per key through every Interval, counted from
// the last one let through (a sliding wait, where Limit counts in fixed
// windows), in Table. Each action takes its turn at the row's ETag, so
// actions at once, on any instance, cannot all pass.
type Cooldown struct {
	Table    *storage.Table
	Interval time.Duration
}

// cooldownRow is one key's last action let through.
type cooldownRow struct {
	PartitionKey string    `table:"PartitionKey"` // the key
	RowKey       string    `table:"RowKey"`       // "c"
	ETag         string    `table:"ETag"`
	Last         time.Time `table:"last"`
}

// errCooling stops Modify from writing a refused action.
var errCooling = errors.New("quota: cooling down")

// Take lets an action for key at now through, or reports how long is
// left (wait > 0, nothing written). release gives the turn back when the
// action then failed, unless another has been let through since; it is
// best effort (a failed release leaves the wait to run out).
func (c Cooldown) Take(ctx context.Context, key string, now time.Time) (wait time.Duration, release func(), err error) {
	now = now.UTC()
	_, err = storage.Modify(ctx, c.Table, key, "c", func(r *cooldownRow, _ bool) error {
		wait = 0
		if w := r.Last.Add(c.Interval).Sub(now); !r.Last.IsZero() && w > 0 {
			wait = w
			return errCooling
		}
		r.Last = now
		return nil
	})
	if errors.Is(err, errCooling) {
		return wait, func() {}, nil
	}
	if err != nil {
		return 0, func() {}, err
	}
	return 0, func() {
		_, _ = storage.Modify(context.WithoutCancel(ctx), c.Table, key, "c", func(r *cooldownRow, _ bool) error {
			if !r.Last.Equal(now) {
				return storage.ErrNoChange
			}
			r.Last = now.Add(-c.Interval) // as if its turn had passed
			return nil
		})
	}, nil
}

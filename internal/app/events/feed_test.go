package events

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// feedRace runs the hook armed, once, right after a read of a member's
// feed row: another replacement then commits between that read and
// the write that follows it.
type feedRace struct {
	storage.Backend
	hook *atomic.Pointer[func()]
}

func (b feedRace) Get(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	e, err := b.Backend.Get(ctx, table, pk, rk)
	if strings.HasSuffix(table, FeedsTable) && rk == "m" {
		if hook := b.hook.Swap(nil); hook != nil {
			(*hook)()
		}
	}
	return e, err
}

// TestReplacingTheFeedTwiceAtOnce: two replacements of a person's feed
// token at once (its first turning on, or a later replacement) leave one
// token: the one the page shows, which works; every other token either
// call made or replaced answers 404, and no row of it is left.
func TestReplacingTheFeedTwiceAtOnce(t *testing.T) {
	t.Parallel()
	for name, before := range map[string]int{"turned on": 0, "replaced": 1} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var hook atomic.Pointer[func()]
			store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return feedRace{b, &hook} }, append((&Catalog{}).Tables(), FeedsTable)...)
			s := New(store, nil, slog.New(slog.DiscardHandler), func() time.Time { return time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC) })
			ctx := t.Context()
			var made []string
			replace := func() {
				token, err := s.ReplaceFeedToken(ctx, "auth:ann")
				if err != nil {
					t.Errorf("replace: %v", err)
				}
				made = append(made, token)
			}
			for range before {
				replace()
			}
			hook.Store(&replace)
			replace()
			standing, err := s.FeedToken(ctx, "auth:ann")
			if err != nil || standing == "" {
				t.Fatalf("the feed after: %q, %v", standing, err)
			}
			for i, token := range made {
				_, err := s.MyCalendar(ctx, token, "test")
				if token == standing && err != nil || token != standing && !errors.Is(err, ErrNoFeed) {
					t.Errorf("token %d of %d (standing %v): %v", i+1, len(made), token == standing, err)
				}
			}
			var rows []string
			store.Table(FeedsTable).QueryAll(ctx, storage.Query{Scan: true}, func(e storage.Entity) error {
				if e.RowKey == "t" {
					rows = append(rows, e.PartitionKey)
				}
				return nil
			})
			if len(rows) != 1 || rows[0] != standing {
				t.Errorf("token rows left: %d, want the standing one alone", len(rows))
			}
		})
	}
}

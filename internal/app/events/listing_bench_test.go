package events

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"golang.org/x/sync/errgroup"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// BenchmarkEventListing measures a page of the events listing (issue 12:
// the first page and deep pages cost at most 2 table queries whether there
// are 100 or 100,000 events, and p50 at 100k is within 1.5× of p50 at
// 100). It times Catalog.List with the handler's page size for three
// pages: the first page of upcoming events of all categories, a deep page
// (reached by following continuations 50 pages in, or to the last full
// page when there are fewer) and the first page of one category. It
// reports p50 and p90 per page, the table queries and rows per page, on the
// embedded store and, with HARMONY_AZURITE set, on Azurite.
//
// The events are published and upcoming (the clock stands before them
// all), spread over five categories and the next three years. Only the
// listing index is seeded, since List reads nothing else: each event's
// rows as the catalog's projection makes them, in transactions of up to
// 100 rows of one partition. The seeded embedded stores are kept in
// os.TempDir()/harmony-bench-events-<n>-v<k> and reused; Azurite's tables
// are seeded once per process. docs/PERFORMANCE.md has the figures and
// the command (scripts/bench events).
func BenchmarkEventListing(b *testing.B) {
	for _, backend := range storetest.BenchBackends() {
		for _, n := range []int{100, 100_000} {
			b.Run(fmt.Sprintf("%s/events=%d", backend, n), func(b *testing.B) {
				c := benchListing(b, backend, n)
				deep := deepContinuation(b, c, n, min(50, n/listPage-1))
				b.Run("first", func(b *testing.B) { benchList(b, c, "", nil) })
				b.Run("deep", func(b *testing.B) { benchList(b, c, "", deep) })
				b.Run("category", func(b *testing.B) { benchList(b, c, Categories[0], nil) })
			})
		}
	}
}

// benchList reads the upcoming page of category at next over and over.
func benchList(b *testing.B, c *Catalog, category string, next *storage.Continuation) {
	storetest.BenchPages(b, "page", func(ctx context.Context) (int, error) {
		page, err := c.List(ctx, false, category, listPage, next)
		return len(page.Rows), err
	})
}

// deepContinuation follows the listing of all categories of n events for
// pages pages and returns the continuation of the next one.
func deepContinuation(b *testing.B, c *Catalog, n, pages int) *storage.Continuation {
	var next *storage.Continuation
	for i := range pages {
		page, err := c.List(context.Background(), false, "", listPage, next)
		if err != nil {
			b.Fatal(err)
		}
		if page.Next == nil {
			b.Fatalf("the listing ended after %d pages", i+1)
		}
		next = page.Next
	}
	page, err := c.List(context.Background(), false, "", listPage, next)
	if err != nil {
		b.Fatal(err)
	}
	if want := benchEvent(pages*listPage, n).RowKey; len(page.Rows) == 0 || page.Rows[0].EventID != want {
		b.Fatalf("page %d does not start with event %d", pages+1, pages*listPage)
	}
	return next
}

// listingBenchVersion names the seeded stores on disk; bump it when the
// generator or the listing rows change, so stale stores are not reused.
const listingBenchVersion = 2

// benchNow is the catalog's clock: before every seeded start.
var benchNow = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)

// benchListing opens a catalog of n listed events: on the embedded store
// (seeded on first use and kept on disk), or on tables of its own on
// Azurite (seeded once per process).
func benchListing(b *testing.B, kind string, n int) *Catalog {
	b.Helper()
	now := func() time.Time { return benchNow }
	name := fmt.Sprintf("events-%d-v%d", n, listingBenchVersion)
	store := storetest.SeededStore(b, kind, name, (&Catalog{}).Tables(), func(st *storage.Store) error {
		return seedListing(b, NewCatalog(st, now), n)
	})
	return NewCatalog(store, now)
}

// benchEvent is the i-th of n published events: starts distinct, spread
// evenly over the three years after benchNow, categories in turn.
func benchEvent(i, n int) EventRow {
	const span = 3 * 365 * 24 * time.Hour
	start := benchNow.Add(time.Hour + (span / time.Duration(n) * time.Duration(i))).Truncate(time.Second)
	created := benchNow.Add(-time.Duration(n-i) * time.Minute)
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(created)); err != nil {
		panic(err)
	}
	binary.BigEndian.PutUint64(id[8:], uint64(i))
	e := EventRow{
		PartitionKey: eventsPart, RowKey: id.String(), Timezone: "Europe/Berlin", IsPublished: true,
		OrganizerKey: "auth:bench", CreatedAt: created, UpdatedAt: created,
		Card: Card{
			Title:    fmt.Sprintf("Bench event %d", i),
			Category: Categories[i%len(Categories)],
			Start:    start, End: start.Add(2 * time.Hour),
			Place:    fmt.Sprintf("Hall %d, Main Street %d", i%40, i%200),
			Capacity: 20 + i%300, IsCancelled: i%97 == 0,
		},
	}
	if i%3 == 0 {
		e.PriceCents, e.Currency = int64(500+i%50*100), "EUR"
	}
	e.Going = i * 7 % (e.Capacity + 1) // some full, some with a waitlist
	if e.Going == e.Capacity {
		e.Waiting = i % 12
	}
	return e
}

// seedListing writes the listing rows of n events, made by the catalog's
// own projection, in transactions of up to storage.MaxTxOps rows of one
// partition, with a few writers at once (they wait on the network on
// Azurite).
func seedListing(b *testing.B, c *Catalog, n int) error {
	t0 := time.Now()
	b.Logf("seeding the listing rows of %d events", n)
	g, ctx := errgroup.WithContext(context.Background())
	batches := make(chan []storage.TxOp)
	for range 4 {
		g.Go(func() error {
			for ops := range batches {
				if err := c.byDate.Transact(ctx, ops); err != nil {
					return fmt.Errorf("seed %s: %w", ops[0].Entity.PartitionKey, err)
				}
			}
			return nil
		})
	}
	rows, txs := 0, 0
	g.Go(func() error {
		defer close(batches)
		open := map[string][]storage.TxOp{}
		send := func(ops []storage.TxOp) error {
			select {
			case batches <- ops:
				txs++
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		for i := range n {
			rs, err := c.listing.Rows(benchEvent(i, n))
			if err != nil {
				return err
			}
			for _, r := range rs {
				pk := r.Entity.PartitionKey
				open[pk] = append(open[pk], storage.TxOp{Kind: storage.TxInsert, Entity: r.Entity})
				rows++
				if len(open[pk]) == storage.MaxTxOps {
					if err := send(open[pk]); err != nil {
						return err
					}
					delete(open, pk)
				}
			}
		}
		for _, ops := range open {
			if err := send(ops); err != nil {
				return err
			}
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return err
	}
	b.Logf("seeded %d rows in %d transactions in %s", rows, txs, time.Since(t0).Round(time.Millisecond))
	return nil
}

package events

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"golang.org/x/sync/errgroup"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
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
	backends := []string{"embedded"}
	if os.Getenv("HARMONY_AZURITE") != "" {
		backends = append(backends, "azurite") // a store over the network
	}
	for _, backend := range backends {
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
	if _, err := c.List(context.Background(), false, category, listPage, next); err != nil { // warm caches
		b.Fatal(err)
	}
	ctx, counter := storage.WithCounter(context.Background())
	var times []time.Duration
	rows := 0
	for b.Loop() {
		t0 := time.Now()
		page, err := c.List(ctx, false, category, listPage, next)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		rows += len(page.Rows)
	}
	slices.Sort(times)
	q := counter.Snapshot()
	pages := float64(len(times))
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e3, "p90-µs")
	b.ReportMetric(float64(q.Queries)/pages, "queries/page")
	b.ReportMetric(float64(q.Total())/pages, "calls/page")
	b.ReportMetric(float64(rows)/pages, "rows/page")
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

// azuriteListings are the table prefixes of the listings seeded on
// Azurite in this process, by size: -count runs reuse them.
var azuriteListings = map[int]string{}

// benchListing opens a catalog of n listed events: on the embedded store
// (seeded on first use and kept on disk), or on tables of its own on
// Azurite (seeded once per process).
func benchListing(b *testing.B, kind string, n int) *Catalog {
	b.Helper()
	ctx := context.Background()
	now := func() time.Time { return benchNow }
	if kind == "azurite" {
		backend, err := azure.Open(b.Context(), storagetest.AzuriteConnectionString(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { backend.Close() })
		prefix, seeded := azuriteListings[n]
		if !seeded {
			prefix = fmt.Sprintf("e%d%d", n, time.Now().UnixNano()%1e9) // tables of their own
		}
		store := storage.New(backend, storage.Options{Prefix: prefix})
		c := NewCatalog(store, now)
		if !seeded {
			if err := store.Provision(ctx, c.Tables(), nil); err != nil {
				b.Fatal(err)
			}
			if err := seedListing(b, c, n); err != nil {
				b.Fatal(err)
			}
			azuriteListings[n] = prefix
		}
		return c
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("harmony-bench-events-%d-v%d", n, listingBenchVersion))
	marker := filepath.Join(dir, "seeded")
	_, err := os.Stat(marker)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.RemoveAll(dir); err == nil {
			err = seedEmbedded(b, dir, n)
		}
		if err == nil {
			err = os.WriteFile(marker, nil, 0o600)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	backend, err := embedded.Open(dir, embedded.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	return NewCatalog(storage.New(backend, storage.Options{}), now)
}

// seedEmbedded writes n events' listing rows into a fresh store in dir.
func seedEmbedded(b *testing.B, dir string, n int) error {
	backend, err := embedded.Open(dir, embedded.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer backend.Close()
	store := storage.New(backend, storage.Options{})
	c := NewCatalog(store, func() time.Time { return benchNow })
	if err := store.Provision(context.Background(), c.Tables(), nil); err != nil {
		return err
	}
	return seedListing(b, c, n)
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
		PartitionKey: eventsPart, RowKey: id.String(),
		Title:    fmt.Sprintf("Bench event %d", i),
		Category: Categories[i%len(Categories)],
		Start:    start, End: start.Add(2 * time.Hour), Timezone: "Europe/Berlin",
		Place:    fmt.Sprintf("Hall %d, Main Street %d", i%40, i%200),
		Capacity: 20 + i%300, IsPublished: true, IsCancelled: i%97 == 0,
		OrganizerKey: "auth:bench", CreatedAt: created, UpdatedAt: created,
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

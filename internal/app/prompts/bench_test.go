package prompts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// BenchmarkCatalogPage measures one page of the public catalog (30
// prompts, newest first) at catalog sizes of 1k, 100k and 1M synthetic
// prompts on the embedded store, and reports the storage calls per page
// (issue 5: at most 3 table queries on a warm month, whatever the size).
//
// Seeded stores are kept in os.TempDir()/harmony-bench-prompts-<n>-v<k>
// and reused, because seeding a million prompts takes minutes. Only 1k
// runs by default; HARMONY_BENCH_PROMPTS=100k or =1m adds the larger
// sizes. docs/PERFORMANCE.md has the figures and the commands.
func BenchmarkCatalogPage(b *testing.B) {
	sizes := []int{1_000}
	switch strings.ToLower(os.Getenv("HARMONY_BENCH_PROMPTS")) {
	case "100k":
		sizes = append(sizes, 100_000)
	case "1m":
		sizes = append(sizes, 100_000, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(sizeLabel(n), func(b *testing.B) {
			svc := benchCatalog(b, n)
			b.Run("newest", func(b *testing.B) { benchPage(b, svc, Listing{}, nil) })
			b.Run("newest-deep", func(b *testing.B) { benchPage(b, svc, Listing{}, deepCursor(b, svc)) })
			b.Run("liked", func(b *testing.B) { benchPage(b, svc, Listing{Sort: SortLiked}, nil) })
		})
	}
}

// benchPage reads the page of l at cursor over and over and reports its
// storage calls.
func benchPage(b *testing.B, svc *Service, l Listing, cursor *storage.Cursor) {
	if _, err := svc.List(context.Background(), l, cursor); err != nil { // warm caches
		b.Fatal(err)
	}
	ctx, counter := storage.WithCounter(context.Background())
	items, pages := 0, 0
	for b.Loop() {
		page, err := svc.List(ctx, l, cursor)
		if err != nil {
			b.Fatal(err)
		}
		items += len(page.Items)
		pages++
	}
	c := counter.Snapshot()
	b.ReportMetric(float64(c.Queries)/float64(pages), "queries/page")
	b.ReportMetric(float64(c.Total())/float64(pages), "calls/page")
	b.ReportMetric(float64(items)/float64(pages), "items/page")
}

// deepCursor pages from the top until the prompts are a year old, about
// half way down the catalog, and returns the next page's cursor.
func deepCursor(b *testing.B, svc *Service) *storage.Cursor {
	ctx := context.Background()
	yearAgo := svc.now().AddDate(-1, 0, 0)
	var cursor *storage.Cursor
	for {
		page, err := svc.List(ctx, Listing{}, cursor)
		if err != nil {
			b.Fatal(err)
		}
		if page.Next == "" {
			b.Fatal("the catalog ended before a year back")
		}
		c, err := svc.cursors.Decode(Listing{}.CursorQuery(), page.Next)
		if err != nil {
			b.Fatal(err)
		}
		cursor = &c
		if len(page.Items) > 0 && page.Items[len(page.Items)-1].CreatedAt.Before(yearAgo) {
			return cursor
		}
	}
}

// benchStoreVersion names the seeded stores on disk; bump it when the
// generator or the row formats change, so stale stores are not reused.
const benchStoreVersion = 2

// benchCatalog opens (seeding on first use) a store of n synthetic
// prompts, and builds the service on it with the clock of the seed, so
// "this month" is the month the seed filled.
func benchCatalog(b *testing.B, n int) *Service {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("harmony-bench-prompts-%d-v%d", n, benchStoreVersion))
	marker := filepath.Join(dir, "seeded-at")
	seededAt, err := readSeedMarker(marker)
	if errors.Is(err, fs.ErrNotExist) {
		seededAt, err = seedBenchStore(b, dir, n)
		if err == nil {
			err = os.WriteFile(marker, []byte(seededAt.Format(time.RFC3339Nano)), 0o600)
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
	svc := benchService(b, storage.New(backend, storage.Options{}), func() time.Time { return seededAt })
	if info, err := os.Stat(filepath.Join(dir, "harmony.db")); err == nil {
		b.Logf("%d prompts in %s (harmony.db %.0f MiB)", n, dir, float64(info.Size())/(1<<20))
	}
	return svc
}

func readSeedMarker(path string) (time.Time, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339Nano, string(raw))
}

// seedBenchStore writes n synthetic prompts into a fresh store in dir.
func seedBenchStore(b *testing.B, dir string, n int) (time.Time, error) {
	if err := os.RemoveAll(dir); err != nil {
		return time.Time{}, err
	}
	backend, err := embedded.Open(dir, embedded.Options{NoSync: true})
	if err != nil {
		return time.Time{}, err
	}
	defer backend.Close()
	now := time.Now().UTC()
	svc := benchService(b, storage.New(backend, storage.Options{}), func() time.Time { return now })
	b.Logf("seeding %d prompts into %s", n, dir)
	step := max(n/10, 1)
	rep, err := svc.SeedSynthetic(context.Background(), n, SyntheticOptions{Seed: 1, Progress: func(done, total int) {
		if done%step < syntheticChunk || done == total {
			b.Logf("  %d/%d", done, total)
		}
	}})
	if err != nil {
		return time.Time{}, err
	}
	b.Log(rep)
	return now, nil
}

func benchService(b *testing.B, store *storage.Store, now func() time.Time) *Service {
	cursors, err := storage.NewCursors([]byte(strings.Repeat("k", 32)))
	if err != nil {
		b.Fatal(err)
	}
	svc := New(store, nil, cursors, slog.New(slog.NewTextHandler(io.Discard, nil)), now)
	ctx := context.Background()
	if err := store.Provision(ctx, svc.Tables(), nil); err != nil {
		b.Fatal(err)
	}
	if err := svc.Seed(ctx); err != nil {
		b.Fatal(err)
	}
	return svc
}

func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

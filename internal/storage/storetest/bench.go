package storetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
)

// BenchBackends are the stores a benchmark runs on: the embedded one, and
// Azurite when HARMONY_AZURITE names it.
func BenchBackends() []string {
	if os.Getenv("HARMONY_AZURITE") != "" {
		return []string{"embedded", "azurite"}
	}
	return []string{"embedded"}
}

// azuriteSeeded are the table prefixes of the stores seeded on Azurite in
// this process, by name: -count runs reuse them.
var azuriteSeeded = struct {
	sync.Mutex
	prefix map[string]string
}{prefix: map[string]string{}}

// SeededStore opens a benchmark's store named name on kind ("embedded" or
// "azurite"), with tables provisioned and seed run once: on the embedded
// backend in os.TempDir()/harmony-bench-<name>, kept on disk and reused
// (a marker file says the seeding finished; put a version in name and
// bump it when the generator changes), on Azurite in tables of its own,
// seeded once per process. The store is closed when b ends.
func SeededStore(b *testing.B, kind, name string, tables []string, seed func(*storage.Store) error) *storage.Store {
	b.Helper()
	if kind == "azurite" {
		backend, err := azure.Open(b.Context(), storagetest.AzuriteConnectionString(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { backend.Close() })
		azuriteSeeded.Lock()
		defer azuriteSeeded.Unlock()
		prefix, seeded := azuriteSeeded.prefix[name]
		if !seeded {
			prefix = fmt.Sprintf("b%d", time.Now().UnixNano()%1e12)
		}
		store := storage.New(backend, storage.Options{Prefix: prefix})
		if !seeded {
			if err := store.Provision(context.Background(), tables, nil); err != nil {
				b.Fatal(err)
			}
			if err := seed(store); err != nil {
				b.Fatal(err)
			}
			azuriteSeeded.prefix[name] = prefix
		}
		return store
	}
	dir := filepath.Join(os.TempDir(), "harmony-bench-"+name)
	marker := filepath.Join(dir, "seeded")
	if _, err := os.Stat(marker); errors.Is(err, fs.ErrNotExist) {
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		backend, err := embedded.Open(dir, embedded.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		store := storage.New(backend, storage.Options{})
		err = store.Provision(context.Background(), tables, nil)
		if err == nil {
			err = seed(store)
		}
		backend.Close()
		if err == nil {
			err = os.WriteFile(marker, nil, 0o600)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	backend, err := embedded.Open(dir, embedded.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { backend.Close() })
	return storage.New(backend, storage.Options{})
}

// BenchPages times read over b's iterations, after one call that warms
// caches, and reports p50 and p90 in µs and, per call ("per unit": page,
// month...), the storage queries, point reads and calls, and the rows
// read says it returned.
func BenchPages(b *testing.B, unit string, read func(ctx context.Context) (rows int, err error)) {
	b.Helper()
	if _, err := read(context.Background()); err != nil {
		b.Fatal(err)
	}
	ctx, counter := storage.WithCounter(context.Background())
	var times []time.Duration
	rows := 0
	for b.Loop() {
		t0 := time.Now()
		n, err := read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		rows += n
	}
	slices.Sort(times)
	q := counter.Snapshot()
	calls := float64(len(times))
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e3, "p90-µs")
	b.ReportMetric(float64(q.Queries)/calls, "queries/"+unit)
	b.ReportMetric(float64(q.Reads)/calls, "reads/"+unit)
	b.ReportMetric(float64(q.Total())/calls, "calls/"+unit)
	b.ReportMetric(float64(rows)/calls, "rows/"+unit)
}

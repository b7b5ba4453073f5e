package embedded_test

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
)

func benchOpener(opts embedded.Options) func(tb testing.TB) storage.Backend {
	return func(tb testing.TB) storage.Backend {
		be, err := embedded.Open(tb.TempDir(), opts)
		if err != nil {
			tb.Fatalf("open embedded backend: %v", err)
		}
		tb.Cleanup(func() { be.Close() })
		return be
	}
}

// BenchmarkEmbedded measures the production configuration: every commit is
// fsynced, which dominates the cost of a write.
func BenchmarkEmbedded(b *testing.B) {
	storagetest.Bench(b, benchOpener(embedded.Options{}))
}

// BenchmarkEmbeddedNoSync skips fsync, for a like-for-like comparison with
// in-memory Azurite.
func BenchmarkEmbeddedNoSync(b *testing.B) {
	storagetest.Bench(b, benchOpener(embedded.Options{NoSync: true}))
}

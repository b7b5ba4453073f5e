package embedded_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
)

// opener opens a fresh backend in a temp dir for each caller. With short
// pages, each backend gets its own seed from a logged base, so a failure can
// be replayed by reading the log.
func opener(t *testing.T, shortPages bool) func(t *testing.T) storage.Backend {
	base := time.Now().UnixNano()
	if shortPages {
		t.Logf("short-page seeds start at %d", base)
	}
	var n atomic.Int64
	return func(t *testing.T) storage.Backend {
		seed := base + n.Add(1)
		b, err := embedded.Open(t.TempDir(), embedded.Options{ShortPages: shortPages, Seed: seed, NoSync: true})
		if err != nil {
			t.Fatalf("open embedded backend: %v", err)
		}
		t.Cleanup(func() {
			if err := b.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
		return b
	}
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, opener(t, false), storagetest.Options{})
}

// TestConformanceShortPages runs the suite again with pages cut short or
// empty at random, as Azure may do and Azurite never does.
func TestConformanceShortPages(t *testing.T) {
	storagetest.Run(t, opener(t, true), storagetest.Options{ShortPages: true})
}

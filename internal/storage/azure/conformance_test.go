package azure_test

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/storagetest"
)

// openShared opens one backend on the Azurite account for the whole run;
// every test in the suite uses its own tables and containers on it.
func openShared(tb testing.TB) storage.Backend {
	conn := storagetest.AzuriteConnectionString(tb)
	b, err := azure.Open(tb.Context(), conn)
	if err != nil {
		tb.Fatalf("open azure backend: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) {
	b := openShared(t)
	// Azurite never returns short pages, so the short-page tests skip here;
	// they run on the embedded backend (TestConformanceShortPages there).
	storagetest.Run(t, func(*testing.T) storage.Backend { return b }, storagetest.Options{})
}

package storagetest

import (
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// Options describe what the backend under test can do.
type Options struct {
	// ShortPages says the backend returns short and empty pages (the embedded
	// backend's test mode), so the short-page tests run. Without it they skip.
	ShortPages bool
}

const skipShortPages = "Azurite never returns short pages; covered on embedded with ShortPages"

// suite is what every group of tests gets: a front over the backend under
// test, the backend itself, and the options.
type suite struct {
	backend storage.Backend
	store   *storage.Store
	opts    Options
}

// Run runs the conformance suite. open may return the same long-lived backend
// every time (an Azurite account), so every test works in its own uniquely
// named tables and containers and never assumes an empty account. The caller
// owns the backend and closes it.
func Run(t *testing.T, open func(t *testing.T) storage.Backend, opts Options) {
	groups := []struct {
		name string
		run  func(t *testing.T, s *suite)
	}{
		{"RoundTrip", testRoundTrip},
		{"Errors", testErrors},
		{"Upsert", testUpsert},
		{"Ordering", testOrdering},
		{"Keys", testKeys},
		{"Limits", testLimits},
		{"Query", testQuery},
		{"Limit", testLimit},
		{"Paging", testPaging},
		{"ShortPages", testShortPages},
		{"Transactions", testTransactions},
		{"OData", testOData},
		{"Blobs", testBlobs},
		{"Counter", testCounter},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			b := open(t)
			g.run(t, &suite{backend: b, store: storage.New(b, storage.Options{}), opts: opts})
		})
	}
}

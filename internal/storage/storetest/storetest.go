// Package storetest gives tests a real store: the embedded backend in a
// temp dir, closed when the test ends, with the tables and containers the
// test names already provisioned. (The conformance suite for backends is
// storagetest.)
package storetest

import (
	"context"
	"testing"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// Open returns a store on a fresh embedded backend with tables
// provisioned.
func Open(t testing.TB, tables ...string) *storage.Store {
	t.Helper()
	return OpenWith(t, embedded.Options{}, tables, nil)
}

// OpenWith is Open with backend options (ShortPages, ...) and containers.
func OpenWith(t testing.TB, opts embedded.Options, tables, containers []string) *storage.Store {
	t.Helper()
	opts.NoSync = true
	b, err := embedded.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(b, storage.Options{})
	t.Cleanup(func() { store.Close() })
	if err := store.Provision(context.Background(), tables, containers); err != nil {
		t.Fatal(err)
	}
	return store
}

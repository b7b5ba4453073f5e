// Package storetest gives tests a real store: the embedded backend in a
// temp dir, closed when the test ends, with the tables and containers the
// test names already provisioned. (The conformance suite for backends is
// storagetest.)
package storetest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storagetest"
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
	return open(t, opts, nil, tables, containers)
}

// OpenWrapped is Open on the backend wrap returns around the embedded
// one: a test's way to slow down or refuse some calls.
func OpenWrapped(t testing.TB, wrap func(storage.Backend) storage.Backend, tables ...string) *storage.Store {
	t.Helper()
	return open(t, embedded.Options{}, wrap, tables, nil)
}

func open(t testing.TB, opts embedded.Options, wrap func(storage.Backend) storage.Backend, tables, containers []string) *storage.Store {
	t.Helper()
	opts.NoSync = true
	eb, err := embedded.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var b storage.Backend = eb
	if wrap != nil {
		b = wrap(b)
	}
	store := storage.New(b, storage.Options{})
	t.Cleanup(func() { store.Close() })
	if err := store.Provision(context.Background(), tables, containers); err != nil {
		t.Fatal(err)
	}
	return store
}

// Backends are the stores a test that must hold on both backends runs
// on, by name: the embedded one, and Azurite when HARMONY_AZURITE names
// it (scripts/test sets it), each with tables provisioned under a fresh
// prefix.
func Backends(t testing.TB, tables ...string) map[string]func(t testing.TB) *storage.Store {
	out := map[string]func(t testing.TB) *storage.Store{
		"embedded": func(t testing.TB) *storage.Store { return Open(t, tables...) },
	}
	if os.Getenv("HARMONY_AZURITE") != "" || os.Getenv("HARMONY_REQUIRE_AZURITE") != "" {
		out["azurite"] = func(t testing.TB) *storage.Store {
			t.Helper()
			b, err := azure.Open(context.Background(), storagetest.AzuriteConnectionString(t))
			if err != nil {
				t.Fatal(err)
			}
			store := storage.New(b, storage.Options{Prefix: fmt.Sprintf("t%d", time.Now().UnixNano()%1e12)})
			t.Cleanup(func() { store.Close() })
			if err := store.Provision(context.Background(), tables, nil); err != nil {
				t.Fatal(err)
			}
			return store
		}
	}
	return out
}

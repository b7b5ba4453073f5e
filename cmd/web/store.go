package main

import (
	"context"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/azure"
	"github.com/harmony/harmony/internal/storage/embedded"
)

// baseTables are the tables the process itself needs, whatever modules run:
// job leases. Modules provision their own (newServer).
func baseTables() []string { return []string{jobs.LeasesTable} }

// openStore opens the backend the configuration selects (Azure when a
// connection string is set, else the embedded store in DATA_DIR) and
// creates the base tables if they are missing.
func openStore(ctx context.Context, cfg *config.Config) (*storage.Store, error) {
	return openStoreWith(ctx, cfg, embedded.Options{})
}

// openStoreWith is openStore with options for the embedded backend; bulk
// loads ("web seed") turn fsync off and sync once at the end.
func openStoreWith(ctx context.Context, cfg *config.Config, opts embedded.Options) (*storage.Store, error) {
	var backend storage.Backend
	if cfg.AzureConnectionString != "" {
		b, err := azure.Open(ctx, cfg.AzureConnectionString)
		if err != nil {
			return nil, err
		}
		backend = b
	} else {
		b, err := embedded.Open(cfg.DataDir, opts)
		if err != nil {
			return nil, err
		}
		backend = b
	}
	store := storage.New(backend, storage.Options{Prefix: cfg.TablePrefix})
	if err := store.Provision(ctx, baseTables(), nil); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

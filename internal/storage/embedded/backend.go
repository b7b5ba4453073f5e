// Package embedded is Harmony's single-process storage backend: every table
// lives in one bbolt file (DATA_DIR/harmony.db) and blobs are files under
// DATA_DIR/blobs. It implements storage.Backend with Azure Table Storage and
// Blob Storage semantics (ordering, ETags, paging, errors), so module code
// behaves the same here as on Azure; the storagetest suite holds it to that.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/harmony/harmony/internal/storage"
)

// Options tune an embedded Backend. The zero value is right for production.
type Options struct {
	// ShortPages is a test mode: queries return short and empty pages at
	// random (still with a correct continuation), as Azure may, so callers'
	// loops are tested. Seeded by Seed for repeatability.
	ShortPages bool
	Seed       int64
	// NoSync skips fsync on commits and blob writes. Data survives a crashed
	// process but not a crashed machine; for tests and benchmarks only.
	NoSync bool
}

// lockTimeout bounds how long Open waits for the database file lock, so a
// second Open of the same directory fails instead of hanging.
const lockTimeout = time.Second

// Root buckets. Each table is a nested bucket of tables, keyed by its
// lower-cased name (Azure table names are case-insensitive); each blob
// container is a nested bucket of blobs holding its blobs' metadata.
var (
	bucketTables = []byte("tables")
	bucketBlobs  = []byte("blobs")
)

// Backend is the embedded storage.Backend. It is safe for concurrent use.
type Backend struct {
	db      *bolt.DB
	blobDir string
	noSync  bool

	// short is non-nil in ShortPages mode.
	shortMu sync.Mutex
	short   *rand.Rand
}

var _ storage.Backend = (*Backend)(nil)

// Open opens (creating if needed) the store in dir: dir/harmony.db and
// dir/blobs/. A directory can be open in only one Backend at a time; a second
// Open fails after a second.
func Open(dir string, opts Options) (*Backend, error) {
	blobDir := filepath.Join(dir, "blobs")
	if err := os.MkdirAll(filepath.Join(blobDir, tmpDirName), 0o750); err != nil {
		return nil, fmt.Errorf("embedded: create data dir: %w", err)
	}
	path := filepath.Join(dir, "harmony.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      lockTimeout,
		NoSync:       opts.NoSync,
		FreelistType: bolt.FreelistMapType,
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("embedded: %s is locked: another process or Backend has it open", path)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketTables, bucketBlobs} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("embedded: initialise %s: %w", path, err)
	}
	b := &Backend{db: db, blobDir: blobDir, noSync: opts.NoSync}
	if opts.ShortPages {
		b.short = rand.New(rand.NewPCG(uint64(opts.Seed), 0x5eed))
	}
	if err := b.sweepBlobFiles(); err != nil {
		db.Close()
		return nil, err
	}
	return b, nil
}

// Name implements storage.Backend.
func (b *Backend) Name() string { return "embedded" }

// Close flushes and closes the database. In-flight calls finish first.
func (b *Backend) Close() error { return b.db.Close() }

// CreateTable creates a table; an existing table is not an error.
func (b *Backend) CreateTable(ctx context.Context, table string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		_, err := tx.Bucket(bucketTables).CreateBucketIfNotExists(tableID(table))
		return err
	})
}

func tableID(table string) []byte { return []byte(strings.ToLower(table)) }

// tableBucket returns a table's bucket, or ErrNotFound.
func tableBucket(tx *bolt.Tx, table string) (*bolt.Bucket, error) {
	tb := tx.Bucket(bucketTables).Bucket(tableID(table))
	if tb == nil {
		return nil, fmt.Errorf("%w: table not found: %s", storage.ErrNotFound, table)
	}
	return tb, nil
}

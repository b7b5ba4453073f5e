package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// Options configure a Store.
type Options struct {
	// Prefix is prepended to every table name, and (lower-cased, with a dash)
	// to every container name, so environments can share one account.
	Prefix string
	// Log receives the warnings about rows that do not fit their type
	// (Decode); nil means slog.Default().
	Log *slog.Logger
}

// Store is the front every module uses: it validates, prefixes names, counts
// calls and hands them to the backend.
type Store struct {
	b      Backend
	prefix string
	log    *slog.Logger

	mu          sync.Mutex
	provisioned map[string]bool
}

// New wraps a backend.
func New(b Backend, opts Options) *Store {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	return &Store{b: b, prefix: opts.Prefix, log: log, provisioned: map[string]bool{}}
}

// BackendName is "embedded" or "azure", for logs.
func (s *Store) BackendName() string { return s.b.Name() }

// Close closes the backend.
func (s *Store) Close() error { return s.b.Close() }

// Provision creates the named tables and containers if they are missing. It
// does the work once per name per process (document 004's auto-provisioning),
// so calling it again is cheap.
func (s *Store) Provision(ctx context.Context, tables, containers []string) error {
	for _, t := range tables {
		name := s.prefix + t
		if err := ValidateTableName(name); err != nil {
			return err
		}
		if err := s.once(ctx, "t:"+name, func() error { return s.b.CreateTable(ctx, name) }); err != nil {
			return fmt.Errorf("provision table %s: %w", name, err)
		}
	}
	for _, c := range containers {
		name := s.containerName(c)
		if err := ValidateContainerName(name); err != nil {
			return err
		}
		if err := s.once(ctx, "c:"+name, func() error { return s.b.CreateContainer(ctx, name) }); err != nil {
			return fmt.Errorf("provision container %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) once(ctx context.Context, key string, create func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provisioned[key] {
		return nil
	}
	if err := create(); err != nil {
		return err
	}
	s.provisioned[key] = true
	return nil
}

func (s *Store) containerName(c string) string {
	if s.prefix == "" {
		return c
	}
	return strings.ToLower(s.prefix) + "-" + c
}

// Table returns a handle on a table. The name is unprefixed; the handle is
// cheap and may be kept.
func (s *Store) Table(name string) *Table {
	return &Table{b: s.b, name: s.prefix + name, log: s.log}
}

// Container returns a handle on a blob container (unprefixed name).
func (s *Store) Container(name string) *Container {
	return &Container{b: s.b, name: s.containerName(name)}
}

// Table is a handle on one table. Every method validates its input against
// Azure's limits before the backend sees it, and counts the call.
type Table struct {
	b    Backend
	name string
	log  *slog.Logger
}

// Name is the table's full (prefixed) name.
func (t *Table) Name() string { return t.name }

// Get reads one entity; ErrNotFound when it is missing.
func (t *Table) Get(ctx context.Context, pk, rk string) (Entity, error) {
	if err := validateKeys(pk, rk); err != nil {
		return Entity{}, err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.reads })
	return t.b.Get(ctx, t.name, pk, rk)
}

// Insert adds a new entity and returns its ETag; ErrExists when the keys are
// taken.
func (t *Table) Insert(ctx context.Context, e Entity) (string, error) {
	e, err := normalizeEntity(e)
	if err != nil {
		return "", err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.writes })
	return t.b.Insert(ctx, t.name, e)
}

// Update changes an existing entity if ifMatch matches its ETag (or is
// AnyETag) and returns the new ETag.
func (t *Table) Update(ctx context.Context, e Entity, mode UpdateMode, ifMatch string) (string, error) {
	e, err := normalizeEntity(e)
	if err != nil {
		return "", err
	}
	if ifMatch == "" {
		return "", fmt.Errorf("%w: update needs an ETag or AnyETag", ErrInvalid)
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.writes })
	return t.b.Update(ctx, t.name, e, mode, ifMatch)
}

// Upsert inserts or updates unconditionally and returns the new ETag.
func (t *Table) Upsert(ctx context.Context, e Entity, mode UpdateMode) (string, error) {
	e, err := normalizeEntity(e)
	if err != nil {
		return "", err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.writes })
	return t.b.Upsert(ctx, t.name, e, mode)
}

// Delete removes an entity if ifMatch matches (or is AnyETag).
func (t *Table) Delete(ctx context.Context, pk, rk, ifMatch string) error {
	if err := validateKeys(pk, rk); err != nil {
		return err
	}
	if ifMatch == "" {
		return fmt.Errorf("%w: delete needs an ETag or AnyETag", ErrInvalid)
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.writes })
	return t.b.Delete(ctx, t.name, pk, rk, ifMatch)
}

// DeleteLegacy deletes a row whose keys hold '%', written before the
// contract refused it, so the key migration (web migrate keys) can remove
// it after writing its successor. Every other key rule still applies.
// The real Table service may fail on such a key (it decodes the path
// twice); the stores that hold such rows are development ones.
func (t *Table) DeleteLegacy(ctx context.Context, pk, rk, ifMatch string) error {
	legal := func(k string) string { return strings.ReplaceAll(k, "%", "_") }
	if err := validateKeys(legal(pk), legal(rk)); err != nil {
		return err
	}
	if ifMatch == "" {
		return fmt.Errorf("%w: delete needs an ETag or AnyETag", ErrInvalid)
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.writes })
	return t.b.Delete(ctx, t.name, pk, rk, ifMatch)
}

// Query fetches one page. Pages may be short or empty and still carry a
// continuation; use QueryAll or loop on Page.Next.
func (t *Table) Query(ctx context.Context, q Query) (Page, error) {
	q, err := normalizeQuery(q)
	if err != nil {
		return Page{}, err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.queries })
	return t.b.Query(ctx, t.name, q)
}

// QueryAll runs a query to its end, calling fn for each entity in order. It is
// for rebuilds and admin tools; pages shown to users read one page at a time.
func (t *Table) QueryAll(ctx context.Context, q Query, fn func(Entity) error) error {
	for {
		p, err := t.Query(ctx, q)
		if err != nil {
			return err
		}
		for _, e := range p.Entities {
			if err := fn(e); err != nil {
				return err
			}
		}
		if p.Next == nil {
			return nil
		}
		q.Continuation = p.Next
	}
}

// All runs a query to its end and unmarshals every entity into a T (a
// struct with table tags), in order, skipping rows that do not fit T (see
// Decode). Like QueryAll, it is for bounded partitions, rebuilds and admin
// tools.
func All[T any](ctx context.Context, t *Table, q Query) ([]T, error) {
	var out []T
	err := t.QueryAll(ctx, q, func(e Entity) error {
		rows, err := Decode[T](ctx, t, []Entity{e})
		out = append(out, rows...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// First runs q until a row (a T) satisfies match, nil for any, and
// returns it; missing when none does. It reads no further than that row.
func First[T any](ctx context.Context, t *Table, q Query, match func(T) bool, missing error) (T, error) {
	var found T
	errFound := errors.New("storage: found")
	err := t.QueryAll(ctx, q, func(e Entity) error {
		rows, err := Decode[T](ctx, t, []Entity{e})
		if err != nil {
			return err
		}
		for _, r := range rows {
			if match == nil || match(r) {
				found = r
				return errFound
			}
		}
		return nil
	})
	if errors.Is(err, errFound) {
		return found, nil
	}
	var zero T
	if err != nil {
		return zero, err
	}
	return zero, missing
}

// Take runs q until it has n entities or the query ends (a page may be
// short, or empty, and still go on), and unmarshals them into Ts; more
// reports whether rows may follow. It is All for a page of a list that
// may be long.
func Take[T any](ctx context.Context, t *Table, q Query, n int) (rows []T, more bool, err error) {
	rows, next, err := TakePage[T](ctx, t, q, n)
	return rows, next != nil, err
}

// TakePage is Take for a list a cursor pages through: it returns the
// continuation the next page starts from, nil at the end.
func TakePage[T any](ctx context.Context, t *Table, q Query, n int) ([]T, *Continuation, error) {
	var rows []T
	for len(rows) < n {
		q.Limit = n - len(rows)
		p, err := t.Query(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		decoded, err := Decode[T](ctx, t, p.Entities)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, decoded...)
		if p.Next == nil {
			return rows, nil, nil
		}
		q.Continuation = p.Next
	}
	return rows, q.Continuation, nil
}

// Rows are a page of a list a cursor pages through: its rows in order,
// and where the next page starts (nil on the last).
type Rows[T any] struct {
	Rows []T
	Next *Continuation
}

// TakeRows is TakePage as Rows.
func TakeRows[T any](ctx context.Context, t *Table, q Query, n int) (Rows[T], error) {
	rows, next, err := TakePage[T](ctx, t, q, n)
	return Rows[T]{Rows: rows, Next: next}, err
}

// Decode unmarshals entities of t into Ts, in order. A row that another
// tool wrote with a value that does not fit its field (ErrBadRow: a word
// where a bool belongs, a fraction where an integer does) is logged as a
// warning naming the table and keys, and left out, so one bad row never
// takes a page down and an admin can still reach the pages that repair it.
// Compatible types (Int32 for Int64, a whole Double, "true" for a bool)
// decode as they are (Unmarshal).
func Decode[T any](ctx context.Context, t *Table, es []Entity) ([]T, error) {
	out := make([]T, 0, len(es))
	for _, e := range es {
		var v T
		err := Unmarshal(e, &v)
		if errors.Is(err, ErrBadRow) {
			t.log.WarnContext(ctx, "storage: row skipped: a value does not fit its type",
				"table", t.name, "pk", e.PartitionKey, "rk", e.RowKey, "err", err)
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Transact applies ops atomically: at most MaxTxOps operations, one partition
// key, each row key at most once.
func (t *Table) Transact(ctx context.Context, ops []TxOp) error {
	ops, err := normalizeTx(ops)
	if err != nil {
		return err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.txs })
	return t.b.Transact(ctx, t.name, ops)
}

// Container is a handle on one blob container.
type Container struct {
	b    Backend
	name string
}

// Name is the container's full (prefixed) name.
func (c *Container) Name() string { return c.name }

// Put creates or overwrites a blob and returns its ETag.
func (c *Container) Put(ctx context.Context, name string, data []byte, contentType string) (string, error) {
	return c.PutIf(ctx, name, data, contentType, AnyETag)
}

// PutIf writes a blob only if it is as its writer last read it: ifMatch is
// the ETag it read (ErrPrecondition when the blob changed or went), or ""
// for a blob that must not exist yet (ErrExists). It returns the new ETag.
// It is the read-change-write of a blob that several requests may change
// at once, as Modify is for a table row.
func (c *Container) PutIf(ctx context.Context, name string, data []byte, contentType, ifMatch string) (string, error) {
	if err := ValidateBlobName(name); err != nil {
		return "", err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.blobWrites })
	return c.b.PutBlob(ctx, c.name, name, data, contentType, ifMatch)
}

// Get reads a blob; ErrNotFound when it is missing.
func (c *Container) Get(ctx context.Context, name string) (Blob, error) {
	if err := ValidateBlobName(name); err != nil {
		return Blob{}, err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.blobReads })
	return c.b.GetBlob(ctx, c.name, name)
}

// Delete removes a blob; ErrNotFound when it is missing.
func (c *Container) Delete(ctx context.Context, name string) error {
	if err := ValidateBlobName(name); err != nil {
		return err
	}
	count(ctx, func(c *Counter) *atomicInt { return &c.blobWrites })
	return c.b.DeleteBlob(ctx, c.name, name)
}

// DeletePrefix deletes every blob whose name starts with prefix (a
// folder, with its "/"): what owned them is gone. A blob already gone is
// fine; it stops at the first other failure, so the caller keeps what
// names the folder and runs it again.
func (c *Container) DeletePrefix(ctx context.Context, prefix string) error {
	if prefix == "" {
		return errors.New("storage: DeletePrefix of the whole container")
	}
	blobs, err := c.List(ctx, prefix)
	if err != nil {
		return err
	}
	for _, b := range blobs {
		if err := c.Delete(ctx, b.Name); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}

// List returns the blobs whose names start with prefix, by name.
func (c *Container) List(ctx context.Context, prefix string) ([]BlobInfo, error) {
	count(ctx, func(c *Counter) *atomicInt { return &c.blobReads })
	return c.b.ListBlobs(ctx, c.name, prefix)
}

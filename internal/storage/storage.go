// Package storage is Harmony's table and blob contract: one small API over
// Azure Table Storage semantics, with two backends (embedded bbolt and Azure)
// that live in subpackages and are checked by one conformance suite
// (storagetest). Module code uses *Store, *Table and *Container only; it never
// sees bbolt, aztables or azblob types.
//
// The Store front validates every call against Azure's limits before it
// reaches a backend, so both backends fail the same way, and it counts every
// call on the request's Counter.
package storage

import (
	"context"
	"errors"
	"time"
)

// Typed errors. Backends wrap them; callers test with errors.Is.
var (
	ErrNotFound           = errors.New("storage: not found")
	ErrExists             = errors.New("storage: already exists")
	ErrPrecondition       = errors.New("storage: etag mismatch")
	ErrInvalidKey         = errors.New("storage: invalid key")
	ErrTooLarge           = errors.New("storage: too large")
	ErrInvalidTransaction = errors.New("storage: invalid transaction")
	// ErrInvalid covers other input Azure would reject: a bad table or
	// container name, an unsupported property type, too many properties.
	ErrInvalid = errors.New("storage: invalid input")
	// ErrTransient marks a failure worth retrying (429, 5xx, timeout) that
	// survived the backend's own retries.
	ErrTransient = errors.New("storage: transient failure")
)

// GUID is an Edm.Guid value.
type GUID [16]byte

// Entity is one table row. Props maps a property name to a typed value; the Go
// type selects the EDM type:
//
//	string → Edm.String      int32 → Edm.Int32     int64 → Edm.Int64
//	float64 → Edm.Double     bool → Edm.Boolean    time.Time → Edm.DateTime
//	GUID → Edm.Guid          []byte → Edm.Binary
//
// Datetimes are stored in UTC at 100 ns precision (what Azure keeps).
type Entity struct {
	PartitionKey string
	RowKey       string
	// ETag is opaque; pass it back to Update or Delete for a conditional write.
	ETag string
	// Timestamp is set by the backend on every write.
	Timestamp time.Time
	Props     map[string]any
}

// UpdateMode says how a write treats properties the entity does not carry.
type UpdateMode int

const (
	// Merge keeps stored properties that the new entity does not name.
	Merge UpdateMode = iota
	// Replace drops every stored property not in the new entity.
	Replace
)

// AnyETag matches any existing entity in a conditional Update or Delete.
const AnyETag = "*"

// Continuation marks where the next page of a query starts. A nil
// *Continuation on a Page means the query is finished.
type Continuation struct {
	NextPartitionKey string
	NextRowKey       string
}

// Op is a comparison operator in a property filter.
type Op int

const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

// Holds reports whether a comparison result c (negative, zero, positive, as
// from CompareKeys) satisfies the operator.
func (o Op) Holds(c int) bool {
	switch o {
	case Eq:
		return c == 0
	case Ne:
		return c != 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	}
	return false
}

// Filter compares one property with a typed value. Name may also be
// "PartitionKey" or "RowKey".
type Filter struct {
	Name  string
	Op    Op
	Value any
}

// MaxRowKeysIn is the most keys Query.RowKeyIn takes: Azure allows 15
// comparisons in a filter, one of them the partition key.
const MaxRowKeysIn = 14

// MaxPageSize is the most entities one query page returns (Azure's $top limit).
const MaxPageSize = 1000

// Query is a structured table query. There is no free-form filter text: the
// Azure backend renders this to OData itself, quoting every value.
type Query struct {
	// PartitionKey restricts the query to one partition. It must be set
	// unless Scan is: an empty PartitionKey is almost always a missing value
	// (an account without a userKey once listed every group on the site), so
	// it is refused rather than read as "the whole table".
	PartitionKey string
	// Scan reads the whole table, in PartitionKey then RowKey order, and
	// requires an empty PartitionKey. It is for rebuilds, purges and admin
	// tools; no user-facing page may scan.
	Scan bool
	// RowKeyFrom (inclusive) and RowKeyTo (exclusive) bound the row key; empty
	// means unbounded.
	RowKeyFrom string
	RowKeyTo   string
	// RowKeyPrefix, when set, restricts row keys to those starting with it. It
	// combines with the range bounds.
	RowKeyPrefix string
	// RowKeyIn, when set, restricts row keys to these (at most
	// MaxRowKeysIn, in one partition): a batch of point reads in one
	// query. It combines with the other conditions.
	RowKeyIn []string
	// Filters are ANDed.
	Filters []Filter
	// Select, when non-empty, returns only these properties (keys, ETag and
	// Timestamp are always returned).
	Select []string
	// Limit is the page size: 0 means MaxPageSize, and larger values are capped
	// to it. A page may hold fewer entities than Limit, even none, and still
	// carry a continuation: callers loop until Next is nil.
	Limit int
	// Continuation resumes a query from a previous Page.Next.
	Continuation *Continuation
}

// Page is one page of query results.
type Page struct {
	Entities []Entity
	Next     *Continuation
}

// TxKind is the kind of one operation in a transaction.
type TxKind int

const (
	TxInsert TxKind = iota
	TxUpdate        // uses Mode and IfMatch
	TxUpsert        // uses Mode
	TxDelete        // uses IfMatch
)

// TxOp is one operation of a transaction. For TxDelete only the keys of Entity
// are used.
type TxOp struct {
	Kind    TxKind
	Entity  Entity
	Mode    UpdateMode
	IfMatch string
}

// MaxTxOps is the most operations one transaction may hold.
const MaxTxOps = 100

// Blob is a stored blob with its metadata.
type Blob struct {
	Name         string
	Data         []byte
	ContentType  string
	ETag         string
	LastModified time.Time
	Size         int64
}

// BlobInfo describes a blob in a listing (no data).
type BlobInfo struct {
	Name         string
	ContentType  string
	ETag         string
	LastModified time.Time
	Size         int64
}

// Backend is what a storage engine implements. Table and container names reach
// it already prefixed and validated; entities, keys, queries and transactions
// reach it already validated against Azure's limits. Module code never calls a
// Backend directly.
type Backend interface {
	// Name is a short label for logs: "embedded" or "azure".
	Name() string

	CreateTable(ctx context.Context, table string) error
	// Get returns ErrNotFound when the entity is missing.
	Get(ctx context.Context, table, pk, rk string) (Entity, error)
	// Insert returns ErrExists when the entity exists, else the new ETag.
	Insert(ctx context.Context, table string, e Entity) (string, error)
	// Update needs the entity to exist (ErrNotFound) and, unless ifMatch is
	// AnyETag, to carry that ETag (ErrPrecondition).
	Update(ctx context.Context, table string, e Entity, mode UpdateMode, ifMatch string) (string, error)
	// Upsert inserts or updates unconditionally.
	Upsert(ctx context.Context, table string, e Entity, mode UpdateMode) (string, error)
	// Delete needs the entity to exist (ErrNotFound) and, unless ifMatch is
	// AnyETag, to carry that ETag (ErrPrecondition).
	Delete(ctx context.Context, table, pk, rk, ifMatch string) error
	Query(ctx context.Context, table string, q Query) (Page, error)
	// Transact applies all ops atomically or none. On failure the error wraps
	// the typed error of the failing op (ErrExists, ErrNotFound,
	// ErrPrecondition, ...).
	Transact(ctx context.Context, table string, ops []TxOp) error

	CreateContainer(ctx context.Context, container string) error
	// PutBlob creates or overwrites a blob and returns its new ETag. With
	// ifMatch AnyETag it writes whatever is there; with "" only when the
	// blob is missing (ErrExists); with an ETag only over the blob at that
	// ETag (ErrPrecondition, also when the blob is missing).
	PutBlob(ctx context.Context, container, name string, data []byte, contentType, ifMatch string) (string, error)
	// GetBlob returns ErrNotFound when the blob is missing.
	GetBlob(ctx context.Context, container, name string) (Blob, error)
	// DeleteBlob returns ErrNotFound when the blob is missing.
	DeleteBlob(ctx context.Context, container, name string) error
	// ListBlobs lists every blob whose name starts with prefix, by name.
	ListBlobs(ctx context.Context, container, prefix string) ([]BlobInfo, error)

	Close() error
}

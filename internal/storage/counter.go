package storage

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Counter counts the storage calls made on behalf of one request. The web
// layer puts one in every request context; tests read it to hold pages to
// their storage budgets.
type Counter struct {
	reads, queries, writes, txs, blobReads, blobWrites atomic.Int64
}

// Counts is a snapshot of a Counter.
type Counts struct {
	Reads      int64 // point reads (Get)
	Queries    int64 // query pages fetched
	Writes     int64 // insert, update, upsert, delete
	Txs        int64 // transactions (one call each, whatever their size)
	BlobReads  int64 // get and list
	BlobWrites int64 // put and delete
}

// Total is the number of calls that reached the backend.
func (c Counts) Total() int64 {
	return c.Reads + c.Queries + c.Writes + c.Txs + c.BlobReads + c.BlobWrites
}

// String renders the counts compactly for logs and the X-Storage-Ops header.
func (c Counts) String() string {
	return fmt.Sprintf("total=%d reads=%d queries=%d writes=%d txs=%d blob_reads=%d blob_writes=%d",
		c.Total(), c.Reads, c.Queries, c.Writes, c.Txs, c.BlobReads, c.BlobWrites)
}

// Snapshot returns the current counts. A nil Counter counts nothing.
func (c *Counter) Snapshot() Counts {
	if c == nil {
		return Counts{}
	}
	return Counts{
		Reads: c.reads.Load(), Queries: c.queries.Load(), Writes: c.writes.Load(),
		Txs: c.txs.Load(), BlobReads: c.blobReads.Load(), BlobWrites: c.blobWrites.Load(),
	}
}

type counterKey struct{}

// WithCounter returns a context that carries a fresh Counter.
func WithCounter(ctx context.Context) (context.Context, *Counter) {
	c := &Counter{}
	return context.WithValue(ctx, counterKey{}, c), c
}

// CounterFrom returns the context's Counter, or nil.
func CounterFrom(ctx context.Context) *Counter {
	c, _ := ctx.Value(counterKey{}).(*Counter)
	return c
}

func count(ctx context.Context, pick func(*Counter) *atomicInt) {
	if c := CounterFrom(ctx); c != nil {
		pick(c).Add(1)
	}
}

type atomicInt = atomic.Int64

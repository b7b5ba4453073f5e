package storage

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// bucketIndex is an in-memory bucketed index for exercising Walk's logic;
// the real tables are exercised by the conformance suite.
type bucketIndex struct {
	rows    map[string][]string
	calls   int
	maxPage int
}

func (ix *bucketIndex) fetch(_ context.Context, bucket string, cont *Continuation, limit int) (Page, error) {
	ix.calls++
	rows := ix.rows[bucket]
	start := 0
	if cont != nil {
		fmt.Sscan(cont.NextRowKey, &start)
	}
	n := min(limit, ix.maxPage, len(rows)-start)
	p := Page{}
	for _, r := range rows[start : start+n] {
		p.Entities = append(p.Entities, Entity{PartitionKey: bucket, RowKey: r})
	}
	if start+n < len(rows) {
		p.Next = &Continuation{NextPartitionKey: bucket, NextRowKey: fmt.Sprint(start + n)}
	}
	return p, nil
}

func TestWalkPagesAcrossMonthsWithoutRepeatsOrGaps(t *testing.T) {
	ix := &bucketIndex{maxPage: 3, rows: map[string][]string{
		"202611": {"a", "b", "c", "d"},
		"202610": {},
		"202609": {"e"},
		"202607": {"f", "g", "h", "i", "j"},
	}}
	months := Months{Newest: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC), Oldest: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	w := Walk{Buckets: months, Limit: 4, Fetch: ix.fetch}
	var got []string
	var cur *Cursor
	for page := 0; page < 10; page++ {
		items, next, err := w.Run(context.Background(), cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range items {
			got = append(got, e.RowKey)
		}
		if next == nil {
			break
		}
		cur = next
	}
	if fmt.Sprint(got) != "[a b c d e f g h i j]" {
		t.Fatalf("walked %v", got)
	}
}

func TestWalkBoundsCallsPerPage(t *testing.T) {
	ix := &bucketIndex{maxPage: 10, rows: map[string][]string{"200001": {"old"}}}
	months := Months{Newest: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Oldest: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}
	w := Walk{Buckets: months, Limit: 5, MaxCalls: 6, Fetch: ix.fetch}
	items, next, err := w.Run(context.Background(), nil)
	if err != nil || len(items) != 0 || next == nil || ix.calls != 6 {
		t.Fatalf("items=%d next=%v calls=%d err=%v", len(items), next, ix.calls, err)
	}
	if next.Bucket != "202605" {
		t.Fatalf("resume bucket = %s", next.Bucket)
	}
}

func TestWalkRejectsBucketsOutsideTheIndex(t *testing.T) {
	scores := Scores{High: 9999, Low: 0, Width: 4}
	w := Walk{Buckets: scores, Limit: 5, Fetch: (&bucketIndex{maxPage: 5}).fetch}
	for _, b := range []string{"10000", "-001", "abc", "42"} {
		if _, _, err := w.Run(context.Background(), &Cursor{Bucket: b}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("bucket %q: err = %v", b, err)
		}
	}
	if next, ok := scores.After("0000"); ok {
		t.Errorf("After(0000) = %q, want end", next)
	}
	if next, _ := scores.After("0100"); next != "0099" {
		t.Errorf("After(0100) = %q", next)
	}
}

package storage

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Buckets enumerates the partitions of a bucketed index in reading order
// (document 002 §9: newest month first, highest score first).
type Buckets interface {
	First() string
	// After returns the bucket read after b; ok is false after the last one.
	After(b string) (next string, ok bool)
	// Valid reports whether b is one of the sequence's buckets, so a cursor
	// cannot steer a walk outside the index.
	Valid(b string) bool
}

// Months are "yyyyMM" buckets from Newest back to Oldest, inclusive.
type Months struct {
	Newest, Oldest time.Time
}

func monthKey(t time.Time) string { return t.UTC().Format("200601") }

// MonthBucket is the bucket of t.
func MonthBucket(t time.Time) string { return monthKey(t) }

func (m Months) First() string { return monthKey(m.Newest) }

func (m Months) After(b string) (string, bool) {
	t, err := time.Parse("200601", b)
	if err != nil {
		return "", false
	}
	prev := t.AddDate(0, -1, 0)
	if monthKey(prev) < monthKey(m.Oldest) {
		return "", false
	}
	return monthKey(prev), true
}

func (m Months) Valid(b string) bool {
	_, err := time.Parse("200601", b)
	return err == nil && len(b) == 6 && b <= monthKey(m.Newest) && b >= monthKey(m.Oldest)
}

// Scores are zero-padded integer buckets from High down to Low, inclusive.
type Scores struct {
	High, Low, Width int
}

// ScoreBucket formats a score bucket number.
func (s Scores) Bucket(n int) string { return Pad(int64(n), s.Width) }

func (s Scores) First() string { return s.Bucket(s.High) }

func (s Scores) After(b string) (string, bool) {
	n, err := strconv.Atoi(b)
	if err != nil || n-1 < s.Low {
		return "", false
	}
	return s.Bucket(n - 1), true
}

func (s Scores) Valid(b string) bool {
	n, err := strconv.Atoi(b)
	return err == nil && len(b) == s.Width && n >= s.Low && n <= s.High
}

// FetchBucket reads one page of one bucket, starting at cont (nil: the
// bucket's start) and returning at most limit entities.
type FetchBucket func(ctx context.Context, bucket string, cont *Continuation, limit int) (Page, error)

// Walk reads one page of a bucketed listing. It fills up to Limit entities
// from the cursor on, moving to the next bucket when one runs dry, and spends
// at most MaxCalls fetches (so a long run of empty buckets costs a bounded
// amount per page; the listing then shows a short page with "load more").
type Walk struct {
	Buckets  Buckets
	Limit    int
	MaxCalls int
	Fetch    FetchBucket
}

// Run returns the page's entities and the cursor of the next page (nil at
// the end of the listing). A nil from means the first page.
func (w Walk) Run(ctx context.Context, from *Cursor) ([]Entity, *Cursor, error) {
	cur := Cursor{Bucket: w.Buckets.First()}
	if from != nil {
		if !w.Buckets.Valid(from.Bucket) {
			return nil, nil, fmt.Errorf("%w: bucket %q out of range", ErrBadCursor, from.Bucket)
		}
		cur = *from
	}
	maxCalls := w.MaxCalls
	if maxCalls <= 0 {
		maxCalls = 12
	}
	var out []Entity
	for calls := 0; len(out) < w.Limit; calls++ {
		if calls == maxCalls {
			return out, &cur, nil
		}
		page, err := w.Fetch(ctx, cur.Bucket, cur.Next, w.Limit-len(out))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, page.Entities...)
		if page.Next != nil {
			cur.Next = page.Next
			continue
		}
		next, ok := w.Buckets.After(cur.Bucket)
		if !ok {
			return out, nil, nil
		}
		cur = Cursor{Bucket: next}
	}
	return out, &cur, nil
}

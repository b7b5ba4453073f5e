package quota_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/storage/storetest"
)

var errLimit = errors.New("too many")

// TestTake: Max actions per window, refused past it (not counted), a new
// window starts afresh, keys count apart, and concurrent takes never
// exceed the limit.
func TestTake(t *testing.T) {
	store := storetest.Open(t, "Quota")
	ctx := t.Context()
	l := quota.Limit{Table: store.Table("Quota"), Max: 3, Window: time.Minute, Err: errLimit}
	now := time.Date(2030, 1, 1, 10, 0, 5, 0, time.UTC)
	for i := 0; i < 3; i++ {
		if err := l.Take(ctx, "ann", now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatalf("take %d: %v", i, err)
		}
	}
	if err := l.Take(ctx, "ann", now.Add(50*time.Second)); !errors.Is(err, errLimit) {
		t.Fatalf("fourth take in the minute: %v", err)
	}
	if err := l.Take(ctx, "bob", now); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if err := l.Take(ctx, "ann", now.Add(time.Minute)); err != nil {
		t.Fatalf("the next minute: %v", err)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Take(ctx, "rush", now); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errors.Is(err, errLimit) && !errors.Is(err, storage.ErrPrecondition) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok != 3 {
		t.Fatalf("%d concurrent takes passed, want 3", ok)
	}
}

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

// TestCooldown: one action per key per Interval, counted from the last
// one let through; a refused one is not counted, release gives a failed
// action's turn back (not a later one's), keys cool down apart, and of
// many actions at once exactly one passes.
func TestCooldown(t *testing.T) {
	store := storetest.Open(t, "Quota")
	ctx := t.Context()
	c := quota.Cooldown{Table: store.Table("Quota"), Interval: 30 * time.Second}
	now := time.Date(2030, 1, 1, 10, 0, 5, 0, time.UTC)
	take := func(key string, at time.Time) (time.Duration, func()) {
		t.Helper()
		wait, release, err := c.Take(ctx, key, at)
		if err != nil {
			t.Fatal(err)
		}
		return wait, release
	}
	if wait, _ := take("ann", now); wait != 0 {
		t.Fatalf("first: wait %s", wait)
	}
	if wait, _ := take("ann", now.Add(10*time.Second)); wait != 20*time.Second {
		t.Fatalf("10 s on: wait %s, want 20s", wait)
	}
	if wait, _ := take("bob", now.Add(10*time.Second)); wait != 0 {
		t.Fatalf("another key: wait %s", wait)
	}
	wait, release := take("ann", now.Add(30*time.Second))
	if wait != 0 {
		t.Fatalf("30 s on: wait %s", wait)
	}
	release()
	if wait, _ := take("ann", now.Add(31*time.Second)); wait != 0 {
		t.Fatalf("after a release: wait %s", wait)
	}
	release() // too late: a later action holds the turn
	if wait, _ := take("ann", now.Add(32*time.Second)); wait != 29*time.Second {
		t.Fatalf("a stale release gave the turn back: wait %s", wait)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wait, _, err := c.Take(ctx, "cat", now)
			if err != nil {
				t.Error(err)
			}
			if wait == 0 {
				mu.Lock()
				passed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if passed != 1 {
		t.Fatalf("%d of 10 concurrent actions passed", passed)
	}
}

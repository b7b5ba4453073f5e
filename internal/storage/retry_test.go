package storage

import (
	"context"
	"errors"
	"testing"
)

func TestOptimisticRetriesOnlyRaces(t *testing.T) {
	calls := 0
	err := Optimistic(context.Background(), 5, func(context.Context) error {
		calls++
		if calls < 3 {
			return ErrPrecondition
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("err=%v calls=%d", err, calls)
	}

	calls = 0
	boom := errors.New("boom")
	if err := Optimistic(context.Background(), 5, func(context.Context) error { calls++; return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("non-race error retried: err=%v calls=%d", err, calls)
	}

	calls = 0
	err = Optimistic(context.Background(), 4, func(context.Context) error { calls++; return ErrExists })
	if !errors.Is(err, ErrConflict) || !errors.Is(err, ErrExists) || calls != 4 {
		t.Fatalf("exhausted: err=%v calls=%d", err, calls)
	}
}

package storage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// ErrConflict is returned by Optimistic when every attempt lost a race.
var ErrConflict = errors.New("storage: too much contention")

// DefaultAttempts is the attempt budget callers use unless they have a reason
// not to.
const DefaultAttempts = 8

// Optimistic runs an optimistic-concurrency step (read, modify, write with
// the ETag) up to attempts times. It retries only when the step fails with
// ErrPrecondition (someone wrote in between) or ErrExists (someone inserted
// first), waiting a short, jittered, growing delay. Any other error ends it at
// once. When every attempt lost, the error wraps ErrConflict and the last
// cause.
func Optimistic(ctx context.Context, attempts int, step func(ctx context.Context) error) error {
	if attempts < 1 {
		attempts = 1
	}
	delay := 2 * time.Millisecond
	var err error
	for i := 0; i < attempts; i++ {
		err = step(ctx)
		if err == nil || !(errors.Is(err, ErrPrecondition) || errors.Is(err, ErrExists)) {
			return err
		}
		if i == attempts-1 {
			break
		}
		wait := delay/2 + rand.N(delay)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		delay = min(delay*2, 200*time.Millisecond)
	}
	return fmt.Errorf("%w after %d attempts: %w", ErrConflict, attempts, err)
}

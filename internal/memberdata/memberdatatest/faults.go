package memberdatatest

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// ErrInjected is the failure Faults injects.
var ErrInjected = errors.New("memberdatatest: injected write failure")

// Faults makes a store's writes fail on cue, for a test of a forget cut
// short: Wrap its backend, call FailAfter(n) before the forget, and Heal
// before the run that must finish it. Reads always pass.
type Faults struct {
	armed atomic.Bool
	left  atomic.Int64
	// Failed counts the writes refused.
	Failed atomic.Int64
}

// Wrap is the wrapper for accounttest.Options.Wrap or
// storetest.OpenWrapped.
func (f *Faults) Wrap(b storage.Backend) storage.Backend { return faulty{b, f} }

// FailAfter lets n more writes through and refuses every write after
// them until Heal.
func (f *Faults) FailAfter(n int) {
	f.left.Store(int64(n))
	f.armed.Store(true)
}

// Heal lets every write through again.
func (f *Faults) Heal() { f.armed.Store(false) }

// fail reports whether this write is refused.
func (f *Faults) fail() bool {
	if !f.armed.Load() || f.left.Add(-1) >= 0 {
		return false
	}
	f.Failed.Add(1)
	return true
}

type faulty struct {
	storage.Backend
	f *Faults
}

func (b faulty) Insert(ctx context.Context, table string, e storage.Entity) (string, error) {
	if b.f.fail() {
		return "", ErrInjected
	}
	return b.Backend.Insert(ctx, table, e)
}

func (b faulty) Update(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode, ifMatch string) (string, error) {
	if b.f.fail() {
		return "", ErrInjected
	}
	return b.Backend.Update(ctx, table, e, mode, ifMatch)
}

func (b faulty) Upsert(ctx context.Context, table string, e storage.Entity, mode storage.UpdateMode) (string, error) {
	if b.f.fail() {
		return "", ErrInjected
	}
	return b.Backend.Upsert(ctx, table, e, mode)
}

func (b faulty) Delete(ctx context.Context, table, pk, rk, ifMatch string) error {
	if b.f.fail() {
		return ErrInjected
	}
	return b.Backend.Delete(ctx, table, pk, rk, ifMatch)
}

func (b faulty) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if b.f.fail() {
		return ErrInjected
	}
	return b.Backend.Transact(ctx, table, ops)
}

func (b faulty) PutBlob(ctx context.Context, container, name string, data []byte, contentType, ifMatch string) (string, error) {
	if b.f.fail() {
		return "", ErrInjected
	}
	return b.Backend.PutBlob(ctx, container, name, data, contentType, ifMatch)
}

func (b faulty) DeleteBlob(ctx context.Context, container, name string) error {
	if b.f.fail() {
		return ErrInjected
	}
	return b.Backend.DeleteBlob(ctx, container, name)
}

// CutShort runs test once for each point, as parallel subtests, each
// with Faults of its own: a forget cut short after that many writes
// (Finish), at several places of one scenario.
func CutShort(t *testing.T, points []int, test func(t *testing.T, f *Faults, point int)) {
	for _, n := range points {
		t.Run(fmt.Sprintf("failing after %d writes", n), func(t *testing.T) {
			t.Parallel()
			test(t, &Faults{}, n)
		})
	}
}

// Finish runs forget with every write after the first n failing, which
// must report an error, and then again with none failing, which must
// finish.
func (f *Faults) Finish(t testing.TB, n int, forget func() error) {
	t.Helper()
	f.FailAfter(n)
	if err := forget(); err == nil {
		t.Fatalf("a forget whose writes failed after %d reported nothing", n)
	}
	f.Heal()
	if err := forget(); err != nil {
		t.Fatalf("the forget after one cut short: %v", err)
	}
}

package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// LeasesTable holds one row per job: who may run it until when.
const LeasesTable = "Leases"

// LeaseRow is a job's lease. Only the holder runs the job until ExpiresAt;
// after that any instance may take it over.
type LeaseRow struct {
	PartitionKey string    `table:"PartitionKey"` // "lease"
	RowKey       string    `table:"RowKey"`       // job name
	ETag         string    `table:"ETag"`
	Holder       string    `table:"holder"`
	ExpiresAt    time.Time `table:"expiresAt"`
	TakenAt      time.Time `table:"takenAt"`
}

// leaseKey is Leases' key: PK "lease", RK the job name.
func leaseKey(job string) (pk, rk string) { return "lease", job }

// leases takes and renews lease rows with ETag-conditional writes, so two
// instances never both believe they hold one.
type leases struct {
	table  *storage.Table
	holder string
	now    func() time.Time
}

// acquire takes or renews the lease on job for d. It reports false, with no
// error, when another holder's lease has not expired. A lost race (someone
// inserted or wrote in between) is also false: they hold it now.
func (l *leases) acquire(ctx context.Context, job string, d time.Duration) (bool, error) {
	now := l.now().UTC()
	pk, rk := leaseKey(job)
	row := LeaseRow{PartitionKey: pk, RowKey: rk, Holder: l.holder, ExpiresAt: now.Add(d), TakenAt: now}
	e, err := l.table.Get(ctx, pk, rk)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		fresh, err := storage.Marshal(row)
		if err != nil {
			return false, err
		}
		_, err = l.table.Insert(ctx, fresh)
		if errors.Is(err, storage.ErrExists) {
			return false, nil
		}
		return err == nil, err
	case err != nil:
		return false, err
	}
	var held LeaseRow
	if err := storage.Unmarshal(e, &held); err != nil {
		return false, err
	}
	if held.Holder != l.holder && now.Before(held.ExpiresAt) {
		return false, nil
	}
	if held.Holder == l.holder {
		row.TakenAt = held.TakenAt
	}
	next, err := storage.Marshal(row)
	if err != nil {
		return false, err
	}
	_, err = l.table.Update(ctx, next, storage.Replace, held.ETag)
	if errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// release gives up this holder's lease on job, at the ETag read, so a
// lease another holder took meanwhile stays. Another instance may then run
// the job at once instead of waiting out the period.
func (l *leases) release(ctx context.Context, job string) error {
	pk, rk := leaseKey(job)
	held, err := storage.Get[LeaseRow](ctx, l.table, pk, rk)
	if errors.Is(err, storage.ErrNotFound) || err == nil && held.Holder != l.holder {
		return nil
	}
	if err != nil {
		return err
	}
	err = l.table.Delete(ctx, pk, rk, held.ETag)
	if errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

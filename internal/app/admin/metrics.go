package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

const metricsTable = "DailyMetrics"

// Counter names one DailyMetrics column.
type Counter string

// The counters modules increment.
const (
	NewUsers        Counter = "newUsers"
	NewGroups       Counter = "newGroups"
	NewAppointments Counter = "newAppointments"
	InvitesSent     Counter = "invitesSent"
	InvitesAccepted Counter = "invitesAccepted"
)

// Counters lists every counter, in the order the metrics page shows them.
var Counters = []Counter{NewUsers, NewGroups, NewAppointments, InvitesSent, InvitesAccepted}

// metricsAttempts is the ETag retry budget of one increment: a busy day
// has many writers on one row, and losing a count is worse than waiting.
const metricsAttempts = 64

// MetricsRow is one day of DailyMetrics (document 004).
type MetricsRow struct {
	PartitionKey    string    `table:"PartitionKey"` // YYYY-MM
	RowKey          string    `table:"RowKey"`       // YYYY-MM-DD
	ETag            string    `table:"ETag"`
	NewUsers        int64     `table:"newUsers"`
	NewGroups       int64     `table:"newGroups"`
	NewAppointments int64     `table:"newAppointments"`
	InvitesSent     int64     `table:"invitesSent"`
	InvitesAccepted int64     `table:"invitesAccepted"`
	UpdatedAt       time.Time `table:"updatedAt"`
}

// Day is the row's date, parsed from its key.
func (r MetricsRow) Day() time.Time {
	d, _ := time.Parse(time.DateOnly, r.RowKey)
	return d
}

// Get returns counter c's value.
func (r MetricsRow) Get(c Counter) int64 {
	switch c {
	case NewUsers:
		return r.NewUsers
	case NewGroups:
		return r.NewGroups
	case NewAppointments:
		return r.NewAppointments
	case InvitesSent:
		return r.InvitesSent
	case InvitesAccepted:
		return r.InvitesAccepted
	}
	return 0
}

// metricsKey is DailyMetrics' key: PK the UTC month, RK the UTC day.
func metricsKey(at time.Time) (pk, rk string) {
	at = at.UTC()
	return at.Format("2006-01"), at.Format(time.DateOnly)
}

// ErrUnknownCounter refuses a counter not in Counters.
var ErrUnknownCounter = errors.New("admin: unknown metrics counter")

// Metrics keeps the DailyMetrics counters. Other modules increment them;
// the admin metrics page reads them.
type Metrics struct {
	table *storage.Table
	now   func() time.Time
}

// NewMetrics builds the counters on store's DailyMetrics table. now nil
// means time.Now.
func NewMetrics(store *storage.Store, now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	return &Metrics{table: store.Table(metricsTable), now: now}
}

func knownCounter(c Counter) bool {
	for _, k := range Counters {
		if k == c {
			return true
		}
	}
	return false
}

// Incr adds one to counter on the UTC day of at. Concurrent increments are
// exact: each is an insert-if-missing or an ETag-conditional update,
// retried when another writer got in first.
func (m *Metrics) Incr(ctx context.Context, counter Counter, at time.Time) error {
	if !knownCounter(counter) {
		return fmt.Errorf("%w: %q", ErrUnknownCounter, counter)
	}
	pk, rk := metricsKey(at)
	err := storage.Optimistic(ctx, metricsAttempts, func(ctx context.Context) error {
		now := m.now().UTC()
		e, err := m.table.Get(ctx, pk, rk)
		if errors.Is(err, storage.ErrNotFound) {
			_, err = m.table.Insert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{
				string(counter): int64(1),
				"updatedAt":     now,
			}})
			return err
		}
		if err != nil {
			return err
		}
		n, _ := e.Props[string(counter)].(int64)
		_, err = m.table.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{
			string(counter): n + 1,
			"updatedAt":     now,
		}}, storage.Merge, e.ETag)
		return err
	})
	if err != nil {
		return fmt.Errorf("admin: count %s: %w", counter, err)
	}
	return nil
}

// CountNewUser counts an account created at its first sign-in (the account
// module calls it).
func (m *Metrics) CountNewUser(ctx context.Context, at time.Time) error {
	return m.Incr(ctx, NewUsers, at)
}

// Last returns the last days UTC days up to today, oldest first, one row
// per day: days without a stored row are zero. It runs one range query per
// month partition the days span: two at most for 31 days or fewer.
func (m *Metrics) Last(ctx context.Context, days int) ([]MetricsRow, error) {
	if days < 1 {
		return nil, nil
	}
	today := m.now().UTC().Truncate(24 * time.Hour)
	first := today.AddDate(0, 0, -(days - 1))
	stored := map[string]MetricsRow{}
	for month := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC); !month.After(today); month = month.AddDate(0, 1, 0) {
		pk, _ := metricsKey(month)
		_, from := metricsKey(first)
		_, to := metricsKey(today.AddDate(0, 0, 1))
		err := m.table.QueryAll(ctx, storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: to}, func(e storage.Entity) error {
			var r MetricsRow
			if err := storage.Unmarshal(e, &r); err != nil {
				return err
			}
			stored[r.RowKey] = r
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]MetricsRow, 0, days)
	for d := first; !d.After(today); d = d.AddDate(0, 0, 1) {
		pk, rk := metricsKey(d)
		r, ok := stored[rk]
		if !ok {
			r = MetricsRow{PartitionKey: pk, RowKey: rk}
		}
		out = append(out, r)
	}
	return out, nil
}

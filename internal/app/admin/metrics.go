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

// metricsAttempts is the ETag retry budget of one counter update: a busy
// day has many writers on one row, and losing a count is worse than waiting.
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
	if err := addCounts(ctx, m.table, pk, rk, map[string]int64{string(counter): 1}, m.now); err != nil {
		return fmt.Errorf("admin: count %s: %w", counter, err)
	}
	return nil
}

// addCounts adds deltas to the int64 columns of one counter row and stamps
// updatedAt. Each attempt inserts the row when it is missing or updates it
// under its ETag, so concurrent writers never lose a count: the loser of a
// race reads again and retries (DailyMetrics and the AI usage tables).
func addCounts(ctx context.Context, table *storage.Table, pk, rk string, deltas map[string]int64, now func() time.Time) error {
	return storage.Optimistic(ctx, metricsAttempts, func(ctx context.Context) error {
		props := make(map[string]any, len(deltas)+1)
		props["updatedAt"] = now().UTC()
		e, err := table.Get(ctx, pk, rk)
		if errors.Is(err, storage.ErrNotFound) {
			for col, d := range deltas {
				props[col] = d
			}
			_, err = table.Insert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props})
			return err
		}
		if err != nil {
			return err
		}
		for col, d := range deltas {
			n, _ := e.Props[col].(int64)
			props[col] = n + d
		}
		_, err = table.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props}, storage.Merge, e.ETag)
		return err
	})
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
	first, today := dayWindow(m.now(), days)
	stored := map[string]MetricsRow{}
	err := queryMonthDays(ctx, m.table, first, today, func(e storage.Entity) error {
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

// dayWindow is the last days UTC days up to now's: the first and the last.
func dayWindow(now time.Time, days int) (first, today time.Time) {
	today = now.UTC().Truncate(24 * time.Hour)
	return today.AddDate(0, 0, -(days - 1)), today
}

// queryMonthDays reads the rows of a table keyed PK YYYY-MM, RK starting
// with YYYY-MM-DD (DailyMetrics, DailyUsageByModel) for the days from first
// to last: one range query per month partition the days span.
func queryMonthDays(ctx context.Context, table *storage.Table, first, last time.Time, fn func(storage.Entity) error) error {
	_, from := metricsKey(first)
	_, to := metricsKey(last.AddDate(0, 0, 1))
	for month := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC); !month.After(last); month = month.AddDate(0, 1, 0) {
		pk, _ := metricsKey(month)
		if err := table.QueryAll(ctx, storage.Query{PartitionKey: pk, RowKeyFrom: from, RowKeyTo: to}, fn); err != nil {
			return err
		}
	}
	return nil
}

// Package metrics owns the site's daily counters (table DailyMetrics,
// document 004) and the AI usage event: modules register the counters they
// increment and count through it, and the admin section reads them. It
// knows no module, so any module (the AI client included) may use it
// without depending on the admin section.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Table is the daily counters' table.
const Table = "DailyMetrics"

// Counter names one daily counter (a DailyMetrics column).
type Counter string

// Shards spread one day's counts over this many rows: every increment
// writes one of them at random, so a busy day is not one hot row that all
// writers race for. A day's count is the sum of its shards.
const Shards = 8

// attempts is the ETag retry budget of one increment: losing a count is
// worse than waiting.
const attempts = 64

// ErrUnknownCounter refuses a counter nobody registered.
var ErrUnknownCounter = errors.New("metrics: unknown counter")

// Daily keeps the daily counters.
type Daily struct {
	table *storage.Table
	now   func() time.Time

	mu       sync.Mutex
	sections []Section
}

// Section is one module's counters, shown together on the metrics page
// under the heading "admin.metrics.section.<Key>".
type Section struct {
	Key      string
	Counters []Counter
}

// NewDaily builds the counters on store's DailyMetrics table; now is
// the clock.
func NewDaily(store *storage.Store, now func() time.Time) *Daily {
	return &Daily{table: store.Table(Table), now: now}
}

// Register adds counters to section, sections and counters in the order
// the metrics page shows them; a module registers the counters it
// increments while the app is wired (Counting does it for it). A counter
// belongs to the first section that registers it.
func (d *Daily) Register(section string, counters ...Counter) {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := slices.IndexFunc(d.sections, func(s Section) bool { return s.Key == section })
	if i < 0 {
		d.sections = append(d.sections, Section{Key: section})
		i = len(d.sections) - 1
	}
	for _, c := range counters {
		if !d.knownLocked(c) {
			d.sections[i].Counters = append(d.sections[i].Counters, c)
		}
	}
}

// Sections are the registered sections with their counters, in
// registration order.
func (d *Daily) Sections() []Section {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Section, len(d.sections))
	for i, s := range d.sections {
		out[i] = Section{Key: s.Key, Counters: slices.Clone(s.Counters)}
	}
	return out
}

// Counters are the registered counters, in registration order.
func (d *Daily) Counters() []Counter {
	var out []Counter
	for _, s := range d.Sections() {
		out = append(out, s.Counters...)
	}
	return out
}

func (d *Daily) known(c Counter) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.knownLocked(c)
}

func (d *Daily) knownLocked(c Counter) bool {
	for _, s := range d.sections {
		if slices.Contains(s.Counters, c) {
			return true
		}
	}
	return false
}

// Counting is a module's hold on the daily counters: it registers the
// module's section and counts into it without ever failing what it counts.
// The zero Counting (a module built without metrics, as in its own tests)
// counts nothing.
type Counting struct {
	daily *Daily
	log   *slog.Logger
}

// Counting registers counters under section and returns what counts
// them; failures go to log.
func (d *Daily) Counting(log *slog.Logger, section string, counters ...Counter) Counting {
	d.Register(section, counters...)
	return Counting{daily: d, log: log}
}

// Add counts one on today's counter. A failing count is logged and
// dropped: losing a count is better than losing the action it counts.
func (c Counting) Add(ctx context.Context, counter Counter) {
	if c.daily == nil {
		return
	}
	if err := c.daily.Incr(ctx, counter, c.daily.now()); err != nil {
		c.log.WarnContext(ctx, "metric not counted", "counter", counter, "err", err)
	}
}

// AddOncePerDay counts key once per UTC day on counter (active people: a
// person's first visit of the day, on however many devices). A failing
// count is logged and dropped, as Add's is.
func (c Counting) AddOncePerDay(ctx context.Context, counter Counter, key string) {
	if c.daily == nil {
		return
	}
	if err := c.daily.incrOncePerDay(ctx, counter, key); err != nil {
		c.log.WarnContext(ctx, "metric not counted", "counter", counter, "err", err)
	}
}

// oncePrefix starts the partition of a once-per-day counter's marks.
const oncePrefix = "once|"

// onceRow is the last UTC day a key was counted on a once-per-day counter.
type onceRow struct {
	Day string `table:"day"`
}

// incrOncePerDay keeps one row per key (PK "once|{counter}", RK the
// escaped key) holding the last UTC day it was counted, changed at its
// ETag (storage.Modify), so two instances or devices racing count it
// once; the first change of day counts it. One row per key, however many
// days.
func (d *Daily) incrOncePerDay(ctx context.Context, counter Counter, key string) error {
	if !d.known(counter) {
		return fmt.Errorf("%w: %q", ErrUnknownCounter, counter)
	}
	now := d.now()
	day := now.UTC().Format(time.DateOnly)
	first := false
	_, err := storage.Modify(ctx, d.table, oncePrefix+string(counter), storage.EscapeKey(key), func(r *onceRow, _ bool) error {
		if first = r.Day < day; !first {
			return storage.ErrNoChange // counted today already
		}
		r.Day = day
		return nil
	})
	if err != nil || !first {
		return err
	}
	return d.Incr(ctx, counter, now)
}

// Key is DailyMetrics' key of one shard of a day: PK the UTC month, RK the
// UTC day and the shard. Rows written before sharding have the bare day as
// their RK; Last counts them too.
func Key(at time.Time, shard int) (pk, rk string) {
	at = at.UTC()
	return at.Format("2006-01"), at.Format(time.DateOnly) + fmt.Sprintf("|s%d", shard)
}

// Incr adds one to counter on the UTC day of at, in a random shard.
// Concurrent increments are exact (AddCounts).
func (d *Daily) Incr(ctx context.Context, counter Counter, at time.Time) error {
	if !d.known(counter) {
		return fmt.Errorf("%w: %q", ErrUnknownCounter, counter)
	}
	pk, rk := Key(at, rand.IntN(Shards))
	if err := AddCounts(ctx, d.table, pk, rk, map[string]int64{string(counter): 1}, d.now); err != nil {
		return fmt.Errorf("metrics: count %s: %w", counter, err)
	}
	return nil
}

// AddCounts adds deltas to the int64 columns of one counter row and stamps
// updatedAt. Each attempt inserts the row when it is missing or updates it
// under its ETag, so concurrent writers never lose a count: the loser of a
// race reads again and retries (DailyMetrics and the AI usage tables).
func AddCounts(ctx context.Context, table *storage.Table, pk, rk string, deltas map[string]int64, now func() time.Time) error {
	return storage.Optimistic(ctx, attempts, func(ctx context.Context) error {
		props := make(map[string]any, len(deltas)+1)
		props["updatedAt"] = now().UTC()
		e, err := table.Get(ctx, pk, rk)
		if errors.Is(err, storage.ErrNotFound) {
			for col, v := range deltas {
				props[col] = v
			}
			_, err = table.Insert(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props})
			return err
		}
		if err != nil {
			return err
		}
		for col, v := range deltas {
			n, _ := e.Props[col].(int64)
			props[col] = n + v
		}
		_, err = table.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: props}, storage.Merge, e.ETag)
		return err
	})
}

// Day is one UTC day's counts.
type Day struct {
	Date   time.Time
	Counts map[Counter]int64
}

// Get is counter c's count on the day.
func (d Day) Get(c Counter) int64 { return d.Counts[c] }

// Last returns the last days UTC days up to today, oldest first, one per
// day (zero counts for days without rows), summing each day's shards. It
// runs one range query per month partition the days span: two at most for
// 31 days or fewer.
func (d *Daily) Last(ctx context.Context, days int) ([]Day, error) {
	if days < 1 {
		return nil, nil
	}
	first, today := DayWindow(d.now(), days)
	sums := map[string]map[Counter]int64{}
	err := QueryMonthDays(ctx, d.table, first, today, func(e storage.Entity) error {
		day, _, _ := strings.Cut(e.RowKey, "|")
		if sums[day] == nil {
			sums[day] = map[Counter]int64{}
		}
		for name, v := range e.Props {
			if n, ok := v.(int64); ok {
				sums[day][Counter(name)] += n
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Day, 0, days)
	for t := first; !t.After(today); t = t.AddDate(0, 0, 1) {
		counts := sums[t.Format(time.DateOnly)]
		if counts == nil {
			counts = map[Counter]int64{}
		}
		out = append(out, Day{Date: t, Counts: counts})
	}
	return out, nil
}

// DayWindow is the last days UTC days up to now's: the first and the last.
func DayWindow(now time.Time, days int) (first, today time.Time) {
	today = now.UTC().Truncate(24 * time.Hour)
	return today.AddDate(0, 0, -(days - 1)), today
}

// QueryMonthDays reads the rows of a table keyed PK YYYY-MM, RK starting
// with YYYY-MM-DD (DailyMetrics, DailyUsageByModel) for the days from first
// to last: one range query per month partition the days span.
func QueryMonthDays(ctx context.Context, table *storage.Table, first, last time.Time, fn func(storage.Entity) error) error {
	from := first.UTC().Format(time.DateOnly)
	to := last.UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	for month := time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC); !month.After(last); month = month.AddDate(0, 1, 0) {
		if err := table.QueryAll(ctx, storage.Query{PartitionKey: month.Format("2006-01"), RowKeyFrom: from, RowKeyTo: to}, fn); err != nil {
			return err
		}
	}
	return nil
}

// UsageEvent is one AI call to count (the AI client records every call).
type UsageEvent struct {
	UserKey string
	Model   string
	At      time.Time
	// TokensIn and TokensOut are what the API reported (zero when it
	// failed before answering).
	TokensIn  int64
	TokensOut int64
	// Failed counts the call as an error too.
	Failed bool
}

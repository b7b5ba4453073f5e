// Package live owns the app's live updates: a change feed every module
// publishes its writes to and its open pages subscribe to (Feed), and the
// plumbing of the Server-Sent Events streams that carry them to browsers
// (stream.go).
//
// A write publishes a topic ("chat|{chatId}", "list|{groupId}|{listId}")
// and, if it likes, a small payload. The publishing instance wakes its
// own subscribers of the topic at once, and writes one row to the feed
// table: one partition (shard), keyed by time. While anyone on an
// instance subscribes to anything, that instance reads the feed's last
// Overlap once per PollEvery: one query, whatever the number of modules,
// topics or subscribers. It hands each row it has not handed on before to
// the subscribers of its topic here (rows this instance wrote were handed
// on when written). Rows are hints, never the truth: a subscriber re-reads
// its source, so a duplicate costs a read and a lost row (a crash between
// the write and the feed row) is caught by the next change, or when the
// stream reconnects. A job deletes rows older than Keep.
//
// The ceiling is the one partition's rate, about 2,000 entities a second
// across the app; docs/ARCHITECTURE.md says how to raise it.
package live

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
)

// Table is the feed: PK shard, RK feedKey.
const Table = "LiveFeed"

// Feed settings.
const (
	shard = "f0"
	// PollEvery is how often an instance with subscribers reads the feed.
	PollEvery = time.Second
	// Overlap is how far back each read goes, so rows written late (a
	// slow write, another instance's clock behind) are still read.
	Overlap = 5 * time.Second
	// Keep is how long rows stay before the sweep deletes them.
	Keep = 2 * time.Minute
	// pageSize is the feed read's page: one page for Overlap's rows up to
	// 200 changes a second across the app.
	pageSize = 1000
)

// Row is one change in the feed: PK shard, RK feedKey.
type Row struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Topic        string `table:"topic"`
	// Payload is what the publisher handed along (a chat's entry, whole,
	// so other instances deliver it without reading the log).
	Payload string `table:"payload"`
	// Origin is the instance that wrote it.
	Origin string `table:"origin"`
}

// feedKey orders rows by time: "{unix nanoseconds, 20 digits}|{origin}|{n}",
// n the origin's own count, so two changes in one nanosecond both stay.
func feedKey(t time.Time, origin string, n uint64) string {
	return fmt.Sprintf("%s|%s|%d", timeKey(t), origin, n)
}

// timeKey is the part of feedKey that bounds a read or a sweep.
func timeKey(t time.Time) string { return fmt.Sprintf("%020d", t.UnixNano()) }

// Change is one published change: its topic and payload.
type Change struct {
	Topic   string
	Payload []byte
}

// Sub is a subscription: its func gets the changes of its topics, a
// poll's together in feed order. Done closes when the feed drains.
type Sub struct {
	topics []string
	fn     func([]Change)
	Done   <-chan struct{}
}

// Notify is a subscription's func that only signals c (never blocking):
// the subscriber re-reads its source when it fires.
func Notify(c chan struct{}) func([]Change) {
	return func([]Change) { Signal(c) }
}

// Signal wakes c without blocking: one pending signal stands for many.
func Signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Options adjust a Feed.
type Options struct {
	// Manual starts no poller: the caller (a test) calls Poll.
	Manual bool
}

// Feed is an instance's side of the change feed.
type Feed struct {
	table  *storage.Table
	logger *slog.Logger
	now    func() time.Time
	manual bool
	// origin names this instance in the rows it writes; written counts them.
	origin  string
	written atomic.Uint64

	mu      sync.Mutex
	subs    map[string]map[*Sub]struct{} // by topic
	polling bool
	drained bool
	done    chan struct{}

	// seen are the rows of the last Overlap already handed on, by key,
	// with their time (the poll's own, under pollMu).
	pollMu sync.Mutex
	seen   map[string]time.Time

	// Reads counts the feed queries this instance made.
	Reads atomic.Int64
}

// New is an instance's feed on store.
func New(store *storage.Store, logger *slog.Logger, now func() time.Time, opts Options) *Feed {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	return &Feed{
		table: store.Table(Table), logger: logger, now: now, manual: opts.Manual,
		origin: strings.ToLower(rand.Text()[:10]),
		subs:   map[string]map[*Sub]struct{}{}, done: make(chan struct{}), seen: map[string]time.Time{},
	}
}

// Tables are the feed's table, for the platform to provision.
func (f *Feed) Tables() []string { return []string{Table} }

// Publish tells this instance's subscribers of topic at once, and the
// other instances through a feed row. A row not written is logged: the
// others catch up with the next change, or when their streams reconnect.
func (f *Feed) Publish(ctx context.Context, topic string, payload []byte) {
	f.deliver([]Change{{Topic: topic, Payload: payload}})
	row := Row{PartitionKey: shard, RowKey: feedKey(f.now().UTC(), f.origin, f.written.Add(1)), Topic: topic, Payload: string(payload), Origin: f.origin}
	if _, err := storage.Upsert(context.WithoutCancel(ctx), f.table, row); err != nil {
		f.logger.WarnContext(ctx, "live: feed row not written", "topic", topic, "err", err)
	}
}

// Subscribe hands fn the changes of topics from now on, on the poller's
// goroutine or the publisher's: fn must not block. The first subscriber
// on the instance starts the poller.
func (f *Feed) Subscribe(fn func([]Change), topics ...string) *Sub {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &Sub{topics: topics, fn: fn, Done: f.done}
	for _, t := range topics {
		if f.subs[t] == nil {
			f.subs[t] = map[*Sub]struct{}{}
		}
		f.subs[t][s] = struct{}{}
	}
	if !f.polling && !f.drained && !f.manual {
		f.polling = true
		go f.pollEvery()
	}
	return s
}

// Unsubscribe ends s; the poller stops at its next tick when nobody here
// subscribes any more.
func (f *Feed) Unsubscribe(s *Sub) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range s.topics {
		delete(f.subs[t], s)
		if len(f.subs[t]) == 0 {
			delete(f.subs, t)
		}
	}
}

// Drain ends every subscription (server shutdown): their Done channels
// close, and the poller stops.
func (f *Feed) Drain() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.drained {
		f.drained = true
		close(f.done)
	}
}

// Done closes when the feed drains.
func (f *Feed) Done() <-chan struct{} { return f.done }

// Polling reports whether the poller runs (or, Manual, would).
func (f *Feed) Polling() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watched() && !f.drained
}

// watched says someone here subscribes (f.mu held).
func (f *Feed) watched() bool { return len(f.subs) > 0 }

// deliver hands changes to their topics' subscribers here, each
// subscriber's in one call.
func (f *Feed) deliver(changes []Change) {
	if len(changes) == 0 {
		return
	}
	f.mu.Lock()
	var order []*Sub
	batches := map[*Sub][]Change{}
	for _, c := range changes {
		for s := range f.subs[c.Topic] {
			if _, ok := batches[s]; !ok {
				order = append(order, s)
			}
			batches[s] = append(batches[s], c)
		}
	}
	f.mu.Unlock()
	for _, s := range order {
		s.fn(batches[s])
	}
}

// pollEvery is the poller: a Poll each PollEvery while anyone here
// subscribes.
func (f *Feed) pollEvery() {
	t := time.NewTicker(PollEvery)
	defer t.Stop()
	for {
		select {
		case <-f.done:
			return
		case <-t.C:
		}
		if f.Poll(context.Background()) {
			continue
		}
		f.mu.Lock()
		if !f.watched() {
			f.polling = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
}

// Poll is one step of the poller: when anyone here subscribes, it reads
// the feed's last Overlap (one query) and hands the rows other instances
// wrote, each once, to their topics' subscribers here. It reports whether
// anyone subscribes (no read when nobody does).
func (f *Feed) Poll(ctx context.Context) bool {
	f.mu.Lock()
	watched := f.watched() && !f.drained
	f.mu.Unlock()
	if !watched {
		return false
	}
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	f.Reads.Add(1)
	from := f.now().Add(-Overlap)
	rows, err := storage.All[Row](ctx, f.table, storage.Query{PartitionKey: shard, RowKeyFrom: timeKey(from), Limit: pageSize})
	if err != nil {
		f.logger.Warn("live: feed not read", "err", err)
		return true
	}
	for key, at := range f.seen {
		if at.Before(from) {
			delete(f.seen, key)
		}
	}
	var news []Change
	for _, r := range rows {
		if _, ok := f.seen[r.RowKey]; ok || r.Origin == f.origin {
			continue
		}
		f.seen[r.RowKey] = keyTime(r.RowKey)
		news = append(news, Change{Topic: r.Topic, Payload: []byte(r.Payload)})
	}
	f.deliver(news)
	return true
}

// keyTime is the time a feed key begins with.
func keyTime(key string) time.Time {
	ns, err := strconv.ParseInt(key[:min(len(key), 20)], 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// Sweep deletes the rows older than Keep.
func (f *Feed) Sweep(ctx context.Context) error {
	rows, err := storage.All[Row](ctx, f.table, storage.Query{PartitionKey: shard, RowKeyTo: timeKey(f.now().Add(-Keep)), Limit: pageSize, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range rows {
		if err := storage.Forget(ctx, f.table, shard, r.RowKey); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("live: %d feed rows not deleted: %w", len(errs), errors.Join(errs...))
	}
	return nil
}

// SweepJob is Sweep, once a minute on one instance.
func (f *Feed) SweepJob() jobs.Job {
	return jobs.Job{Name: "live-feed-sweep", Every: time.Minute, Run: f.Sweep}
}

// Forget deletes the rows whose topic or payload holds text (a member's
// key, when their account goes: a chat entry they sent, their inbox's
// topic): the feed keeps Keep's changes, read whole.
func (f *Feed) Forget(ctx context.Context, text string) error {
	return f.table.QueryAll(ctx, storage.Query{PartitionKey: shard, Select: []string{"RowKey", "topic", "payload"}}, func(e storage.Entity) error {
		topic, _ := e.Props["topic"].(string)
		if p, _ := e.Props["payload"].(string); !strings.Contains(p, text) && !strings.Contains(topic, text) {
			return nil
		}
		return storage.Forget(ctx, f.table, e.PartitionKey, e.RowKey)
	})
}

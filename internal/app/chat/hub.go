package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Live delivery. Every instance keeps, for each chat someone here is
// watching, the set of its local subscribers (open SSE streams) and a
// tail: the chat's newest messages, read once for all of them.
//
// A send wakes the sender's instance's subscribers at once, and appends
// a row to the activity feed: one partition (feedShard) of ChatFeed,
// keyed by time, naming the chat and its new head. While anyone here
// watches any chat, the instance reads the feed's last few seconds once
// per pollEvery (one query, whatever the number of chats or
// subscribers) and wakes the watchers of every chat whose head moved.
// Rows are only hints: the chat's log is the source of truth, each
// subscriber keeps the last sequence number it sent, and reads what
// follows; so an overlap, a duplicate or a late feed row costs nothing
// but a wake-up. A feed row lost by a crash between the send and the
// feed write is caught by the next send to that chat, or by the
// watchers' own check every recheckEvery.
//
// The feed's ceiling is one partition's rate, about 2,000 entities a
// second across the app (sends plus reads); docs/ARCHITECTURE.md says
// how to raise it.

// Feed settings.
const (
	feedShard    = "f0"
	pollEvery    = time.Second
	feedOverlap  = 5 * time.Second // rows written late still get read
	feedKeep     = 2 * time.Minute // the sweeper deletes older rows
	tailSize     = 200             // newest messages kept per watched chat
	recheckEvery = 30 * time.Second
)

// Hub is an instance's live delivery.
type Hub struct {
	log    *Log
	feed   *storage.Table
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	chats   map[string]*watched
	polling bool
	drained bool
	drain   chan struct{}

	// FeedReads counts the feed queries this instance made.
	FeedReads atomic.Int64
}

// watched is one chat with subscribers here.
type watched struct {
	subs map[*Sub]struct{}
	// known is the newest head the hub heard of; tail the newest
	// messages read, upTo the head they reach.
	mu    sync.Mutex
	known int64
	tail  []MessageRow
	upTo  int64
}

// Sub is one subscriber: Wake is signalled (never blocking) when the
// chat may have news; Done closes when the hub drains (shutdown).
type Sub struct {
	chatID string
	Wake   chan struct{}
	Done   <-chan struct{}
}

func newHub(l *Log, feed *storage.Table, logger *slog.Logger, now func() time.Time) *Hub {
	return &Hub{log: l, feed: feed, logger: logger, now: now, chats: map[string]*watched{}, drain: make(chan struct{})}
}

// Subscribe watches chatID; the first subscriber on the instance starts
// the feed poller.
func (h *Hub) Subscribe(chatID string) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &Sub{chatID: chatID, Wake: make(chan struct{}, 1), Done: h.drain}
	w := h.chats[chatID]
	if w == nil {
		w = &watched{subs: map[*Sub]struct{}{}}
		h.chats[chatID] = w
	}
	w.subs[s] = struct{}{}
	if !h.polling && !h.drained {
		h.polling = true
		go h.poll()
	}
	return s
}

// Unsubscribe stops watching; the poller stops when nobody watches.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if w := h.chats[s.chatID]; w != nil {
		delete(w.subs, s)
		if len(w.subs) == 0 {
			delete(h.chats, s.chatID)
		}
	}
}

// Drain ends every stream (server shutdown): their Done channels close.
func (h *Hub) Drain() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.drained {
		h.drained = true
		close(h.drain)
	}
}

// wake signals chatID's subscribers here that its head is at least seq.
func (h *Hub) wake(chatID string, seq int64) {
	h.mu.Lock()
	w := h.chats[chatID]
	var subs []*Sub
	if w != nil {
		for s := range w.subs {
			subs = append(subs, s)
		}
	}
	h.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	if seq > w.known {
		w.known = seq
	}
	w.mu.Unlock()
	for _, s := range subs {
		select {
		case s.Wake <- struct{}{}:
		default:
		}
	}
}

// Sent tells the hub a message was sent here: local subscribers wake at
// once, and the feed carries it to other instances. A lost feed row is
// logged: the next send, or the watchers' recheck, catches up.
func (h *Hub) Sent(ctx context.Context, m MessageRow) {
	h.wake(m.PartitionKey, m.Seq)
	now := h.now().UTC()
	row := FeedRow{PartitionKey: feedShard, RowKey: feedKey(now, m.PartitionKey), ChatID: m.PartitionKey, Seq: m.Seq}
	if _, err := storage.Upsert(context.WithoutCancel(ctx), h.feed, row); err != nil {
		h.logger.WarnContext(ctx, "chat: feed row not written", "chat", m.PartitionKey, "err", err)
	}
}

// feedKey orders feed rows by time.
func feedKey(t time.Time, chatID string) string {
	return fmt.Sprintf("%020d|%s", t.UnixNano(), chatID)
}

// poll reads the feed once per pollEvery while anyone here watches.
func (h *Hub) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-h.drain:
			return
		case <-t.C:
		}
		h.mu.Lock()
		if len(h.chats) == 0 {
			h.polling = false
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		h.readFeed(context.Background())
	}
}

// readFeed reads the last feedOverlap of the feed and wakes the chats
// whose head moved past what the hub knew.
func (h *Hub) readFeed(ctx context.Context) {
	h.FeedReads.Add(1)
	from := h.now().Add(-feedOverlap)
	rows, err := storage.All[FeedRow](ctx, h.feed, storage.Query{PartitionKey: feedShard, RowKeyFrom: fmt.Sprintf("%020d", from.UnixNano()), Limit: 1000})
	if err != nil {
		h.logger.Warn("chat: feed not read", "err", err)
		return
	}
	for _, r := range rows {
		h.mu.Lock()
		w := h.chats[r.ChatID]
		h.mu.Unlock()
		if w == nil {
			continue
		}
		w.mu.Lock()
		news := r.Seq > w.known
		w.mu.Unlock()
		if news {
			h.wake(r.ChatID, r.Seq)
		}
	}
}

// Since returns chatID's messages after seq, in order (at most
// tailSize; reset is true when more were missed than that, or seq is
// past the head: the client starts over). Subscribers of one chat share
// one read of its log per new head.
func (h *Hub) Since(ctx context.Context, chatID string, seq int64) (msgs []MessageRow, reset bool, err error) {
	h.mu.Lock()
	w := h.chats[chatID]
	h.mu.Unlock()
	if w == nil {
		w = &watched{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.known <= w.upTo && w.upTo > 0 && seq >= w.upTo-int64(len(w.tail)) {
		return after(w.tail, seq, h.now()), seq > w.upTo, nil
	}
	head, err := h.log.Head(ctx, chatID)
	if err != nil {
		return nil, false, err
	}
	if seq > head.Seq {
		return nil, true, nil
	}
	if head.Seq-seq > tailSize {
		return nil, true, nil
	}
	from := min(seq+1, head.Seq-tailSize+1)
	rows, err := h.log.Range(ctx, chatID, from, head.Seq)
	if err != nil {
		return nil, false, err
	}
	w.tail, w.upTo = rows, head.Seq
	if head.Seq > w.known {
		w.known = head.Seq
	}
	return after(rows, seq, h.now()), false, nil
}

// after are the live rows with sequence numbers above seq.
func after(rows []MessageRow, seq int64, now time.Time) []MessageRow {
	var out []MessageRow
	for _, m := range rows {
		if m.Seq > seq && Live(m, now) {
			out = append(out, m)
		}
	}
	return out
}

// sweepFeed deletes feed rows older than feedKeep (a job).
func (h *Hub) sweepFeed(ctx context.Context) error {
	cut := fmt.Sprintf("%020d", h.now().Add(-feedKeep).UnixNano())
	rows, err := storage.All[FeedRow](ctx, h.feed, storage.Query{PartitionKey: feedShard, RowKeyTo: cut, Limit: 1000, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	var errs []string
	for _, r := range rows {
		if err := h.feed.Delete(ctx, feedShard, r.RowKey, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("chat: %d feed rows not deleted: %s", len(errs), errs[0])
	}
	return nil
}

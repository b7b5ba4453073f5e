package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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
// follows; so an overlap or a duplicate costs nothing, and a late or
// lost feed row leaves a gap that sends the next read to the log. A feed
// row lost by a crash between the send and the feed write is caught by
// the next send to that chat, or when the stream reconnects.
//
// The feed's ceiling is one partition's rate, about 2,000 entities a
// second across the app (sends plus reads); docs/ARCHITECTURE.md says
// how to raise it.

// Feed settings.
const (
	feedShard   = "f0"
	pollEvery   = time.Second
	feedOverlap = 5 * time.Second // rows written late still get read
	feedKeep    = 2 * time.Minute // the sweeper deletes older rows
	tailSize    = 200             // newest messages kept per watched chat
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

	// gens numbers the read markers heard of, across chats.
	gens atomic.Uint64
	// readMark is the newest read row readFeed handed on (poller only).
	readMark string

	// FeedReads counts the feed queries this instance made.
	FeedReads atomic.Int64
}

// watched is one chat with subscribers here, and the tail of its log
// the hub holds for them: the entries after floor up to upTo (expired
// ones left out), read from the log once and then extended by the sends
// the hub hears of, here or through the feed, while they follow on
// without a gap. A gap (a feed row lost or late) makes it stale: the
// next read goes to the log.
type watched struct {
	subs map[*Sub]struct{}

	mu    sync.Mutex
	read  bool
	stale bool
	floor int64
	upTo  int64
	tail  []MessageRow
	// told is the newest sequence number its watchers were woken for
	// while no tail is read (the chat list's stream watches chats without
	// reading them): the feed's overlap shows a send on every poll for
	// feedOverlap, and each would wake them again.
	told int64
	// gen counts the read markers heard of: "seen by" worked out at an
	// older gen is out of date (seen.go).
	gen uint64
}

// add extends the tail with m when it follows on; a gap marks it stale,
// and so does a change (an edit, a deletion): the tail holds messages as
// they were sent, and a reader resuming from before the change must get
// the message as it is now, so the next read goes to the log. It reports
// whether m was news.
func (w *watched) add(m MessageRow) bool {
	switch {
	case !w.read:
		return w.tell(m.Seq)
	case m.Seq <= w.upTo:
		return false
	case control(m):
		w.stale = true
	case m.Seq == w.upTo+1 && !w.stale:
		w.tail = append(w.tail, m)
		if len(w.tail) > tailSize {
			w.tail = w.tail[len(w.tail)-tailSize:]
			w.floor = w.tail[0].Seq - 1
		}
		w.upTo = m.Seq
	default:
		w.stale = true
	}
	return true
}

// tell reports whether seq is news to watchers who read no tail, and
// remembers it.
func (w *watched) tell(seq int64) bool {
	if seq <= w.told {
		return false
	}
	w.told = seq
	return true
}

// Sub is one subscriber: Wake is signalled (never blocking) when the
// chat may have news, Read when someone's read marker in it moved; Done
// closes when the hub drains (shutdown).
type Sub struct {
	chats []string
	Wake  chan struct{}
	Read  chan struct{}
	Done  <-chan struct{}
}

func newHub(l *Log, feed *storage.Table, logger *slog.Logger, now func() time.Time) *Hub {
	return &Hub{log: l, feed: feed, logger: logger, now: now, chats: map[string]*watched{}, drain: make(chan struct{})}
}

// Subscribe watches chatIDs (a stream one chat, the chat list all the
// reader's); the first subscriber on the instance starts the feed poller.
func (h *Hub) Subscribe(chatIDs ...string) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &Sub{chats: chatIDs, Wake: make(chan struct{}, 1), Read: make(chan struct{}, 1), Done: h.drain}
	for _, chatID := range chatIDs {
		w := h.chats[chatID]
		if w == nil {
			w = &watched{subs: map[*Sub]struct{}{}, gen: h.gens.Add(1)}
			h.chats[chatID] = w
		}
		w.subs[s] = struct{}{}
	}
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
	for _, chatID := range s.chats {
		if w := h.chats[chatID]; w != nil {
			delete(w.subs, s)
			if len(w.subs) == 0 {
				delete(h.chats, chatID)
			}
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

// heard gives the chat's watchers here m (nil: only that the head
// reached seq), and wakes them when it was news.
func (h *Hub) heard(chatID string, seq int64, m *MessageRow) {
	w, subs := h.watchers(chatID)
	if w == nil {
		return
	}
	w.mu.Lock()
	news := false
	switch {
	case m != nil:
		news = w.add(*m)
	case !w.read:
		news = w.tell(seq)
	case seq > w.upTo:
		w.stale, news = true, true
	}
	w.mu.Unlock()
	if !news {
		return
	}
	for _, s := range subs {
		signal(s.Wake)
	}
}

// watchers are chatID's watched state here and its subscribers (nil when
// nobody here watches it).
func (h *Hub) watchers(chatID string) (*watched, []*Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.chats[chatID]
	if w == nil {
		return nil, nil
	}
	subs := make([]*Sub, 0, len(w.subs))
	for s := range w.subs {
		subs = append(subs, s)
	}
	return w, subs
}

// signal wakes a subscriber's channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Sent tells the hub an entry was added here: local watchers get it at
// once, and the feed carries it, whole, to other instances, whose
// watchers then need no read of the log. A lost feed row is logged: the
// other instances notice the gap at the next entry and read the log.
func (h *Hub) Sent(ctx context.Context, m MessageRow) {
	h.heard(m.PartitionKey, m.Seq, &m)
	entry, err := json.Marshal(m)
	if err != nil {
		h.logger.WarnContext(ctx, "chat: feed entry not encoded", "err", err)
	}
	now := h.now().UTC()
	row := FeedRow{PartitionKey: feedShard, RowKey: feedKey(now, m.PartitionKey), ChatID: m.PartitionKey, Seq: m.Seq, Entry: string(entry)}
	if _, err := storage.Upsert(context.WithoutCancel(ctx), h.feed, row); err != nil {
		h.logger.WarnContext(ctx, "chat: feed row not written", "chat", m.PartitionKey, "err", err)
	}
}

// Read tells the hub someone's read marker in chatID moved: watchers
// here and, through a feed row without an entry, on other instances
// update "seen by".
func (h *Hub) Read(ctx context.Context, chatID string) {
	h.readHeard(chatID)
	row := FeedRow{PartitionKey: feedShard, RowKey: feedKey(h.now().UTC(), chatID) + "|read", ChatID: chatID, Read: true}
	if _, err := storage.Upsert(context.WithoutCancel(ctx), h.feed, row); err != nil {
		h.logger.WarnContext(ctx, "chat: feed row not written", "chat", chatID, "err", err)
	}
}

// readHeard moves chatID's gen on and signals its watchers' Read.
func (h *Hub) readHeard(chatID string) {
	w, subs := h.watchers(chatID)
	if w == nil {
		return
	}
	w.mu.Lock()
	w.gen = h.gens.Add(1)
	w.mu.Unlock()
	for _, s := range subs {
		signal(s.Read)
	}
}

// Gen changes whenever the hub hears of a read marker moving in chatID,
// and when it starts watching it (0 when it does not).
func (h *Hub) Gen(chatID string) uint64 {
	h.mu.Lock()
	w := h.chats[chatID]
	h.mu.Unlock()
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen
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

// readFeed reads the last feedOverlap of the feed and hands each entry
// to its chat's watchers here.
func (h *Hub) readFeed(ctx context.Context) {
	h.FeedReads.Add(1)
	from := h.now().Add(-feedOverlap)
	rows, err := storage.All[FeedRow](ctx, h.feed, storage.Query{PartitionKey: feedShard, RowKeyFrom: fmt.Sprintf("%020d", from.UnixNano()), Limit: 1000})
	if err != nil {
		h.logger.Warn("chat: feed not read", "err", err)
		return
	}
	slices.SortFunc(rows, func(a, b FeedRow) int { return cmp.Compare(a.Seq, b.Seq) })
	mark := h.readMark
	for _, r := range rows {
		h.mu.Lock()
		_, watching := h.chats[r.ChatID]
		h.mu.Unlock()
		if r.Read {
			// Each read row once: the overlap would show it five times.
			if watching && r.RowKey > h.readMark {
				h.readHeard(r.ChatID)
			}
			mark = max(mark, r.RowKey)
			continue
		}
		if !watching {
			continue
		}
		var m MessageRow
		if r.Entry != "" && json.Unmarshal([]byte(r.Entry), &m) == nil && m.Seq == r.Seq {
			h.heard(r.ChatID, r.Seq, &m)
		} else {
			h.heard(r.ChatID, r.Seq, nil)
		}
	}
	h.readMark = mark
}

// Since returns chatID's entries after seq, in order (reset is true
// when more were missed than the hub keeps, tailSize, or seq is past the
// log: the client starts over). Watchers of one chat share the hub's
// tail: no read while it covers what they need.
func (h *Hub) Since(ctx context.Context, chatID string, seq int64) (msgs []MessageRow, reset bool, err error) {
	h.mu.Lock()
	w := h.chats[chatID]
	h.mu.Unlock()
	if w == nil {
		w = &watched{}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.read && !w.stale && seq >= w.floor && seq <= w.upTo {
		return after(w.tail, seq, h.now()), false, nil
	}
	head, err := h.log.Head(ctx, chatID)
	if err != nil {
		return nil, false, err
	}
	if seq > head.Seq || head.Seq-seq > tailSize {
		return nil, true, nil
	}
	from := max(min(seq+1, head.Seq-tailSize+1), 1)
	rows, err := h.log.Range(ctx, chatID, from, head.Seq)
	if err != nil {
		return nil, false, err
	}
	w.read, w.stale, w.floor, w.upTo, w.tail = true, false, from-1, head.Seq, rows
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

package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harmony/harmony/internal/live"
)

// Live delivery. Every instance keeps, for each chat someone here is
// watching, the set of its local subscribers (open SSE streams) and a
// tail: the chat's newest messages, read once for all of them.
//
// The app's change feed (internal/live) carries the news: a send
// publishes the chat's topic (feedTopic) with the entry itself, which
// wakes the sender's instance's watchers at once and reaches the other
// instances' at their next poll of the feed, whose watchers then need no
// read of the log; a read marker moving publishes it without an entry.
// Rows are only hints: the chat's log is the source of truth, each
// subscriber keeps the last sequence number it sent, and reads what
// follows; so a duplicate costs nothing, and a late or lost note leaves a
// gap that sends the next read to the log. A note lost by a crash between
// the send and the feed write is caught by the next send to that chat, or
// when the stream reconnects.

// tailSize is how many of a watched chat's newest messages the hub keeps.
const tailSize = 200

// feedTopic is a chat's topic in the change feed.
func feedTopic(chatID string) string { return "chat|" + chatID }

// note is what the feed carries for a chat: the entry sent (nil when it
// could not be encoded: only that the head reached Seq), or that a read
// marker moved.
type note struct {
	Seq   int64       `json:"seq,omitempty"`
	Entry *MessageRow `json:"entry,omitempty"`
	Read  bool        `json:"read,omitempty"`
	// Typing is someone writing a message (typing.go).
	Typing *Person `json:"typing,omitempty"`
}

// Hub is an instance's live delivery.
type Hub struct {
	log    *Log
	live   *live.Feed
	logger *slog.Logger
	now    func() time.Time

	mu    sync.Mutex
	chats map[string]*watched

	// gens numbers the read markers heard of, across chats.
	gens atomic.Uint64
}

// watched is one chat with subscribers here, and the tail of its log
// the hub holds for them: the entries after floor up to upTo (expired
// ones left out), read from the log once and then extended by the sends
// the hub hears of, here or through the feed, while they follow on
// without a gap. A gap (a feed row lost or late) makes it stale: the
// next read goes to the log.
type watched struct {
	subs map[*Sub]struct{}
	// feed is the hub's subscription to the chat's topic.
	feed *live.Sub

	mu    sync.Mutex
	read  bool
	stale bool
	floor int64
	upTo  int64
	tail  []MessageRow
	// told is the newest sequence number its watchers were woken for
	// while no tail is read (the chat list's stream watches chats without
	// reading them), so a note heard twice does not wake them again.
	told int64
	// gen counts the read markers heard of: "seen by" worked out at an
	// older gen is out of date (seen.go).
	gen uint64
	// typers are who wrote in the chat's box lately, and when it was
	// heard here (typing.go).
	typers map[string]typed
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
	chats  []string
	Wake   chan struct{}
	Read   chan struct{}
	Typing chan struct{}
	Done   <-chan struct{}
}

func newHub(l *Log, feed *live.Feed, logger *slog.Logger, now func() time.Time) *Hub {
	return &Hub{log: l, live: feed, logger: logger, now: now, chats: map[string]*watched{}}
}

// Subscribe watches chatIDs (a stream one chat, the chat list all the
// reader's); the first watcher of a chat here subscribes the hub to its
// topic in the feed.
func (h *Hub) Subscribe(chatIDs ...string) *Sub {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := &Sub{chats: chatIDs, Wake: make(chan struct{}, 1), Read: make(chan struct{}, 1), Typing: make(chan struct{}, 1), Done: h.live.Done()}
	for _, chatID := range chatIDs {
		w := h.chats[chatID]
		if w == nil {
			w = &watched{subs: map[*Sub]struct{}{}, gen: h.gens.Add(1)}
			w.feed = h.live.Subscribe(func(cs []live.Change) { h.fromFeed(chatID, cs) }, feedTopic(chatID))
			h.chats[chatID] = w
		}
		w.subs[s] = struct{}{}
	}
	return s
}

// Unsubscribe stops watching; a chat nobody here watches any more leaves
// the feed.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, chatID := range s.chats {
		if w := h.chats[chatID]; w != nil {
			delete(w.subs, s)
			if len(w.subs) == 0 {
				h.live.Unsubscribe(w.feed)
				delete(h.chats, chatID)
			}
		}
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
	news, wrote := false, false
	switch {
	case m != nil:
		news = w.add(*m)
		wrote = w.wrote(*m)
	case !w.read:
		news = w.tell(seq)
	case seq > w.upTo:
		w.stale, news = true, true
	}
	w.mu.Unlock()
	for _, s := range subs {
		if news {
			live.Signal(s.Wake)
		}
		if wrote {
			live.Signal(s.Typing)
		}
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

// Sent tells the hub an entry was added here: the feed hands it to the
// watchers here at once and carries it, whole, to other instances, whose
// watchers then need no read of the log.
func (h *Hub) Sent(ctx context.Context, m MessageRow) {
	n := note{Seq: m.Seq, Entry: &m}
	payload, err := json.Marshal(n)
	if err != nil {
		h.logger.WarnContext(ctx, "chat: feed entry not encoded", "err", err)
		payload, _ = json.Marshal(note{Seq: m.Seq})
	}
	h.live.Publish(ctx, feedTopic(m.PartitionKey), payload)
}

// Read tells the hub someone's read marker in chatID moved: watchers
// here and, through the feed, on other instances update "seen by".
func (h *Hub) Read(ctx context.Context, chatID string) {
	payload, _ := json.Marshal(note{Read: true})
	h.live.Publish(ctx, feedTopic(chatID), payload)
}

// readsID is the hub's name for memberKey's own read markers, watched
// like a chat (no chat has such an id: kindOf knows none): the chat
// lists they have open, here and on other instances, hear of every
// marker of theirs that moves (ReadBy).
func readsID(memberKey string) string { return "reads-" + memberKey }

// ReadBy tells memberKey's open chat lists, on every device, that one of
// their read markers moved, so each fetches itself again (what they
// read on their phone is read on their laptop too, as in Zulip).
func (h *Hub) ReadBy(ctx context.Context, memberKey string) { h.Read(ctx, readsID(memberKey)) }

// fromFeed hands chatID's notes to its watchers here, entries in
// sequence order.
func (h *Hub) fromFeed(chatID string, cs []live.Change) {
	notes := make([]note, 0, len(cs))
	for _, c := range cs {
		var n note
		if json.Unmarshal(c.Payload, &n) != nil {
			h.logger.Warn("chat: feed note not read", "chat", chatID)
			continue
		}
		notes = append(notes, n)
	}
	slices.SortStableFunc(notes, func(a, b note) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, n := range notes {
		switch {
		case n.Typing != nil:
			h.typingHeard(chatID, *n.Typing)
		case n.Read:
			h.readHeard(chatID)
		case n.Entry != nil && n.Entry.Seq == n.Seq:
			h.heard(chatID, n.Seq, n.Entry)
		default:
			h.heard(chatID, n.Seq, nil)
		}
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
		live.Signal(s.Read)
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

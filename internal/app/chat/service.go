package chat

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/lru"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Service is the chat module.
type Service struct {
	// savedReminders queues the reminders of saved messages
	// (saved_reminders.go); nil sends none.
	savedReminders *tasks.Kind[savedReminder]
	chats          *storage.Table
	userChats      *storage.Table
	log            *Log
	hub            *Hub
	sends          quota.Limit
	// newPrivate bounds the private chats a person starts a day.
	newPrivate quota.Limit
	rooms      []string
	// scan is how many messages a search reads, and searches paces
	// each client's (search.go).
	scan     int
	searches *ratelimit.PerIP
	groups   Groups
	events   Events
	people   People
	sessions Sessions
	presence *storage.Table
	notifier Notifier
	moderation.Reporting
	blocks *storage.Table
	images pictures.Store
	// uploads paces the pictures one client has decoded (web.UploadPace).
	uploads *web.UploadPace
	// markers are the read markers this instance last wrote (markRead);
	// readLimits each person's marker rate limiter.
	markers    *lru.Cache[string, knownMarker]
	readLimits *lru.Cache[string, *rate.Limiter]
	// participants are the participant rows this instance recorded.
	participants *lru.Cache[string, bool]
	// seenLines is each chat's last "seen by" here (seenCache).
	seenLines *lru.Cache[string, seenCache]
	// streams counts each person's open streams here (live.Bound).
	streams *ratelimit.Concurrent
	// typingPace lets one typing note a person and chat through each
	// TypingEvery here (typing.go; keyed "{memberKey}|{chatId}").
	typingPace *ratelimit.PerIP
	pres       presence
	beat       time.Duration
	base       string
	// counts counts the messages people send.
	counts metrics.Counting
	logger *slog.Logger
	now    func() time.Time
}

// Options configure the module.
type Options struct {
	// TTL expires messages (MESSAGES_TTL); zero keeps them.
	TTL time.Duration
	// Rooms are the fixed rooms seeded on first start (their slugs).
	Rooms []string
	// SendsPer10s bounds one person's messages per chat per 10 seconds.
	SendsPer10s int
	// BaseURL makes invite links absolute ("" leaves them relative).
	BaseURL string
	// Heartbeat is the streams' heartbeat period (zero: 25 s), when they
	// also send a private chat's presence; tests shorten it.
	Heartbeat time.Duration
	// SearchScan is how many messages a search reads (zero: searchScan);
	// tests lower it.
	SearchScan int
	// Live is the app's change feed (platform.Core.Live); nil: one of
	// the chat's own on store, whose table the caller provisions
	// (live.Table).
	Live *live.Feed
}

// remembered bounds each of what an instance remembers of people and
// chats (read markers, rate limiters, participants, "seen by" lines):
// the least recently used go first, and cost a read or a write again.
const remembered = 100_000

// Marker writes a person may make: markReadsPerMinute on average, in
// bursts of markReadBurst (per instance).
const (
	markReadsPerMinute = 30
	markReadBurst      = 10
)

// QuotaTable counts each person's recent messages per chat, and the
// private chats they started today.
const QuotaTable = "ChatQuota"

// ErrTooFast refuses a message past the sender's limit (429).
var ErrTooFast = fault.New(http.StatusTooManyRequests, "chat.error.too_fast", "chat: too many messages")

// MaxStreams is how many streams (a chat's, the list's) one person may
// hold open on an instance: a tab each, generously. Each costs a
// goroutine, and the list's reads presence at every heartbeat, so one
// account cannot open thousands.
const MaxStreams = 20

// ErrTooManyStreams refuses a stream past MaxStreams (429).
var ErrTooManyStreams = fault.New(http.StatusTooManyRequests, "chat.error.streams", "chat: too many open streams")

// DefaultRooms are seeded when Options.Rooms is empty.
var DefaultRooms = []string{"general", "random"}

// New builds the module on store.
func New(store *storage.Store, logger *slog.Logger, now func() time.Time, opts Options) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if len(opts.Rooms) == 0 {
		opts.Rooms = DefaultRooms
	}
	if opts.SendsPer10s <= 0 {
		opts.SendsPer10s = 10
	}
	if opts.SearchScan <= 0 {
		opts.SearchScan = searchScan
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = heartbeatEvery
	}
	if opts.Live == nil {
		opts.Live = live.New(store, logger, now, live.Options{})
	}
	l := &Log{table: store.Table(MessagesTable), ttl: opts.TTL, now: now, marks: memberdata.NewFootprints(store, "chat", now)}
	return &Service{
		chats: store.Table(ChatsTable), userChats: store.Table(UserChatsTable), log: l, presence: store.Table(PresenceTable), blocks: store.Table(BlocksTable), images: pictures.Store{Container: store.Container(ImagesContainer), Large: largeChatImage, Small: smallChatImage, Log: logger},
		hub:        newHub(l, opts.Live, logger, now),
		sends:      quota.Limit{Table: store.Table(QuotaTable), Max: opts.SendsPer10s, Window: 10 * time.Second, Err: ErrTooFast},
		newPrivate: quota.Limit{Table: store.Table(QuotaTable), Max: newPrivatePerDay, Window: 24 * time.Hour, Err: ErrTooManyNew},
		rooms:      opts.Rooms, base: strings.TrimSuffix(opts.BaseURL, "/"), beat: opts.Heartbeat, scan: opts.SearchScan, searches: ratelimit.New(searchBurst, searchEvery), logger: logger, now: now,
		streams: ratelimit.NewConcurrent(MaxStreams), typingPace: ratelimit.New(1, TypingEvery), uploads: web.NewUploadPace(now),
		markers: lru.New[string, knownMarker](remembered), readLimits: lru.New[string, *rate.Limiter](remembered),
		participants: lru.New[string, bool](remembered), seenLines: lru.New[string, seenCache](remembered),
	}
}

// Containers are the blob containers the module needs.
func (s *Service) Containers() []string { return []string{ImagesContainer} }

// BodyLimits let the message form carry a picture.
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{"/chat/:id/messages": imageBodyLimit}
}

// Slug names the module's section.
func (s *Service) Slug() string { return "chat" }

// MessagesSent is the daily counter of messages people send.
const MessagesSent metrics.Counter = "messagesSent"

// CountWith registers MessagesSent with d and counts from now on
// (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) { s.counts = d.Counting(s.logger, "chat", MessagesSent) }

// Tables are the tables the module needs.
func (s *Service) Tables() []string {
	return []string{ChatsTable, MessagesTable, UserChatsTable, QuotaTable, PresenceTable, BlocksTable, memberdata.FootprintsTable}
}

// Jobs are the module's background work: expired messages' sweeper, and
// the reading of the chats of before for members' footprints (once).
func (s *Service) Jobs() []jobs.Job {
	return []jobs.Job{
		s.log.marks.Job("chat-footprints", s.footprintsOf, s.logger),
		{Name: "chat-ttl-sweep", Every: 10 * time.Minute, Run: func(ctx context.Context) error {
			n, err := s.SweepExpired(ctx)
			if n > 0 {
				s.logger.InfoContext(ctx, "chat: expired messages deleted", "count", n)
			}
			return err
		}},
	}
}

// Drain ends the open streams (server shutdown): it drains the feed they
// follow.
func (s *Service) Drain() { s.hub.live.Drain() }

// Hub is the instance's live delivery (for tests and benchmarks).
func (s *Service) Hub() *Hub { return s.hub }

// Live is the change feed the chat publishes to (for tests and
// benchmarks).
func (s *Service) Live() *live.Feed { return s.hub.live }

// Send posts body to ch as from (whom the caller authorized), titled
// title for notices: at most
// SendsPer10s a person per chat (ErrTooFast), then one transaction at the
// chat's head, then live delivery. The sender has read it; the other
// person of a private chat finds it in their list.
func (s *Service) Send(ctx context.Context, ch ChatRow, from Person, body string) (MessageRow, error) {
	return s.post(ctx, ch, ch.Name, from, body, nil, 0)
}

// post sends a text, or with image a picture with body as its caption,
// in reply to message replyTo when it is not 0 (replies.go: the caller
// checked it, replyTarget): the picture is decoded after the send quota
// is taken (see below).
func (s *Service) post(ctx context.Context, ch ChatRow, title string, from Person, body string, image []byte, replyTo int64) (MessageRow, error) {
	typ, rule := TypeText, bodyRule
	if image != nil {
		typ, rule = TypeImage, captionRule
	}
	body, p := rule.Check(body)
	if p != formrule.OK {
		return MessageRow{}, ErrBadBody
	}
	// What is plainly not a picture is refused before the quota (its
	// magic bytes: nothing written); a picture is decoded only within the
	// quota, which it has taken, so sends past the limit cost no decoding.
	// A picture refused after that still counts, as a send does: giving
	// the unit back would let anyone have damaged pictures decoded
	// without end.
	if image != nil && media.Sniff(image) == media.FormatUnknown {
		return MessageRow{}, media.ErrUnsupported
	}
	if err := s.sends.Take(ctx, from.MemberKey+"|"+ch.RowKey, s.now()); err != nil {
		return MessageRow{}, err
	}
	key := ""
	if image != nil {
		img, err := s.images.Process(ctx, image)
		if err != nil {
			return MessageRow{}, err
		}
		if key, err = s.images.Put(ctx, ch.RowKey, img); err != nil {
			return MessageRow{}, err
		}
	}
	s.joined(ctx, from, ch)
	m, err := s.log.appendEntry(ctx, ch.RowKey, from, typ, body, key, s.ttlOf(ch), replyTo)
	if err != nil {
		s.images.Delete(ctx, key) // no message shows it
		return m, err
	}
	s.hub.Sent(ctx, m)
	s.counts.Add(ctx, MessagesSent)
	s.tellMentioned(ctx, ch, title, m)
	if err := s.markRead(ctx, from.MemberKey, ch, m.Seq); err != nil {
		s.logger.WarnContext(ctx, "chat: read marker not moved", "chat", ch.RowKey, "err", err)
	}
	if ch.Kind == KindPrivate {
		for _, k := range []string{ch.MemberA, ch.MemberB} {
			if k != from.MemberKey {
				s.addToList(ctx, k, ch)
			}
		}
		s.tellOffline(ctx, ch, m)
		s.markWrote(ctx, &ch, from.MemberKey)
	}
	return m, nil
}

// markWrote records, once, that memberKey wrote in private chat ch (the
// row and ch): the other person sees their presence from then on. A
// failure is logged; their next message tries again.
func (s *Service) markWrote(ctx context.Context, ch *ChatRow, memberKey string) {
	if ch.wrote(memberKey) {
		return
	}
	a := memberKey == ch.MemberA
	prop := map[bool]string{true: "wroteA", false: "wroteB"}[a]
	e := storage.Entity{PartitionKey: ch.PartitionKey, RowKey: ch.RowKey, Props: map[string]any{prop: true}}
	if _, err := s.chats.Update(ctx, e, storage.Merge, storage.AnyETag); err != nil {
		s.logger.WarnContext(ctx, "chat: who wrote not recorded", "chat", ch.RowKey, "err", err)
		return
	}
	ch.WroteA, ch.WroteB = ch.WroteA || a, ch.WroteB || !a
}

// ttlOf is how long ch keeps messages: a room's own days, else
// MESSAGES_TTL (0: forever).
func (s *Service) ttlOf(ch ChatRow) time.Duration {
	if ch.KeepDays > 0 {
		return time.Duration(ch.KeepDays) * 24 * time.Hour
	}
	return s.log.ttl
}

// addToList puts ch in memberKey's list, unread, unless it is there.
func (s *Service) addToList(ctx context.Context, memberKey string, ch ChatRow) {
	_, err := storage.Insert(ctx, s.userChats, UserChatRow{PartitionKey: memberKey, RowKey: ch.RowKey, Kind: ch.Kind, JoinedAt: s.now().UTC()})
	if err != nil && !errors.Is(err, storage.ErrExists) {
		s.logger.WarnContext(ctx, "chat: not put in the list", "chat", ch.RowKey, "err", err)
	}
}

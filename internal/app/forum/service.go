package forum

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Service is the forum: sections, topics with their posts, the activity
// index, read markers, and the pages (handlers.go).
type Service struct {
	sections *storage.Table
	posts    *storage.Table
	// marks are the topics each member wrote in (memberdata.Footprints),
	// each written before their first row there.
	marks    *memberdata.Footprints
	activity *storage.Table
	reads    *storage.Table
	quota    *storage.Table
	// index keeps TopicActivityIndex in step with the topics' heads;
	// titles keeps the title search rows (lists.go) in step with their
	// titles.
	index    *projection.Projection[TopicRow]
	titles   *projection.Projection[TopicRow]
	cursors  *storage.Cursors
	notifier Notifier
	// reminders queues bookmark reminders (reminders.go); nil sends none.
	reminders *tasks.Kind[reminderTask]
	// rescopes queues a moved topic's reports (moveReports); nil: the
	// move's own try alone.
	rescopes *tasks.Kind[rescopeTask]
	modlog   ModerationLog
	people   People
	// directory finds accounts by email (section moderators).
	directory Directory
	moderation.Reporting
	// baseURL makes the feeds' links absolute.
	baseURL string
	// counts counts new topics and replies.
	counts metrics.Counting
	// previews bounds the previews one client renders (limits.go).
	previews web.Preview
	// live carries new replies to the readers who follow a topic
	// (live.go); sessions ends a stream whose reader signed out; streams
	// bounds one person's open streams. Nil live: no stream.
	live     *live.Feed
	sessions live.Sessions
	streams  *ratelimit.Concurrent
	log      *slog.Logger
	now      func() time.Time
}

// Notifier tells people of mentions (the inbox).
type Notifier = inbox.Poster

// ModerationLog records moderators' actions (the admin module's log).
type ModerationLog interface {
	LogAction(ctx context.Context, e LogEntry) error
}

// LogEntry is one moderation action.
type LogEntry struct {
	ActorKey, ActorName, Action, TargetType, TargetKey, TargetName, Reason string
}

// People tells when an account was made (new accounts' first day is
// limited).
type People interface {
	CreatedAt(ctx context.Context, memberKey string) (time.Time, error)
}

// Directory finds an account by its email address (auth).
type Directory interface {
	MemberByEmail(ctx context.Context, email string) (string, error)
}

// UseDirectory lets admins name section moderators by email.
func (s *Service) UseDirectory(d Directory) { s.directory = d }

// Person is who writes: their memberKey and name, and whether they are
// an admin.
type Person struct {
	MemberKey string
	Name      string
	Admin     bool
}

// New builds the forum on store.
func New(store *storage.Store, cursors *storage.Cursors, log *slog.Logger, now func() time.Time) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		sections: store.Table(SectionsTable), posts: store.Table(PostsTable), activity: store.Table(ActivityTable),
		reads: store.Table(ReadsTable), quota: store.Table(QuotaTable), cursors: cursors, log: log, now: now,
		previews: web.NewPreview(bodyRule, "forum.error.body", now), streams: ratelimit.NewConcurrent(maxTopicStreams),
		marks: memberdata.NewFootprints(store, "forum", now),
	}
	// Both follow the heads into TopicActivityIndex: the activity rows,
	// and the title search rows ("q|" partitions), each with its record.
	s.index = s.headProjection("indexed", s.activityRows, false)
	s.titles = s.headProjection("titlesIndexed", s.searchRows, true)
	return s
}

// headProjection follows the topic heads into TopicActivityIndex rows:
// rows, recorded in the head's property recorded, are the search rows
// when search is true and the activity rows otherwise.
func (s *Service) headProjection(recorded string, rows func(TopicRow) ([]projection.Row, error), search bool) *projection.Projection[TopicRow] {
	return &projection.Projection[TopicRow]{
		Canonical:  s.posts,
		Derived:    []*storage.Table{s.activity},
		Canon:      func(e storage.Entity) bool { return e.RowKey == headKey },
		Recorded:   recorded,
		Rows:       rows,
		Derivative: func(e storage.Entity) bool { return strings.HasPrefix(e.PartitionKey, "q|") == search },
	}
}

// UseNotifier, UseModerationLog, UsePeople and UseBaseURL wire the
// forum to the inbox, the admin log, the accounts and the app's address.
// Call them while wiring.
func (s *Service) UseNotifier(n Notifier)           { s.notifier = n }
func (s *Service) UseModerationLog(l ModerationLog) { s.modlog = l }
func (s *Service) UsePeople(p People)               { s.people = p }
func (s *Service) UseBaseURL(u string)              { s.baseURL = u }

// Slug names the module's section.
func (s *Service) Slug() string { return "forum" }

// The daily counters the module increments.
const (
	NewTopics  metrics.Counter = "newTopics"
	NewReplies metrics.Counter = "newReplies"
)

// CountWith registers the module's counters with d and counts new topics
// and replies from now on (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) {
	s.counts = d.Counting(s.log, "forum", NewTopics, NewReplies)
}

// Tables are the tables the module needs provisioned.
func (s *Service) Tables() []string {
	return []string{SectionsTable, PostsTable, ActivityTable, ReadsTable, QuotaTable, memberdata.FootprintsTable}
}

// Errors a caller may meet.
var (
	ErrNoSection = fault.NotFound("forum: no such section", storage.ErrNotFound)
	ErrNoTopic   = fault.NotFound("forum: no such topic", storage.ErrNotFound)
	ErrNoPost    = fault.NotFound("forum: no such post", storage.ErrNotFound)
	ErrLocked    = fault.New(http.StatusForbidden, "forum.error.locked", "forum: the topic is locked")
	ErrNotYours  = fault.New(http.StatusForbidden, "forum.error.not_yours", "forum: not the author")
	ErrNotStaff  = fault.New(http.StatusForbidden, "forum.error.not_staff", "forum: not a moderator")
	// ErrLockedEdit and ErrHiddenEdit refuse an author's edit of a post
	// a moderator froze: in a locked topic, or hidden.
	ErrLockedEdit = fault.New(http.StatusForbidden, "forum.error.locked_edit", "forum: the topic is locked")
	ErrHiddenEdit = fault.New(http.StatusForbidden, "forum.error.hidden_edit", "forum: the post is hidden")
	// ErrOwnLike refuses liking one's own post.
	ErrOwnLike = fault.New(http.StatusForbidden, "forum.error.own_like", "forum: a like of one's own post")
	// ErrHasReplies refuses an author deleting an opening post others
	// replied to (409).
	ErrHasReplies = fault.New(http.StatusConflict, "forum.error.has_replies", "forum: the topic has replies")
)

// activityRows are a topic's rows in TopicActivityIndex: one in its
// section, one in the whole forum's; none once deleted.
func (s *Service) activityRows(t TopicRow) ([]projection.Row, error) {
	if t.Deleted {
		return nil, nil
	}
	row := ActivityRow{TopicID: t.PartitionKey, Summary: t.Summary}
	inSection := row
	inSection.PartitionKey, inSection.RowKey = sectionPart(t.Section), activityKey(t.Pinned, t.LastActivityAt, t.PartitionKey)
	inAll := row
	inAll.PartitionKey, inAll.RowKey = allPart, allKey(t.LastActivityAt, t.PartitionKey)
	a, err := projection.RowOf(s.activity, inSection)
	if err != nil {
		return nil, err
	}
	b, err := projection.RowOf(s.activity, inAll)
	return []projection.Row{a, b}, err
}

// Paths.
func topicURL(topicID string) string { return "/forum/t/" + topicID }
func postURL(topicID string, num int) string {
	return topicURL(topicID) + "?post=" + strconv.Itoa(num) + "#p" + strconv.Itoa(num)
}
func sectionURL(slug string) string { return "/forum/" + slug }

// historyURL is the page of post num's versions.
func historyURL(topicID string, num int) string {
	return topicURL(topicID) + "/posts/" + strconv.Itoa(num) + "/history"
}

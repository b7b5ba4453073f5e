package forum

import (
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Tables.
const (
	SectionsTable = "ForumSections"
	PostsTable    = "ForumPosts"
	ActivityTable = "TopicActivityIndex"
	ReadsTable    = "ForumReads"
	QuotaTable    = "ForumQuota"
)

// SectionRow is a section: PK "forum", RK its slug.
type SectionRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Name         string `table:"name"`
	Description  string `table:"description"`
	// RussianName and RussianDescription are what Russian pages show
	// (Label, About); "" shows the English. Rows written before them
	// have neither.
	RussianName        string `table:"russianName"`
	RussianDescription string `table:"russianDescription"`
	Order              int    `table:"order"`
	Archived           bool   `table:"archived"`
	// Moderators are the memberKeys who moderate it besides admins,
	// comma-separated; ModeratorEmails their addresses as an admin typed
	// them, to show and edit.
	Moderators      string `table:"moderators"`
	ModeratorEmails string `table:"moderatorEmails"`
	// Topics and LastActivityAt are kept exact by every topic's change
	// (a conditional write of this row); LastTopicID and LastTopicTitle
	// name the topic that moved last.
	Topics         int        `table:"topics"`
	LastActivityAt *time.Time `table:"lastActivityAt"` // nil: no topic yet
	LastTopicID    string     `table:"lastTopicId"`
	LastTopicTitle string     `table:"lastTopicTitle"`
	CreatedAt      time.Time  `table:"createdAt"`
}

const sectionsPart = "forum"

// sectionKey is ForumSections' key.
func sectionKey(slug string) (pk, rk string) { return sectionsPart, slug }

// ModeratorKeys are the section's moderators.
func (s SectionRow) ModeratorKeys() []string {
	if s.Moderators == "" {
		return nil
	}
	return strings.Split(s.Moderators, ",")
}

// TopicRow is a topic's head in its ForumPosts partition (PK the topic
// id, RK headKey): what it is, where, its state, and its counters. A
// reply inserts the post and updates the head in one transaction at
// the head's ETag, so post numbers are dense and the counters always
// match the rows.
type TopicRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Summary
	AuthorKey string `table:"authorKey"`
	// SlowSeconds is slow mode: one reply per person per that many
	// seconds (0: off); staff are exempt.
	SlowSeconds int  `table:"slowSeconds"`
	Deleted     bool `table:"deleted"`
	// Indexed and TitlesIndexed record which TopicActivityIndex rows
	// were last written for the topic (its activity rows, its title
	// search rows): projection.Follow's record, kept by every write of
	// the head at its ETag.
	Indexed       string `table:"indexed"`
	TitlesIndexed string `table:"titlesIndexed"`
}

// Summary is what a list shows of a topic. The head holds it, and its
// TopicActivityIndex rows copy it (ActivityRow), so a list reads no
// topic.
type Summary struct {
	Section    string `table:"section"`
	Title      string `table:"title"`
	AuthorName string `table:"authorName"`
	// Posts is the highest post number (1 is the opening post); Replies
	// counts the visible replies.
	Posts   int `table:"posts"`
	Replies int `table:"replies"`
	// LastActivityAt is the newest visible post's time; LastAuthorName
	// its author.
	LastActivityAt time.Time `table:"lastActivityAt"`
	LastAuthorName string    `table:"lastAuthorName"`
	Pinned         bool      `table:"pinned"`
	// PinUntil ends the pin, judged when read (nil: until unpinned).
	PinUntil *time.Time `table:"pinUntil"`
	Locked   bool       `table:"locked"`
	// Solved is the reply marked as the answer (solved.go); 0 for none.
	Solved int `table:"solved"`
	// Recent are the newest visible posts (recentKeep of them), number
	// and time, as "num:unixnano" comma-separated: what unread counts
	// and the listing's paging are worked out from, with no read of the
	// posts. Hidden and deleted posts are not in it, so they never count
	// as unread.
	Recent    string    `table:"recent"`
	CreatedAt time.Time `table:"createdAt"`
	// HasPoll says the topic opened with a poll (polls.go).
	HasPoll bool `table:"hasPoll"`
}

// headKey is the RowKey of a topic's head.
const headKey = "topic"

// PostRow is one post: PK the topic id, RK postKey(num).
type PostRow struct {
	PartitionKey string     `table:"PartitionKey"`
	RowKey       string     `table:"RowKey"`
	ETag         string     `table:"ETag"`
	Num          int        `table:"num"`
	AuthorKey    string     `table:"authorKey"`
	AuthorName   string     `table:"authorName"`
	Body         string     `table:"body"`
	CreatedAt    time.Time  `table:"createdAt"`
	EditedAt     *time.Time `table:"editedAt"`
	// Revisions counts the earlier versions kept (revisionKey rows).
	Revisions int        `table:"revisions"`
	DeletedAt *time.Time `table:"deletedAt"`
	// Hidden is a moderator's: the post is folded for members and not
	// counted.
	Hidden bool `table:"hidden"`
	Likes  int  `table:"likes"`
}

const postPrefix = "p|"

// postKey is a post's RowKey: its number, zero-padded so keys sort.
func postKey(num int) string { return fmt.Sprintf("%s%08d", postPrefix, num) }

// RevisionRow is an earlier version of a post: PK the topic id, RK
// revisionKey(num, rev).
type RevisionRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Body         string    `table:"body"`
	At           time.Time `table:"at"` // when this version was written
}

func revisionKey(num, rev int) string { return fmt.Sprintf("r|%08d|%04d", num, rev) }

// LikeRow is one person's like of a post: PK the topic id, RK
// likeKey(num, memberKey).
type LikeRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	At           time.Time `table:"at"`
}

func likeKey(num int, memberKey string) string { return fmt.Sprintf("l|%08d|%s", num, memberKey) }

// ActivityRow is a topic in TopicActivityIndex: in its section's
// partition ("section|{slug}", RK "{0 pinned, 1 not}|{reverse ticks of
// the last activity}|{topicId}": pinned first, then the most recently
// active), and in the whole forum's ("all", RK "{reverse ticks}|
// {topicId}", for the unread and new lists and the feed). It carries
// what a list row shows, so a list reads no topic.
type ActivityRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	TopicID      string `table:"topicId"`
	Summary
}

const allPart = "all"

// sectionPart is a section's TopicActivityIndex partition.
func sectionPart(section string) string { return "section|" + section }

// activityKey is a topic's row key in its section's partition.
func activityKey(pinned bool, at time.Time, topicID string) string {
	p := "1"
	if pinned {
		p = "0"
	}
	return p + "|" + storage.ReverseTicks(at) + "|" + topicID
}

// allKey is a topic's row key in the whole forum's partition.
func allKey(at time.Time, topicID string) string {
	return storage.ReverseTicks(at) + "|" + topicID
}

// ReadRow is one person's read marker in a topic: PK their memberKey,
// RK the topic id. ReadNum only moves forward, except by "mark unread
// from here". Dismissed hides the topic's pin for them.
type ReadRow struct {
	PartitionKey string     `table:"PartitionKey"`
	RowKey       string     `table:"RowKey"`
	ETag         string     `table:"ETag"`
	ReadNum      int        `table:"readNum"`
	Dismissed    bool       `table:"dismissed"`
	At           *time.Time `table:"at"` // the last move; nil: never opened
	// PostedOnly says only their own replies moved ReadNum: they never
	// opened the topic, so its page opens at the top, not at ReadNum.
	PostedOnly bool `table:"postedOnly"`
	// Sections is on the "mark all read" row only: the sections marked
	// read on their own since, as JSON slug → when (sectionMarks).
	Sections string `table:"sections"`
	// Bookmarks are the posts of the topic they bookmarked, as JSON
	// (bookmarks.go); Bookmarked says there are any, for the list's
	// filter.
	Bookmarks  string `table:"bookmarks"`
	Bookmarked bool   `table:"bookmarked"`
	// Muted and MutedSections are on the "mark all read" row only: the
	// topics and the sections muted, as JSON lists (watch.go).
	Muted         string `table:"muted"`
	MutedSections string `table:"mutedSections"`
}

// markAllKey is the row of a person's "mark all read": its At is when,
// and its Sections when each section was marked read on its own.
const markAllKey = "all"

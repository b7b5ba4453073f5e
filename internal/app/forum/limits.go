package forum

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Abuse limits. Slow mode: a topic can allow one reply per person per
// SlowSeconds (staff are exempt), kept in ForumQuota as the time of the
// person's last reply there, so the refusal says how long is left. New
// accounts, in their first day, may open newcomerTopics topics and post
// newcomerReplies replies (fixed windows of the quota kit), with at most
// newcomerLinks links a post. Everyone but staff keeps a pace of
// topicsPerDay topics a day and repliesPerHour replies an hour (as
// Discourse's max_topics_per_day), so nobody floods the sections or the
// inboxes and mail of the people their posts notify. A preview writes
// nothing but costs a render: web.Preview paces them per client address.

const (
	newcomerFor     = 24 * time.Hour
	newcomerTopics  = 3
	newcomerReplies = 20
	newcomerLinks   = 2

	topicsPerDay   = 20
	repliesPerHour = 60
)

// ErrPace refuses a topic or reply past topicsPerDay or repliesPerHour
// (429).
var ErrPace = fault.New(http.StatusTooManyRequests, "forum.error.pace", "forum: posting too fast")

// limitPace takes one of by's topics ("topic") or replies ("reply") from
// their allowance, or refuses it; staff keep no pace.
func (s *Service) limitPace(ctx context.Context, by Person, kind string) error {
	l := quota.Limit{Table: s.quota, Max: repliesPerHour, Window: time.Hour, Err: ErrPace}
	if kind == "topic" {
		l.Max, l.Window = topicsPerDay, 24*time.Hour
	}
	return l.Take(ctx, "pace|"+kind+"|"+by.MemberKey, s.now())
}

// slowRow is a person's last reply in a topic: PK "slow|{topicId}", RK
// their memberKey.
type slowRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Last         time.Time `table:"last"`
}

// limitSlowMode takes a reply of by in t under its slow mode, or refuses
// it with the wait.
func (s *Service) limitSlowMode(ctx context.Context, by Person, t TopicRow) error {
	if t.SlowSeconds <= 0 {
		return nil
	}
	every := time.Duration(t.SlowSeconds) * time.Second
	now := s.now().UTC()
	_, err := storage.Modify(ctx, s.quota, "slow|"+t.PartitionKey, by.MemberKey, func(r *slowRow, exists bool) error {
		if exists && now.Sub(r.Last) < every {
			return ErrSlowMode{Wait: every - now.Sub(r.Last)}
		}
		r.Last = now
		return nil
	})
	return err
}

// maxRevisions is the most earlier versions a post keeps: revisionKey
// writes the number in four digits, and the history reads versions by
// key range.
const maxRevisions = 9999

// ErrTooManyRevisions refuses an edit of a post that has kept
// maxRevisions versions (409).
var ErrTooManyRevisions = fault.New(http.StatusConflict, "forum.error.revisions", "forum: the post has too many versions")

// editsPerHour bounds a person's edits: each keeps the version it
// replaced, which the post's history shows to anyone.
const editsPerHour = 30

// ErrTooManyEdits refuses an edit past editsPerHour (429).
var ErrTooManyEdits = fault.New(http.StatusTooManyRequests, "forum.error.edits", "forum: too many edits")

// limitEdits takes one of by's edits this hour, or refuses it. Staff are
// held too: a moderator's edits of their own posts are ordinary edits.
func (s *Service) limitEdits(ctx context.Context, by Person) error {
	l := quota.Limit{Table: s.quota, Max: editsPerHour, Window: time.Hour, Err: ErrTooManyEdits}
	return l.Take(ctx, "edit|"+by.MemberKey, s.now())
}

// limitNewcomer holds an account in its first day to its limits; kind is
// "topic" or "reply".
func (s *Service) limitNewcomer(ctx context.Context, by Person, kind, body string) error {
	if s.people == nil || by.Admin {
		return nil
	}
	created, err := s.people.CreatedAt(ctx, by.MemberKey)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.now().UTC()
	if now.Sub(created) >= newcomerFor {
		return nil
	}
	if richtext.ExternalLinks(body) > newcomerLinks {
		return FormErrors{"body": "forum.error.newcomer_links"}
	}
	if kind == "edit" {
		return nil // an edit adds no post: only its links count
	}
	max := newcomerReplies
	if kind == "topic" {
		max = newcomerTopics
	}
	l := quota.Limit{Table: s.quota, Max: max, Window: newcomerFor, Err: ErrTooMany}
	// The quota's windows start at multiples of a day; shifted by the
	// account's time of day, the first day is exactly one window.
	shift := created.Sub(created.Truncate(newcomerFor))
	return l.Take(ctx, "new|"+kind+"|"+by.MemberKey, now.Add(-shift))
}

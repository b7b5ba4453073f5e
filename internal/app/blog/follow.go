package blog

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// Following the blog, as a publication's subscribers do: a member
// follows it (BlogFollowers, PK "f", RK their memberKey), and a post
// reaching readers tells every follower through the inbox (emailed to
// those who want the blog's news by email). The announcement is a task
// due when the post appears (at once, or at its scheduled time), queued
// by the write that publishes it; it tells each post's followers once
// (the post records `announced`), in notices of at most 200 people.

// FollowersTable holds who follows the blog.
const FollowersTable = "BlogFollowers"

// followersPart is the one partition of BlogFollowers.
const followersPart = "f"

// announceBatch is how many followers one notice names.
const announceBatch = 200

// FollowerRow is one follower.
type FollowerRow struct {
	PartitionKey string    `table:"PartitionKey"` // followersPart
	RowKey       string    `table:"RowKey"`       // memberKey
	At           time.Time `table:"at"`
}

// Notifier tells followers of new posts (the inbox).
type Notifier = inbox.Poster

// announcement is the task that tells followers of a post: the post's
// address, and the publication time it was queued for (a post moved to
// another time is told of by that time's task).
type announcement struct {
	Slug string
	At   time.Time
}

// UseNotifier and UseTasks have new posts told to the blog's followers.
// Call them while wiring; without them nobody is told.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// UseTasks registers on q the announcement task and the burial that
// finishes a post's deletion (posts.go).
func (s *Service) UseTasks(q *tasks.Queue) error {
	return errors.Join(
		tasks.Into(q, &s.announcements, "blog.announce", s.announce),
		tasks.Into(q, &s.burials, "blog.bury", s.buryQueued),
	)
}

// Follow starts (on) or stops following the blog.
func (s *Service) Follow(ctx context.Context, memberKey string, on bool) error {
	if !on {
		return storage.Forget(ctx, s.followers, followersPart, memberKey)
	}
	_, err := storage.Upsert(ctx, s.followers, FollowerRow{PartitionKey: followersPart, RowKey: memberKey, At: s.now().UTC()})
	return err
}

// Following reports whether memberKey follows the blog.
func (s *Service) Following(ctx context.Context, memberKey string) (bool, error) {
	return storage.Exists(ctx, s.followers, followersPart, memberKey)
}

// queueAnnouncement queues the telling of p, due when it appears, if it
// is published and its followers were not told yet. A failure is logged
// (web reindex blog queues what is missing).
func (s *Service) queueAnnouncement(ctx context.Context, p PostRow) {
	if s.announcements == nil || s.notifier == nil || !p.Published || p.Announced {
		return
	}
	key := "blog-announce|" + p.ID + "|" + strconv.FormatInt(p.PublishAt.Unix(), 10)
	if err := s.announcements.EnqueueAt(ctx, p.PublishAt, key, announcement{Slug: p.RowKey, At: p.PublishAt}); err != nil {
		s.log.WarnContext(ctx, "blog: announcement not queued", "post", p.RowKey, "err", err)
	}
}

// announce tells the followers of the post a, if it is out at the time
// a was queued for and they were not told yet; then records that they
// were. A retry after a crash posts the same notices again, which the
// inbox's keys make nothing.
func (s *Service) announce(ctx context.Context, a announcement) error {
	p, err := s.Post(ctx, a.Slug)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return nil // deleted since
	case err != nil:
		return err
	case !p.Published || p.Announced || !p.PublishAt.Equal(a.At) || p.PublishAt.After(s.now()):
		return nil // a draft again, told already, or moved to another time (its own task)
	}
	followers, err := storage.All[FollowerRow](ctx, s.followers, storage.Query{PartitionKey: followersPart})
	if err != nil {
		return err
	}
	n := inbox.Notice{Kind: "blog.notify.new", Args: map[string]string{"title": p.Title, "excerpt": p.Excerpt}, Link: postURL(p.RowKey), When: p.PublishAt, From: p.AuthorKey}
	for start := 0; start < len(followers); start += announceBatch {
		n.To, n.Key = nil, "blog-new|"+p.ID+"|"+strconv.Itoa(start/announceBatch)
		for _, f := range followers[start:min(start+announceBatch, len(followers))] {
			if f.RowKey != p.AuthorKey {
				n.To = append(n.To, inbox.Recipient{MemberKey: f.RowKey})
			}
		}
		if err := s.notifier.Post(ctx, n); err != nil {
			return err
		}
	}
	_, err = storage.Change(ctx, s.posts, postsPart, p.RowKey, ErrNoPost, func(p *PostRow) error {
		if p.Announced || p.Deleted {
			return storage.ErrNoChange
		}
		p.Announced = true
		return nil
	})
	return err
}

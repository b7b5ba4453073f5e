package blog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Service is the blog: its posts, their cards, and their pictures.
type Service struct {
	posts     *storage.Table
	index     *storage.Table
	pictures  pictures.Public
	followers *storage.Table
	// comments are the posts' comment threads (comments.go).
	comments comments.Thread
	// preview renders the editor's text before it is saved.
	preview web.Preview
	moderation.Reporting
	// cards keeps BlogIndex in step with the posts.
	cards *projection.Projection[PostRow]
	// notifier and announcements tell followers of new posts; nil tells
	// nobody.
	notifier      Notifier
	announcements *tasks.Kind[announcement]
	// burials finish the deletions of posts (Delete); nil: the delete's
	// own try, deleting again and the rebuild finish them.
	burials *tasks.Kind[burial]
	cursors *storage.Cursors
	// baseURL makes the feed's links absolute.
	baseURL string
	log     *slog.Logger
	now     func() time.Time
}

// Picture sizes (the longer side, in pixels) and the post form's body
// limit, which carries a cover.
const (
	largeImageSide = 1600
	smallImageSide = 640
	formBodyLimit  = media.DefaultMaxBytes + 1<<20
)

// New keeps the blog in store.
func New(store *storage.Store, cursors *storage.Cursors, baseURL string, log *slog.Logger, now func() time.Time) *Service {
	s := &Service{
		posts:     store.Table(PostsTable),
		index:     store.Table(IndexTable),
		followers: store.Table(FollowersTable),
		comments:  newThreads(store.Table(CommentsTable), store.Table(commentQuota), now),
		preview:   newPreview(now),
		pictures:  pictures.Public{Store: pictures.Store{Container: store.Container(ImagesContainer), Large: largeImageSide, Small: smallImageSide, Log: log}, Prefix: mediaPrefix},
		cursors:   cursors,
		baseURL:   baseURL,
		log:       log,
		now:       now,
	}
	s.cards = &projection.Projection[PostRow]{
		Canonical: s.posts,
		Derived:   []*storage.Table{s.index},
		Recorded:  "listed",
		Rows:      s.cardRows,
	}
	return s
}

// cardRows are the cards a post implies: while published, one in every
// post's partition and one in each of its tags', keyed by its
// publication time reversed (newest first); while a draft, one in the
// drafts'; none while being deleted.
func (s *Service) cardRows(p PostRow) ([]projection.Row, error) {
	var keys [][2]string
	switch {
	case p.Deleted:
	case p.Published:
		rk := storage.ReverseTicks(p.PublishAt) + "|" + p.RowKey
		keys = append(keys, [2]string{allPart, rk})
		for _, t := range p.TagList() {
			keys = append(keys, [2]string{tagPart(t), rk})
		}
	default:
		keys = append(keys, [2]string{draftPart, p.RowKey})
	}
	rows := make([]projection.Row, 0, len(keys))
	for _, k := range keys {
		r, err := projection.RowOf(s.index, CardRow{PartitionKey: k[0], RowKey: k[1], Slug: p.RowKey, Card: p.Card})
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// tagPart is a tag's partition of BlogIndex.
func tagPart(tag string) string { return tagPrefix + storage.EscapeKey(tag) }

// Slug is the module's section.
func (s *Service) Slug() string { return "blog" }

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{PostsTable, IndexTable, FollowersTable, CommentsTable, commentQuota}
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{ImagesContainer} }

// BodyLimits lets the post form carry a cover picture (web.BodyLimiter).
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{"/blog": formBodyLimit, "/blog/preview": formBodyLimit, "/blog/:slug/edit": formBodyLimit, "/blog/:slug/pictures": formBodyLimit}
}

// RebuildSubject names the rebuild: web reindex blog.
func (s *Service) RebuildSubject() string { return "blog" }

// Rebuild recomputes BlogIndex from the posts, finishes the deletions cut
// short (finishDeletions), and queues the telling of the published posts
// whose followers were not told (a crash between a post's write and its
// announcement's queueing) (platform.Rebuilder).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	cards, err := s.cards.Rebuild(ctx)
	if err != nil {
		return cards, err
	}
	r := RebuildReport{Report: cards}
	if r.Removed, err = s.finishDeletions(ctx); err != nil {
		return r, err
	}
	err = s.posts.QueryAll(ctx, storage.Query{PartitionKey: postsPart}, func(e storage.Entity) error {
		var p PostRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		if p.Published && !p.Announced && !p.Deleted && s.announcements != nil {
			s.queueAnnouncement(ctx, p)
			r.Announcements++
		}
		return nil
	})
	return r, err
}

// RebuildReport is what Rebuild fixed.
type RebuildReport struct {
	projection.Report
	// Removed is how many deleted posts' leftovers were removed.
	Removed int
	// Announcements is how many posts' telling it queued (again: a
	// queued one is not queued twice).
	Announcements int
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("%s; %d deleted posts' comments and pictures removed; %d posts' announcements queued", r.Report, r.Removed, r.Announcements)
}

// finishDeletions finishes the deletions cut short: it buries every post
// marked deleted, and removes the comments and pictures of posts gone (a
// comment that raced its post's deletion, or a deletion from before posts
// were marked first). It reads the posts (twice when some thread has no
// post) and the comments' keys. It returns how many posts' leftovers it
// removed.
func (s *Service) finishDeletions(ctx context.Context) (int, error) {
	ids, deleted, err := s.postIDs(ctx)
	if err != nil {
		return 0, err
	}
	orphans := map[string]bool{}
	err = s.comments.Table.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"PartitionKey"}}, func(e storage.Entity) error {
		if !ids[e.PartitionKey] && storage.IsID(e.PartitionKey) {
			orphans[e.PartitionKey] = true
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(orphans) > 0 {
		// A draft that moved to another address during the first read
		// may be missing from it; the second finds it.
		if ids, _, err = s.postIDs(ctx); err != nil {
			return 0, err
		}
	}
	removed := 0
	for id := range orphans {
		if ids[id] {
			continue
		}
		if err := s.forget(ctx, id); err != nil {
			return removed, err
		}
		removed++
	}
	for _, slug := range deleted {
		p, err := s.stored(ctx, slug)
		switch {
		case errors.Is(err, ErrNoPost):
			continue // buried since
		case err == nil && p.Deleted:
			err = s.bury(ctx, p)
		case err == nil:
			continue // another post took the address since
		}
		if err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// postIDs reads the posts' ids (theirs that are being deleted too) and
// the addresses of those being deleted: one query.
func (s *Service) postIDs(ctx context.Context) (ids map[string]bool, deleted []string, err error) {
	ids = map[string]bool{}
	err = s.posts.QueryAll(ctx, storage.Query{PartitionKey: postsPart, Select: []string{"RowKey", "id", "deleted"}}, func(e storage.Entity) error {
		id, _ := e.Props["id"].(string)
		ids[id] = true
		if d, _ := e.Props["deleted"].(bool); d {
			deleted = append(deleted, e.RowKey)
		}
		return nil
	})
	return ids, deleted, err
}

package blog

import (
	"context"
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
	cursors       *storage.Cursors
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
// drafts'.
func (s *Service) cardRows(p PostRow) ([]projection.Row, error) {
	var keys [][2]string
	if p.Published {
		rk := storage.ReverseTicks(p.PublishAt) + "|" + p.RowKey
		keys = append(keys, [2]string{allPart, rk})
		for _, t := range p.TagList() {
			keys = append(keys, [2]string{tagPart(t), rk})
		}
	} else {
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

// Rebuild recomputes BlogIndex from the posts, and queues the telling of
// the published posts whose followers were not told (a crash between a
// post's write and its announcement's queueing) (platform.Rebuilder).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	cards, err := s.cards.Rebuild(ctx)
	if err != nil {
		return cards, err
	}
	r := RebuildReport{Report: cards}
	err = s.posts.QueryAll(ctx, storage.Query{PartitionKey: postsPart}, func(e storage.Entity) error {
		var p PostRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		if p.Published && !p.Announced && s.announcements != nil {
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
	// Announcements is how many posts' telling it queued (again: a
	// queued one is not queued twice).
	Announcements int
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("%s; %d posts' announcements queued", r.Report, r.Announcements)
}

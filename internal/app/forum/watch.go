package forum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Watching. A reader may watch a topic, as Discourse's "Watching": every
// reply then tells them in their inbox (and by mail, as their settings
// say), at most once an hour per topic, like the author's notices. The
// watchers are rows of the topic's partition, so a reply reads them with
// one query, and the topic page reads the reader's own with one point
// read.

// watcherPrefix starts a watcher's RowKey in the topic's partition.
const watcherPrefix = "w|"

// maxWatchers bounds the watchers one reply tells.
const maxWatchers = 1000

// WatcherRow is someone who watches a topic: PK the topic id, RK
// watcherPrefix and their memberKey.
type WatcherRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Since        time.Time `table:"since"`
}

// Watch starts (on) or stops memberKey's watching of topicID. Doing what
// is done already changes nothing.
func (s *Service) Watch(ctx context.Context, memberKey, topicID string, on bool) error {
	if _, err := s.Head(ctx, topicID); err != nil {
		return err
	}
	rk := watcherPrefix + memberKey
	if !on {
		err := s.posts.Delete(ctx, topicID, rk, storage.AnyETag)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return err
	}
	_, err := storage.Insert(ctx, s.posts, WatcherRow{PartitionKey: topicID, RowKey: rk, Since: s.now().UTC()})
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	return err
}

// Watching reports whether memberKey watches topicID.
func (s *Service) Watching(ctx context.Context, memberKey, topicID string) (bool, error) {
	if memberKey == "" {
		return false, nil
	}
	_, err := storage.Get[WatcherRow](ctx, s.posts, topicID, watcherPrefix+memberKey)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// tellWatchers tells t's watchers of reply p by by, but not by, nor
// those told of it already (told).
func (s *Service) tellWatchers(ctx context.Context, by Person, t TopicRow, p PostRow, told []string) {
	rows, _, err := storage.Take[WatcherRow](ctx, s.posts, storage.Query{PartitionKey: t.PartitionKey, RowKeyPrefix: watcherPrefix}, maxWatchers)
	if err != nil {
		s.log.WarnContext(ctx, "forum: watchers not read", "topic", t.PartitionKey, "err", err)
		return
	}
	hour := p.CreatedAt.UTC().Format("2006010215")
	for _, w := range rows {
		key := w.RowKey[len(watcherPrefix):]
		if key == by.MemberKey || slices.Contains(told, key) {
			continue
		}
		s.tell(ctx, key, "forum.notify.watched", by, t, p, fmt.Sprintf("forum.watched|%s|%s|%s", t.PartitionKey, key, hour))
	}
}

// watch is POST /forum/t/:id/watch (watch=true|false).
func (s *Service) watch(c echo.Context) error {
	t := topicOf(c)
	on := c.FormValue("watch") != "false"
	if err := s.Watch(c.Request().Context(), person(c).MemberKey, t.PartitionKey, on); err != nil {
		return err
	}
	key := "forum.flash.unwatched"
	if on {
		key = "forum.flash.watched"
	}
	return web.FlashRedirect(c, key, topicURL(t.PartitionKey))
}

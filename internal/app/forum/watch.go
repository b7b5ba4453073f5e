package forum

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Notification levels, as Discourse's: a reader may watch a topic, leave
// it at normal, or mute it.
//   - Watching: every reply tells them in their inbox (and by mail, as
//     their settings say), at most once an hour per topic, like the
//     author's notices. The watchers are rows of the topic's partition,
//     so a reply reads them with one query, and the topic page reads the
//     reader's own with one point read.
//   - Muted: the topic tells them nothing (not its replies to them as its
//     author, nor their mentions in it), is never unread for them, and
//     leaves the dashboard's card; their section lists still show it,
//     marked, so they can find it and take the mute back. The muted
//     topics are a list on the reader's "mark all read" row, which every
//     forum page reads already (Reader.Muted): knowing them costs the
//     pages nothing. A notice that could go to a muted topic's author or
//     mentioned person costs one point read of that row.

// Level is a reader's notification level for a topic.
type Level string

// The levels.
const (
	Watching Level = "watching"
	Normal   Level = "normal"
	Muted    Level = "muted"
)

// maxMuted bounds the topics one person mutes: the list rides on one row.
const maxMuted = 200

var (
	// ErrBadLevel is a level that is none of the three (400).
	ErrBadLevel = fault.New(http.StatusBadRequest, "forum.error.level", "forum: no such notification level")
	// ErrTooManyMuted is one muted topic more than maxMuted (409).
	ErrTooManyMuted = fault.New(http.StatusConflict, "forum.error.muted", "forum: too many muted topics", "max", maxMuted)
)

// watcherPrefix starts a watcher's RowKey in the topic's partition.
const watcherPrefix = "w|"

// maxWatchers bounds the watchers one reply tells.
const maxWatchers = 1000

// WatcherRow is someone who watches a topic (PK the topic id, RK
// watcherPrefix and their memberKey, in ForumPosts) or a section (PK
// sectionWatchers(slug), RK their memberKey, in ForumSections).
type WatcherRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Since        time.Time `table:"since"`
}

// SetLevel sets memberKey's notification level for topicID. Setting the
// level it has changes nothing; a missing topic (404) and a level none of
// the three (400) write nothing.
func (s *Service) SetLevel(ctx context.Context, memberKey, topicID string, level Level) error {
	if _, err := s.Head(ctx, topicID); err != nil {
		return err
	}
	return s.setLevel(ctx, topicLevels, memberKey, topicID, level)
}

// levelKind is how one kind of thing, a topic or a section, keeps a
// person's level: the column of their mutes (at most max), their watcher
// row, and (topics) which muted ones are gone, to make room.
type levelKind struct {
	muted func(r *ReadRow) *string
	max   int
	watch func(s *Service, ctx context.Context, memberKey, id string, on bool) error
	gone  func(s *Service, ctx context.Context, ids []string) ([]string, error)
}

var (
	topicLevels   = levelKind{muted: func(r *ReadRow) *string { return &r.Muted }, max: maxMuted, watch: (*Service).watchRow, gone: (*Service).goneTopics}
	sectionLevels = levelKind{muted: func(r *ReadRow) *string { return &r.MutedSections }, max: maxMutedSections, watch: (*Service).sectionWatchRow}
)

// setLevel sets memberKey's level of id, a thing of kind k. Watching and
// muting exclude each other: the one going is undone first, so a failure
// half-way leaves "normal", never both; a mute's room is found before
// anything is written, so a refused mute changes nothing.
func (s *Service) setLevel(ctx context.Context, k levelKind, memberKey, id string, level Level) error {
	switch level {
	case Watching, Normal:
		if err := s.muteIn(ctx, memberKey, k.muted, k.max, id, false); err != nil {
			return err
		}
		return k.watch(s, ctx, memberKey, id, level == Watching)
	case Muted:
	default:
		return ErrBadLevel
	}
	drop, err := s.roomToMute(ctx, memberKey, k, id)
	if err != nil {
		return err
	}
	if err := k.watch(s, ctx, memberKey, id, false); err != nil {
		return err
	}
	return s.muteIn(ctx, memberKey, k.muted, k.max, id, true, drop...)
}

// roomToMute is what muting id (a thing of kind k) must drop first from
// memberKey's mutes: nothing while they fit; when full, those k finds
// gone, or ErrTooManyMuted without any. muteIn checks the bound again at
// the row's ETag.
func (s *Service) roomToMute(ctx context.Context, memberKey string, k levelKind, id string) ([]string, error) {
	r, err := storage.Get[ReadRow](ctx, s.reads, memberKey, markAllKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, err
	}
	ids := storage.ListOf[string](*k.muted(&r))
	if len(ids) < k.max || slices.Contains(ids, id) {
		return nil, nil
	}
	var drop []string
	if k.gone != nil {
		// Topics deleted since make room: nobody can reach them to
		// unmute them.
		if drop, err = k.gone(s, ctx, ids); err != nil {
			return nil, err
		}
	}
	if len(drop) == 0 {
		return nil, ErrTooManyMuted
	}
	return drop, nil
}

// goneTopics are the topics of ids that are deleted or missing: a point
// read each, 8 at a time (only a full list of mutes asks).
func (s *Service) goneTopics(ctx context.Context, ids []string) ([]string, error) {
	return storage.Keep(ctx, ids, 8, func(ctx context.Context, id string) (bool, error) {
		_, err := s.Head(ctx, id)
		if errors.Is(err, ErrNoTopic) {
			return true, nil
		}
		return false, err
	})
}

// watchRow writes (on) or deletes memberKey's watcher row of topicID.
func (s *Service) watchRow(ctx context.Context, memberKey, topicID string, on bool) error {
	if on {
		if err := s.marks.Mark(ctx, memberKey, topicID); err != nil {
			return err
		}
	}
	return keepRow(ctx, s.posts, on, WatcherRow{PartitionKey: topicID, RowKey: watcherPrefix + memberKey, Since: s.now().UTC()})
}

// keepRow writes row (on) or deletes it (its keys), as a watcher row is
// kept: as it is already is no error.
func keepRow[T any](ctx context.Context, t *storage.Table, on bool, row T) error {
	if on {
		_, err := storage.Insert(ctx, t, row)
		if errors.Is(err, storage.ErrExists) {
			return nil
		}
		return err
	}
	e, err := storage.Marshal(row)
	if err != nil {
		return err
	}
	return storage.Forget(ctx, t, e.PartitionKey, e.RowKey)
}

// muteIn puts id in (on) or takes it out of one of memberKey's lists of
// mutes on their "mark all read" row (list picks the column), at the
// row's ETag, dropping the ids drop in the same write; past max is
// ErrTooManyMuted, and as it is already writes nothing.
func (s *Service) muteIn(ctx context.Context, memberKey string, list func(r *ReadRow) *string, max int, id string, on bool, drop ...string) error {
	_, err := storage.Modify(ctx, s.reads, memberKey, markAllKey, func(r *ReadRow, exists bool) error {
		ids := slices.DeleteFunc(storage.ListOf[string](*list(r)), func(v string) bool { return slices.Contains(drop, v) })
		ids, err := storage.Toggled(ids, slices.Index(ids, id), on, max, ErrTooManyMuted, func() string { return id })
		if err != nil {
			return err
		}
		*list(r), err = storage.ListText(ids)
		return err
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return err
}

// setOf is list as a set; nil for none.
func setOf(list []string) map[string]bool {
	var out map[string]bool
	for _, v := range list {
		if out == nil {
			out = map[string]bool{}
		}
		out[v] = true
	}
	return out
}

// mutes reports whether memberKey muted topic t, or its section: one
// point read, for a notice that may go to them. A failed read counts as
// not muted (the notice goes, as it did before muting existed) and is
// logged.
func (s *Service) mutes(ctx context.Context, memberKey string, t TopicRow) bool {
	r, err := storage.Get[ReadRow](ctx, s.reads, memberKey, markAllKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		s.log.WarnContext(ctx, "forum: muted topics not read", "member", memberKey, "err", err)
	}
	return slices.Contains(storage.ListOf[string](r.Muted), t.PartitionKey) || slices.Contains(storage.ListOf[string](r.MutedSections), t.Section)
}

// Level reports memberKey's level for topicID, given their Reader
// (muted) and a point read of their watcher row.
func (s *Service) Level(ctx context.Context, rd Reader, topicID string) (Level, error) {
	return levelOf(ctx, rd.MemberKey, rd.Muted[topicID], s.posts, topicID, watcherPrefix+rd.MemberKey)
}

// levelOf is a topic's or a section's level for memberKey: muted, or
// watching while their watcher row (pk, rk in t) is there.
func levelOf(ctx context.Context, memberKey string, muted bool, t *storage.Table, pk, rk string) (Level, error) {
	switch {
	case memberKey == "":
		return Normal, nil
	case muted:
		return Muted, nil
	}
	_, err := t.Get(ctx, pk, rk)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return Normal, nil
	case err != nil:
		return "", err
	}
	return Watching, nil
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

// watch is POST /forum/t/:id/watch (level=watching|normal|muted).
func (s *Service) watch(c echo.Context) error {
	t := topicOf(c)
	level := Level(c.FormValue("level"))
	if err := s.SetLevel(c.Request().Context(), person(c).MemberKey, t.PartitionKey, level); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.level."+string(level), topicURL(t.PartitionKey))
}

// A section's levels, as Discourse's category levels. Watching ("watch
// first post"): each new topic in it tells its watchers in their inbox
// (one notice to them all, which the inbox fans out and mails as each
// one's settings say). The watchers are rows of the ForumSections table,
// in their section's own partition ("w|{slug}", RK memberKey), so a new
// topic reads them with one query; the section's page reads the reader's
// own with one point read. Muted: its topics tell the reader nothing
// (but a topic they watch), are never unread for them and leave their
// dashboard; the muted sections are a list on the "mark all read" row,
// beside the muted topics, so the pages know them at no cost.

// maxMutedSections bounds the sections one person mutes.
const maxMutedSections = 100

// sectionWatchers is the partition of a section's watchers.
func sectionWatchers(slug string) string { return "w|" + slug }

// SetSectionLevel sets memberKey's level for the section slug. A missing
// or archived section (404) and a level none of the three (400) write
// nothing.
func (s *Service) SetSectionLevel(ctx context.Context, memberKey, slug string, level Level) error {
	if _, err := s.Section(ctx, slug); err != nil {
		return err
	}
	return s.setLevel(ctx, sectionLevels, memberKey, slug, level)
}

// sectionWatchRow writes (on) or deletes memberKey's watcher row of the
// section slug.
func (s *Service) sectionWatchRow(ctx context.Context, memberKey, slug string, on bool) error {
	return keepRow(ctx, s.sections, on, WatcherRow{PartitionKey: sectionWatchers(slug), RowKey: memberKey, Since: s.now().UTC()})
}

// SectionLevel reports memberKey's level for the section slug, given
// their Reader (muted) and a point read of their watcher row.
func (s *Service) SectionLevel(ctx context.Context, rd Reader, slug string) (Level, error) {
	return levelOf(ctx, rd.MemberKey, rd.MutedSections[slug], s.sections, sectionWatchers(slug), rd.MemberKey)
}

// tellSectionWatchers tells the watchers of t's section, but its author,
// of the new topic t (its first post p).
func (s *Service) tellSectionWatchers(ctx context.Context, by Person, sec SectionRow, t TopicRow, p PostRow) {
	if s.notifier == nil {
		return
	}
	rows, _, err := storage.Take[WatcherRow](ctx, s.sections, storage.Query{PartitionKey: sectionWatchers(t.Section)}, maxWatchers)
	if err != nil {
		s.log.WarnContext(ctx, "forum: section watchers not read", "section", t.Section, "err", err)
		return
	}
	var to []inbox.Recipient
	for _, w := range rows {
		if w.RowKey != by.MemberKey {
			to = append(to, inbox.Recipient{MemberKey: w.RowKey})
		}
	}
	if len(to) == 0 {
		return
	}
	args := map[string]string{"name": by.Name, "topic": t.Title, "section": sec.Name, "preview": richtext.Plain(p.Body, 140)}
	if sec.RussianName != "" {
		args[inbox.InLanguage("section", i18n.RU)] = sec.RussianName
	}
	err = s.notifier.Post(ctx, inbox.Notice{
		To:   to,
		Kind: "forum.notify.new_topic",
		Args: args,
		When: p.CreatedAt,
		Link: topicURL(t.PartitionKey),
		Key:  "forum.new_topic|" + t.PartitionKey,
		From: by.MemberKey,
	})
	if err != nil {
		s.log.WarnContext(ctx, "forum: new topic not told", "topic", t.PartitionKey, "err", err)
	}
}

// watchSection is POST /forum/:section/watch (level=watching|normal|
// muted).
func (s *Service) watchSection(c echo.Context) error {
	slug := c.Param("section")
	level := Level(c.FormValue("level"))
	if err := s.SetSectionLevel(c.Request().Context(), person(c).MemberKey, slug, level); err != nil {
		return err
	}
	return web.FlashRedirect(c, "forum.flash.section_level."+string(level), sectionURL(slug))
}

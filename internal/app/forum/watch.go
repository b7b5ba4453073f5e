package forum

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
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

// WatcherRow is someone who watches a topic: PK the topic id, RK
// watcherPrefix and their memberKey.
type WatcherRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Since        time.Time `table:"since"`
}

// SetLevel sets memberKey's notification level for topicID. Setting the
// level it has changes nothing. Watching and muting exclude each other:
// the one going is undone first, so a failure half-way leaves the topic
// at normal, never at both.
func (s *Service) SetLevel(ctx context.Context, memberKey, topicID string, level Level) error {
	if level != Watching && level != Normal && level != Muted {
		return ErrBadLevel
	}
	if _, err := s.Head(ctx, topicID); err != nil {
		return err
	}
	if level != Muted {
		if err := s.mute(ctx, memberKey, topicID, false); err != nil {
			return err
		}
		return s.watchRow(ctx, memberKey, topicID, level == Watching)
	}
	// A mute past the bound is refused before the watching goes, so the
	// refusal changes nothing; mute checks again at the row's ETag.
	r, err := storage.Get[ReadRow](ctx, s.reads, memberKey, markAllKey)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	var gone []string
	if list := mutedList(r.Muted); len(list) >= maxMuted && !slices.Contains(list, topicID) {
		// Full: topics deleted since make room (nobody can reach them to
		// unmute them); without any, the mute is refused.
		if gone, err = s.goneTopics(ctx, list); err != nil {
			return err
		}
		if len(gone) == 0 {
			return ErrTooManyMuted
		}
	}
	if err := s.watchRow(ctx, memberKey, topicID, false); err != nil {
		return err
	}
	return s.mute(ctx, memberKey, topicID, true, gone...)
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

// mute adds topicID to memberKey's muted topics (on) or takes it off,
// on their "mark all read" row, at its ETag; the topics drop (deleted
// ones) go in the same write.
func (s *Service) mute(ctx context.Context, memberKey, topicID string, on bool, drop ...string) error {
	_, err := storage.Modify(ctx, s.reads, memberKey, markAllKey, func(r *ReadRow, exists bool) error {
		list := slices.DeleteFunc(mutedList(r.Muted), func(id string) bool { return slices.Contains(drop, id) })
		list, err := toggled(list, slices.Index(list, topicID), on, maxMuted, ErrTooManyMuted, func() string { return topicID })
		if err != nil {
			return err
		}
		r.Muted, err = jsonList(list)
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

// mutedList reads a "mark all read" row's Muted or MutedSections; a
// value it cannot read counts as none.
func mutedList(text string) []string {
	var list []string
	if text != "" {
		_ = json.Unmarshal([]byte(text), &list)
	}
	return list
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
	return slices.Contains(mutedList(r.Muted), t.PartitionKey) || slices.Contains(mutedList(r.MutedSections), t.Section)
}

// Level reports memberKey's level for topicID, given their Reader
// (muted) and a point read of their watcher row.
func (s *Service) Level(ctx context.Context, rd Reader, topicID string) (Level, error) {
	switch {
	case rd.MemberKey == "":
		return Normal, nil
	case rd.Muted[topicID]:
		return Muted, nil
	}
	_, err := storage.Get[WatcherRow](ctx, s.posts, topicID, watcherPrefix+rd.MemberKey)
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

// SectionWatcherRow is someone who watches a section.
type SectionWatcherRow struct {
	PartitionKey string    `table:"PartitionKey"` // sectionWatchers(slug)
	RowKey       string    `table:"RowKey"`       // memberKey
	ETag         string    `table:"ETag"`
	Since        time.Time `table:"since"`
}

// SetSectionLevel sets memberKey's level for the section slug. A missing
// or archived section is ErrNoSection, and a level none of the three
// ErrBadLevel: both write nothing. As with a topic, the level going is
// undone before the new one is set.
func (s *Service) SetSectionLevel(ctx context.Context, memberKey, slug string, level Level) error {
	if level != Watching && level != Normal && level != Muted {
		return ErrBadLevel
	}
	if _, err := s.Section(ctx, slug); err != nil {
		return err
	}
	if level != Muted {
		if err := s.muteSection(ctx, memberKey, slug, false); err != nil {
			return err
		}
		return s.sectionWatchRow(ctx, memberKey, slug, level == Watching)
	}
	if err := s.sectionWatchRow(ctx, memberKey, slug, false); err != nil {
		return err
	}
	return s.muteSection(ctx, memberKey, slug, true)
}

// sectionWatchRow writes (on) or deletes memberKey's watcher row of the
// section slug.
func (s *Service) sectionWatchRow(ctx context.Context, memberKey, slug string, on bool) error {
	if !on {
		err := s.sections.Delete(ctx, sectionWatchers(slug), memberKey, storage.AnyETag)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return err
	}
	_, err := storage.Insert(ctx, s.sections, SectionWatcherRow{PartitionKey: sectionWatchers(slug), RowKey: memberKey, Since: s.now().UTC()})
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	return err
}

// muteSection adds slug to memberKey's muted sections (on) or takes it
// off, on their "mark all read" row, at its ETag.
func (s *Service) muteSection(ctx context.Context, memberKey, slug string, on bool) error {
	_, err := storage.Modify(ctx, s.reads, memberKey, markAllKey, func(r *ReadRow, exists bool) error {
		list := mutedList(r.MutedSections)
		list, err := toggled(list, slices.Index(list, slug), on, maxMutedSections, ErrTooManyMuted, func() string { return slug })
		if err != nil {
			return err
		}
		r.MutedSections, err = jsonList(list)
		return err
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return err
}

// SectionLevel reports memberKey's level for the section slug, given
// their Reader (muted) and a point read of their watcher row.
func (s *Service) SectionLevel(ctx context.Context, rd Reader, slug string) (Level, error) {
	switch {
	case rd.MemberKey == "":
		return Normal, nil
	case rd.MutedSections[slug]:
		return Muted, nil
	}
	_, err := storage.Get[SectionWatcherRow](ctx, s.sections, sectionWatchers(slug), rd.MemberKey)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return Normal, nil
	case err != nil:
		return "", err
	}
	return Watching, nil
}

// tellSectionWatchers tells the watchers of t's section, but its author,
// of the new topic t (its first post p).
func (s *Service) tellSectionWatchers(ctx context.Context, by Person, sectionName string, t TopicRow, p PostRow) {
	if s.notifier == nil {
		return
	}
	rows, _, err := storage.Take[SectionWatcherRow](ctx, s.sections, storage.Query{PartitionKey: sectionWatchers(t.Section)}, maxWatchers)
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
	err = s.notifier.Post(ctx, inbox.Notice{
		To:   to,
		Kind: "forum.notify.new_topic",
		Args: map[string]string{"name": by.Name, "topic": t.Title, "section": sectionName, "preview": richtext.Plain(p.Body, 140)},
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

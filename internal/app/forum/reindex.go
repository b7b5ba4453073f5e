package forum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// RebuildReport is what `web reindex forum` did.
type RebuildReport struct {
	Topics   int // topics whose counts were corrected from their posts
	Index    projection.Report
	Titles   projection.Report
	Sections int // sections whose counters were corrected
	// Footprints are the members' footprints found and written again.
	Footprints *memberdata.Recorder
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("%d topics recounted; activity index: %s; title search: %s; %d sections recounted; %s", r.Topics, r.Index, r.Titles, r.Sections, r.Footprints)
}

// Seed marks the members' footprints complete on a new store
// (memberdata.Footprints.Start; on a store of before, the job
// forum-footprints reads the topics for them) (platform.Seeder).
func (s *Service) Seed(ctx context.Context) error {
	return s.marks.Start(ctx, func(ctx context.Context) (bool, error) {
		return memberdata.Empty(ctx, s.posts, storage.Query{Scan: true, Select: []string{"RowKey"}})
	})
}

// Jobs are the forum's background work: the reading of the topics of
// before for members' footprints (once).
func (s *Service) Jobs() []jobs.Job {
	return []jobs.Job{s.marks.Job("forum-footprints", s.footprintsOf, s.log)}
}

// footprintsOf reads the topics' rows for the footprints they imply
// (memberdata.Footprints): each topic a member opened, replied in,
// liked a post of, voted in the poll of, watched or took part in. It
// reads the whole posts' table once, its authors' column.
func (s *Service) footprintsOf(ctx context.Context, add func(memberKey, topicID string)) error {
	return s.posts.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"authorKey"}}, func(e storage.Entity) error {
		who, _ := e.Props["authorKey"].(string)
		switch rk := e.RowKey; {
		case strings.HasPrefix(rk, "l|"): // likeKey: l|{num}|{memberKey}
			if _, after, ok := strings.Cut(rk[2:], "|"); ok {
				who = after
			}
		case strings.HasPrefix(rk, watcherPrefix):
			who = rk[len(watcherPrefix):]
		case strings.HasPrefix(rk, participantPrefix):
			who = rk[len(participantPrefix):]
		case strings.HasPrefix(rk, votePrefix):
			who = rk[len(votePrefix):]
		}
		add(who, e.PartitionKey)
		return nil
	})
}

// RebuildSubject and Rebuild make the forum's derived rows one of the
// app's rebuilds (web reindex forum, the admin button).
func (s *Service) RebuildSubject() string { return "forum" }

// Rebuild recounts each topic's head from its posts (recountTopics),
// then recomputes TopicActivityIndex from the heads (missing and stale
// rows written, orphans deleted), then each section's topic count and
// last activity from the same heads, and last writes the members'
// footprints the topics' rows imply and are missing (footprintsOf).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	var rep RebuildReport
	var err error
	if rep.Topics, err = s.recountTopics(ctx); err != nil {
		return rep, err
	}
	if rep.Index, err = s.index.Rebuild(ctx); err != nil {
		return rep, err
	}
	if rep.Titles, err = s.titles.Rebuild(ctx); err != nil {
		return rep, err
	}
	type count struct {
		topics int
		last   TopicRow
	}
	counts := map[string]*count{}
	err = s.posts.QueryAll(ctx, storage.Query{Scan: true, RowKeyFrom: headKey, RowKeyTo: headKey + "\x00"}, func(e storage.Entity) error {
		if e.RowKey != headKey {
			return nil
		}
		var t TopicRow
		if err := storage.Unmarshal(e, &t); err != nil {
			return err
		}
		if t.Deleted {
			return nil
		}
		c := counts[t.Section]
		if c == nil {
			c = &count{}
			counts[t.Section] = c
		}
		c.topics++
		if t.LastActivityAt.After(c.last.LastActivityAt) {
			c.last = t
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	sections, err := s.Sections(ctx, true)
	if err != nil {
		return rep, err
	}
	for _, sec := range sections {
		c := counts[sec.RowKey]
		if c == nil {
			c = &count{}
		}
		changed := false
		_, err := storage.Change(ctx, s.sections, sectionsPart, sec.RowKey, storage.ErrNoChange, func(r *SectionRow) error {
			var want *time.Time
			if c.topics > 0 {
				at := c.last.LastActivityAt
				want = &at
			}
			if r.Topics == c.topics && (want == nil) == (r.LastActivityAt == nil) && (want == nil || want.Equal(*r.LastActivityAt)) {
				return storage.ErrNoChange
			}
			r.Topics, r.LastActivityAt, r.LastTopicID, r.LastTopicTitle, changed = c.topics, want, c.last.PartitionKey, c.last.Title, true
			return nil
		})
		if err != nil {
			return rep, err
		}
		if changed {
			rep.Sections++
		}
	}
	rep.Footprints, err = s.marks.Record(ctx, s.footprintsOf)
	return rep, err
}

// recountTopics puts each topic's counts back in step with its posts:
// the highest post number, the visible replies, Recent (the opening post
// and the newest visible replies) and the last activity, which a hide, a
// delete or a reply changes in a write after the post's own (a crash in
// between leaves them behind). One scan of the posts, then a write at
// its ETag of each head that differs; it returns how many did.
func (s *Service) recountTopics(ctx context.Context) (int, error) {
	type tally struct {
		posts, replies int
		recent         string
	}
	tallies := map[string]*tally{}
	err := s.posts.QueryAll(ctx, storage.Query{Scan: true, RowKeyFrom: postPrefix, RowKeyTo: storage.PrefixEnd(postPrefix)}, func(e storage.Entity) error {
		var p PostRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		t := tallies[p.PartitionKey]
		if t == nil {
			t = &tally{}
			tallies[p.PartitionKey] = t
		}
		t.posts = max(t.posts, p.Num)
		// The opening post stays in Recent folded or not (Hide).
		if p.DeletedAt != nil || p.Hidden && p.Num != 1 {
			return nil
		}
		if p.Num > 1 {
			t.replies++
		}
		t.recent = withPost(t.recent, p.Num, p.CreatedAt)
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for id, t := range tallies {
		changed := false
		_, err := storage.Change(ctx, s.posts, id, headKey, storage.ErrNoChange, func(h *TopicRow) error {
			last, ok := newest(t.recent)
			if h.Deleted || !ok || h.Posts == t.posts && h.Replies == t.replies && sameRecent(h.Recent, t.recent) && h.LastActivityAt.Equal(last.At) {
				return storage.ErrNoChange
			}
			h.Posts, h.Replies, h.Recent, h.LastActivityAt, changed = t.posts, t.replies, t.recent, last.At, true
			return nil
		})
		if err != nil && !errors.Is(err, storage.ErrNoChange) {
			return n, err
		}
		if changed {
			n++
		}
	}
	return n, nil
}

// sameRecent reports whether two Recents name the same posts at the same
// times as stored (to 100 ns: a live write keeps its clock's nanoseconds,
// a post's stored time does not).
func sameRecent(a, b string) bool {
	return slices.EqualFunc(parseRecent(a), parseRecent(b), func(x, y recentPost) bool {
		return x.Num == y.Num && x.At.Truncate(100*time.Nanosecond).Equal(y.At.Truncate(100*time.Nanosecond))
	})
}

// RepairTopic rewrites one topic's index rows from its stored head.
func (s *Service) RepairTopic(ctx context.Context, topicID string) error {
	return s.index.Repair(ctx, topicID, headKey)
}

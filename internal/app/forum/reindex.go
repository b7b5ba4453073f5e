package forum

import (
	"context"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// RebuildReport is what `web reindex forum` did.
type RebuildReport struct {
	Index    projection.Report
	Titles   projection.Report
	Sections int // sections whose counters were corrected
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("activity index: %s; title search: %s; %d sections recounted", r.Index, r.Titles, r.Sections)
}

// RebuildSubject and Rebuild make the forum's derived rows one of the
// app's rebuilds (web reindex forum, the admin button).
func (s *Service) RebuildSubject() string { return "forum" }

// Rebuild recomputes TopicActivityIndex from the topics' heads (missing
// and stale rows written, orphans deleted), then each section's topic
// count and last activity from the same heads.
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	var rep RebuildReport
	var err error
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
	return rep, nil
}

// RepairTopic rewrites one topic's index rows from its stored head.
func (s *Service) RepairTopic(ctx context.Context, topicID string) error {
	return s.index.Repair(ctx, topicID, headKey)
}

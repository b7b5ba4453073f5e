package forum

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Reading. Each person has a marker per topic they opened (ForumReads,
// PK their memberKey, RK the topic): the highest post number they have
// seen. It only moves forward, so a stale tab cannot take it back; "mark
// unread from here" is the one way back, on purpose. "Mark all read" is
// one row (RK "all") holding when: a post older than that is read for
// them, whatever their markers say, so a reply after it counts as one
// new post, not the whole topic. Unread counts are worked out from a
// topic's Recent (its newest visible posts), so nothing is written to
// anyone when someone posts, and hidden or deleted posts never count.

// cutoff bounds what counts as unread or new: topics with no activity in
// the last cutoff are read for everyone (as NodeBB does).
const cutoff = 14 * 24 * time.Hour

// markRead moves memberKey's marker in topicID forward to num: they
// read the topic's page (or wrote its opening post). A failure is
// logged: the page was served.
func (s *Service) markRead(ctx context.Context, memberKey, topicID string, num int) {
	_, err := storage.Modify(context.WithoutCancel(ctx), s.reads, memberKey, topicID, func(r *ReadRow, exists bool) error {
		if exists && r.ReadNum >= num && !r.PostedOnly {
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		r.ReadNum, r.At, r.PostedOnly = max(r.ReadNum, num), &now, false
		return nil
	})
	if err != nil {
		s.log.WarnContext(ctx, "forum: read marker not moved", "topic", topicID, "err", err)
	}
}

// markPosted moves memberKey's marker in topicID forward to num, their
// own reply, so it never counts as unread for them. Someone who never
// opened the topic has still not read what came before it (PostedOnly).
func (s *Service) markPosted(ctx context.Context, memberKey, topicID string, num int) {
	_, err := storage.Modify(context.WithoutCancel(ctx), s.reads, memberKey, topicID, func(r *ReadRow, exists bool) error {
		if exists && r.ReadNum >= num {
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		r.PostedOnly = r.At == nil || r.PostedOnly
		r.ReadNum, r.At = num, &now
		return nil
	})
	if err != nil {
		s.log.WarnContext(ctx, "forum: read marker not moved", "topic", topicID, "err", err)
	}
}

// markReadKnown is markRead when the caller has just read the marker
// row (m; known says it exists): one conditional write and no second
// read; if someone wrote it in between, markRead reads it again.
func (s *Service) markReadKnown(ctx context.Context, memberKey, topicID string, num int, m ReadRow, known bool) {
	if known && m.ReadNum >= num && !m.PostedOnly {
		return
	}
	now := s.now().UTC()
	m.PartitionKey, m.RowKey, m.ReadNum, m.At, m.PostedOnly = memberKey, topicID, max(m.ReadNum, num), &now, false
	var err error
	if known {
		_, err = storage.Update(context.WithoutCancel(ctx), s.reads, m, m.ETag)
	} else {
		_, err = storage.Insert(context.WithoutCancel(ctx), s.reads, m)
	}
	if err != nil {
		s.markRead(ctx, memberKey, topicID, num)
	}
}

// MarkUnread sets memberKey's marker in topicID back to just before num.
func (s *Service) MarkUnread(ctx context.Context, memberKey, topicID string, num int) error {
	t, err := s.Head(ctx, topicID)
	if err != nil {
		return err
	}
	if num < 1 || num > t.Posts {
		return ErrNoPost
	}
	_, err = storage.Modify(ctx, s.reads, memberKey, topicID, func(r *ReadRow, _ bool) error {
		now := s.now().UTC()
		r.ReadNum, r.At, r.PostedOnly = num-1, &now, false
		return nil
	})
	return err
}

// MarkAllRead makes everything up to now read for memberKey: one write,
// which also forgets the sections marked read on their own before. It
// merges, so the row's muted topics and sections stay.
func (s *Service) MarkAllRead(ctx context.Context, memberKey string) error {
	now := s.now().UTC()
	_, err := s.reads.Upsert(ctx, storage.Entity{PartitionKey: memberKey, RowKey: markAllKey, Props: map[string]any{"at": now, "sections": ""}}, storage.Merge)
	return err
}

// MarkSectionRead makes everything in the section slug up to now read
// for memberKey, as Discourse's "dismiss" does for a category. It is kept
// on their "mark all read" row, so pages read nothing more to know it: a
// read and a write at its ETag. An unknown or archived section is
// ErrNoSection, and writes nothing.
func (s *Service) MarkSectionRead(ctx context.Context, memberKey, slug string) error {
	if _, err := s.Section(ctx, slug); err != nil {
		return err
	}
	now := s.now().UTC()
	_, err := storage.Modify(ctx, s.reads, memberKey, markAllKey, func(r *ReadRow, _ bool) error {
		marks := sectionMarks(r.Sections)
		marks[slug] = now
		// A section marked before the last "mark all read" adds nothing.
		for k, at := range marks {
			if r.At != nil && !at.After(*r.At) {
				delete(marks, k)
			}
		}
		b, err := json.Marshal(marks)
		r.Sections = string(b)
		return err
	})
	return err
}

// sectionMarks reads a "mark all read" row's Sections; a value it cannot
// read counts as none (the person marks the section again).
func sectionMarks(text string) map[string]time.Time {
	marks := map[string]time.Time{}
	if text != "" {
		_ = json.Unmarshal([]byte(text), &marks)
	}
	return marks
}

// DismissPin hides topicID's pin for memberKey.
func (s *Service) DismissPin(ctx context.Context, memberKey, topicID string) error {
	if _, err := s.Head(ctx, topicID); err != nil {
		return err
	}
	_, err := storage.Modify(ctx, s.reads, memberKey, topicID, func(r *ReadRow, _ bool) error {
		if r.Dismissed {
			return storage.ErrNoChange
		}
		r.Dismissed = true
		return nil
	})
	return err
}

// Reader is what a page knows of one person's reading: their "mark all
// read" time, when they marked sections read on their own, and their
// markers of the topics it shows.
type Reader struct {
	MemberKey string
	AllAt     time.Time
	SectionAt map[string]time.Time
	Markers   map[string]ReadRow
	// Muted and MutedSections are the topics and the sections they
	// muted (watch.go).
	Muted         map[string]bool
	MutedSections map[string]bool
}

// readUpTo is when everything in section was marked read: "mark all
// read", or the section's own, whichever came later.
func (r Reader) readUpTo(section string) time.Time {
	if at, ok := r.SectionAt[section]; ok && at.After(r.AllAt) {
		return at
	}
	return r.AllAt
}

// reader reads memberKey's "mark all read" and their markers of topics,
// each a point read, in parallel (a page shows a bounded number).
func (s *Service) reader(ctx context.Context, memberKey string, topics []string) (Reader, error) {
	return s.readMarkers(ctx, memberKey, topics, true)
}

// readMarkers is reader, with the "mark all read" row only when all.
func (s *Service) readMarkers(ctx context.Context, memberKey string, topics []string, all bool) (Reader, error) {
	r := Reader{MemberKey: memberKey, Markers: map[string]ReadRow{}}
	if memberKey == "" {
		return r, nil
	}
	keys := topics
	if all {
		keys = append([]string{markAllKey}, topics...)
	}
	rows := make([]ReadRow, len(keys))
	found := make([]bool, len(keys))
	err := storage.Each(ctx, len(keys), 8, func(ctx context.Context, i int) error {
		var err error
		rows[i], err = storage.Get[ReadRow](ctx, s.reads, memberKey, keys[i])
		found[i] = err == nil
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return Reader{}, err
	}
	for i, k := range keys {
		switch {
		case !found[i]:
		case k == markAllKey:
			if rows[i].At != nil {
				r.AllAt = *rows[i].At
			}
			r.SectionAt = sectionMarks(rows[i].Sections)
			r.Muted, r.MutedSections = setOf(storage.ListOf[string](rows[i].Muted)), setOf(storage.ListOf[string](rows[i].MutedSections))
		default:
			r.Markers[k] = rows[i]
		}
	}
	return r, nil
}

// Unread is what a reader has not read of a topic: N posts (More: there
// may be more than Recent holds), or New when they never opened it.
type Unread struct {
	N    int
	More bool
	New  bool
}

// unreadOf works out a's unread posts for r at now.
func (r Reader) unreadOf(a ActivityRow, now time.Time) Unread {
	if r.MemberKey == "" || now.Sub(a.LastActivityAt) > cutoff || r.Muted[a.TopicID] || r.MutedSections[a.Section] {
		return Unread{}
	}
	upTo := r.readUpTo(a.Section)
	m, ok := r.Markers[a.TopicID]
	if !ok || m.At == nil {
		// Never opened (a dismissed pin leaves a row without a time).
		if a.CreatedAt.After(upTo) {
			return Unread{New: true}
		}
		// Older than "mark all read": what came after it.
		n, more := unreadIn(a.Recent, 0, upTo)
		return Unread{N: n, More: more}
	}
	n, more := unreadIn(a.Recent, m.ReadNum, upTo)
	return Unread{N: n, More: more}
}

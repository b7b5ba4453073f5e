package forum

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Moderation: admins and a section's moderators pin topics (until a
// date, judged when read: no job unpins), lock them (replies from staff
// only), set slow mode, move them between sections, and hide or delete
// posts. Every action writes a ModerationLog row. Members report posts to
// the admins' moderation queue (reports.go).

// maxSlowSeconds bounds slow mode (a day).
const maxSlowSeconds = 86400

// requireStaff refuses by unless they moderate section.
func (s *Service) requireStaff(ctx context.Context, by Person, section string) error {
	ok, err := s.IsStaff(ctx, by, section)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotStaff
	}
	return nil
}

// logAction writes a ModerationLog row of by's action on t (post num, 0
// for the topic).
func (s *Service) logAction(ctx context.Context, by Person, action string, t TopicRow, num int) {
	if s.modlog == nil {
		return
	}
	target, kind := t.PartitionKey, "topic"
	if num > 0 {
		target, kind = t.PartitionKey+"#"+strconv.Itoa(num), "post"
	}
	err := s.modlog.LogAction(context.WithoutCancel(ctx), LogEntry{ActorKey: by.MemberKey, ActorName: by.Name, Action: action, TargetType: kind, TargetKey: target, TargetName: t.Title})
	if err != nil {
		s.log.ErrorContext(ctx, "forum: moderation not logged", "action", action, "topic", t.PartitionKey, "err", err)
	}
}

// moderate applies f to topicID's head as by, who must moderate its
// section, and logs action.
func (s *Service) moderate(ctx context.Context, by Person, topicID, action string, f func(t *TopicRow) error) (TopicRow, TopicRow, error) {
	t, err := s.Head(ctx, topicID)
	if err != nil {
		return TopicRow{}, TopicRow{}, err
	}
	if err := s.requireStaff(ctx, by, t.Section); err != nil {
		return TopicRow{}, TopicRow{}, err
	}
	before, after, err := s.changeHead(ctx, topicID, f)
	if err != nil {
		return before, after, err
	}
	s.logAction(ctx, by, action, after, 0)
	return before, after, nil
}

// Pin pins a topic to the top of its section, until a time (nil: until
// unpinned), or unpins it.
func (s *Service) Pin(ctx context.Context, by Person, topicID string, pinned bool, until *time.Time) error {
	action := map[bool]string{true: "forum.pin", false: "forum.unpin"}[pinned]
	_, _, err := s.moderate(ctx, by, topicID, action, func(t *TopicRow) error {
		t.Pinned, t.PinUntil = pinned, nil
		if pinned && until != nil {
			u := until.UTC()
			t.PinUntil = &u
		}
		return nil
	})
	return err
}

// Lock stops replies but staff's, or lets them again.
func (s *Service) Lock(ctx context.Context, by Person, topicID string, locked bool) error {
	action := map[bool]string{true: "forum.lock", false: "forum.unlock"}[locked]
	_, _, err := s.moderate(ctx, by, topicID, action, func(t *TopicRow) error {
		if t.Locked == locked {
			return storage.ErrNoChange
		}
		t.Locked = locked
		return nil
	})
	return err
}

// SlowMode sets one reply per person per seconds (0: off).
func (s *Service) SlowMode(ctx context.Context, by Person, topicID string, seconds int) error {
	if seconds < 0 || seconds > maxSlowSeconds {
		return FormErrors{"slow": "forum.error.slow"}
	}
	_, _, err := s.moderate(ctx, by, topicID, "forum.slow_mode", func(t *TopicRow) error {
		t.SlowSeconds = seconds
		return nil
	})
	return err
}

// Move puts a topic in another open section; both sections' counts
// follow. by must moderate both.
func (s *Service) Move(ctx context.Context, by Person, topicID, to string) error {
	if _, err := s.Section(ctx, to); err != nil {
		return FormErrors{"section": "forum.error.section"}
	}
	if err := s.requireStaff(ctx, by, to); err != nil {
		return err
	}
	before, after, err := s.moderate(ctx, by, topicID, "forum.move", func(t *TopicRow) error {
		if t.Section == to {
			return storage.ErrNoChange
		}
		t.Section = to
		return nil
	})
	if err != nil || before.Section == after.Section {
		return err
	}
	s.countSection(ctx, before.Section, -1, after)
	s.countSection(ctx, after.Section, 1, after)
	s.moveReports(ctx, topicID, to)
	return nil
}

// rescopeLater is when the queued rescope of a moved topic's reports
// runs, in case the one at the move did not (moveReports).
const rescopeLater = time.Minute

// rescopeTask is a moved topic whose posts' open reports go to its
// section's moderators.
type rescopeTask struct{ TopicID string }

// moveReports takes a moved topic's posts' open reports to its new
// section's moderators, so they judge them and the old section's no
// longer may. The move is saved already: a task is queued first (due in
// rescopeLater), so a failure here, or the process stopping, leaves
// the work to it; then the reports move at once.
func (s *Service) moveReports(ctx context.Context, topicID, to string) {
	if s.Reports == nil {
		return
	}
	s.rescopes.Later(ctx, s.now().Add(rescopeLater), topicID+"|"+to, rescopeTask{TopicID: topicID}, s.log, "forum: a moved topic's reports not queued", "topic", topicID)
	if err := s.Reports.Rescope(ctx, postKind, topicID+"#", sectionScope(to)); err != nil {
		s.log.WarnContext(ctx, "forum: a moved topic's reports wait for their task", "topic", topicID, "err", err)
	}
}

// rescope runs a rescopeTask: the reports go to the section the topic
// is in when it runs, so of two quick moves the last wins.
func (s *Service) rescope(ctx context.Context, t rescopeTask) error {
	head, err := s.Head(ctx, t.TopicID)
	if errors.Is(err, ErrNoTopic) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.Reports.Rescope(ctx, postKind, t.TopicID+"#", sectionScope(head.Section))
}

package forum

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// Writing. A topic is one ForumPosts partition: its head row and its
// posts, numbered from 1 (the opening post). A reply reads the head,
// then inserts post Posts+1 and updates the head in one transaction at
// the head's ETag; a concurrent reply makes it fail and try again, so
// numbers are dense and the counters always match the rows. Every other
// change of a topic (hide, delete, pin, lock, move) is also a write at
// the head's ETag.
//
// The activity index follows the head (the projection kit: written
// after it, repaired by `web reindex forum`), and so does the section's
// row (topic count, last activity), by a conditional write. A writer
// that finds the head moved on by the time its index rows are written
// brings them to the stored head, so concurrent writers leave one row
// per topic, at its latest place.

// Form rules (the issue's: a title of 3–200 characters, a body of
// 1–20,000).
var (
	titleRule = formrule.Text{Max: 200, Required: true}
	bodyRule  = formrule.Text{Max: 20000, Required: true, Multiline: true}
)

const titleMin = 3

// writeAttempts bounds a reply's retries when others reply at once.
const writeAttempts = 200

// FormErrors maps a form's field to the i18n key of its problem (422).
type FormErrors = formrule.FieldErrors

// checkTitle and checkBody clean and check what was typed.
func checkTitle(title string, errs FormErrors) string {
	title, p := titleRule.Check(title)
	switch {
	case p != formrule.OK:
		errs["title"] = "forum.error.title"
	case len([]rune(title)) < titleMin:
		errs["title"] = "forum.error.title"
	}
	return title
}

func checkBody(body string, errs FormErrors) string {
	body, p := bodyRule.Check(body)
	if p != formrule.OK {
		errs["body"] = "forum.error.body"
	}
	return body
}

// newTopicID is a topic id: a ULID at now.
func newTopicID(now time.Time) string {
	return ulid.MustNew(ulid.Timestamp(now), rand.Reader).String()
}

// Head reads a topic's head; a missing or deleted topic is ErrNoTopic.
func (s *Service) Head(ctx context.Context, topicID string) (TopicRow, error) {
	if !storage.IsID(topicID) {
		return TopicRow{}, ErrNoTopic
	}
	t, err := storage.Get[TopicRow](ctx, s.posts, topicID, headKey)
	if errors.Is(err, storage.ErrNotFound) || err == nil && t.Deleted {
		return TopicRow{}, ErrNoTopic
	}
	return t, err
}

// CreateTopic opens a topic in section with its first post.
func (s *Service) CreateTopic(ctx context.Context, by Person, section, title, body string) (TopicRow, error) {
	return s.CreatePollTopic(ctx, by, section, title, body, PollDraft{})
}

// CreatePollTopic opens a topic in section with its first post and the
// poll d (none when both its fields are blank), in one transaction.
func (s *Service) CreatePollTopic(ctx context.Context, by Person, section, title, body string, d PollDraft) (TopicRow, error) {
	errs := FormErrors{}
	title, body = checkTitle(title, errs), checkBody(body, errs)
	poll := pollOf(d, errs, s.now())
	if len(errs) > 0 {
		return TopicRow{}, errs
	}
	sec, err := s.Section(ctx, section)
	if err != nil {
		return TopicRow{}, err
	}
	if err := s.limitNewcomer(ctx, by, "topic", body); err != nil {
		return TopicRow{}, err
	}
	// Staff keep no pace in their sections, as for replies.
	if !isStaffOf(by, sec) {
		if err := s.limitPace(ctx, by, "topic"); err != nil {
			return TopicRow{}, err
		}
	}
	now := s.now().UTC()
	id := newTopicID(now)
	t := TopicRow{PartitionKey: id, RowKey: headKey, AuthorKey: by.MemberKey, Summary: Summary{
		Section: section, Title: title, AuthorName: by.Name,
		Posts: 1, LastActivityAt: now, LastAuthorName: by.Name, Recent: withPost("", 1, now), CreatedAt: now,
	}}
	p := PostRow{PartitionKey: id, RowKey: postKey(1), Num: 1, AuthorKey: by.MemberKey, AuthorName: by.Name, Body: body, CreatedAt: now}
	if err := s.intend(&t); err != nil {
		return TopicRow{}, err
	}
	if err := s.marks.Mark(ctx, by.MemberKey, id); err != nil {
		return TopicRow{}, err
	}
	var tx storage.Tx
	if poll != nil {
		t.HasPoll = true
		poll.PartitionKey, poll.CreatedAt = id, now
		tx.Insert(*poll)
	}
	if err := tx.Insert(t).Insert(p).Upsert(participant(id, by)).Commit(ctx, s.posts); err != nil {
		return TopicRow{}, err
	}
	t, err = s.Head(ctx, id)
	if err != nil {
		return TopicRow{}, err
	}
	s.followHead(ctx, nil, &t)
	s.followTitle(ctx, nil, &t)
	s.countSection(ctx, section, 1, t)
	s.counts.Add(ctx, NewTopics)
	s.markRead(ctx, by.MemberKey, id, 1)
	s.published(ctx, t)
	s.tellMentioned(ctx, by, t, p)
	s.tellSectionWatchers(context.WithoutCancel(ctx), by, sec, t, p)
	return t, nil
}

// ErrSlowMode refuses a reply inside the topic's slow mode (429); Wait
// says how long is left.
type ErrSlowMode struct{ Wait time.Duration }

func (e ErrSlowMode) Error() string { return "forum: slow mode" }

// Reply adds a post to a topic. A locked topic takes replies from staff
// only; slow mode limits everyone else.
func (s *Service) Reply(ctx context.Context, by Person, topicID, body string) (PostRow, error) {
	errs := FormErrors{}
	body = checkBody(body, errs)
	if len(errs) > 0 {
		return PostRow{}, errs
	}
	t, err := s.Head(ctx, topicID)
	if err != nil {
		return PostRow{}, err
	}
	staff, err := s.IsStaff(ctx, by, t.Section)
	if err != nil {
		return PostRow{}, err
	}
	if t.Locked && !staff {
		return PostRow{}, ErrLocked
	}
	if !staff {
		if err := s.limitSlowMode(ctx, by, t); err != nil {
			return PostRow{}, err
		}
		if err := s.limitNewcomer(ctx, by, "reply", body); err != nil {
			return PostRow{}, err
		}
		if err := s.limitPace(ctx, by, "reply"); err != nil {
			return PostRow{}, err
		}
	}
	if err := s.marks.Mark(ctx, by.MemberKey, topicID); err != nil {
		return PostRow{}, err
	}
	var before, after TopicRow
	var out PostRow
	// The first attempt uses the head just read; a retry reads it again.
	h, first := t, true
	err = storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		if !first {
			var err error
			if h, err = s.Head(ctx, topicID); err != nil {
				return err
			}
		}
		first = false
		if h.Locked && !staff {
			return ErrLocked
		}
		before = h
		now := s.now().UTC()
		p := PostRow{PartitionKey: topicID, RowKey: postKey(h.Posts + 1), Num: h.Posts + 1, AuthorKey: by.MemberKey, AuthorName: by.Name, Body: body, CreatedAt: now}
		h.Posts, h.Replies, h.LastActivityAt, h.LastAuthorName = p.Num, h.Replies+1, now, by.Name
		h.Recent = withPost(h.Recent, p.Num, now)
		if err := s.intend(&h); err != nil {
			return err
		}
		var tx storage.Tx
		if err := tx.Replace(h, h.ETag).Insert(p).Upsert(participant(topicID, by)).Commit(ctx, s.posts); err != nil {
			return err
		}
		after, out = h, p
		return nil
	})
	if err != nil {
		return PostRow{}, err
	}
	s.followHead(ctx, &before, &after)
	s.countSection(ctx, t.Section, 0, after)
	s.counts.Add(ctx, NewReplies)
	s.markPosted(ctx, by.MemberKey, topicID, out.Num)
	s.published(ctx, after)
	s.tellMentioned(ctx, by, after, out)
	return out, nil
}

// changeHead applies f to a topic's head at its ETag (f returning
// storage.ErrNoChange writes nothing), then brings the index and the
// section in step.
func (s *Service) changeHead(ctx context.Context, topicID string, f func(t *TopicRow) error) (before, after TopicRow, err error) {
	unchanged := false
	after, err = storage.Change(ctx, s.posts, topicID, headKey, ErrNoTopic, func(t *TopicRow) error {
		if t.Deleted {
			return ErrNoTopic
		}
		before = *t
		err := f(t)
		if unchanged = errors.Is(err, storage.ErrNoChange); err != nil {
			return err
		}
		return s.intend(t)
	})
	if err != nil || unchanged {
		return before, after, err
	}
	s.followHead(ctx, &before, &after)
	if before.Title != after.Title || before.Section != after.Section || before.Deleted != after.Deleted {
		s.followTitle(ctx, &before, &after)
	}
	return before, after, nil
}

// intend records in a head about to be written the rows its follows
// will write (projection.Intend), so that they need not record that
// first.
func (s *Service) intend(t *TopicRow) error {
	return errors.Join(s.index.Intend(t), s.titles.Intend(t))
}

// followTitle and followHead bring a topic's title search rows and its
// activity rows in step with its head as stored (in recorded mode
// projection.Sync follows the head, which holds under any number of
// concurrent writers; before serves a head recorded by nothing yet). A
// failure is logged, not returned: the topic is written, and a rebuild
// repairs the rows.
func (s *Service) followTitle(ctx context.Context, before, after *TopicRow) {
	s.follow(ctx, s.titles, before, after, "forum: search rows not written; web reindex forum repairs them")
}

func (s *Service) followHead(ctx context.Context, before, after *TopicRow) {
	s.follow(ctx, s.index, before, after, "forum: activity rows not written; web reindex forum repairs them")
}

func (s *Service) follow(ctx context.Context, p *projection.Projection[TopicRow], before, after *TopicRow, failed string) {
	ctx = context.WithoutCancel(ctx)
	if err := p.Sync(ctx, before, after); err != nil {
		s.log.ErrorContext(ctx, failed, "topic", after.PartitionKey, "err", err)
	}
}

// ErrTooMany refuses a newcomer's write past their first day's limits
// (429).
var ErrTooMany = fault.New(http.StatusTooManyRequests, "forum.error.newcomer", "forum: a new account's limit")

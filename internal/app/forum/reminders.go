package forum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/reminder"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Bookmark reminders, as Discourse's "remind me": a bookmark may carry a
// time (reminder.Time: in two hours, tomorrow morning, next Monday
// morning, in the reader's zone), kept on the bookmark; a task due then posts a notice to
// the reader's inbox (and mail, as their settings say) and clears the
// time. Changing or clearing the reminder, or removing the bookmark,
// leaves the queued task nothing to do: it posts only for the time it
// was queued for.

// ErrNoBookmark is a reminder of a post the reader has not bookmarked
// (404).
var ErrNoBookmark = fault.NotFound("forum: no such bookmark", storage.ErrNotFound)

// reminderTask is one queued reminder: whose bookmark, and the time it
// was set for.
type reminderTask struct {
	MemberKey string
	TopicID   string
	Num       int
	At        time.Time
}

// UseTasks lets the service send bookmark reminders through q, and move a
// moved topic's reports again when the move's own try failed. Call it
// while wiring; without it reminders are kept but never sent.
func (s *Service) UseTasks(q *tasks.Queue) error {
	return errors.Join(
		tasks.Into(q, &s.reminders, "forum.bookmark-reminder", s.sendReminder),
		tasks.Into(q, &s.rescopes, "forum.rescope-reports", s.rescope),
	)
}

// Remind sets (at non-zero) or clears the reminder of memberKey's
// bookmark of post num in topicID. A post they have not bookmarked is
// ErrNoBookmark and writes nothing.
func (s *Service) Remind(ctx context.Context, memberKey, topicID string, num int, at time.Time) error {
	at = at.UTC()
	key := fmt.Sprintf("forum.remind|%s|%s|%d|%d", memberKey, topicID, num, at.Unix())
	return s.reminders.Reschedule(ctx, at, key, reminderTask{MemberKey: memberKey, TopicID: topicID, Num: num, At: at}, func() error {
		return s.changeBookmark(ctx, memberKey, topicID, num, func(b *Bookmark) error { return reminder.Set(&b.RemindAt, at) })
	})
}

// changeBookmark changes memberKey's bookmark of post num in topicID
// at its marker row's ETag; ErrNoBookmark when there is none.
func (s *Service) changeBookmark(ctx context.Context, memberKey, topicID string, num int, change func(b *Bookmark) error) error {
	_, err := storage.ModifyListItem(ctx, s.reads, memberKey, topicID, func(r *ReadRow) *string { return &r.Bookmarks },
		func(b Bookmark) bool { return b.Num == num }, ErrNoBookmark, change)
	return err
}

// sendReminder posts a due reminder, if the bookmark still asks for it
// at that time, then clears the time. The notice goes first (its key
// makes it once), so a failed clear is retried without losing it.
func (s *Service) sendReminder(ctx context.Context, t reminderTask) error {
	r, err := storage.Get[ReadRow](ctx, s.reads, t.MemberKey, t.TopicID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	asks := func(b Bookmark) bool { return b.Num == t.Num && reminder.Asks(b.RemindAt, t.At) }
	i := slices.IndexFunc(bookmarksOf(r), asks)
	if i < 0 {
		return nil // changed, cleared or removed since
	}
	due := bookmarksOf(r)[i]
	if s.notifier != nil {
		n := inbox.Notice{
			To:   []inbox.Recipient{{MemberKey: t.MemberKey}},
			Kind: "forum.notify.bookmark",
			Args: map[string]string{"topic": due.Title, "name": due.Author, "preview": due.Excerpt},
			When: t.At,
			Link: postURL(t.TopicID, t.Num),
			Key:  fmt.Sprintf("forum.reminded|%s|%s|%d|%d", t.MemberKey, t.TopicID, t.Num, t.At.Unix()),
		}
		if due.AuthorKey != "" {
			n.Names = map[string]string{"name": due.AuthorKey}
		}
		err := s.notifier.Post(ctx, n)
		if err != nil {
			return err
		}
	}
	err = s.changeBookmark(ctx, t.MemberKey, t.TopicID, t.Num, func(b *Bookmark) error { return reminder.Done(&b.RemindAt, t.At) })
	if errors.Is(err, storage.ErrNoChange) || errors.Is(err, ErrNoBookmark) {
		return nil
	}
	return err
}

// remind is POST /forum/t/:id/posts/:num/remind (when=2h|tomorrow|week|
// none): back to the bookmarks.
func (s *Service) remind(c echo.Context) error {
	t, p := topicOf(c), postOf(c)
	at, err := reminder.Time(c.FormValue("when"), s.now(), auth.From(c).Location())
	if err != nil {
		return err
	}
	if err := s.Remind(c.Request().Context(), person(c).MemberKey, t.PartitionKey, p.Num, at); err != nil {
		return err
	}
	key := "forum.flash.reminder_set"
	if at.IsZero() {
		key = "forum.flash.reminder_cleared"
	}
	return web.FlashRedirect(c, key, "/forum/bookmarks")
}

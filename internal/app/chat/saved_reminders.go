package chat

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

// Reminders of saved messages, as Slack's "Remind me about this": a
// saved message may carry a time (reminder.Time: in two hours, tomorrow
// morning, next Monday morning, in the reader's zone), kept on its mark
// (SavedMark.RemindAt); a task due then posts a notice to the reader's
// inbox ("Reminder: Tom's message in #random", mail as their settings
// say) and clears the time. It posts only for the very time it was
// queued for, and only while the message is there to read and the
// reader may still open its chat; the notice names the message, it does
// not quote it (a later deletion has nothing of it to take back).

// ErrNotSaved is a reminder of a message the reader has not saved (404).
var ErrNotSaved = fault.NotFound("chat: no such saved message", storage.ErrNotFound)

// savedReminder is one queued reminder: whose saved message, and the
// time it was set for.
type savedReminder struct {
	MemberKey string
	ChatID    string
	Seq       int64
	At        time.Time
}

// UseTasks lets the service send the reminders of saved messages through
// q. Call it while wiring; without it reminders are kept but never sent.
func (s *Service) UseTasks(q *tasks.Queue) error {
	return tasks.Into(q, &s.savedReminders, "chat.saved-reminder", s.sendSavedReminder)
}

// RemindSaved sets (at non-zero) or clears the reminder of the message
// seq of chatID that memberKey saved: ErrNotSaved when they did not, and
// nothing written when it is as asked.
func (s *Service) RemindSaved(ctx context.Context, memberKey, chatID string, seq int64, at time.Time) error {
	return s.remind(ctx, memberKey, chatID, seq, at, func(set func(m *SavedMark) error) error {
		return s.changeSaved(ctx, memberKey, chatID, seq, set)
	})
}

// RemindMessage is "Remind me about this" from a message: it saves
// message seq of ch for memberKey (whom the caller let read it) with a
// reminder at at, or sets the reminder of the one they saved, in one
// write.
func (s *Service) RemindMessage(ctx context.Context, memberKey string, ch ChatRow, seq int64, at time.Time) error {
	return s.remind(ctx, memberKey, ch.RowKey, seq, at, func(set func(m *SavedMark) error) error {
		_, err := s.mark(ctx, memberKey, ch, seq, true, set)
		return err
	})
}

// remind queues the reminder at at of memberKey's saved message seq of
// chatID (tasks.Kind.Reschedule) and writes it on the mark with write,
// given the change that sets it.
func (s *Service) remind(ctx context.Context, memberKey, chatID string, seq int64, at time.Time, write func(set func(m *SavedMark) error) error) error {
	at = at.UTC()
	key := fmt.Sprintf("chat.remind|%s|%s|%d|%d", memberKey, chatID, seq, at.Unix())
	return s.savedReminders.Reschedule(ctx, at, key, savedReminder{MemberKey: memberKey, ChatID: chatID, Seq: seq, At: at}, func() error {
		return write(func(m *SavedMark) error { return reminder.Set(&m.RemindAt, at) })
	})
}

// changeSaved changes memberKey's mark of message seq in chatID at their
// row's ETag; ErrNotSaved when there is none.
func (s *Service) changeSaved(ctx context.Context, memberKey, chatID string, seq int64, change func(m *SavedMark) error) error {
	r, err := storage.ModifyListItem(ctx, s.userChats, memberKey, chatID, func(r *UserChatRow) *string { return &r.Saved },
		func(m SavedMark) bool { return m.Seq == seq }, ErrNotSaved, change)
	if err == nil {
		s.remember(memberKey+"|"+chatID, r) // the read marker's copy
	}
	return err
}

// sendSavedReminder posts a due reminder, if the mark still asks for it
// at that time, the message is there and its reader may open its chat,
// then clears the time. The notice goes first (its key makes it once),
// so a failed clear is retried without losing it.
func (s *Service) sendSavedReminder(ctx context.Context, t savedReminder) error {
	r, err := storage.Find[UserChatRow](ctx, s.userChats, t.MemberKey, t.ChatID, nil)
	if err != nil {
		return err
	}
	asks := func(m SavedMark) bool { return m.Seq == t.Seq && reminder.Asks(m.RemindAt, t.At) }
	if !slices.ContainsFunc(storage.ListOf[SavedMark](r.Saved), asks) {
		return nil // changed, cleared or unsaved since
	}
	kind, _ := kindOf(t.ChatID)
	acc, err := s.openAs(ctx, t.MemberKey, kind, t.ChatID)
	var m MessageRow
	if err == nil {
		m, err = s.log.Message(ctx, t.ChatID, t.Seq)
	}
	switch {
	case errors.Is(err, ErrNoChat) || errors.Is(err, ErrNoMessage) || err == nil && m.DeletedAt != nil:
		// Nothing to be reminded of: the time goes, no notice.
	case err != nil:
		return err
	case s.notifier != nil:
		n := inbox.Notice{
			To:    []inbox.Recipient{{MemberKey: t.MemberKey}},
			Kind:  "chat.notify.saved",
			Args:  map[string]string{"name": m.SenderName, "chat": acc.Title},
			Names: map[string]string{"name": m.Sender},
			When:  t.At,
			Link:  messageURL(t.ChatID, t.Seq),
			Key:   fmt.Sprintf("chat.reminded|%s|%s|%d|%d", t.MemberKey, t.ChatID, t.Seq, t.At.Unix()),
		}
		if acc.Other != "" {
			n.Names["chat"] = acc.Other // a private chat is named after its other person
		}
		if err := s.notifier.Post(ctx, n); err != nil {
			return err
		}
	}
	err = s.changeSaved(ctx, t.MemberKey, t.ChatID, t.Seq, func(m *SavedMark) error { return reminder.Done(&m.RemindAt, t.At) })
	if errors.Is(err, storage.ErrNoChange) || errors.Is(err, ErrNotSaved) {
		return nil
	}
	return err
}

// remindSaved is POST /chat/saved/remind (chat, seq, when: one of
// reminder.Choices): back to the list.
func (s *Service) remindSaved(c echo.Context) error {
	ctx, id := c.Request().Context(), auth.From(c)
	chatID, seq, err := savedOfForm(c)
	if err != nil {
		return err
	}
	at, err := reminder.Time(c.FormValue("when"), s.now(), id.Location())
	if err != nil {
		return err
	}
	if err := s.RemindSaved(ctx, id.MemberKey, chatID, seq, at); err != nil {
		return err
	}
	return web.FlashRedirect(c, reminderFlash(at), web.NextOr(c, SavedURL))
}

// remindMessage is POST /chat/:id/messages/:seq/remind (when: one of
// reminder.Choices), "Remind me about this" in a message's menu: a
// message shown is saved with the reminder, if it was not saved;
// "none" takes the reminder off one saved. Back to the message.
func (s *Service) remindMessage(c echo.Context) error {
	ctx, acc, id := c.Request().Context(), accessOf(c), auth.From(c)
	at, err := reminder.Time(c.FormValue("when"), s.now(), id.Location())
	if err != nil {
		return err
	}
	m, err := s.log.Message(ctx, acc.Chat.RowKey, seqOf(c))
	switch {
	case err != nil:
		return err
	case at.IsZero():
		err = s.RemindSaved(ctx, id.MemberKey, acc.Chat.RowKey, m.Seq, at)
	case !saveable(m):
		return ErrNoMessage
	default:
		err = s.RemindMessage(ctx, id.MemberKey, acc.Chat, m.Seq, at)
	}
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, reminderFlash(at), messageURL(acc.Chat.RowKey, m.Seq))
}

// reminderFlash says a reminder set at at, or taken off (zero).
func reminderFlash(at time.Time) string {
	if at.IsZero() {
		return "chat.flash.reminder_cleared"
	}
	return "chat.flash.reminder_set"
}

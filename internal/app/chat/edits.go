package chat

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// Edits and deletions. A message's sender may edit it within editWindow
// (it is marked edited) and delete it at any time; an admin may delete
// any message. A deleted message stays as a tombstone in its place. Each
// change rewrites the message row and, in the same transaction, appends
// a control entry (TypeEdit, TypeDelete) naming it to the chat's log, so
// streams deliver changes in order with everything else, and a
// reconnecting client gets the changes it missed exactly like messages.
// Pages and unread counts leave control entries out.

// editWindow is how long after sending a message may be edited.
const editWindow = 15 * time.Minute

// Control entry types.
const (
	TypeEdit   = "edit"
	TypeDelete = "delete"
)

// Errors of changes.
var (
	// ErrNoMessage is a message that is not there (or not live) (404).
	ErrNoMessage = fault.NotFound("chat: no such message", storage.ErrNotFound)
	// ErrNotYours is a change by someone who may not make it (403).
	ErrNotYours = fault.New(http.StatusForbidden, "chat.error.not_yours", "chat: not your message")
	// ErrEditClosed is an edit after editWindow, or of a deleted message
	// (409).
	ErrEditClosed = fault.New(http.StatusConflict, "chat.error.edit_closed", "chat: the message can no longer be edited")
)

// control reports whether m is a control entry, not a message.
func control(m MessageRow) bool {
	return m.Type == TypeEdit || m.Type == TypeDelete || m.Type == TypeReact || m.Type == TypePin
}

// change rewrites message seq of chatID with f (which checks and
// changes it) and appends a control entry of typ, in one transaction at
// the head's ETag; head, when not nil, changes the head too (the pinned
// messages, pins.go) or refuses. It returns the message as it was and
// as it is, and the control entry (none, Seq 0, when f changed nothing).
func (l *Log) change(ctx context.Context, chatID string, seq int64, typ string, by Person, f func(m *MessageRow) error, head func(h *HeadRow) error) (was, msg, ctl MessageRow, err error) {
	if err := l.marks.Mark(ctx, by.MemberKey, chatID); err != nil {
		return MessageRow{}, MessageRow{}, MessageRow{}, err
	}
	err = storage.Optimistic(ctx, sendAttempts, func(ctx context.Context) error {
		m, err := storage.Get[MessageRow](ctx, l.table, chatID, messageKey(seq))
		if errors.Is(err, storage.ErrNotFound) || err == nil && (control(m) || !Live(m, l.now())) {
			return ErrNoMessage
		}
		if err != nil {
			return err
		}
		was = m
		if err := f(&m); errors.Is(err, storage.ErrNoChange) {
			msg, ctl = m, MessageRow{}
			return nil
		} else if err != nil {
			return err
		}
		h, err := l.Head(ctx, chatID)
		if err != nil {
			return err
		}
		if head != nil {
			if err := head(&h); err != nil {
				return err
			}
		}
		now := l.now().UTC()
		c := MessageRow{PartitionKey: chatID, RowKey: messageKey(h.Seq + 1), Seq: h.Seq + 1, Type: typ, Sender: by.MemberKey, SenderName: by.Name, Target: seq, SentAt: now, ExpiresAt: m.ExpiresAt}
		h.Seq = c.Seq
		if h.LastMessage == m.Seq {
			h.LastPreview = preview(m.Body) // "" once deleted
		}
		var tx storage.Tx
		if err := tx.Replace(h, h.ETag).Replace(m, m.ETag).Insert(c).Commit(ctx, l.table); err != nil {
			if errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrNotFound) {
				return storage.ErrPrecondition
			}
			return err
		}
		msg, ctl = m, c
		return nil
	})
	return was, msg, ctl, err
}

// Edit changes the text of by's message seq, within editWindow (see
// change for what it returns).
func (l *Log) Edit(ctx context.Context, chatID string, seq int64, by Person, body string) (was, msg, ctl MessageRow, err error) {
	body, p := bodyRule.Check(body)
	if p != formrule.OK {
		return MessageRow{}, MessageRow{}, MessageRow{}, ErrBadBody
	}
	return l.change(ctx, chatID, seq, TypeEdit, by, func(m *MessageRow) error {
		switch {
		case m.Sender != by.MemberKey || m.Type != TypeText:
			// A system line ("joined") names its person as the sender,
			// but its words are the app's.
			return ErrNotYours
		case m.DeletedAt != nil || l.now().Sub(m.SentAt) > editWindow:
			return ErrEditClosed
		case m.Body == body:
			return storage.ErrNoChange
		}
		now := l.now().UTC()
		m.Body, m.EditedAt = body, &now
		return nil
	}, nil)
}

// Delete leaves a tombstone for message seq, no longer pinned: its
// sender's, or anyone's for an admin (see change for what it returns: the message as it was
// has the picture for the caller to delete once the tombstone is written).
func (l *Log) Delete(ctx context.Context, chatID string, seq int64, by Person, admin bool) (was, msg, ctl MessageRow, err error) {
	return l.change(ctx, chatID, seq, TypeDelete, by, func(m *MessageRow) error {
		if m.Sender != by.MemberKey && !admin {
			return ErrNotYours
		}
		if m.DeletedAt != nil {
			return storage.ErrNoChange
		}
		now := l.now().UTC()
		m.Body, m.DeletedAt, m.ImageKey, m.Reactions, m.Pinned = "", &now, "", "", false
		return nil
	}, unpinned(seq))
}

// Message reads one live message (not a control entry).
func (l *Log) Message(ctx context.Context, chatID string, seq int64) (MessageRow, error) {
	m, err := storage.Get[MessageRow](ctx, l.table, chatID, messageKey(seq))
	if errors.Is(err, storage.ErrNotFound) || err == nil && (control(m) || !Live(m, l.now())) {
		return MessageRow{}, ErrNoMessage
	}
	return m, err
}

// Edit changes by's message seq in ch and delivers the change live. An
// edit is written and delivered as a message is, so it counts against
// the sender's limit like one (ErrTooFast): else edits in a loop would
// fill the chat's window and every open stream. The same text again
// writes nothing.
func (s *Service) Edit(ctx context.Context, ch ChatRow, seq int64, by Person, body string) (MessageRow, error) {
	if _, p := bodyRule.Check(body); p != formrule.OK {
		return MessageRow{}, ErrBadBody
	}
	if err := s.sends.Take(ctx, by.MemberKey+"|"+ch.RowKey, s.now()); err != nil {
		return MessageRow{}, err
	}
	was, m, ctl, err := s.log.Edit(ctx, ch.RowKey, seq, by, body)
	if err == nil && ctl.Seq > 0 {
		s.hub.Sent(ctx, ctl)
		s.requote(ctx, ch, was, preview(m.Body))
	}
	return m, err
}

// Delete leaves a tombstone for message seq in ch (by its sender, or an
// admin), deletes its picture, if any, delivers the change live and takes
// the message's words out of the notices that quote it.
func (s *Service) Delete(ctx context.Context, ch ChatRow, seq int64, by Person, admin bool) (MessageRow, error) {
	was, m, ctl, err := s.log.Delete(ctx, ch.RowKey, seq, by, admin)
	if err == nil && ctl.Seq > 0 {
		s.images.Delete(ctx, was.ImageKey)
		s.hub.Sent(ctx, ctl)
		s.requote(ctx, ch, was, "")
	}
	return m, err
}

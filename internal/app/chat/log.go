package chat

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
)

// MaxBody is the most characters a message may have (document 003).
const MaxBody = 1000

// sendAttempts bounds a send's retries when other sends took the head
// first: a rush of sends into one room loses all but one each round.
const sendAttempts = 200

// bodyRule is a message body: required, multi-line, at most MaxBody.
var bodyRule = formrule.Text{Max: MaxBody, Required: true, Multiline: true}

// Errors of the log.
var (
	// ErrBadBody is a message that breaks bodyRule (422).
	ErrBadBody = fault.New(http.StatusUnprocessableEntity, "chat.error.body", "chat: bad message body", "max", MaxBody)
	// ErrNoChat is a chat that is not there, or not for the viewer (404).
	ErrNoChat = fault.NotFound("chat: no such chat", storage.ErrNotFound)
)

// Person is who sends: their memberKey and name as the message keeps it.
type Person struct {
	MemberKey string
	Name      string
}

// Log is the chats' message logs in the Messages table.
type Log struct {
	table *storage.Table
	ttl   time.Duration
	now   func() time.Time
	// marks are the chats each member wrote in (memberdata.Footprints),
	// each written before the member's first entry there.
	marks *memberdata.Footprints
}

// Head reads a chat's head; a chat nobody wrote in has seq 0.
func (l *Log) Head(ctx context.Context, chatID string) (HeadRow, error) {
	h, err := storage.Get[HeadRow](ctx, l.table, chatID, headKey)
	if errors.Is(err, storage.ErrNotFound) {
		return HeadRow{PartitionKey: chatID, RowKey: headKey}, nil
	}
	return h, err
}

// preview is a message's start for the chat list.
func preview(body string) string {
	body = strings.Join(strings.Fields(body), " ")
	if r := []rune(body); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return body
}

// Append adds a message to chatID's log: one transaction that moves the
// head on at its ETag and inserts the message under the next sequence
// number, retried when another send committed first. Sequence numbers
// are therefore dense, and every reader sees one order.
func (l *Log) Append(ctx context.Context, chatID string, from Person, typ, body string) (MessageRow, error) {
	return l.appendEntry(ctx, chatID, from, typ, body, "", l.ttl, 0)
}

// appendEntry is Append with an image message's picture, the chat's
// message lifetime (0: none) and the message it replies to (0: none).
func (l *Log) appendEntry(ctx context.Context, chatID string, from Person, typ, body, imageKey string, ttl time.Duration, replyTo int64) (MessageRow, error) {
	if typ == TypeText {
		var p formrule.Problem
		if body, p = bodyRule.Check(body); p != formrule.OK {
			return MessageRow{}, ErrBadBody
		}
	}
	if err := l.marks.Mark(ctx, from.MemberKey, chatID); err != nil {
		return MessageRow{}, err
	}
	var out MessageRow
	err := storage.Optimistic(ctx, sendAttempts, func(ctx context.Context) error {
		h, err := l.Head(ctx, chatID)
		if err != nil {
			return err
		}
		now := l.now().UTC()
		m := MessageRow{
			PartitionKey: chatID, RowKey: messageKey(h.Seq + 1), Seq: h.Seq + 1, Type: typ,
			Sender: from.MemberKey, SenderName: from.Name, Body: body, SentAt: now, ImageKey: imageKey, ReplyTo: replyTo,
		}
		if ttl > 0 {
			exp := now.Add(ttl)
			m.ExpiresAt = &exp
		}
		fresh := h.ETag == ""
		shown := body
		if imageKey != "" {
			shown = strings.TrimSpace("📷 " + body)
		}
		h.Seq, h.LastAt, h.LastSender, h.LastPreview, h.LastMessage, h.LastExpiresAt = m.Seq, now, from.Name, preview(shown), m.Seq, m.ExpiresAt
		h.LastSenderKey = from.MemberKey
		var tx storage.Tx
		if fresh {
			tx.Insert(h)
		} else {
			tx.Replace(h, h.ETag)
		}
		err = tx.Insert(m).Commit(ctx, l.table)
		if errors.Is(err, storage.ErrExists) {
			// Another send created the head (or took the sequence number)
			// first: a conflict like any other.
			return storage.ErrPrecondition
		}
		out = m
		return err
	})
	return out, err
}

// Live reports whether m is served at now: not expired. Deleted
// messages are served as tombstones.
func Live(m MessageRow, now time.Time) bool {
	return m.ExpiresAt == nil || now.Before(*m.ExpiresAt)
}

// Range reads chatID's messages with sequence numbers in [from, to],
// in order, leaving out expired ones (an expired message is never
// served, whether or not the sweeper has run): one query.
func (l *Log) Range(ctx context.Context, chatID string, from, to int64) ([]MessageRow, error) {
	if from < 1 {
		from = 1
	}
	if to < from {
		return nil, nil
	}
	rows, err := storage.All[MessageRow](ctx, l.table, storage.Query{
		PartitionKey: chatID, RowKeyFrom: messageKey(from), RowKeyTo: messageKey(to + 1),
	})
	now := l.now()
	out := rows[:0]
	for _, m := range rows {
		if Live(m, now) {
			out = append(out, m)
		}
	}
	return out, err
}

// unreadCap is where counting stops: the list shows "99+" beyond 99.
const unreadCap = 100

// Unread counts the messages after seq that viewer (named name) has not
// read: live, not deleted, not their own nor from someone they blocked,
// not control entries, so deletions and expiry never leave phantom
// counts; and how many of them mention the viewer by name. One query, at
// most unreadCap rows, and none when nothing came after seq.
func (l *Log) Unread(ctx context.Context, chatID string, after, head int64, viewer, name string, blocked map[string]BlockRow) (n, mentioned int64, err error) {
	if head <= after {
		return 0, 0, nil
	}
	page, err := l.table.Query(ctx, storage.Query{
		PartitionKey: chatID, RowKeyFrom: messageKey(after + 1), RowKeyTo: messageKey(head + 1), Limit: unreadCap,
		Select: []string{"type", "sender", "deletedAt", "expiresAt", "body"},
	})
	if err != nil {
		return 0, 0, err
	}
	now := l.now()
	full, first := strings.ToLower(name), strings.ToLower(richtext.FirstName(name))
	for _, e := range page.Entities {
		var m MessageRow
		if err := storage.Unmarshal(e, &m); err != nil {
			return 0, 0, err
		}
		if _, muted := blocked[m.Sender]; !muted && (m.Type == TypeText || m.Type == TypeImage) && m.DeletedAt == nil && m.Sender != viewer && Live(m, now) {
			n++
			if body := strings.ToLower(m.Body); name != "" && (richtext.Names(body, full) || richtext.Names(body, first)) {
				mentioned++
			}
		}
	}
	return n, mentioned, nil
}

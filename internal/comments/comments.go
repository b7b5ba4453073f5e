// Package comments is the comment thread every module that lets members
// comment on something shares: a blog post's comments, an appointment's.
// A thread is one partition of the module's table, its comments keyed
// newest first; a comment is Markdown on the rich-text rules, signed with
// its author's name, edited by its author, deleted by its author or by
// staff, and hidden by the moderators' take-down. What a module adds is
// its own: who may read and write the thread, whom a comment is told to,
// and how the thread looks.
//
// A module's thread may take replies (Thread.Replies), one level deep as
// on Substack or YouTube: a reply hangs on a comment (a reply to a reply
// answers the same comment), and its key follows its comment's, so one
// query reads the comments newest first, each followed by its replies,
// oldest first. A comment with replies that its author deletes stays as
// "deleted" while they do, so the replies keep their place.
//
//	{module's table}  PK the thread, RK {rt(created)}|{ULID}  newest first
//	                  a reply: RK {its comment's RK}|{ticks(created)}|{ULID}
package comments

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// MaxLength is a comment's longest text, in characters.
const MaxLength = 2000

// rule is a comment's text.
var rule = formrule.Text{Required: true, Max: MaxLength, Multiline: true}

// Row is one comment.
type Row struct {
	PartitionKey string    `table:"PartitionKey"` // the thread
	RowKey       string    `table:"RowKey"`       // Key(CreatedAt, ULID)
	ETag         string    `table:"ETag"`
	AuthorKey    string    `table:"authorKey"`
	AuthorName   string    `table:"authorName"`
	Body         string    `table:"body"` // Markdown as written
	CreatedAt    time.Time `table:"createdAt"`
	// EditedAt is its author's last edit, nil for none.
	EditedAt *time.Time `table:"editedAt"`
	// Hidden: the moderators took it down after a report.
	Hidden bool `table:"hidden"`
	// Deleted: its author or staff deleted it while it had replies; its
	// text is gone, its place stays for them.
	Deleted bool `table:"deleted"`
}

// ID is the comment's ULID, unique across threads.
func (r Row) ID() string { return r.RowKey[strings.LastIndexByte(r.RowKey, '|')+1:] }

// Parent is the RowKey of the comment a reply answers, "" for a comment.
func (r Row) Parent() string {
	if parent, ok := parentOf(r.RowKey); ok {
		return parent
	}
	return ""
}

// Shown reports whether r's text shows: not hidden, not deleted.
func (r Row) Shown() bool { return !r.Hidden && !r.Deleted }

// parentOf is the comment's RowKey a reply's rk starts with.
func parentOf(rk string) (string, bool) {
	parts := strings.Split(rk, "|")
	if len(parts) != 4 {
		return "", false
	}
	return parts[0] + "|" + parts[1], true
}

// Key is the RowKey of the comment with ULID id written at t: the
// newest sorts first.
func Key(t time.Time, id string) string { return storage.ReverseTicks(t) + "|" + id }

// replyKey is the RowKey of the reply with ULID id written at t to the
// comment parent: after it, the oldest reply first.
func replyKey(parent string, t time.Time, id string) string {
	return parent + "|" + storage.ForwardTicks(t) + "|" + id
}

// ValidKey reports whether rk can be a comment's or a reply's RowKey (a
// key from an address is checked before it is read).
func ValidKey(rk string) bool {
	parts := strings.Split(rk, "|")
	if len(parts) != 2 && len(parts) != 4 {
		return false
	}
	if _, err := storage.TimeFromReverseTicks(parts[0]); err != nil || !storage.IsID(parts[1]) {
		return false
	}
	if len(parts) == 2 {
		return true
	}
	ticks, err := strconv.ParseInt(parts[2], 10, 64)
	return err == nil && ticks > 0 && parts[2] == storage.Pad(ticks, 19) && storage.IsID(parts[3])
}

// PathKey is RowKey rk as an address carries it: "-" for "|" (neither
// ticks nor ULIDs have a "-").
func PathKey(rk string) string { return strings.ReplaceAll(rk, "|", "-") }

// KeyFromPath is the RowKey an address's PathKey names.
func KeyFromPath(p string) string { return strings.ReplaceAll(p, "-", "|") }

// KeyFrom is the first RowKey of a comment: every comment's key sorts
// at or after it (reverse ticks of any time before 5000 AD start with
// a digit from 1), and anything a table kept before threads were keyed
// so sorts before it.
const KeyFrom = "1"

// Thread is a module's comment threads: its table, and its words.
type Thread struct {
	Table *storage.Table
	// Limit bounds each author's comments (its Table counts them under
	// LimitPrefix+memberKey); a zero Limit bounds nothing.
	Limit       quota.Limit
	LimitPrefix string
	// Field and Message are the form's field and the message key of a
	// text refused; TooLong, when set, is the key of one too long.
	Field, Message, TooLong string
	// Missing is the module's error for a comment that is not there (or
	// hidden, for an edit); NotYours for someone else's.
	Missing, NotYours error
	Now               func() time.Time
	// Replies lets comments be answered (Reply); without it a reply is
	// Missing.
	Replies bool
}

// Check cleans a comment's text: a refusal is a formrule.FieldErrors
// on Field.
func (t Thread) Check(body string) (string, error) {
	body, p := rule.Check(body)
	if p != formrule.OK {
		tooLong := t.TooLong
		if tooLong == "" {
			tooLong = t.Message
		}
		return body, formrule.FieldErrors{t.Field: p.Message(t.Message, tooLong)}
	}
	return body, nil
}

// Add writes by's comment on thread: a text refused writes nothing (a
// FieldErrors), nor does one past the author's Limit (its Err).
func (t Thread) Add(ctx context.Context, thread string, by *auth.Identity, body string) (Row, error) {
	return t.add(ctx, thread, "", by, body)
}

// Reply writes by's reply to comment rk of thread, as Add: a reply to a
// reply answers its comment. The comment must be shown (Missing when it
// is not, or the thread takes no replies).
func (t Thread) Reply(ctx context.Context, thread, rk string, by *auth.Identity, body string) (parent, reply Row, err error) {
	if !t.Replies {
		return Row{}, Row{}, t.Missing
	}
	if p, ok := parentOf(rk); ok {
		rk = p
	}
	if parent, err = t.Get(ctx, thread, rk); err != nil {
		return Row{}, Row{}, err
	}
	if !parent.Shown() {
		return Row{}, Row{}, t.Missing
	}
	if reply, err = t.add(ctx, thread, rk, by, body); err != nil {
		return Row{}, Row{}, err
	}
	// The comment is written again at its ETag: a Delete that found no
	// reply yet then fails its write and looks again, and one that
	// deleted it first leaves it missing here, which takes the reply
	// back. A Get alone let a Delete land after it and leave the reply
	// under no comment.
	if _, err := storage.Change(ctx, t.Table, thread, rk, t.Missing, func(*Row) error { return nil }); err != nil {
		if errors.Is(err, t.Missing) || errors.Is(err, storage.ErrNotFound) {
			_ = t.remove(ctx, reply)
			err = t.Missing
		}
		return Row{}, Row{}, err
	}
	return parent, reply, nil
}

// add writes by's comment (a reply to parent unless it is "").
func (t Thread) add(ctx context.Context, thread, parent string, by *auth.Identity, body string) (Row, error) {
	body, err := t.Check(body)
	if err != nil {
		return Row{}, err
	}
	now := t.Now().UTC()
	if t.Limit.Table != nil {
		if err := t.Limit.Take(ctx, t.LimitPrefix+by.MemberKey, now); err != nil {
			return Row{}, err
		}
	}
	rk := Key(now, ulid.Make().String())
	if parent != "" {
		rk = replyKey(parent, now, ulid.Make().String())
	}
	row := Row{
		PartitionKey: thread, RowKey: rk,
		AuthorKey: by.MemberKey, AuthorName: by.DisplayName, Body: body, CreatedAt: now,
	}
	row.ETag, err = storage.Insert(ctx, t.Table, row)
	if err != nil {
		return Row{}, err
	}
	return row, nil
}

// Page reads up to n comments of thread from start (nil: the newest),
// newest first, and where the next page starts: one query.
func (t Thread) Page(ctx context.Context, thread string, start *storage.Continuation, n int) (storage.Rows[Row], error) {
	q := storage.Query{PartitionKey: thread, Continuation: start}
	if start == nil {
		q.RowKeyFrom = KeyFrom
	}
	return storage.TakeRows[Row](ctx, t.Table, q, n)
}

// Get reads comment rk of thread (Missing when there is none).
func (t Thread) Get(ctx context.Context, thread, rk string) (Row, error) {
	if !ValidKey(rk) {
		return Row{}, t.Missing
	}
	return storage.Find[Row](ctx, t.Table, thread, rk, t.Missing)
}

// Edit changes comment rk of thread to body: its author's alone
// (NotYours), while it is shown (a hidden one is Missing). The same
// text changes nothing.
func (t Thread) Edit(ctx context.Context, thread, rk string, by *auth.Identity, body string) (Row, error) {
	if !ValidKey(rk) {
		return Row{}, t.Missing
	}
	body, err := t.Check(body)
	if err != nil {
		return Row{}, err
	}
	return storage.Change(ctx, t.Table, thread, rk, t.Missing, func(c *Row) error {
		switch {
		case !c.Shown():
			return t.Missing
		case c.AuthorKey != by.MemberKey:
			return t.NotYours
		case c.Body == body:
			return storage.ErrNoChange
		}
		now := t.Now().UTC()
		c.Body, c.EditedAt = body, &now
		return nil
	})
}

// Delete deletes comment rk of thread: its author's doing, or staff's
// (NotYours for anyone else). One gone already is Missing. A comment
// with replies is marked deleted instead, its text gone, and goes with
// its last reply.
func (t Thread) Delete(ctx context.Context, thread, rk string, by *auth.Identity, staff bool) error {
	c, err := t.Deletable(ctx, thread, rk, by, staff)
	if err != nil {
		return err
	}
	if parent := c.Parent(); parent != "" {
		if err := t.remove(ctx, c); err != nil {
			return err
		}
		return t.forgetDeleted(ctx, thread, parent)
	}
	return storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		replied, err := t.hasReplies(ctx, thread, rk)
		if err != nil {
			return err
		}
		if !replied {
			// At the ETag read: a reply written since wrote the comment
			// again (Reply), so this fails and the next try finds it.
			err := t.Table.Delete(ctx, thread, rk, c.ETag)
			if errors.Is(err, storage.ErrNotFound) {
				return t.Missing
			}
			if errors.Is(err, storage.ErrPrecondition) {
				if c, err = t.Deletable(ctx, thread, rk, by, staff); err != nil {
					return err
				}
				return storage.ErrPrecondition
			}
			return err
		}
		_, err = storage.Change(ctx, t.Table, thread, rk, t.Missing, func(c *Row) error {
			if c.Deleted {
				return storage.ErrNoChange
			}
			c.Deleted, c.Body = true, ""
			return nil
		})
		if err != nil {
			return err
		}
		// Its last reply may have gone since it was found, and that
		// delete saw the comment not marked yet.
		return t.forgetDeleted(ctx, thread, rk)
	})
}

// remove deletes row c as read.
func (t Thread) remove(ctx context.Context, c Row) error {
	err := t.Table.Delete(ctx, c.PartitionKey, c.RowKey, c.ETag)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrPrecondition) {
		return t.Missing
	}
	return err
}

// hasReplies reports whether comment rk of thread has a reply: a query
// of one row.
func (t Thread) hasReplies(ctx context.Context, thread, rk string) (bool, error) {
	rows, err := storage.TakeRows[Row](ctx, t.Table, storage.Query{PartitionKey: thread, RowKeyPrefix: rk + "|"}, 1)
	return len(rows.Rows) > 0, err
}

// forgetDeleted deletes comment rk of thread when it is marked deleted
// and its last reply is gone.
func (t Thread) forgetDeleted(ctx context.Context, thread, rk string) error {
	c, err := t.Get(ctx, thread, rk)
	if errors.Is(err, t.Missing) || (err == nil && !c.Deleted) {
		return nil
	}
	if err != nil {
		return err
	}
	replied, err := t.hasReplies(ctx, thread, rk)
	if err != nil || replied {
		return err
	}
	err = t.Table.Delete(ctx, thread, rk, c.ETag)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrPrecondition) {
		return nil // gone, or changed: a reply came meanwhile
	}
	return err
}

// Deletable is comment rk of thread if by may delete it (its author, or
// staff): what Delete checks, for a page that asks first. One deleted
// already is Missing.
func (t Thread) Deletable(ctx context.Context, thread, rk string, by *auth.Identity, staff bool) (Row, error) {
	c, err := t.Get(ctx, thread, rk)
	switch {
	case err != nil:
	case c.Deleted:
		err = t.Missing
	case c.AuthorKey != by.MemberKey && !staff:
		err = t.NotYours
	}
	return c, err
}

// Hide takes comment rk of thread down: its text is no longer shown.
// One hidden already changes nothing.
func (t Thread) Hide(ctx context.Context, thread, rk string) error {
	if !ValidKey(rk) {
		return t.Missing
	}
	_, err := storage.Change(ctx, t.Table, thread, rk, t.Missing, func(c *Row) error {
		if c.Hidden {
			return storage.ErrNoChange
		}
		c.Hidden = true
		return nil
	})
	return err
}

// DeleteAll deletes thread, every comment of it (what it hangs on is
// gone).
func (t Thread) DeleteAll(ctx context.Context, thread string) error {
	return storage.DeletePartition(ctx, t.Table, thread)
}

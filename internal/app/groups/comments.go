package groups

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
)

// Comments are a short thread on an appointment ("I'll bring the
// cake"): Markdown through the rich-text package, oldest first, and a
// notice to the other participants. A series has one thread for all its
// occurrences. A page shows the newest commentsPage comments, and earlier
// ones a page at a time: one bounded query however long the thread.

const (
	commentsTable = "AppointmentComments"
	// MaxCommentLength bounds one comment.
	MaxCommentLength = 2000
	// commentsPage is how many comments a thread shows at once.
	commentsPage = 50
	// commentPrefix starts the RowKey of every comment written newest
	// first (commentRowKey). It sorts before the bare ULIDs of the
	// comments written before threads were paged.
	commentPrefix = "-"
)

// CommentRow is one comment. Its partition is the appointment's
// (participantsPartition) and its RowKey commentRowKey(its ULID), so a
// thread reads newest first from the start of its partition. Comments
// written before that have their bare ULID as RowKey: they sort after
// every newer one, oldest first, and a thread reads them whole (they are
// at most 1,000, the cap threads had then, and no thread gains any).
type CommentRow struct {
	PartitionKey string    `table:"PartitionKey"` // g:{groupId}|a:{appointmentId}
	RowKey       string    `table:"RowKey"`       // commentRowKey(ULID), or a bare ULID
	ETag         string    `table:"ETag"`
	AuthorKey    string    `table:"authorKey"` // memberKey
	AuthorName   string    `table:"authorName"`
	Body         string    `table:"body"` // Markdown as written
	CreatedAt    time.Time `table:"createdAt"`
	IsDeleted    bool      `table:"isDeleted"`
}

// ulidDigits are Crockford's base 32 digits, in order.
const ulidDigits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// invertULID maps each digit d of id to 31-d, which turns the order of
// same-length IDs around; it is its own inverse.
func invertULID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if d := strings.IndexByte(ulidDigits, c); d >= 0 {
			b[i] = ulidDigits[len(ulidDigits)-1-d]
		}
	}
	return string(b)
}

// commentRowKey is the RowKey of the comment with ULID id: newest first.
func commentRowKey(id string) string { return commentPrefix + invertULID(id) }

// ID is the comment's ULID, whichever way its row is keyed.
func (c CommentRow) ID() string {
	if rest, ok := strings.CutPrefix(c.RowKey, commentPrefix); ok {
		return invertULID(rest)
	}
	return c.RowKey
}

// commentPart is the partition of an appointment's thread.
func commentPart(groupID, appointmentID string) string {
	return participantsPartition(groupID, appointmentID)
}

var commentRule = formrule.Text{Max: MaxCommentLength, Required: true, Multiline: true}

// writeQuotaTable counts the writes of a person's that tell others:
// comments and announced appointment changes (the quota kit's rows).
const writeQuotaTable = "GroupQuota"

// commentsPerHour bounds one person's comments: each tells every other
// participant.
const commentsPerHour = 30

// ErrTooManyComments refuses a comment past commentsPerHour (429).
var ErrTooManyComments = fault.New(http.StatusTooManyRequests, "groups.comments.error.too_many", "groups: too many comments")

// ErrNotAuthor refuses deleting someone else's comment (403).
var ErrNotAuthor = fault.New(http.StatusForbidden, "groups.comments.error.not_author", "groups: not the comment's author")

// CommentsPage is a page of a thread, oldest first, and the cursor of
// the page before it ("" when this page starts the thread).
type CommentsPage struct {
	Comments []CommentRow
	Earlier  string
}

// commentsPurpose binds a thread's cursors to the thread.
func commentsPurpose(pk string) string { return "comments|" + pk }

// Comments reads a page of an appointment's thread: its newest
// commentsPage comments, or, with before (a cursor from an earlier
// page), those just before that page. Deleted ones are left out. A thread
// keyed newest first costs one query; the comments written before threads
// were paged are read whole when a page reaches them.
func (s *Service) Comments(ctx context.Context, groupID, appointmentID, before string) (CommentsPage, error) {
	pk := commentPart(groupID, appointmentID)
	from := ""
	if before != "" {
		v, err := s.cursors.Open(commentsPurpose(pk), before)
		if err != nil {
			return CommentsPage{}, err
		}
		from = v // the RowKey of the oldest comment the later page shows
	}
	q := storage.Query{PartitionKey: pk, Filters: []storage.Filter{{Name: "isDeleted", Op: storage.Eq, Value: false}}}
	var newer, older []CommentRow
	if from == "" || strings.HasPrefix(from, commentPrefix) {
		if from != "" {
			q.RowKeyFrom = storage.PrefixEnd(from)
		}
		rows, more, err := storage.Take[CommentRow](ctx, s.comments, q, commentsPage+1)
		if err != nil {
			return CommentsPage{}, err
		}
		for _, r := range rows {
			if strings.HasPrefix(r.RowKey, commentPrefix) {
				newer = append(newer, r)
			} else {
				older = append(older, r)
			}
		}
		if len(older) > 0 && more {
			q.RowKeyFrom = storage.PrefixEnd(older[len(older)-1].RowKey)
			rest, err := storage.All[CommentRow](ctx, s.comments, q)
			if err != nil {
				return CommentsPage{}, err
			}
			older = append(older, rest...)
		}
	} else {
		// A page among the comments keyed oldest first: those before it.
		q.RowKeyFrom, q.RowKeyTo = ulidDigits[:1], from
		rows, err := storage.All[CommentRow](ctx, s.comments, q)
		if err != nil {
			return CommentsPage{}, err
		}
		older = rows
	}
	slices.Reverse(older)
	page := append(newer, older...) // newest first
	var out CommentsPage
	if len(page) > commentsPage {
		page = page[:commentsPage]
		out.Earlier = s.cursors.Seal(commentsPurpose(pk), page[len(page)-1].RowKey)
	}
	slices.Reverse(page)
	out.Comments = page
	return out, nil
}

// AddComment adds id's comment to an appointment of m's group and tells
// the other participants. A body that breaks the text rules is
// FieldErrors and writes nothing.
func (s *Service) AddComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, body string) (CommentRow, error) {
	body, p := commentRule.Check(body)
	if p != formrule.OK {
		return CommentRow{}, FieldErrors{"comment": p.Message("groups.comments.error.empty", "groups.comments.error.long")}
	}
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return CommentRow{}, err
	}
	if err := s.commentsPerPerson.Take(ctx, "c|"+id.MemberKey, s.now()); err != nil {
		return CommentRow{}, err
	}
	pk, rk := commentPart(m.GroupID, appointmentID), commentRowKey(ulid.Make().String())
	now := s.now().UTC()
	row := CommentRow{PartitionKey: pk, RowKey: rk, AuthorKey: id.MemberKey, AuthorName: id.DisplayName, Body: body, CreatedAt: now}
	if _, err := storage.Insert(ctx, s.comments, row); err != nil {
		return CommentRow{}, err
	}
	if s.notifier != nil {
		to, err := s.commentRecipients(ctx, m.GroupID, d.Participants, id.MemberKey)
		if err != nil {
			s.log.WarnContext(ctx, "groups: comment not announced", "err", err)
		}
		if len(to) > 0 {
			g, err := s.group(ctx, m.GroupID)
			if err == nil {
				err = s.notifier.Post(ctx, inbox.Notice{
					To: to, Kind: "groups.notify.comment",
					Args: map[string]string{"name": id.DisplayName, "group": g.GroupName, "title": d.Doc.Title, "comment": richtext.Plain(body, 140)},
					When: announcedStart(d.Doc, s.now()), Link: appointmentURL(m.GroupID, appointmentID) + "#comments",
					Key: "comment|" + rk, From: id.MemberKey,
				})
			}
			if err != nil {
				s.log.WarnContext(ctx, "groups: comment not announced", "err", err)
			}
		}
	}
	return row, nil
}

// commentRecipients are who hears of a comment by author: the
// appointment's participants with an account who are still active
// members (a participant row stays when someone is removed, and what
// the group says is no longer theirs to read), but the author.
func (s *Service) commentRecipients(ctx context.Context, groupID string, parts []ParticipantRow, author string) ([]inbox.Recipient, error) {
	var to []inbox.Recipient
	for _, part := range parts {
		if part.MemberKey != author && !auth.IsGuestKey(part.MemberKey) {
			to = append(to, inbox.Recipient{MemberKey: part.MemberKey})
		}
	}
	if len(to) == 0 {
		return nil, nil
	}
	active, err := s.ActiveMembers(ctx, groupID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(to, func(r inbox.Recipient) bool {
		return !slices.ContainsFunc(active, func(m MemberRow) bool { return memberKeyOf(m) == r.MemberKey })
	}), nil
}

// DeleteComment removes the author's own comment (owners may remove
// any): the row is marked deleted. commentID is its ULID; a comment from
// before threads were paged is found under its bare ULID.
func (s *Service) DeleteComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, commentID string) error {
	if !storage.IsID(commentID) {
		return ErrNoAppointment
	}
	pk := commentPart(m.GroupID, appointmentID)
	remove := func(rk string) error {
		_, err := storage.Change(ctx, s.comments, pk, rk, storage.ErrNotFound, func(c *CommentRow) error {
			if c.IsDeleted {
				return ErrNoAppointment
			}
			if c.AuthorKey != id.MemberKey && !m.Owner() {
				return ErrNotAuthor
			}
			c.IsDeleted = true
			return nil
		})
		return err
	}
	err := remove(commentRowKey(commentID))
	if errors.Is(err, storage.ErrNotFound) {
		err = remove(commentID)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return ErrNoAppointment
	}
	return err
}

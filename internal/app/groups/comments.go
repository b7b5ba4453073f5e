package groups

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Comments are a short thread on an appointment ("I'll bring the
// cake"): Markdown through the rich-text package, oldest first, and a
// notice to the other participants. A series has one thread for all its
// occurrences.

const (
	commentsTable = "AppointmentComments"
	// MaxCommentLength bounds one comment.
	MaxCommentLength = 2000
	// maxComments is how many a thread shows: the newest ones.
	maxComments = 200
	// maxThread is how many comments a thread may take, deleted ones
	// included. The thread is read whole (its keys are oldest first), so
	// this bounds the read behind every appointment page.
	maxThread = 1000
)

// ErrThreadFull refuses a comment on a thread of maxThread (409).
var ErrThreadFull = fault.New(http.StatusConflict, "groups.comments.error.full", "groups: the thread is full")

// threadLimit counts a thread's comments for good (a window longer than
// any appointment lives), keyed by the thread's partition.
func threadLimit(t *storage.Table) quota.Limit {
	return quota.Limit{Table: t, Max: maxThread, Window: 200 * 365 * 24 * time.Hour, Err: ErrThreadFull}
}

// CommentRow is one comment. Its partition is the appointment's
// (participantsPartition), its RowKey a ULID, so a thread reads in one
// query in the order it was written.
type CommentRow struct {
	PartitionKey string    `table:"PartitionKey"` // g:{groupId}|a:{appointmentId}
	RowKey       string    `table:"RowKey"`       // comment ULID
	ETag         string    `table:"ETag"`
	AuthorKey    string    `table:"authorKey"` // memberKey
	AuthorName   string    `table:"authorName"`
	Body         string    `table:"body"` // Markdown as written
	CreatedAt    time.Time `table:"createdAt"`
	IsDeleted    bool      `table:"isDeleted"`
}

// commentKey is a comment's key: the appointment's partition and the
// comment's ULID.
func commentKey(groupID, appointmentID, commentID string) (pk, rk string) {
	return participantsPartition(groupID, appointmentID), commentID
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

// Comments reads an appointment's thread, oldest first (its newest
// maxComments, deleted ones left out): one query.
func (s *Service) Comments(ctx context.Context, groupID, appointmentID string) ([]CommentRow, error) {
	rows, err := storage.All[CommentRow](ctx, s.comments, storage.Query{
		PartitionKey: participantsPartition(groupID, appointmentID),
		Filters:      []storage.Filter{{Name: "isDeleted", Op: storage.Eq, Value: false}},
	})
	if len(rows) > maxComments {
		rows = rows[len(rows)-maxComments:]
	}
	return rows, err
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
	pk, rk := commentKey(m.GroupID, appointmentID, ulid.Make().String())
	if err := s.threads.Take(ctx, "t|"+pk, s.now()); err != nil {
		return CommentRow{}, err
	}
	now := s.now().UTC()
	row := CommentRow{PartitionKey: pk, RowKey: rk, AuthorKey: id.MemberKey, AuthorName: id.DisplayName, Body: body, CreatedAt: now}
	if _, err := storage.Insert(ctx, s.comments, row); err != nil {
		return CommentRow{}, err
	}
	if s.notifier != nil {
		var to []inbox.Recipient
		for _, part := range d.Participants {
			if part.MemberKey != id.MemberKey && !auth.IsGuestKey(part.MemberKey) {
				to = append(to, inbox.Recipient{MemberKey: part.MemberKey})
			}
		}
		if len(to) > 0 {
			g, err := s.group(ctx, m.GroupID)
			if err == nil {
				err = s.notifier.Post(ctx, inbox.Notice{
					To: to, Kind: "groups.notify.comment",
					Args: map[string]string{"name": id.DisplayName, "group": g.GroupName, "title": d.Doc.Title, "comment": richtext.Plain(body, 140)},
					When: d.Doc.Start, Link: appointmentURL(m.GroupID, appointmentID) + "#comments",
					Key: "comment|" + rk,
				})
			}
			if err != nil {
				s.log.WarnContext(ctx, "groups: comment not announced", "err", err)
			}
		}
	}
	return row, nil
}

// DeleteComment removes the author's own comment (owners may remove
// any): the row is marked deleted.
func (s *Service) DeleteComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, commentID string) error {
	if !storage.IsID(commentID) {
		return ErrNoAppointment
	}
	pk, rk := commentKey(m.GroupID, appointmentID, commentID)
	_, err := storage.Change(ctx, s.comments, pk, rk, ErrNoAppointment, func(c *CommentRow) error {
		if c.IsDeleted {
			return ErrNoAppointment
		}
		if c.AuthorKey != id.MemberKey && !m.Owner() {
			return ErrNotAuthor
		}
		c.IsDeleted = true
		return nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return ErrNoAppointment
	}
	return err
}

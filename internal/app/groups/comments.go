package groups

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Comments are a short thread on an appointment ("I'll bring the
// cake") on the comments kit: Markdown through the rich-text package,
// shown oldest first, and a notice to the other participants. A series
// has one thread for all its occurrences. A page shows the newest
// commentsPage comments, and earlier ones a page at a time: one bounded
// query however long the thread. Comments written before the kit (keyed
// by their ULID, or "-" and its inverse) move to its keys at the first
// start past it, or with "web migrate comments" (comments_migrate.go).

const (
	commentsTable = "AppointmentComments"
	// MaxCommentLength bounds one comment.
	MaxCommentLength = comments.MaxLength
	// commentsPage is how many comments a thread shows at once.
	commentsPage = 50
)

// CommentRow is one comment; its partition is the appointment's
// (participantsPartition).
type CommentRow = comments.Row

// commentPart is the partition of an appointment's thread.
func commentPart(groupID, appointmentID string) string {
	return participantsPartition(groupID, appointmentID)
}

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

// newThreads are the appointments' comment threads.
func newThreads(table, quotaTable *storage.Table, now func() time.Time) comments.Thread {
	return comments.Thread{
		Table: table, Now: now,
		Limit:       quota.Limit{Table: quotaTable, Max: commentsPerHour, Window: time.Hour, Err: ErrTooManyComments},
		LimitPrefix: "c|",
		Field:       "comment", Message: "groups.comments.error.empty", TooLong: "groups.comments.error.long",
		Missing: ErrNoAppointment, NotYours: ErrNotAuthor,
	}
}

// Comments reads a page of an appointment's thread from start (nil: the
// newest commentsPage), newest first, and where the page before it
// starts (nil at the thread's start): one query.
func (s *Service) Comments(ctx context.Context, groupID, appointmentID string, start *storage.Continuation) (storage.Rows[CommentRow], error) {
	return s.comments.Page(ctx, commentPart(groupID, appointmentID), start, commentsPage)
}

// AddComment adds id's comment to an appointment of m's group and tells
// the other participants. A body that breaks the text rules is
// FieldErrors and writes nothing.
func (s *Service) AddComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, body string) (CommentRow, error) {
	body, err := s.comments.Check(body)
	if err != nil {
		return CommentRow{}, err
	}
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return CommentRow{}, err
	}
	row, err := s.comments.Add(ctx, commentPart(m.GroupID, appointmentID), id, body)
	if err != nil {
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
					Key: "comment|" + row.ID(), From: id.MemberKey,
					Gather: m.GroupID + "|" + appointmentID, // one line an appointment, unread
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

// DeleteComment deletes the author's own comment (owners may delete
// any); key is its RowKey as its address has it (comments.PathKey).
func (s *Service) DeleteComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, key string) error {
	return s.comments.Delete(ctx, commentPart(m.GroupID, appointmentID), comments.KeyFromPath(key), id, m.Owner())
}

// MayDeleteComment says whether id may delete the comment (its author,
// or the group's owner): ErrNoComment or a refusal otherwise, as
// DeleteComment would answer.
func (s *Service) MayDeleteComment(ctx context.Context, m Membership, id *auth.Identity, appointmentID, key string) error {
	_, err := s.comments.Deletable(ctx, commentPart(m.GroupID, appointmentID), comments.KeyFromPath(key), id, m.Owner())
	return err
}

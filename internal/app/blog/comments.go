package blog

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Comments: members comment on a post that readers see, as on Ghost or
// Substack: the form above, the comments newest first below it, a page
// of commentsPage at a time, each followed by its replies (one level
// deep, oldest first; the comments kit's replies). A comment is Markdown on the rich-text
// rules, signed with its author's name; its author or an admin deletes
// it, and members report it to the moderation queue, whose take-down
// hides it ("Removed by the moderators"). The post's author hears of
// each comment through the inbox. Comments hang on the post's ID, which
// outlives a draft's change of address, and go with the post.
//
//	BlogComments  PK post ID, RK {rt(created)}|{ULID}  newest first
//	                          a reply: {its comment's RK}|{ticks}|{ULID}

// CommentsTable holds the comments, a partition a post; CommentQuota
// counts each member's comments an hour.
const (
	CommentsTable = "BlogComments"
	commentQuota  = "BlogCommentQuota"
)

const (
	// MaxComment is a comment's longest text.
	MaxComment = comments.MaxLength
	// commentsPage is how many comments a page shows.
	commentsPage = 30
	// CommentsPerHour bounds one member's comments.
	CommentsPerHour = 20
	// commentKind is a comment's kind in reports; its key
	// "{post ID}#{RowKey}".
	commentKind = "blog.comment"
)

// Refusals of comments.
var (
	ErrNoComment       = fault.NotFound("blog: no such comment", storage.ErrNotFound)
	ErrNotYourComment  = fault.New(http.StatusForbidden, "blog.comments.error.not_yours", "blog: another's comment")
	ErrTooManyComments = fault.New(http.StatusTooManyRequests, "blog.comments.error.too_many", "blog: too many comments this hour")
)

// CommentRow is one comment (the comments kit's row).
type CommentRow = comments.Row

// newThreads are the blog's comment threads, a post's ID each.
func newThreads(table, quotaTable *storage.Table, now func() time.Time) comments.Thread {
	return comments.Thread{
		Table: table, Now: now,
		Limit: quota.Limit{Table: quotaTable, Max: CommentsPerHour, Window: time.Hour, Err: ErrTooManyComments},
		Field: "body", Message: "blog.comments.error.body",
		Missing: ErrNoComment, NotYours: ErrNotYourComment,
		Replies: true,
	}
}

// AddComment writes by's comment on p, which readers must see: its text
// refused is a formrule.FieldErrors on "body", past the hour's limit
// ErrTooManyComments; the post's author is told.
func (s *Service) AddComment(ctx context.Context, p PostRow, by *auth.Identity, body string) (CommentRow, error) {
	if !p.Visible(s.now()) {
		return CommentRow{}, ErrNoPost
	}
	row, err := s.comments.Add(ctx, p.ID, by, body)
	if err == nil {
		err = s.keep(ctx, p, row)
	}
	if err != nil {
		return CommentRow{}, err
	}
	s.tell(ctx, p, p.AuthorKey, "blog.notify.comment", by, row)
	return row, nil
}

// ReplyComment writes by's reply to comment rk on p, as AddComment: a
// comment hidden or deleted takes none (ErrNoComment). The comment's
// author is told, and the post's.
func (s *Service) ReplyComment(ctx context.Context, p PostRow, rk string, by *auth.Identity, body string) (CommentRow, error) {
	if !p.Visible(s.now()) {
		return CommentRow{}, ErrNoPost
	}
	parent, row, err := s.comments.Reply(ctx, p.ID, rk, by, body)
	if err == nil {
		err = s.keep(ctx, p, row)
	}
	if err != nil {
		return CommentRow{}, err
	}
	s.tell(ctx, p, parent.AuthorKey, "blog.notify.reply", by, row)
	if p.AuthorKey != parent.AuthorKey {
		s.tell(ctx, p, p.AuthorKey, "blog.notify.comment", by, row)
	}
	return row, nil
}

// keep keeps comment row on p unless p was deleted meanwhile: then its
// comments may have gone before this one came, which is taken back
// (ErrNoPost).
func (s *Service) keep(ctx context.Context, p PostRow, row CommentRow) error {
	if !s.deletedSince(ctx, p) {
		return nil
	}
	if err := s.comments.Table.Delete(ctx, p.ID, row.RowKey, row.ETag); err != nil {
		s.log.WarnContext(ctx, "blog: a comment on a deleted post stays", "post", p.RowKey, "err", err)
	}
	return ErrNoPost
}

// tell tells to (nobody for "", nor the comment's own author) of
// comment row on p through the inbox, as kind.
func (s *Service) tell(ctx context.Context, p PostRow, to, kind string, by *auth.Identity, row CommentRow) {
	if s.notifier == nil || to == "" || to == by.MemberKey {
		return
	}
	n := inbox.Notice{
		To: []inbox.Recipient{{MemberKey: to}}, Kind: kind, From: by.MemberKey,
		Args: map[string]string{"name": by.DisplayName, "title": p.Title, "preview": richtext.Plain(row.Body, 140)},
		Link: postURL(p.RowKey) + "#" + comments.Anchor(row), When: row.CreatedAt, Key: kind + "|" + p.ID + "|" + row.RowKey,
	}
	if kind == "blog.notify.comment" {
		n.Gather = p.ID // comments on one post gather into one line, unread
	}
	if err := s.notifier.Post(context.WithoutCancel(ctx), n); err != nil {
		s.log.WarnContext(ctx, "blog: a comment's reader was not told", "post", p.RowKey, "to", to, "err", err)
	}
}

// deletedSince reports whether p, as a request read it, was deleted
// since: marked, gone, or another post at its address. A failed read
// is logged and says no (the post's burial sweeps its comments).
func (s *Service) deletedSince(ctx context.Context, p PostRow) bool {
	now, err := s.stored(ctx, p.RowKey)
	switch {
	case err == nil:
		return now.Deleted || now.ID != p.ID
	case errors.Is(err, ErrNoPost):
		return true
	}
	s.log.WarnContext(ctx, "blog: a comment's post not read again", "post", p.RowKey, "err", err)
	return false
}

// Comments reads a page of the comments on the post with id, from start
// (nil: the newest), newest first: one query.
func (s *Service) Comments(ctx context.Context, id string, start *storage.Continuation) (storage.Rows[CommentRow], error) {
	return s.comments.Page(ctx, id, start, commentsPage)
}

// ReportKinds are what the blog takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{commentKind} }

// TakeDown hides the reported comment.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, _ moderation.Moderator, _ string) error {
	id, rk, _ := strings.Cut(t.Key, "#")
	return s.comments.Hide(ctx, id, rk)
}

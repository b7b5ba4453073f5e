package blog

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Comments: members comment on a post that readers see, as on Ghost or
// Substack: the form above, the comments newest first below it, a page
// of commentsPage at a time. A comment is Markdown on the rich-text
// rules, signed with its author's name; its author or an admin deletes
// it, and members report it to the moderation queue, whose take-down
// hides it ("Removed by the moderators"). The post's author hears of
// each comment through the inbox. Comments hang on the post's ID, which
// outlives a draft's change of address, and go with the post.
//
//	BlogComments  PK post ID, RK {rt(created)}|{ULID}  newest first

// CommentsTable holds the comments, a partition a post; CommentQuota
// counts each member's comments an hour.
const (
	CommentsTable = "BlogComments"
	commentQuota  = "BlogCommentQuota"
)

const (
	// MaxComment is a comment's longest text.
	MaxComment = 2000
	// commentsPage is how many comments a page shows.
	commentsPage = 30
	// CommentsPerHour bounds one member's comments.
	CommentsPerHour = 20
	// commentKind is a comment's kind in reports; its key
	// "{post ID}#{RowKey}".
	commentKind = "blog.comment"
)

// commentRule is a comment's text.
var commentRule = formrule.Text{Required: true, Max: MaxComment, Multiline: true}

// Refusals of comments.
var (
	ErrNoComment       = fault.NotFound("blog: no such comment", storage.ErrNotFound)
	ErrNotYourComment  = fault.New(http.StatusForbidden, "blog.comments.error.not_yours", "blog: another's comment")
	ErrTooManyComments = fault.New(http.StatusTooManyRequests, "blog.comments.error.too_many", "blog: too many comments this hour")
)

// CommentRow is one comment.
type CommentRow struct {
	PartitionKey string    `table:"PartitionKey"` // the post's ID
	RowKey       string    `table:"RowKey"`       // {rt(CreatedAt)}|{ULID}
	ETag         string    `table:"ETag"`
	AuthorKey    string    `table:"authorKey"`
	AuthorName   string    `table:"authorName"`
	Body         string    `table:"body"` // Markdown
	CreatedAt    time.Time `table:"createdAt"`
	// EditedAt is its author's last edit, nil for none.
	EditedAt *time.Time `table:"editedAt"`
	// Hidden: the moderators took it down after a report.
	Hidden bool `table:"hidden"`
}

// validCommentKey reports whether rk can be a comment's RowKey.
func validCommentKey(rk string) bool {
	ticks, id, _ := strings.Cut(rk, "|")
	_, err := storage.TimeFromReverseTicks(ticks)
	return err == nil && storage.IsID(id)
}

// commentLimit is a member's comments an hour.
func (s *Service) commentLimit() quota.Limit {
	return quota.Limit{Table: s.commentQuota, Max: CommentsPerHour, Window: time.Hour, Err: ErrTooManyComments}
}

// AddComment writes by's comment on p, which readers must see: its text
// refused is a formrule.FieldErrors on "body", past the hour's limit
// ErrTooManyComments; the post's author is told.
func (s *Service) AddComment(ctx context.Context, p PostRow, by *auth.Identity, body string) (CommentRow, error) {
	if !p.Visible(s.now()) {
		return CommentRow{}, ErrNoPost
	}
	body, err := checkComment(body)
	if err != nil {
		return CommentRow{}, err
	}
	now := s.now().UTC()
	if err := s.commentLimit().Take(ctx, by.MemberKey, now); err != nil {
		return CommentRow{}, err
	}
	row := CommentRow{
		PartitionKey: p.ID, RowKey: storage.ReverseTicks(now) + "|" + ulid.Make().String(),
		AuthorKey: by.MemberKey, AuthorName: by.DisplayName, Body: body, CreatedAt: now,
	}
	etag, err := storage.Insert(ctx, s.comments, row)
	if err != nil {
		return CommentRow{}, err
	}
	row.ETag = etag
	if s.notifier != nil && p.AuthorKey != "" && p.AuthorKey != by.MemberKey {
		n := inbox.Notice{
			To: []inbox.Recipient{{MemberKey: p.AuthorKey}}, Kind: "blog.notify.comment", From: by.MemberKey,
			Args: map[string]string{"name": by.DisplayName, "title": p.Title, "preview": richtext.Plain(body, 140)},
			Link: postURL(p.RowKey) + "#" + commentAnchor(row.RowKey), When: now, Key: "blog-comment|" + p.ID + "|" + row.RowKey,
		}
		if err := s.notifier.Post(context.WithoutCancel(ctx), n); err != nil {
			s.log.WarnContext(ctx, "blog: a comment's author was not told", "post", p.RowKey, "err", err)
		}
	}
	return row, nil
}

// checkComment cleans a comment's text: a refusal is a
// formrule.FieldErrors on "body".
func checkComment(body string) (string, error) {
	errs := formrule.FieldErrors{}
	body = errs.Check("body", commentRule, body, "blog.comments.error.body")
	if len(errs) > 0 {
		return body, errs
	}
	return body, nil
}

// EditComment changes comment rk of the post with id to body: its
// author's alone (ErrNotYourComment), while it is shown (a comment the
// moderators hid is ErrNoComment).
func (s *Service) EditComment(ctx context.Context, id, rk string, by *auth.Identity, body string) (CommentRow, error) {
	if !validCommentKey(rk) {
		return CommentRow{}, ErrNoComment
	}
	body, err := checkComment(body)
	if err != nil {
		return CommentRow{}, err
	}
	return storage.Change(ctx, s.comments, id, rk, ErrNoComment, func(c *CommentRow) error {
		switch {
		case c.Hidden:
			return ErrNoComment
		case c.AuthorKey != by.MemberKey:
			return ErrNotYourComment
		case c.Body == body:
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		c.Body, c.EditedAt = body, &now
		return nil
	})
}

// CommentsPage is a page of a post's comments, newest first.
type CommentsPage struct {
	Comments []CommentRow
	Next     *storage.Continuation
}

// Comments reads a page of the comments on the post with id, from start
// (nil: the newest): one query.
func (s *Service) Comments(ctx context.Context, id string, start *storage.Continuation) (CommentsPage, error) {
	rows, next, err := storage.TakePage[CommentRow](ctx, s.comments, storage.Query{PartitionKey: id, Continuation: start}, commentsPage)
	return CommentsPage{Comments: rows, Next: next}, err
}

// comment reads the comment rk on the post with id.
func (s *Service) comment(ctx context.Context, id, rk string) (CommentRow, error) {
	if !validCommentKey(rk) {
		return CommentRow{}, ErrNoComment
	}
	return storage.Find[CommentRow](ctx, s.comments, id, rk, ErrNoComment)
}

// DeleteComment deletes comment rk of the post with id: its author's or
// an admin's doing (ErrNotYourComment otherwise).
func (s *Service) DeleteComment(ctx context.Context, id, rk string, by *auth.Identity) error {
	c, err := s.comment(ctx, id, rk)
	if err != nil {
		return err
	}
	if c.AuthorKey != by.MemberKey && !by.Admin {
		return ErrNotYourComment
	}
	err = s.comments.Delete(ctx, id, rk, c.ETag)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// deleteComments deletes every comment of the post with id (the post is
// gone), a batch at a time.
func (s *Service) deleteComments(ctx context.Context, id string) error {
	rows, err := storage.All[CommentRow](ctx, s.comments, storage.Query{PartitionKey: id, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	for start := 0; start < len(rows); start += storage.MaxTxOps {
		var tx storage.Tx
		for _, r := range rows[start:min(start+storage.MaxTxOps, len(rows))] {
			tx.Delete(id, r.RowKey, storage.AnyETag)
		}
		if err := tx.Commit(ctx, s.comments); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	return nil
}

// ReportKinds are what the blog takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{commentKind} }

// TakeDown hides the reported comment.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, _ moderation.Moderator, _ string) error {
	id, rk, _ := strings.Cut(t.Key, "#")
	if !validCommentKey(rk) {
		return ErrNoComment
	}
	_, err := storage.Change(ctx, s.comments, id, rk, ErrNoComment, func(c *CommentRow) error {
		if c.Hidden {
			return storage.ErrNoChange
		}
		c.Hidden = true
		return nil
	})
	return err
}

// commentAnchor is a comment's id in the post's page.
func commentAnchor(rk string) string {
	_, id, _ := strings.Cut(rk, "|")
	return "comment-" + id
}

package blog

import (
	"context"
	"errors"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account: a member's comments and replies stay under the
// posts, written by memberdata.Forgotten (the comments kit's
// ForgetAuthor), their follow of the blog goes, and a post an admin
// wrote stays, its author (on the post and its cards) Forgotten.

// exportedComment is a comment as the member's archive holds it.
type exportedComment struct {
	Post    string     `json:"post_id"`
	Reply   bool       `json:"reply"`
	Text    string     `json:"text"`
	Written time.Time  `json:"written"`
	Edited  *time.Time `json:"edited,omitempty"`
	Hidden  bool       `json:"hidden_by_moderators,omitempty"`
}

// exportedPost is a post the member wrote, as their archive holds it.
type exportedPost struct {
	Address   string    `json:"address"`
	Title     string    `json:"title"`
	Text      string    `json:"text"`
	Published bool      `json:"published"`
	Written   time.Time `json:"written"`
}

// ExportMember writes m's comments, their follow and the posts they
// wrote into blog/.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	rows, err := s.comments.Authored(ctx, m.Key)
	if err != nil {
		return err
	}
	out := make([]exportedComment, 0, len(rows))
	for _, r := range rows {
		out = append(out, exportedComment{Post: r.PartitionKey, Reply: r.Parent() != "", Text: r.Body, Written: r.CreatedAt, Edited: r.EditedAt, Hidden: r.Hidden})
	}
	if err := to.JSON("blog/comments.json", out); err != nil {
		return err
	}
	following, err := s.Following(ctx, m.Key)
	if err != nil {
		return err
	}
	if err := to.JSON("blog/following.json", map[string]bool{"follows_the_blog": following}); err != nil {
		return err
	}
	posts, err := storage.All[PostRow](ctx, s.posts, s.postsBy(m.Key))
	if err != nil || len(posts) == 0 {
		return err
	}
	written := make([]exportedPost, 0, len(posts))
	for _, p := range posts {
		written = append(written, exportedPost{Address: p.RowKey, Title: p.Title, Text: p.Body, Published: p.Published, Written: p.CreatedAt})
	}
	return to.JSON("blog/posts.json", written)
}

// postsBy is the query of the posts authorKey wrote.
func (s *Service) postsBy(authorKey string) storage.Query {
	return storage.Query{PartitionKey: postsPart, Filters: []storage.Filter{{Name: "authorKey", Op: storage.Eq, Value: authorKey}}}
}

// ForgetMember forgets m in the blog: their comments' authorship, their
// follow, and their posts' byline (each post and its cards at once,
// through the projection). A run cut short is finished by the next: a
// post already Forgotten whose cards were left behind is brought in
// step with them.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if err := s.comments.ForgetAuthor(ctx, m.Key); err != nil {
		return err
	}
	if err := s.Follow(ctx, m.Key, false); err != nil {
		return err
	}
	posts, err := storage.All[PostRow](ctx, s.posts, s.postsBy(m.Key))
	if err != nil {
		return err
	}
	for _, p := range posts {
		_, err := s.cards.Change(ctx, postsPart, p.RowKey, ErrNoPost, func(p *PostRow) error {
			if p.AuthorKey != m.Key {
				return storage.ErrNoChange
			}
			p.AuthorKey, p.AuthorName = memberdata.Forgotten, ""
			return nil
		})
		if err != nil && !errors.Is(err, ErrNoPost) {
			return err
		}
	}
	// The cards of posts forgotten by a run whose card writes failed.
	forgotten, err := storage.All[PostRow](ctx, s.posts, s.postsBy(memberdata.Forgotten))
	for _, p := range forgotten {
		if err == nil {
			err = s.cards.Sync(ctx, nil, &p)
		}
	}
	return err
}

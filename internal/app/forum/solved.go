package forum

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Solutions, as Discourse's "Solved": the topic's author, or its
// section's staff, marks one reply as the answer. The topic keeps its
// number (Summary.Solved), so the lists show "Solved" from their index
// rows at no cost, and the topic page links the answer under the
// question. The reply's author is told in their inbox. Marking another
// reply moves the mark; the opening post, and a deleted or hidden reply,
// cannot be the answer, and hiding or deleting the answer takes the mark
// away (recount).

// ErrNotASolution is the opening post, or a deleted or hidden reply,
// marked as the answer (400).
var ErrNotASolution = fault.New(http.StatusBadRequest, "forum.error.solution", "forum: this post cannot be the solution")

// Solve marks post num of topicID as its solution (on) or takes the
// mark away, for by: the topic's author or its section's staff.
func (s *Service) Solve(ctx context.Context, by Person, topicID string, num int, on bool) error {
	t, p, err := s.Post(ctx, topicID, num)
	if err != nil {
		return err
	}
	if t.AuthorKey != by.MemberKey {
		if err := s.requireStaff(ctx, by, t.Section); err != nil {
			return err
		}
	}
	if on && (num == 1 || p.DeletedAt != nil || p.Hidden) {
		return ErrNotASolution
	}
	_, after, err := s.changeHead(ctx, topicID, func(t *TopicRow) error {
		switch {
		case on && t.Solved == num, !on && t.Solved != num:
			return storage.ErrNoChange
		case on:
			t.Solved = num
		default:
			t.Solved = 0
		}
		return nil
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	if err != nil || !on || p.AuthorKey == by.MemberKey || s.notifier == nil {
		return err
	}
	s.tell(context.WithoutCancel(ctx), p.AuthorKey, "forum.notify.solved", by, after, p, fmt.Sprintf("forum.solved|%s|%d", topicID, num))
	return nil
}

// solution is t's answer for its page, taken from posts (the page's
// window) or read when it is not among them; ok false when t has none,
// or it was deleted or hidden since.
func (s *Service) solution(ctx context.Context, t TopicRow, posts []PostRow) (PostRow, bool) {
	if t.Solved == 0 {
		return PostRow{}, false
	}
	for _, p := range posts {
		if p.Num == t.Solved {
			return p, p.DeletedAt == nil && !p.Hidden
		}
	}
	p, err := s.post(ctx, t.PartitionKey, t.Solved)
	return p, err == nil && p.DeletedAt == nil && !p.Hidden
}

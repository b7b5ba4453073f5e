package prompts

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Vote values.
const (
	Dislike = -1
	NoVote  = 0
	Like    = 1
)

// ErrOwnPrompt is a vote on one's own prompt.
var ErrOwnPrompt = fault.New(http.StatusForbidden, "prompts.error.own_prompt", "prompts: you cannot vote on your own prompt")

// Tally is a prompt's counts and the viewer's own vote.
type Tally struct {
	Likes, Dislikes int64
	Mine            int
}

// voteAttempts bounds the ETag retries of the counts. Each failed attempt
// means another vote landed, so with n people voting at once the last one
// may need n attempts; the budget covers a crowd of a few hundred at once.
const voteAttempts = 1000

// Vote sets voterID's vote on a prompt to value (Like, Dislike or NoVote).
//
// Two writes, each conditional on an ETag. First the voter's PromptVotes
// row moves from its old value to the new one (insert if absent, else
// update at its ETag); a request that loses that race reads the row again,
// so a person clicking like 200 times at once moves it once. Then the
// change (new minus old) is added to the Prompts row's Likes and Dislikes
// at the row's ETag, retrying until it lands. Deltas commute, so any
// number of voters at once end with exact counts. Last, reconcile moves
// the index rows (the most-liked row's key changes with the score).
//
// If the process dies between the two writes, the counts miss one vote;
// Reindex recounts them from PromptVotes.
func (s *Service) Vote(ctx context.Context, voterID, promptID string, value int) (Tally, error) {
	if value < Dislike || value > Like {
		return Tally{}, fmt.Errorf("prompts: vote %d is not -1, 0 or 1", value)
	}
	p, err := s.Open(ctx, voterID, promptID, false)
	if err != nil {
		return Tally{}, err
	}
	if p.AuthorID == voterID {
		return Tally{}, ErrOwnPrompt
	}
	var old int
	err = storage.Optimistic(ctx, voteAttempts, func(ctx context.Context) error {
		var err error
		old, err = s.setVote(ctx, voterID, promptID, value)
		return err
	})
	if err != nil {
		return Tally{}, err
	}
	if old == 0 && value != 0 {
		s.counts.Add(ctx, PromptVotes)
	}
	if old != value {
		if p, err = s.addVote(ctx, p.AuthorID, promptID, old, value); err != nil {
			return Tally{}, err
		}
		if err := s.reconcile(ctx, p.AuthorID, promptID); err != nil {
			return Tally{}, err
		}
	}
	return Tally{Likes: p.Likes, Dislikes: p.Dislikes, Mine: value}, nil
}

// setVote moves the voter's row to value and returns the value it had.
// ErrExists or ErrPrecondition mean another request moved it first.
func (s *Service) setVote(ctx context.Context, voterID, promptID string, value int) (int, error) {
	pk, rk := voteKey(promptID, voterID)
	row := VoteRow{PartitionKey: pk, RowKey: rk, PromptID: promptID, VoterID: voterID, VoteValue: int64(value), UpdatedAt: s.now().UTC()}
	e, err := storage.Marshal(row)
	if err != nil {
		return 0, err
	}
	cur, err := s.votes.Get(ctx, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		if value == NoVote {
			return NoVote, nil
		}
		_, err = s.votes.Insert(ctx, e)
		return NoVote, err
	}
	if err != nil {
		return 0, err
	}
	var had VoteRow
	if err := storage.Unmarshal(cur, &had); err != nil {
		return 0, err
	}
	if int(had.VoteValue) == value {
		return value, nil
	}
	_, err = s.votes.Update(ctx, e, storage.Replace, had.ETag)
	return int(had.VoteValue), err
}

// addVote adds the move from old to value to the prompt's counts.
func (s *Service) addVote(ctx context.Context, authorID, promptID string, old, value int) (PromptRow, error) {
	likes := count(value == Like) - count(old == Like)
	dislikes := count(value == Dislike) - count(old == Dislike)
	return s.addCounts(ctx, authorID, promptID, likes, dislikes)
}

// errMoved is a prompt's row gone while its counts were being changed:
// read where it is now, and change them there.
var errMoved = fmt.Errorf("%w: the prompt moved", storage.ErrPrecondition)

// addCounts adds likes and dislikes to promptID's counts, following the
// prompt when its author's account went on the way (passToForgotten
// moved it to the Forgotten author's partition): a vote that read the
// prompt before the move counts on the prompt where it is.
func (s *Service) addCounts(ctx context.Context, authorID, promptID string, likes, dislikes int64) (PromptRow, error) {
	var p PromptRow
	err := storage.Optimistic(ctx, voteAttempts, func(ctx context.Context) error {
		var err error
		if p, err = s.loadMoved(ctx, &authorID, promptID); err != nil {
			return err
		}
		// No clamping at zero: deltas must commute. A dislike's "-1 like"
		// may land before the like it undoes; the sum is right at the end.
		p.Likes, p.Dislikes = p.Likes+likes, p.Dislikes+dislikes
		_, err = s.prompts.Update(ctx, storage.Entity{PartitionKey: p.PartitionKey, RowKey: p.RowKey,
			Props: map[string]any{"Likes": p.Likes, "Dislikes": p.Dislikes}}, storage.Merge, p.ETag)
		if errors.Is(err, storage.ErrNotFound) {
			return errMoved
		}
		return err
	})
	return p, err
}

// loadMoved reads promptID's row under *authorID or, when it is not
// there, under the author its id lookup names now (the prompt moved),
// which *authorID then becomes.
func (s *Service) loadMoved(ctx context.Context, authorID *string, promptID string) (PromptRow, error) {
	p, err := s.load(ctx, *authorID, promptID)
	if !errors.Is(err, storage.ErrNotFound) {
		return p, err
	}
	now, lerr := s.authorOf(ctx, promptID)
	if lerr != nil || now == *authorID {
		return p, err
	}
	*authorID = now
	return s.load(ctx, now, promptID)
}

func count(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// MyVote is voterID's vote on promptID (NoVote when none).
func (s *Service) MyVote(ctx context.Context, voterID, promptID string) (int, error) {
	if voterID == "" || !storage.IsID(promptID) {
		return NoVote, nil
	}
	pk, rk := voteKey(promptID, voterID)
	v, err := storage.Get[VoteRow](ctx, s.votes, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return NoVote, nil
	}
	return int(v.VoteValue), err
}

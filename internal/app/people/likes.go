package people

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// MaxComment is the most characters a like's comment may have.
const MaxComment = 200

// commentRule is a like's comment: one line, optional.
var commentRule = formrule.Text{Max: MaxComment}

// Refusals of a like, an unlike and an unmatch.
var (
	// ErrSelf: oneself (404, as a page of nobody).
	ErrSelf = fault.New(http.StatusNotFound, "people.error.self", "people: oneself")
	// ErrJoinFirst: the liker is not in People themselves (409): the
	// liked person could not see who liked them, or like them back.
	ErrJoinFirst = fault.New(http.StatusConflict, "people.error.join_first", "people: show yourself in People first")
	// ErrYouBlocked: the liker blocked them (409).
	ErrYouBlocked = fault.New(http.StatusConflict, "people.error.you_blocked", "people: you blocked them")
	// ErrEnded: the two matched once and one of them unmatched (409).
	ErrEnded = fault.New(http.StatusConflict, "people.error.ended", "people: the match was ended")
	// ErrMatched: a like taken back after the match (409): unmatch instead.
	ErrMatched = fault.New(http.StatusConflict, "people.error.matched", "people: you are matched; unmatch instead")
	// ErrNoMatch: an unmatch of people who are not matched (404).
	ErrNoMatch = fault.New(http.StatusNotFound, "people.error.no_match", "people: not matched")
)

// Pair is how a viewer and another person stand: who liked whom and
// whether they matched. Their is the other's like of the viewer, if any.
type Pair struct {
	Mine    *LikeRow
	Theirs  *LikeRow
	Match   *MatchRow
	Blocked bool // the viewer blocked them
}

// Matched reports a match that stands.
func (p Pair) Matched() bool { return p.Match != nil && p.Match.Active }

// Ended reports a match that one of them ended.
func (p Pair) Ended() bool { return p.Match != nil && !p.Match.Active }

// PairOf reads how me and other stand: three point reads, and one for
// the block.
func (s *Service) PairOf(ctx context.Context, me, other string) (Pair, error) {
	var p Pair
	var err error
	if p.Mine, err = s.like(ctx, me, other); err != nil {
		return Pair{}, err
	}
	if p.Theirs, err = s.like(ctx, other, me); err != nil {
		return Pair{}, err
	}
	if p.Match, err = s.match(ctx, me, other); err != nil {
		return Pair{}, err
	}
	p.Blocked, err = s.blocked(ctx, me, other)
	return p, err
}

// like is from's like of to, nil for none.
func (s *Service) like(ctx context.Context, from, to string) (*LikeRow, error) {
	return found(storage.Get[LikeRow](ctx, s.likes, from, to))
}

// match is member's side of a match with other, nil for none.
func (s *Service) match(ctx context.Context, member, other string) (*MatchRow, error) {
	return found(storage.Get[MatchRow](ctx, s.matches, member, other))
}

// matchWith is member's side of a match with other (nil for none), once
// other is someone else's key (ErrSelf otherwise).
func (s *Service) matchWith(ctx context.Context, member, other string) (*MatchRow, error) {
	if member == other || !auth.IsAuthMemberKey(other) {
		return nil, ErrSelf
	}
	return s.match(ctx, member, other)
}

// found is a point read's row, nil when there is none.
func found[T any](v T, err error) (*T, error) {
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Result is what a like did.
type Result struct {
	// Matched: the like was returned, so the two match now.
	Matched bool
}

// Like records that from likes to, with comment, and matches them when
// to liked from already. Both must be in People (to: account.
// ErrNotInPeople; from: ErrJoinFirst); a like already made stands as it
// is. It is counted against the liker's LikesPerDay.
//
// The sent row is written first and is the truth; the received row and,
// on a match, both Matches rows follow (Rebuild finishes what a crash
// left). The liker's like is written before the other's is read, so two
// people liking each other at once cannot both miss the other's like:
// at least one of them sees it and matches them (both may; the match
// rows are the same either way).
func (s *Service) Like(ctx context.Context, from, to, comment string) (Result, error) {
	return s.LikeAbout(ctx, from, to, comment, "")
}

var (
	// ErrAnswerGone refuses a like of an answer the card no longer has
	// (it changed since the page was read): 409.
	ErrAnswerGone = fault.New(http.StatusConflict, "people.error.answer_gone", "people: the liked answer is gone")
	// ErrPhotoGone refuses a like of a photo the card no longer has:
	// 409.
	ErrPhotoGone = fault.New(http.StatusConflict, "people.error.photo_gone", "people: the liked photo is gone")
)

// photoAbout starts a like's About when it is of one photo: "photo:"
// and the photo's id.
const photoAbout = "photo:"

// LikeAbout is Like of one part of to's card, as Hinge likes one prompt
// or one photo: about is one of the questions the card answers, or
// photoAbout and the id of one of its photos ("" for the card as a
// whole). The like keeps the answer as it was, or the photo's name
// (AboutText), which the liked person sees with it.
func (s *Service) LikeAbout(ctx context.Context, from, to, comment, about string) (Result, error) {
	comment, problem := commentRule.Check(comment)
	if problem != formrule.OK {
		return Result{}, formrule.FieldErrors{"comment": problem.Message("", "people.error.comment_invalid")}
	}
	if from == to || !auth.IsAuthMemberKey(to) {
		return Result{}, ErrSelf
	}
	them, err := s.accounts.InPeople(ctx, to)
	if err != nil {
		return Result{}, err
	}
	var aboutText string
	if id, ok := strings.CutPrefix(about, photoAbout); ok {
		photos, err := s.Photos(ctx, to)
		if err != nil {
			return Result{}, err
		}
		i := slices.IndexFunc(photos, func(p PhotoRow) bool { return p.RowKey == id })
		if i < 0 {
			return Result{}, ErrPhotoGone
		}
		aboutText = photos[i].Key
	} else if about != "" {
		answers := answersOf(them.Answers)
		i := slices.IndexFunc(answers, func(a Answer) bool { return a.Question == about })
		if i < 0 {
			return Result{}, ErrAnswerGone
		}
		aboutText = answers[i].Text
	}
	me, err := s.accounts.InPeople(ctx, from)
	if errors.Is(err, account.ErrNotInPeople) {
		return Result{}, ErrJoinFirst
	}
	if err != nil {
		return Result{}, err
	}
	pair, err := s.PairOf(ctx, from, to)
	switch {
	case err != nil:
		return Result{}, err
	case pair.Blocked:
		return Result{}, ErrYouBlocked
	case pair.Ended():
		return Result{}, ErrEnded
	case pair.Mine != nil:
		return Result{Matched: pair.Matched()}, nil
	}
	if err := s.likeLimit().Take(ctx, from, s.now()); err != nil {
		return Result{}, err
	}
	settings, err := s.accounts.Settings(ctx, from)
	if err != nil {
		return Result{}, err
	}
	row := LikeRow{PartitionKey: from, RowKey: to, CreatedAt: s.now().UTC(), Comment: comment, Anonymous: settings.AnonymousLikes, About: about, AboutText: aboutText}
	if _, err := storage.Insert(ctx, s.likes, row); errors.Is(err, storage.ErrExists) {
		// The same like at once (a double click): the first one stands.
		return Result{}, nil
	} else if err != nil {
		return Result{}, err
	}
	s.counts.Add(ctx, LikesSent)
	if err := s.writeReceived(ctx, row); err != nil {
		return Result{}, err
	}
	theirs, err := s.like(ctx, to, from)
	if err != nil {
		return Result{}, err
	}
	if theirs == nil {
		s.tellLike(ctx, row, me)
		return Result{}, nil
	}
	// They liked the liker first: a match, unless they blocked the liker
	// (who is not told: their like stands, unanswered).
	if hid, err := s.blocked(ctx, to, from); err != nil || hid {
		return Result{}, err
	}
	if err := s.writeMatch(ctx, from, to, row.CreatedAt); err != nil {
		return Result{}, err
	}
	s.counts.Add(ctx, NewMatches)
	s.tellMatch(ctx, me, them)
	return Result{Matched: true}, nil
}

// writeReceived copies a sent like into the liked person's received
// likes.
func (s *Service) writeReceived(ctx context.Context, sent LikeRow) error {
	r := sent
	r.PartitionKey, r.RowKey, r.ETag = receivedPK(sent.RowKey), sent.PartitionKey, ""
	_, err := storage.Upsert(ctx, s.likes, r)
	return err
}

// writeMatch writes both sides of a match that stands.
func (s *Service) writeMatch(ctx context.Context, a, b string, at time.Time) error {
	for _, side := range [][2]string{{a, b}, {b, a}} {
		if _, err := storage.Upsert(ctx, s.matches, MatchRow{PartitionKey: side[0], RowKey: side[1], CreatedAt: at, Active: true}); err != nil {
			return err
		}
	}
	return nil
}

// Unlike takes back from's like of to before they match (ErrMatched
// after: unmatch). Taking back a like there is not is nothing.
func (s *Service) Unlike(ctx context.Context, from, to string) error {
	m, err := s.matchWith(ctx, from, to)
	if err != nil {
		return err
	}
	if m != nil && m.Active {
		return ErrMatched
	}
	return s.deleteLike(ctx, from, to)
}

// deleteLike deletes a like and its received row: the received row
// first, so a crash between them leaves a sent row Rebuild copies
// again, never a received row without its truth.
func (s *Service) deleteLike(ctx context.Context, from, to string) error {
	for _, k := range [][2]string{{receivedPK(to), from}, {from, to}} {
		if err := storage.Forget(ctx, s.likes, k[0], k[1]); err != nil {
			return err
		}
	}
	return nil
}

// Unmatch ends me's match with other, for both of them and for good:
// both Matches rows say so (and neither may like the other again), and
// both likes go. The other is not told; the match leaves their list.
func (s *Service) Unmatch(ctx context.Context, me, other string) error {
	m, err := s.matchWith(ctx, me, other)
	if err != nil {
		return err
	}
	if m == nil || !m.Active {
		return ErrNoMatch
	}
	now := s.now().UTC()
	for _, side := range [][2]string{{me, other}, {other, me}} {
		_, err := storage.Modify(ctx, s.matches, side[0], side[1], func(r *MatchRow, exists bool) error {
			if !exists {
				r.CreatedAt = m.CreatedAt
			}
			r.Active, r.EndedAt, r.EndedBy = false, &now, me
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := s.deleteLike(ctx, me, other); err != nil {
		return err
	}
	return s.deleteLike(ctx, other, me)
}

// tellLike tells the liked person of a like: by name, or as "someone"
// when the like is anonymous. From is the liker either way, so a liked
// person who blocked them hears nothing.
func (s *Service) tellLike(ctx context.Context, like LikeRow, liker account.DirectoryRow) {
	// Plain likes gather into one line, unread ("Masha and 2 others like
	// you"); one with a comment is a line of its own.
	kind, args, gather := "people.notify.like", map[string]string{"name": liker.DisplayName, "comment": like.Comment}, "you"
	if like.Anonymous {
		kind, args, gather = "people.notify.like_anonymous", map[string]string{}, ""
	} else if like.Comment != "" {
		kind, gather = "people.notify.like_comment", ""
	}
	s.post(ctx, inbox.Notice{
		To:   []inbox.Recipient{{MemberKey: like.RowKey}},
		Kind: kind, Args: args, When: like.CreatedAt, Link: LikesURL,
		Key:    fmt.Sprintf("people.like|%s|%s", like.PartitionKey, like.RowKey),
		From:   like.PartitionKey,
		Gather: gather,
	})
}

// tellMatch tells both of a match, each with the other's name.
func (s *Service) tellMatch(ctx context.Context, a, b account.DirectoryRow) {
	for _, side := range [][2]account.DirectoryRow{{a, b}, {b, a}} {
		s.post(ctx, inbox.Notice{
			To:   []inbox.Recipient{{MemberKey: side[0].RowKey}},
			Kind: "people.notify.match", Args: map[string]string{"name": side[1].DisplayName},
			When: s.now().UTC(), Link: MatchesURL,
			Key:  fmt.Sprintf("people.match|%s|%s", side[0].RowKey, side[1].RowKey),
			From: side[1].RowKey,
		})
	}
}

// post hands n to the inbox: the like is saved already, so a failure is
// logged.
func (s *Service) post(ctx context.Context, n inbox.Notice) {
	if s.notifier == nil {
		return
	}
	if err := s.notifier.Post(ctx, n); err != nil {
		s.log.WarnContext(ctx, "people: notice not posted", "kind", n.Kind, "err", err)
	}
}

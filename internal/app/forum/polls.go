package forum

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// Polls, as Discourse's: a topic may open with one question of two to
// ten options, one vote each, changed or taken back until the poll is
// closed (by the topic's author or its section's staff) or the topic is
// locked. The poll is a row of the topic's partition ("poll") holding
// the options and their counts; each vote is a row beside it
// (voteKey), written with the counts in one transaction at the poll's
// ETag, so the counts always match the votes and need no repair. A
// topic's head says it has a poll (HasPoll), so a topic without one
// reads nothing more.

// Bounds of a poll.
const (
	MaxPollOptions = 10
	MaxPollOption  = 100
	MaxPollText    = 200
	pollKey        = "poll"
	votePrefix     = "v|"
)

var (
	pollQuestionRule = formrule.Text{Max: MaxPollText}
	pollOptionsRule  = formrule.Lines{Item: MaxPollOption, Most: MaxPollOptions}
)

// Errors of polls.
var (
	ErrNoPoll = fault.NotFound("forum: the topic has no poll", storage.ErrNotFound)
	// ErrPollClosed refuses a vote on a closed poll, or in a locked
	// topic (409).
	ErrPollClosed = fault.New(http.StatusConflict, "forum.poll.error.closed", "forum: the poll is closed")
	// ErrPollChoice refuses a vote for none of the options (422).
	ErrPollChoice = fault.New(http.StatusUnprocessableEntity, "forum.poll.error.choice", "forum: no such option")
)

// PollRow is a topic's poll: PK the topic id, RK "poll".
type PollRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Question     string `table:"question"`
	// Options are the options, one a line; Votes their counts, in order,
	// separated by commas; Voters how many voted.
	Options   string    `table:"options"`
	Votes     string    `table:"votes"`
	Voters    int       `table:"voters"`
	Closed    bool      `table:"closed"`
	CreatedAt time.Time `table:"createdAt"`
}

// VoteRow is one person's vote: PK the topic id, RK voteKey(memberKey).
type VoteRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Choice       int       `table:"choice"`
	At           time.Time `table:"at"`
}

func voteKey(memberKey string) string { return votePrefix + memberKey }

// options are the poll's options.
func (p PollRow) options() []string { return strings.Split(p.Options, "\n") }

// counts are the votes of each option (a count a row lacks is 0).
func (p PollRow) counts() []int {
	out := make([]int, len(p.options()))
	for i, v := range strings.Split(p.Votes, ",") {
		if n, err := strconv.Atoi(v); err == nil && i < len(out) {
			out[i] = max(n, 0)
		}
	}
	return out
}

// count records counts as the poll's.
func (p *PollRow) count(counts []int) {
	parts := make([]string, len(counts))
	for i, n := range counts {
		parts[i] = strconv.Itoa(max(n, 0))
	}
	p.Votes = strings.Join(parts, ",")
}

// PollDraft is a poll as the new topic form has it: its question and its
// options, one a line; both blank is no poll.
type PollDraft struct{ Question, Options string }

// pollOf checks d for a topic to open with: nil for no poll; field
// errors under "pollQuestion" and "pollOptions".
func pollOf(d PollDraft, errs FormErrors) *PollRow {
	question := errs.Check("pollQuestion", pollQuestionRule, d.Question, "forum.poll.error.question")
	options, p := pollOptionsRule.Check(d.Options)
	switch {
	case p != formrule.OK:
		errs["pollOptions"] = p.Message("", "forum.poll.error.options")
	case len(options) == 0 && question == "":
		return nil
	case len(options) < 2:
		errs["pollOptions"] = "forum.poll.error.options"
	}
	if errs["pollQuestion"] != "" || errs["pollOptions"] != "" {
		return nil
	}
	p2 := &PollRow{RowKey: pollKey, Question: question, Options: strings.Join(options, "\n")}
	p2.count(make([]int, len(options)))
	return p2
}

// Poll reads topic t's poll and memberKey's vote (-1 for none, and for
// a visitor): one query of the two rows. ErrNoPoll when it has none.
func (s *Service) Poll(ctx context.Context, t TopicRow, memberKey string) (PollRow, *VoteRow, error) {
	if !t.HasPoll {
		return PollRow{}, nil, ErrNoPoll
	}
	keys := []string{pollKey}
	if memberKey != "" {
		keys = append(keys, voteKey(memberKey))
	}
	var poll *PollRow
	var vote *VoteRow
	err := s.posts.QueryAll(ctx, storage.Query{PartitionKey: t.PartitionKey, RowKeyIn: keys}, func(e storage.Entity) error {
		if e.RowKey == pollKey {
			var p PollRow
			poll = &p
			return storage.Unmarshal(e, poll)
		}
		var v VoteRow
		vote = &v
		return storage.Unmarshal(e, vote)
	})
	switch {
	case err != nil:
		return PollRow{}, nil, err
	case poll == nil:
		return PollRow{}, nil, ErrNoPoll
	}
	return *poll, vote, nil
}

// Vote records by's vote for option choice (from 0) of topic t's poll,
// or, choice -1, takes their vote back: the vote's row and the counts
// in one transaction at the poll's ETag. The same vote again writes
// nothing; a poll under a hidden opening post is not found.
func (s *Service) Vote(ctx context.Context, by Person, t TopicRow, choice int) error {
	if !t.HasPoll {
		return ErrNoPoll
	}
	// The poll stands under the opening post, and goes out of sight with
	// it when moderators hide it.
	first, err := s.post(ctx, t.PartitionKey, 1)
	switch {
	case err != nil:
		return err
	case first.Hidden || first.DeletedAt != nil:
		return ErrNoPoll
	}
	// The poll is read, and the vote judged, before the footprint is
	// written, so a refusal writes nothing; a retry reads it again.
	p, mine, err := s.Poll(ctx, t, by.MemberKey)
	if done, err := judgeVote(p, mine, err, t, choice); done || err != nil {
		return err
	}
	if choice >= 0 {
		if err := s.marks.Mark(ctx, by.MemberKey, t.PartitionKey); err != nil {
			return err
		}
	}
	again := false
	return storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		if again {
			p, mine, err = s.Poll(ctx, t, by.MemberKey)
			if done, err := judgeVote(p, mine, err, t, choice); done || err != nil {
				return err
			}
		}
		again = true
		return s.castVote(ctx, p, mine, by.MemberKey, choice)
	})
}

// judgeVote judges a vote for choice in poll p of topic t, read with
// the voter's vote mine (read's error err): done when it would change
// nothing, or why it is refused.
func judgeVote(p PollRow, mine *VoteRow, err error, t TopicRow, choice int) (done bool, _ error) {
	switch {
	case err != nil:
		return true, err
	case p.Closed || t.Locked:
		return true, ErrPollClosed
	case choice >= len(p.options()):
		return true, ErrPollChoice
	}
	return mine == nil && choice < 0 || mine != nil && mine.Choice == choice, nil
}

// castVote moves memberKey's vote in poll p from mine (nil: none) to
// choice (-1: none) in one transaction at p's ETag.
func (s *Service) castVote(ctx context.Context, p PollRow, mine *VoteRow, memberKey string, choice int) error {
	counts := p.counts()
	var tx storage.Tx
	if mine != nil {
		if mine.Choice >= 0 && mine.Choice < len(counts) {
			counts[mine.Choice]--
		}
		p.Voters--
	}
	if choice >= 0 {
		counts[choice]++
		p.Voters++
		tx.Upsert(VoteRow{PartitionKey: p.PartitionKey, RowKey: voteKey(memberKey), Choice: choice, At: s.now().UTC()})
	} else {
		tx.Delete(p.PartitionKey, voteKey(memberKey), storage.AnyETag)
	}
	p.count(counts)
	p.Voters = max(p.Voters, 0)
	return tx.Replace(p, p.ETag).Commit(ctx, s.posts)
}

// ClosePoll closes topic t's poll (closed) or opens it again: its
// author's or its section's staff's to do, and nobody's while the topic
// is locked (its poll takes no votes, and shows closed, until it is
// unlocked).
func (s *Service) ClosePoll(ctx context.Context, by Person, t TopicRow, closed bool) error {
	switch {
	case !t.HasPoll:
		return ErrNoPoll
	case t.Locked:
		return ErrLockedEdit
	}
	if t.AuthorKey != by.MemberKey {
		staff, err := s.IsStaff(ctx, by, t.Section)
		if err != nil {
			return err
		}
		if !staff {
			return ErrNotYours
		}
	}
	_, err := storage.Change(ctx, s.posts, t.PartitionKey, pollKey, ErrNoPoll, func(p *PollRow) error {
		if p.Closed == closed {
			return storage.ErrNoChange
		}
		p.Closed = closed
		return nil
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return err
}

// pollURL is where topic topicID's poll is voted on.
func pollURL(topicID string) string { return topicURL(topicID) + "/poll" }

// pollPage is the topic's page from its opening post, at the poll: a
// reader who read on lands further down otherwise, past the poll.
func pollPage(topicID string) string { return topicURL(topicID) + "?post=1#poll" }

// vote is POST /forum/t/:id/poll (choice: an option's number from 1;
// "none" takes the vote back): back to the poll.
func (s *Service) vote(c echo.Context) error {
	t := topicOf(c)
	choice := -1
	if v := c.FormValue("choice"); v != "none" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return ErrPollChoice
		}
		choice = n - 1
	}
	if err := s.Vote(c.Request().Context(), person(c), t, choice); err != nil {
		return err
	}
	flash := "forum.poll.flash.voted"
	if choice < 0 {
		flash = "forum.poll.flash.unvoted"
	}
	return web.FlashRedirect(c, flash, pollPage(t.PartitionKey))
}

// closePoll is POST /forum/t/:id/poll/close (closed=false opens it
// again): back to the poll.
func (s *Service) closePoll(c echo.Context) error {
	t := topicOf(c)
	closed := c.FormValue("closed") != "false"
	if err := s.ClosePoll(c.Request().Context(), person(c), t, closed); err != nil {
		return err
	}
	flash := "forum.poll.flash.closed"
	if !closed {
		flash = "forum.poll.flash.opened"
	}
	return web.FlashRedirect(c, flash, pollPage(t.PartitionKey))
}

// pollProps are topic t's poll as me sees it, nil when it has none: the
// form to vote until they have (or the poll is closed), the results
// after, and to a visitor; peek shows a member the results before
// their vote (Discourse's "Show results"), with a way back to the form.
func (s *Service) pollProps(ctx context.Context, t TopicRow, me Person, staff, peek bool) (*views.PollProps, error) {
	p, mine, err := s.Poll(ctx, t, me.MemberKey)
	if errors.Is(err, ErrNoPoll) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	closed := p.Closed || t.Locked
	out := &views.PollProps{
		Question: p.Question, Voters: p.Voters, Closed: closed, Action: pollURL(t.PartitionKey),
		Member: me.MemberKey != "", Voted: mine != nil,
	}
	if !t.Locked && (t.AuthorKey == me.MemberKey && me.MemberKey != "" || staff) {
		out.CloseURL = pollURL(t.PartitionKey) + "/close"
	}
	counts := p.counts()
	for i, o := range p.options() {
		opt := views.PollOption{Value: strconv.Itoa(i + 1), Label: o, Votes: counts[i], Mine: mine != nil && mine.Choice == i}
		if p.Voters > 0 {
			opt.Percent = (counts[i]*100 + p.Voters/2) / p.Voters
		}
		out.Options = append(out.Options, opt)
	}
	out.Results = closed || mine != nil || me.MemberKey == "" || peek
	if out.Member && !closed && mine == nil {
		if peek {
			out.VoteURL = pollPage(t.PartitionKey)
		} else {
			out.PeekURL = topicURL(t.PartitionKey) + "?post=1&results=1#poll"
		}
	}
	return out, nil
}

// votedBy are memberKey's votes: (topic id, poll row as it stood), found
// through their footprints.
func (s *Service) votedBy(ctx context.Context, memberKey string) ([]VoteRow, error) {
	var out []VoteRow
	err := s.marks.QueryAll(ctx, s.posts, memberKey, rowKeyIs(voteKey(memberKey)), func(e storage.Entity) error {
		var v VoteRow
		if err := storage.Unmarshal(e, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// forgetVotes takes back m's votes, each with its poll's counts in one
// transaction, as taking a vote back does; a vote whose poll is gone
// goes alone.
func (s *Service) forgetVotes(ctx context.Context, m memberdata.Member) error {
	votes, err := s.votedBy(ctx, m.Key)
	if err != nil {
		return err
	}
	for _, v := range votes {
		err := storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
			p, err := storage.Get[PollRow](ctx, s.posts, v.PartitionKey, pollKey)
			if errors.Is(err, storage.ErrNotFound) {
				return storage.Forget(ctx, s.posts, v.PartitionKey, v.RowKey)
			}
			if err != nil {
				return err
			}
			mine, err := storage.Get[VoteRow](ctx, s.posts, v.PartitionKey, v.RowKey)
			if errors.Is(err, storage.ErrNotFound) {
				return nil // taken back meanwhile
			}
			if err != nil {
				return err
			}
			return s.castVote(ctx, p, &mine, m.Key, -1)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// exportedVote is a vote in the member's archive.
type exportedVote struct {
	Topic    string    `json:"topic_id"`
	Question string    `json:"question,omitempty"`
	Choice   string    `json:"choice"`
	At       time.Time `json:"at"`
}

// exportVotes are m's votes with the options they chose.
func (s *Service) exportVotes(ctx context.Context, memberKey string) ([]exportedVote, error) {
	votes, err := s.votedBy(ctx, memberKey)
	out := []exportedVote{}
	if err != nil {
		return out, err
	}
	for _, v := range votes {
		p, err := storage.Get[PollRow](ctx, s.posts, v.PartitionKey, pollKey)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return out, err
		}
		e := exportedVote{Topic: v.PartitionKey, Question: p.Question, Choice: strconv.Itoa(v.Choice + 1), At: v.At}
		if o := p.options(); v.Choice >= 0 && v.Choice < len(o) {
			e.Choice = o[v.Choice]
		}
		out = append(out, e)
	}
	return out, nil
}

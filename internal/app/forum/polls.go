package forum

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/forum"
)

// Polls, as Discourse's: a topic may open with one question of two to
// ten options, one vote each (of one option, or of several in a
// multiple-choice poll), changed or taken back until the poll is closed
// (by the topic's author or its section's staff, or by itself at the
// time its author set) or the topic is locked. The poll is a row of the
// topic's partition ("poll") holding
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
	Options string `table:"options"`
	Votes   string `table:"votes"`
	Voters  int    `table:"voters"`
	// Multiple lets a voter choose several options; a vote then counts
	// once for each option it chose.
	Multiple bool `table:"multiple"`
	Closed   bool `table:"closed"`
	// ClosesAt closes the poll by itself (nil: when its author or staff
	// close it).
	ClosesAt *time.Time `table:"closesAt"`
	// Show is who sees the results: everyone ("", as ever), those who
	// voted (PollShowVoted), or everyone once it is closed
	// (PollShowClosed); its author and staff always.
	Show      string    `table:"show"`
	CreatedAt time.Time `table:"createdAt"`
}

// When a poll's results show, besides always (Discourse's "results").
const (
	PollShowVoted  = "voted"
	PollShowClosed = "closed"
)

// PollShows are the new topic form's choices of when results show,
// besides "" (always).
var PollShows = []string{PollShowVoted, PollShowClosed}

// shows says whether the results show to a reader who voted or not,
// the poll closed or not (its author and staff aside).
func (p PollRow) shows(closed, voted bool) bool {
	switch p.Show {
	case PollShowVoted:
		return voted || closed
	case PollShowClosed:
		return closed
	}
	return true
}

// closed says whether the poll takes no votes at now.
func (p PollRow) closed(now time.Time) bool {
	return p.Closed || p.ClosesAt != nil && !now.Before(*p.ClosesAt)
}

// VoteRow is one person's vote: PK the topic id, RK voteKey(memberKey).
// Choices are the options it chose (from 0), comma-separated, in order;
// Choice is the first (a vote written before multiple choice holds
// Choice alone).
type VoteRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	Choice       int       `table:"choice"`
	Choices      string    `table:"choices"`
	At           time.Time `table:"at"`
}

func voteKey(memberKey string) string { return votePrefix + memberKey }

// chosen are the options v chose, in order.
func (v VoteRow) chosen() []int {
	if v.Choices == "" {
		return []int{v.Choice}
	}
	var out []int
	for _, c := range strings.Split(v.Choices, ",") {
		if n, err := strconv.Atoi(c); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// chose says whether v chose option i.
func (v *VoteRow) chose(i int) bool { return v != nil && slices.Contains(v.chosen(), i) }

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
// options, one a line (both blank is no poll); Multiple to let voters
// choose several; Closes, one of PollCloses ("" for never), closes it
// by itself that long after the topic opens; Show, one of PollShows (""
// for always), is when its results show.
type PollDraft struct {
	Question, Options string
	Multiple          bool
	Closes, Show      string
}

// PollClose is a time after which a poll may close by itself: the new
// topic form's Value for it.
type PollClose struct {
	Value string
	After time.Duration
}

// PollCloses are the times the new topic form offers.
var PollCloses = []PollClose{{"1d", 24 * time.Hour}, {"3d", 3 * 24 * time.Hour}, {"1w", 7 * 24 * time.Hour}, {"2w", 14 * 24 * time.Hour}, {"1m", 30 * 24 * time.Hour}}

// pollOf checks d for a topic to open at now with: nil for no poll;
// field errors under "pollQuestion", "pollOptions", "pollCloses" and
// "pollShow".
func pollOf(d PollDraft, errs FormErrors, now time.Time) *PollRow {
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
	var closesAt *time.Time
	if d.Closes != "" {
		i := slices.IndexFunc(PollCloses, func(c PollClose) bool { return c.Value == d.Closes })
		if i < 0 {
			errs["pollCloses"] = "forum.poll.error.closes"
		} else {
			at := now.Add(PollCloses[i].After).UTC()
			closesAt = &at
		}
	}
	if d.Show != "" && !slices.Contains(PollShows, d.Show) {
		errs["pollShow"] = "forum.poll.error.show"
	}
	if errs["pollQuestion"] != "" || errs["pollOptions"] != "" || errs["pollCloses"] != "" || errs["pollShow"] != "" {
		return nil
	}
	p2 := &PollRow{RowKey: pollKey, Question: question, Options: strings.Join(options, "\n"), Multiple: d.Multiple, ClosesAt: closesAt, Show: d.Show}
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

// Vote records by's vote for the options choices (from 0, in order,
// each once: one, or several in a multiple-choice poll) of topic t's
// poll, or, no choices, takes their vote back: the vote's row and the
// counts in one transaction at the poll's ETag. The same vote again
// writes nothing; a poll under a hidden opening post is not found.
func (s *Service) Vote(ctx context.Context, by Person, t TopicRow, choices ...int) error {
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
	if done, err := judgeVote(p, mine, err, t, choices, s.now()); done || err != nil {
		return err
	}
	if len(choices) > 0 {
		if err := s.marks.Mark(ctx, by.MemberKey, t.PartitionKey); err != nil {
			return err
		}
	}
	again := false
	return storage.Optimistic(ctx, writeAttempts, func(ctx context.Context) error {
		if again {
			p, mine, err = s.Poll(ctx, t, by.MemberKey)
			if done, err := judgeVote(p, mine, err, t, choices, s.now()); done || err != nil {
				return err
			}
		}
		again = true
		return s.castVote(ctx, p, mine, by.MemberKey, choices)
	})
}

// judgeVote judges a vote for choices in poll p of topic t at now,
// read with the voter's vote mine (read's error err): done when it
// would change nothing, or why it is refused.
func judgeVote(p PollRow, mine *VoteRow, err error, t TopicRow, choices []int, now time.Time) (done bool, _ error) {
	switch {
	case err != nil:
		return true, err
	case p.closed(now) || t.Locked:
		return true, ErrPollClosed
	case len(choices) > 1 && !p.Multiple:
		return true, ErrPollChoice
	}
	for i, c := range choices {
		if c < 0 || c >= len(p.options()) || i > 0 && c <= choices[i-1] {
			return true, ErrPollChoice
		}
	}
	return mine == nil && len(choices) == 0 || mine != nil && slices.Equal(mine.chosen(), choices), nil
}

// castVote moves memberKey's vote in poll p from mine (nil: none) to
// choices (none: no vote) in one transaction at p's ETag.
func (s *Service) castVote(ctx context.Context, p PollRow, mine *VoteRow, memberKey string, choices []int) error {
	counts := p.counts()
	var tx storage.Tx
	if mine != nil {
		for _, c := range mine.chosen() {
			if c >= 0 && c < len(counts) {
				counts[c]--
			}
		}
		p.Voters--
	}
	if len(choices) > 0 {
		parts := make([]string, len(choices))
		for i, c := range choices {
			counts[c]++
			parts[i] = strconv.Itoa(c)
		}
		p.Voters++
		tx.Upsert(VoteRow{PartitionKey: p.PartitionKey, RowKey: voteKey(memberKey), Choice: choices[0], Choices: strings.Join(parts, ","), At: s.now().UTC()})
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
	// A poll opened again closes when they close it: its time to close
	// by itself, past or to come, goes.
	now := s.now()
	_, err := storage.Change(ctx, s.posts, t.PartitionKey, pollKey, ErrNoPoll, func(p *PollRow) error {
		if p.closed(now) == closed {
			return storage.ErrNoChange
		}
		p.Closed = closed
		if !closed {
			p.ClosesAt = nil
		}
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

// vote is POST /forum/t/:id/poll (choice: an option's number from 1,
// once, or once for each chosen in a multiple-choice poll; "none"
// takes the vote back): back to the poll.
func (s *Service) vote(c echo.Context) error {
	t := topicOf(c)
	form, err := c.FormParams()
	if err != nil {
		return ErrPollChoice
	}
	choices, err := pollChoices(form["choice"])
	if err != nil {
		return err
	}
	if err := s.Vote(c.Request().Context(), person(c), t, choices...); err != nil {
		return err
	}
	flash := "forum.poll.flash.voted"
	if len(choices) == 0 {
		flash = "forum.poll.flash.unvoted"
	}
	return web.FlashRedirect(c, flash, pollPage(t.PartitionKey))
}

// pollChoices are the options a vote's form chose (numbers from 1, or
// "none" alone for none) as Vote takes them: from 0, in order, each
// once. Nothing chosen, or anything else, is ErrPollChoice.
func pollChoices(values []string) ([]int, error) {
	if len(values) == 1 && values[0] == "none" {
		return nil, nil
	}
	var out []int
	for _, v := range values {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPollOptions {
			return nil, ErrPollChoice
		}
		out = append(out, n-1)
	}
	if len(out) == 0 {
		return nil, ErrPollChoice
	}
	slices.Sort(out)
	return slices.Compact(out), nil
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
func (s *Service) pollProps(c echo.Context, t TopicRow, me Person, staff, peek bool) (*views.PollProps, error) {
	p, mine, err := s.Poll(c.Request().Context(), t, me.MemberKey)
	if errors.Is(err, ErrNoPoll) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	closed := p.closed(s.now()) || t.Locked
	out := &views.PollProps{
		Question: p.Question, Voters: p.Voters, Closed: closed, Action: pollURL(t.PartitionKey),
		Member: me.MemberKey != "", Voted: mine != nil, Multiple: p.Multiple,
	}
	if p.ClosesAt != nil && !closed {
		out.ClosesAt = when(c, *p.ClosesAt)
	}
	if !t.Locked && (t.AuthorKey == me.MemberKey && me.MemberKey != "" || staff) {
		out.CloseURL = pollURL(t.PartitionKey) + "/close"
	}
	counts := p.counts()
	for i, o := range p.options() {
		opt := views.PollOption{Value: strconv.Itoa(i + 1), Label: o, Votes: counts[i], Mine: mine.chose(i)}
		if p.Voters > 0 {
			opt.Percent = (counts[i]*100 + p.Voters/2) / p.Voters
		}
		out.Options = append(out.Options, opt)
	}
	// Results show after a vote, once closed, to a visitor and to a
	// member who asks (peek), when the poll shows them to that reader
	// (Show); its author and staff see them always.
	see := p.shows(closed, mine != nil) || staff || me.MemberKey != "" && t.AuthorKey == me.MemberKey
	want := closed || mine != nil || me.MemberKey == "" || peek
	out.Results = want && see
	if want && !see {
		out.Withheld = p.Show
	}
	if me.MemberKey == "" && !closed {
		out.SignInURL = auth.SignInPath(pollPage(t.PartitionKey))
	}
	if out.Member && !closed && mine == nil && see {
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
			return s.castVote(ctx, p, &mine, m.Key, nil)
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
	Choices  []string  `json:"choices"`
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
		e := exportedVote{Topic: v.PartitionKey, Question: p.Question, At: v.At}
		for _, c := range v.chosen() {
			chose := strconv.Itoa(c + 1)
			if o := p.options(); c >= 0 && c < len(o) {
				chose = o[c]
			}
			e.Choices = append(e.Choices, chose)
		}
		out = append(out, e)
	}
	return out, nil
}

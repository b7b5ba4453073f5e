package events

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// Feedback, as Luma's after an event: once it has ended, each person who
// was going rates it from one to five stars, with a few words if they
// like, and may change both later. The rating rides on their
// registration (AttendeeRow.Rating, Feedback, RatedAt): the event's page
// reads that row anyway, so the form costs it nothing, and a rating is
// one write at the row's ETag; the organizers' summary (the average, how
// many rated, and the words, each with its guest's name) reads the
// event's registrations, one query, on the event's page for them alone.
// When it ends, a task asks each guest going who has not rated it yet,
// in the inbox (and by mail, as their settings say): "How was …?",
// leading to the form (askTask: queued with the event's reminder, and
// again by the rebuild; it does nothing for an event changed, cancelled
// or unpublished since, and each notice is keyed by event, version and
// guest, so nobody is asked twice). An event that has ended takes no new
// registration (ErrEnded): its page says it has ended.

// MaxFeedback bounds the words with a rating, in characters.
const MaxFeedback = 1000

// feedbackRule is the words' rule: optional, one paragraph or a few.
var feedbackRule = formrule.Text{Max: MaxFeedback, Multiline: true}

var (
	// ErrEnded refuses a registration, or taking a seat, once the event
	// has ended (409).
	ErrEnded = fault.New(http.StatusConflict, "events.error.ended", "events: the event has ended")
	// ErrEndedCancel refuses cancelling an event that has ended (409).
	ErrEndedCancel = fault.New(http.StatusConflict, "events.error.ended_cancel", "events: the event has ended")
	// ErrNotEnded refuses a rating before the event has ended (409).
	ErrNotEnded = fault.New(http.StatusConflict, "events.error.not_ended", "events: the event has not ended")
	// ErrNotGuest refuses a rating by someone who was not going (403).
	ErrNotGuest = fault.New(http.StatusForbidden, "events.error.not_guest", "events: not a guest of the event")
	// ErrHostRates refuses a rating by someone who runs the event (403):
	// its guests rate it.
	ErrHostRates = fault.New(http.StatusForbidden, "events.error.host_rates", "events: a host does not rate their own event")
)

// ended reports whether e has ended at now.
func ended(e EventRow, now time.Time) bool { return !e.End.After(now) }

// rateRefusal is why memberKey may not rate e at now whatever their
// registration (nil: they may if they went): ErrNoEvent for a cancelled
// event, ErrNotEnded before its end, ErrHostRates for one who runs it.
func rateRefusal(e EventRow, memberKey string, now time.Time) error {
	switch {
	case e.IsCancelled:
		return ErrNoEvent
	case !ended(e, now):
		return ErrNotEnded
	case e.runBy(memberKey):
		return ErrHostRates
	}
	return nil
}

// Rate records memberKey's rating (1 to 5) of e and their words, once e
// has ended and if they were going: field errors for a rating none of
// those or words that break feedbackRule, ErrNotGuest for anyone not
// going, and rateRefusal's errors. Rating as before writes nothing.
func (s *Service) Rate(ctx context.Context, e EventRow, memberKey, rating, words string) error {
	if err := rateRefusal(e, memberKey, s.now()); err != nil {
		return err
	}
	n, err := strconv.Atoi(rating)
	errs := FieldErrors{}
	if err != nil || n < 1 || n > 5 {
		errs["rating"] = "events.error.rating"
	}
	words = errs.Check("feedback", feedbackRule, words, "events.error.feedback")
	if len(errs) > 0 {
		return errs
	}
	_, err = s.catalog.seats.mine.Change(ctx, e.RowKey, attendeeRowKey(memberKey), ErrNotGuest, func(a *AttendeeRow) error {
		switch {
		case a.Status != StatusGoing:
			return ErrNotGuest
		case a.Rating == n && a.Feedback == words:
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		a.Rating, a.Feedback, a.RatedAt = n, words, &now
		return nil
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	return projection.Stood(ctx, s.log, err, "events: rating not mirrored to my events", "event", e.RowKey, "member", memberKey)
}

// Ratings sums up the ratings of e's guests for its organizers.
func (s *Service) Ratings(ctx context.Context, e EventRow) (views.Ratings, error) {
	all, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return views.Ratings{}, err
	}
	var r views.Ratings
	sum := 0
	for _, a := range all {
		if a.Status != StatusGoing || a.Rating < 1 || a.Rating > 5 || e.runBy(a.MemberKey) {
			continue
		}
		r.Count++
		r.Stars[a.Rating-1]++
		sum += a.Rating
		if a.Feedback != "" {
			r.Words = append(r.Words, views.Rated{Name: a.Name, Rating: a.Rating, Text: a.Feedback})
		}
	}
	if r.Count > 0 {
		avg := float64(sum) / float64(r.Count)
		r.Average, r.Rounded = i18n.Decimal(ctx, avg, 1), int(math.Round(avg))
	}
	return r, nil
}

// feedbackURL is where e's guests rate it.
func feedbackURL(eventID string) string { return eventURL(eventID) + "/feedback" }

// feedbackPage is GET /events/:id/feedback: the rating form on a page of
// its own (the event's page holds it too), refused as a rating would be.
func (s *Service) feedbackPage(c echo.Context) error {
	ctx := c.Request().Context()
	e, me := eventOf(c), auth.From(c).MemberKey
	if err := rateRefusal(e, me, s.now()); err != nil {
		return err
	}
	r, err := s.catalog.seats.Status(ctx, e.RowKey, me)
	if err != nil {
		return err
	}
	if r.Status != StatusGoing {
		return ErrNotGuest
	}
	return s.renderFeedback(c, http.StatusOK, e, views.FeedbackForm{Rating: ratingValue(r.Rating), Words: r.Feedback}, nil)
}

// rate is POST /events/:id/feedback (rating, feedback): back to the
// event's page; a refusal shows the form again with what was typed.
func (s *Service) rate(c echo.Context) error {
	e := eventOf(c)
	in := views.FeedbackForm{Rating: c.FormValue("rating"), Words: c.FormValue("feedback")}
	err := s.Rate(c.Request().Context(), e, auth.From(c).MemberKey, in.Rating, in.Words)
	return web.AnswerForm(c, err, "events.flash.rated", eventURL(e.RowKey)+"#feedback", func(status int, errs formrule.FieldErrors) error {
		return s.renderFeedback(c, status, e, in, errs)
	})
}

func (s *Service) renderFeedback(c echo.Context, status int, e EventRow, in views.FeedbackForm, errs formrule.FieldErrors) error {
	ctx := c.Request().Context()
	in.Action, in.Errors = feedbackURL(e.RowKey), map[string]string{}
	for field, key := range errs {
		in.Errors[field] = i18n.T(ctx, key, "max", MaxFeedback)
	}
	p := views.FeedbackPageProps{EventTitle: e.Title, EventURL: eventURL(e.RowKey), Form: in}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "events.feedback.heading") + " · " + e.Title, Section: "events", Content: views.FeedbackPage(p)})
}

// ratingValue is a rating as the form's value, "" for none.
func ratingValue(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// askTask is one event's ask for ratings at one version of it.
type askTask struct {
	EventID  string
	Sequence int
	End      time.Time
}

// queueAsk queues the ask for e's ratings at its end, for an event
// published and not cancelled that has not ended, and says so.
func (s *Service) queueAsk(ctx context.Context, e EventRow) (bool, error) {
	if s.asks == nil || !e.IsPublished || e.IsCancelled || ended(e, s.now()) {
		return false, nil
	}
	key := fmt.Sprintf("events.ask|%s|%d|%s", e.RowKey, e.Sequence, startKey(e.End))
	return true, s.asks.EnqueueAt(ctx, e.End, key, askTask{EventID: e.RowKey, Sequence: e.Sequence, End: e.End})
}

// ask runs an ask task: each guest going who has not rated the event is
// asked to, once.
func (s *Service) ask(ctx context.Context, t askTask) error {
	e, ok, err := s.taskVersion(ctx, t.EventID, t.Sequence, func(e EventRow) bool { return e.End.Equal(t.End) })
	if !ok {
		return err
	}
	return s.noticeGoing(ctx, e, func(a AttendeeRow) bool { return a.Rating == 0 && !e.runBy(a.MemberKey) }, func(a AttendeeRow) inbox.Notice {
		return inbox.Notice{
			Kind: "events.notify.feedback",
			Args: map[string]string{"title": e.Title},
			When: e.Start,
			Link: eventURL(e.RowKey) + "#feedback",
			Key:  fmt.Sprintf("events.asked|%s|%d|%s", e.RowKey, e.Sequence, a.MemberKey),
		}
	})
}

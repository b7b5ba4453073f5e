package events

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/tasks"
)

// Reminders: a day before an event starts, everyone going is told, in
// the inbox and by email (as their settings allow), with the details
// kept for people going. Publishing an event, and every change of its
// time or place (a new SEQUENCE), queues a task for its start minus
// reminderLead, keyed by event, sequence and start. The task reads the
// event again and does nothing when the event changed since (that
// change queued its own), is cancelled or unpublished; each notice is
// keyed by event, sequence and person, so a task run twice, or by two
// instances, tells each person once.

// reminderLead is how long before the start the reminder goes out.
const reminderLead = 24 * time.Hour

// reminderTask is one event's reminder at one version of it.
type reminderTask struct {
	EventID  string
	Sequence int
	Start    time.Time
}

// UseTasks lets the service send reminders, ask for ratings and settle
// lapsed offers through q. Call it while wiring; without it no reminder
// or ask is sent, and lapsed offers are settled only when someone reads
// or changes the event's seats.
func (s *Service) UseTasks(q *tasks.Queue) error {
	return errors.Join(
		tasks.Into(q, &s.reminders, "events.reminder", s.remind),
		tasks.Into(q, &s.asks, "events.feedback-ask", s.ask),
		tasks.Into(q, &s.lapses, "events.offer-lapse", s.lapse),
	)
}

// lapseTask settles an event's offers when one of them lapses.
type lapseTask struct {
	EventID string
}

// scheduleLapse queues the settling of o's event at o.Until, so the next
// person is offered the seat and told even if nobody opens the page.
func (s *Service) scheduleLapse(ctx context.Context, eventID string, o Offer) {
	if err := s.queueLapse(ctx, eventID, o); err != nil {
		s.log.WarnContext(ctx, "events: offer lapse not scheduled", "event", eventID, "err", err)
	}
}

// queueLapse queues the settling of o's event at o.Until.
func (s *Service) queueLapse(ctx context.Context, eventID string, o Offer) error {
	if s.lapses == nil {
		return nil
	}
	key := fmt.Sprintf("events.lapse|%s|%s|%s", eventID, o.MemberKey, startKey(o.Until))
	return s.lapses.EnqueueAt(ctx, o.Until.Add(time.Second), key, lapseTask{EventID: eventID})
}

// lapse runs a lapse task: the offer may be taken or settled already,
// and then nothing moves.
func (s *Service) lapse(ctx context.Context, t lapseTask) error {
	e, ok, err := s.taskEvent(ctx, t.EventID)
	if !ok {
		return err
	}
	_, err = s.Judge(ctx, e)
	return err
}

// taskEvent reads a task's event; ok is false when it failed (err) or
// the event is gone, and then the task has nothing to do.
func (s *Service) taskEvent(ctx context.Context, eventID string) (e EventRow, ok bool, err error) {
	e, err = s.catalog.Event(ctx, eventID)
	if errors.Is(err, ErrNoEvent) {
		return e, false, nil
	}
	return e, err == nil, err
}

// scheduleReminder queues e's reminder, unless it is due already (an
// event published less than a day before its start gets none: its page
// and the "going" notice say when it is), and the ask for its guests'
// ratings once it ends (queueAsk).
func (s *Service) scheduleReminder(ctx context.Context, e EventRow) {
	_, err := s.queueReminder(ctx, e)
	if err == nil {
		_, err = s.queueAsk(ctx, e)
	}
	if err != nil {
		s.log.WarnContext(ctx, "events: reminder not scheduled", "event", e.RowKey, "err", err)
	}
}

// queueReminder queues e's reminder if it is to have one, and says so.
func (s *Service) queueReminder(ctx context.Context, e EventRow) (bool, error) {
	due := e.Start.Add(-reminderLead)
	if s.reminders == nil || !e.IsPublished || e.IsCancelled || !due.After(s.now()) {
		return false, nil
	}
	t := reminderTask{EventID: e.RowKey, Sequence: e.Sequence, Start: e.Start}
	key := fmt.Sprintf("events.remind|%s|%d|%s", e.RowKey, e.Sequence, startKey(e.Start))
	return true, s.reminders.EnqueueAt(ctx, due, key, t)
}

// requeuing queues again what events' tasks do at their time, for
// every event there is, each with its seats as the rebuild's scan read
// them (event). For each event it queues its reminder (queueReminder)
// and, in offer mode, the lapse of each seat on offer, settling at once
// an offer that lapsed already. It is the repair when queueing one
// failed (scheduleReminder and scheduleLapse log it, and the change
// stands). A task queued already is not queued twice (its key is kept
// until a while after it was due), and one queued twice all the same (a
// key from before keys knew their due time) does its work once: a
// reminder's notices have keys of their own, and a lapse settles only
// what is due. It also posts again what a seat change's follow-up
// (settled) may have lost to a crash (requeueSeats). It counts the
// reminders and lapses it queued.
type requeuing struct {
	s   *Service
	now time.Time
	// all are the events, at their index by id; met marks those whose
	// seats were handed to event.
	all []EventRow
	at  map[string]int
	met []bool

	reminders, asks, lapses int
}

// requeuing starts the requeueing of all, every event there is.
func (s *Service) requeuing(all []EventRow) *requeuing {
	return &requeuing{s: s, now: s.now(), all: all, at: byID(all), met: make([]bool, len(all))}
}

// event requeues the event of seats, first bringing its row's seat
// counts in step with its counter.
func (r *requeuing) event(ctx context.Context, seats eventSeats) error {
	i, ok := r.at[seats.eventID]
	if !ok {
		return nil // the seats of an event gone
	}
	r.met[i] = true
	e := r.all[i]
	if seats.counter != nil {
		var err error
		if e, ok, err = r.s.catalog.syncCounted(ctx, e, *seats.counter); !ok {
			return err
		}
	}
	return r.requeue(ctx, e, seats.registrations)
}

// rest requeues the events that have no seats at all.
func (r *requeuing) rest(ctx context.Context) error {
	for i, e := range r.all {
		if !r.met[i] {
			if err := r.requeue(ctx, e, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// requeue queues again e's reminder and, for an event to come, what its
// registrations call for (requeueSeats).
func (r *requeuing) requeue(ctx context.Context, e EventRow, rows []AttendeeRow) error {
	queued, err := r.s.queueReminder(ctx, e)
	if err != nil {
		return err
	}
	if queued {
		r.reminders++
	}
	if queued, err = r.s.queueAsk(ctx, e); err != nil {
		return err
	}
	if queued {
		r.asks++
	}
	if e.IsCancelled || !e.Start.After(r.now) {
		return nil
	}
	n, err := r.s.requeueSeats(ctx, e, rows, r.now)
	r.lapses += n
	return err
}

// requeueSeats posts again, at their keys, the notices of e's seats
// that still stand (rows are its registrations): an offer's, and a
// promotion's, a registration's (going or waitlisted), a taken offer's,
// an organizer's decision on a request to join and the organizers'
// notice of a request waiting, while the key of one posted then is kept
// (tasks.KeyTTL), so nobody hears twice. It queues each outstanding
// offer's lapse, and settles at once an offer that lapsed already. It
// returns how many lapses it queued.
func (s *Service) requeueSeats(ctx context.Context, e EventRow, rows []AttendeeRow, now time.Time) (lapses int, err error) {
	kept := func(at *time.Time) bool { return at != nil && now.Before(at.Add(tasks.KeyTTL)) }
	lapsed := false
	for _, r := range rows {
		switch {
		case r.Status == StatusGoing && r.PromotedAt != nil:
			if kept(r.PromotedAt) {
				err = s.notice(ctx, e, "events.notify.promoted", stampOf(*r.PromotedAt), e.Start, r.MemberKey)
			}
		case r.DecidedAt != nil && r.ToldAt == nil && (r.Declined && r.Status == StatusCancelled || r.Status == StatusGoing || r.Status == StatusWaitlist):
			if kept(r.DecidedAt) {
				err = s.notice(ctx, e, decidedKind(r.Status, r.Declined), stampOf(*r.DecidedAt), e.Start, r.MemberKey)
			}
		case r.Status == StatusGoing && kept(r.ToldAt):
			err = s.notice(ctx, e, "events.notify.going", stampOf(*r.ToldAt), e.Start, r.MemberKey)
		case r.Status == StatusWaitlist && kept(r.ToldAt):
			err = s.notice(ctx, e, "events.notify.waitlist", stampOf(*r.ToldAt), e.Start, r.MemberKey)
		case r.Status == StatusPending && kept(&r.RegisteredAt):
			err = s.tellRequested(ctx, e, r.MemberKey, r.Name, r.RegisteredAt)
		case r.Status != StatusOffered || r.OfferUntil == nil:
		case !r.OfferUntil.After(now):
			lapsed = true
		default:
			o := Offer{MemberKey: r.MemberKey, Until: *r.OfferUntil}
			if err = s.queueLapse(ctx, e.RowKey, o); err == nil {
				lapses++
				err = s.notice(ctx, e, "events.notify.offered", offerNoticeKey(o), o.Until, o.MemberKey)
			}
		}
		if err != nil {
			return lapses, err
		}
	}
	if lapsed {
		_, err = s.Judge(ctx, e)
	}
	return lapses, err
}

// remind runs a reminder task (see the top of this file).
func (s *Service) remind(ctx context.Context, t reminderTask) error {
	e, ok, err := s.taskVersion(ctx, t.EventID, t.Sequence, func(e EventRow) bool { return e.Start.Equal(t.Start) })
	if !ok {
		return err
	}
	return s.noticeGoing(ctx, e, func(AttendeeRow) bool { return true }, func(a AttendeeRow) inbox.Notice {
		return inbox.Notice{
			Kind: "events.notify.reminder",
			Args: map[string]string{"title": e.Title, "place": e.Place, "details": e.ConfirmedOnly},
			When: e.Start,
			Link: eventURL(e.RowKey) + "/ticket",
			Key:  fmt.Sprintf("events.reminder|%s|%d|%s", e.RowKey, e.Sequence, a.MemberKey),
		}
	})
}

// taskVersion reads a timed task's event: ok only when it is still the
// version the task was queued for (sequence, and same says its time is
// as it was), published, not cancelled, and there is an inbox to post
// to; else the task has nothing to do (or failed: err).
func (s *Service) taskVersion(ctx context.Context, eventID string, sequence int, same func(e EventRow) bool) (EventRow, bool, error) {
	e, ok, err := s.taskEvent(ctx, eventID)
	if !ok || e.Sequence != sequence || !same(e) || !e.IsPublished || e.IsCancelled || s.notifier == nil {
		return e, false, err
	}
	return e, true, nil
}

// noticeGoing posts, to each person going to e (no guest session) whom
// want takes, the notice n makes for them (addressed here).
func (s *Service) noticeGoing(ctx context.Context, e EventRow, want func(a AttendeeRow) bool, n func(a AttendeeRow) inbox.Notice) error {
	rows, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return err
	}
	for _, a := range rows {
		if a.Status != StatusGoing || auth.IsGuestKey(a.MemberKey) || !want(a) {
			continue
		}
		notice := n(a)
		notice.To = []inbox.Recipient{{MemberKey: a.MemberKey}}
		if err := s.notifier.Post(ctx, notice); err != nil {
			return err
		}
	}
	return nil
}

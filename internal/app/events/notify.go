package events

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/memberdata"
)

// Notifier posts notices (the inbox module, which also mails them as
// each person's settings allow).
type Notifier = inbox.Poster

// UseNotifier has registrations and promotions told through n. Call it
// while wiring; without it nobody is told.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// tell posts kind about e to memberKeys, once per key (the notice key):
// the seat change is saved already, so a failure is logged.
func (s *Service) tell(ctx context.Context, e EventRow, kind, key string, memberKeys ...string) {
	s.tellAt(ctx, e, kind, key, e.Start, memberKeys...)
}

// tellAt is tell with another time for the notice's {when}.
func (s *Service) tellAt(ctx context.Context, e EventRow, kind, key string, when time.Time, memberKeys ...string) {
	for _, m := range memberKeys {
		if err := s.notice(ctx, e, kind, key, when, m); err != nil {
			s.log.WarnContext(ctx, "events: notice not posted", "kind", kind, "event", e.RowKey, "err", err)
		}
	}
}

// notice posts kind about e to memberKey (not to a guest), keyed by the
// kind, the event, the person and key: a second post with those is
// nothing (the task queue's idempotency key).
func (s *Service) notice(ctx context.Context, e EventRow, kind, key string, when time.Time, memberKey string) error {
	if s.notifier == nil || auth.IsGuestKey(memberKey) {
		return nil
	}
	// Readers cannot open an event no longer published: its notice leads
	// to their events.
	link := eventURL(e.RowKey)
	if !e.IsPublished {
		link = myEventsURL
	}
	return s.notifier.Post(ctx, inbox.Notice{
		To:   []inbox.Recipient{{MemberKey: memberKey}},
		Kind: kind,
		Args: map[string]string{"title": e.Title, "place": e.Place},
		When: when,
		Link: link,
		Key:  fmt.Sprintf("%s|%s|%s|%s", kind, e.RowKey, memberKey, key),
	})
}

// stamp is a notice key for a change now.
func (s *Service) stamp() string { return stampOf(s.now()) }

// stampOf is a notice key for a change at t: a promotion's is its
// registration's PromotedAt, so the rebuild (requeue) posts the same
// key again.
func stampOf(t time.Time) string { return t.UTC().Format("20060102150405.000") }

// offerNoticeKey keys the notice of o: the rebuild posts it again
// while the offer stands.
func offerNoticeKey(o Offer) string { return startKey(o.Until) }

// settled follows up a seat change that stands: the badge, and telling
// whoever it moved. Promoted people are going; people offered a seat
// are told until when, and their offer's lapse is queued (offerTask);
// people whose offer lapsed are told so. A crash before it ends loses
// what it did not do: the rebuild (requeue) posts again the promoted
// and offered notices, and queues the lapses, at the same keys.
func (s *Service) settled(ctx context.Context, e EventRow, m Moves) {
	s.syncSeats(ctx, e.RowKey)
	s.tell(ctx, e, "events.notify.promoted", stampOf(m.At), m.Promoted...)
	for _, o := range m.Offered {
		s.tellAt(ctx, e, "events.notify.offered", offerNoticeKey(o), o.Until, o.MemberKey)
		s.scheduleLapse(ctx, e.RowKey, o)
	}
	for _, k := range m.Expired {
		s.tell(ctx, e, "events.notify.offer_lapsed", s.stamp(), k)
	}
}

// Register registers id for e, with their answers to its questions
// (parseAnswers; "" for none), and tells them where they stand: at most
// LimitRegistrations a minute per person (ErrTooManyRegistrations), and
// none once e has ended (ErrEnded).
func (s *Service) Register(ctx context.Context, e EventRow, id *auth.Identity, party int, answers string) (Registration, error) {
	if ended(e, s.now()) {
		return Registration{}, ErrEnded
	}
	if err := s.registrations.Take(ctx, id.MemberKey, s.now()); err != nil {
		return Registration{}, err
	}
	r, moves, err := s.catalog.seats.Register(ctx, e.RowKey, Person{MemberKey: id.MemberKey, Name: id.DisplayName, Email: id.Email, Answers: answers}, party)
	if err != nil {
		return r, err
	}
	s.settled(ctx, e, moves)
	if !r.New {
		return r, nil // registered already: nothing new to count or tell
	}
	s.counts.Add(ctx, Registrations)
	if r.Status == StatusPending {
		if err := s.tellRequested(ctx, e, id.MemberKey, id.DisplayName, r.RegisteredAt); err != nil {
			s.log.WarnContext(ctx, "events: notice not posted", "kind", requestedKind, "event", e.RowKey, "err", err)
		}
		return r, nil // told when the organizers decide
	}
	// Keyed by when they registered, so the rebuild can post it again
	// (requeueSeats) and nobody hears twice.
	kind := "events.notify.going"
	if r.Status == StatusWaitlist {
		kind = "events.notify.waitlist"
	}
	s.tell(ctx, e, kind, stampOf(r.ToldAt), id.MemberKey)
	return r, nil
}

// requestedKind is the organizers' notice of a request to join.
const requestedKind = "events.notify.requested"

// tellRequested tells e's organizers that memberKey (name) asked to join
// it (an event that needs approval), once a request (keyed by when it
// was made, so the rebuild posts one a crash lost at the same key:
// requeueSeats), with a link to the check-in page where requests are
// decided; as Luma tells its hosts. An organizer who blocked them is not
// told (inbox.Notice's From).
func (s *Service) tellRequested(ctx context.Context, e EventRow, memberKey, name string, at time.Time) error {
	if s.notifier == nil {
		return nil
	}
	var to []inbox.Recipient
	for _, k := range append([]string{e.OrganizerKey}, e.coHostKeys()...) {
		if k != "" && k != memberKey && !memberdata.IsForgotten(k) {
			to = append(to, inbox.Recipient{MemberKey: k})
		}
	}
	if len(to) == 0 {
		return nil
	}
	return s.notifier.Post(ctx, inbox.Notice{
		To:   to,
		Kind: requestedKind,
		Args: map[string]string{"title": e.Title, "place": e.Place, "name": name},
		When: e.Start,
		Link: eventURL(e.RowKey) + "/check-in",
		Key:  fmt.Sprintf("%s|%s|%s|%s", requestedKind, e.RowKey, memberKey, stampOf(at)),
		From: memberKey,
		// Requests to join one event gather into one line, unread.
		Gather: e.RowKey,
	})
}

// CancelRegistration gives up id's place (or declines the seat offered
// to them) and tells whoever it went to.
func (s *Service) CancelRegistration(ctx context.Context, e EventRow, id *auth.Identity) error {
	moves, err := s.catalog.seats.Cancel(ctx, e.RowKey, id.MemberKey)
	if err != nil {
		return err
	}
	s.settled(ctx, e, moves)
	if s.chat != nil {
		s.chat.Left(ctx, "event-"+e.RowKey, id.MemberKey, id.DisplayName)
	}
	return nil
}

// Accept takes the seat offered to id and tells them they are going,
// keyed by when they took it: a second press tells nobody again, and the
// rebuild posts it again at that key when a crash lost it (requeueSeats).
// None is taken once e has ended (ErrEnded).
func (s *Service) Accept(ctx context.Context, e EventRow, id *auth.Identity) error {
	if ended(e, s.now()) {
		return ErrEnded
	}
	r, moves, err := s.catalog.seats.Accept(ctx, e.RowKey, id.MemberKey)
	s.settled(ctx, e, moves)
	if err != nil {
		return err
	}
	if !r.ToldAt.IsZero() {
		s.tell(ctx, e, "events.notify.going", stampOf(r.ToldAt), id.MemberKey)
	}
	return nil
}

// Judge reads e's seat counter after settling lapsed offers, and tells
// whoever that moved.
func (s *Service) Judge(ctx context.Context, e EventRow) (SeatsRow, error) {
	c, moves, err := s.catalog.seats.Judge(ctx, e.RowKey)
	if len(moves.Offered)+len(moves.Expired)+len(moves.Promoted) > 0 {
		s.settled(ctx, e, moves)
	}
	return c, err
}

// syncSeats brings the event's badge in step after a seat change that
// stands already: a failure is logged (the next change or a rebuild
// repairs it).
func (s *Service) syncSeats(ctx context.Context, eventID string) {
	if _, err := s.catalog.SyncSeats(ctx, eventID); err != nil {
		s.log.WarnContext(ctx, "events: seat counts not mirrored", "event", eventID, "err", err)
	}
}

// registered are the memberKeys going to, waiting for, offered a seat
// at or asking to join e.
func (s *Service) registered(ctx context.Context, e EventRow) ([]string, error) {
	rows, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	var out []string
	for _, r := range rows {
		if r.Status == StatusGoing || r.Status == StatusWaitlist || r.Status == StatusOffered || r.Status == StatusPending {
			out = append(out, r.MemberKey)
		}
	}
	return out, err
}

// UpdateEvent saves an organizer's changes: whoever a raised capacity
// promotes is told, and a change of time or place (a new SEQUENCE) is
// told to everyone registered.
func (s *Service) UpdateEvent(ctx context.Context, eventID string, in EventInput, zone *time.Location) (EventRow, error) {
	before, err := s.catalog.Event(ctx, eventID)
	if err != nil {
		return EventRow{}, err
	}
	if err := s.resolveCoHosts(ctx, before.OrganizerKey, &in); err != nil {
		return EventRow{}, err
	}
	e, moves, err := s.catalog.Update(ctx, eventID, in, zone)
	if err != nil {
		return EventRow{}, err
	}
	s.tellNewCoHosts(ctx, e, before.coHostKeys())
	s.settled(ctx, e, moves)
	if e.Sequence != before.Sequence {
		s.scheduleReminder(ctx, e)
		who, err := s.registered(ctx, e)
		if err != nil {
			s.log.WarnContext(ctx, "events: change not announced", "event", e.RowKey, "err", err)
		}
		s.tell(ctx, e, "events.notify.changed", strconv.Itoa(e.Sequence), who...)
	}
	return e, nil
}

// Publish lists an event (or, with published false, takes it back to
// its organizers) and, when published, queues its reminder.
func (s *Service) Publish(ctx context.Context, eventID string, published bool) (EventRow, error) {
	e, err := s.catalog.Publish(ctx, eventID, published)
	if err == nil && published {
		s.scheduleReminder(ctx, e)
	}
	return e, err
}

// Reinstate publishes an event the moderators took down: an admin's
// undoing of it.
func (s *Service) Reinstate(ctx context.Context, eventID string) (EventRow, error) {
	e, err := s.catalog.Reinstate(ctx, eventID)
	if err == nil {
		s.scheduleReminder(ctx, e)
	}
	return e, err
}

// CancelEvent cancels an event (it stays listed, marked) and tells
// everyone registered.
func (s *Service) CancelEvent(ctx context.Context, eventID string) (EventRow, error) {
	e, err := s.catalog.Cancel(ctx, eventID)
	if err != nil {
		return EventRow{}, err
	}
	if err := s.tellCancelled(ctx, e); err != nil {
		s.log.WarnContext(ctx, "events: cancellation not announced", "event", e.RowKey, "err", err)
	}
	return e, nil
}

// tellCancelled tells everyone registered for e that it is cancelled,
// once each (the notice's key), and returns what failed.
func (s *Service) tellCancelled(ctx context.Context, e EventRow) error {
	who, err := s.registered(ctx, e)
	errs := []error{err}
	for _, k := range who {
		errs = append(errs, s.notice(ctx, e, "events.notify.cancelled", "", e.Start, k))
	}
	return errors.Join(errs...)
}

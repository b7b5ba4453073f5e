package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// A member's data in Events. Their registrations go: each one standing
// is given up in a seat change as a cancellation is (its seats go to
// the waitlist, or are offered, and whoever moves is told), and the
// registration itself, its ticket and its "My events" row are deleted
// in that change. Their calendar feed and their registrations' counter
// go too. Events they run: a co-organizer's place is taken off the
// event; an upcoming event they made passes to its first co-organizer
// or, with none, is cancelled (everyone registered is told, as on any
// cancellation); a past or cancelled one stays, made by
// memberdata.Forgotten. The updates they sent to guests stay, by
// Forgotten with no name.

// exportedRegistration is one registration in the member's archive.
type exportedRegistration struct {
	Event        string    `json:"event"`
	Start        time.Time `json:"start"`
	Status       string    `json:"status"`
	Party        int       `json:"party"`
	RegisteredAt time.Time `json:"registered_at"`
	Attended     bool      `json:"attended"`
	// Rating and Feedback are theirs of the event once it ended.
	Rating   int    `json:"rating,omitempty"`
	Feedback string `json:"feedback,omitempty"`
	// Answers are theirs to the event's questions.
	Answers []QA `json:"answers,omitempty"`
}

// exportedEvent is an event the member runs.
type exportedEvent struct {
	Title       string    `json:"title"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Place       string    `json:"place"`
	Description string    `json:"description"`
	Role        string    `json:"role"` // "organizer" or "co-organizer"
	Published   bool      `json:"published"`
	Cancelled   bool      `json:"cancelled"`
}

// exportedUpdate is an update the member sent to an event's guests.
type exportedUpdate struct {
	Event  string    `json:"event"`
	Body   string    `json:"body"`
	SentAt time.Time `json:"sent_at"`
}

// ExportMember writes events/registrations.json, events/organizing.json
// and events/updates.json: m's registrations, the events they run and
// the updates they sent (memberdata.Exporter).
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	seats := s.catalog.seats
	rows, err := memberdata.AllWhere[AttendeeRow](ctx, seats.marks, seats.table, m.Key, ownRows(m.Key))
	if err != nil {
		return err
	}
	regs := []exportedRegistration{}
	for _, a := range rows {
		if !strings.HasPrefix(a.RowKey, attendeePrefix) {
			continue // their waitlist place, offer or ticket
		}
		ev, err := s.eventOrGone(ctx, a.PartitionKey)
		if err != nil {
			return err
		}
		regs = append(regs, exportedRegistration{Event: ev.Title, Start: ev.Start, Status: a.Status, Party: a.Party, RegisteredAt: a.RegisteredAt, Attended: a.Attended, Answers: answersOf(a), Rating: a.Rating, Feedback: a.Feedback})
	}
	run, err := s.namingRunner(ctx, m.Key)
	if err != nil {
		return err
	}
	organizing := []exportedEvent{}
	for _, e := range run {
		if !e.runBy(m.Key) {
			continue
		}
		role := "co-organizer"
		if e.OrganizerKey == m.Key {
			role = "organizer"
		}
		organizing = append(organizing, exportedEvent{Title: e.Title, Start: e.Start, End: e.End, Place: e.Place, Description: e.Description, Role: role, Published: e.IsPublished, Cancelled: e.IsCancelled})
	}
	sent, err := memberdata.AllWhere[UpdateRow](ctx, seats.marks, seats.table, m.Key, updatesBy(m.Key))
	if err != nil {
		return err
	}
	updates := []exportedUpdate{}
	for _, u := range sent {
		ev, err := s.eventOrGone(ctx, u.PartitionKey)
		if err != nil {
			return err
		}
		updates = append(updates, exportedUpdate{Event: ev.Title, Body: u.Body, SentAt: u.SentAt})
	}
	return memberdata.Files(to, "events", map[string]any{"registrations": regs, "organizing": organizing, "updates": updates})
}

// eventOrGone is the event id names, or none (zero) when it is gone.
func (s *Service) eventOrGone(ctx context.Context, id string) (EventRow, error) {
	e, err := s.catalog.Event(ctx, id)
	if errors.Is(err, ErrNoEvent) {
		return EventRow{}, nil
	}
	return e, err
}

// ownRows is the scan of EventAttendees for the rows holding memberKey:
// their registrations, waitlist places, offers and tickets, in every
// event. UserEvents leaves out cancelled registrations; their footprints
// (memberdata.Footprints: each event they have rows at, recorded before
// their first row there) lead an export and a deletion to every event
// of theirs, so neither scans the table.
func ownRows(memberKey string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "memberKey", Op: storage.Eq, Value: memberKey}}}
}

// updatesBy is the scan of EventAttendees for the updates memberKey
// sent.
func updatesBy(memberKey string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "authorKey", Op: storage.Eq, Value: memberKey}}}
}

// namingRunner are the events memberKey makes or co-organizes, from
// Events itself (the truth; their "Events you run" rows are derived),
// and those whose listing record still names those rows (a change cut
// short before its rows followed): a scan.
func (s *Service) namingRunner(ctx context.Context, memberKey string) ([]EventRow, error) {
	all, err := storage.All[EventRow](ctx, s.catalog.events, storage.Query{PartitionKey: eventsPart})
	return slices.DeleteFunc(all, func(e EventRow) bool {
		return !e.runBy(memberKey) && !strings.Contains(e.Listed, organizingPart(memberKey))
	}), err
}

// ForgetMember erases m from Events (memberdata.Forgetter): their
// registrations, the events they run (passed on, cancelled or kept by
// Forgotten), their updates' authorship, their feed and their counter.
// Every step finds its rows by what still names m, so a run cut short
// is finished by the next, and a second run changes nothing; the
// footprints, which lead to their rows at the events, go last.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return errors.New("events: forget of no member")
	}
	events, seats := map[string]bool{}, s.catalog.seats
	err := seats.marks.QueryAll(ctx, seats.table, m.Key, ownRows(m.Key), func(e storage.Entity) error {
		events[e.PartitionKey] = true
		return nil
	})
	if err != nil {
		return err
	}
	for id := range events {
		if err := s.forgetRegistration(ctx, id, m.Key); err != nil {
			return err
		}
	}
	run, err := s.namingRunner(ctx, m.Key)
	if err != nil {
		return err
	}
	for _, e := range run {
		if err := s.forgetRunner(ctx, e, m); err != nil {
			return err
		}
	}
	err = memberdata.RewriteWhere(ctx, seats.marks, seats.table, m.Key, updatesBy(m.Key), func(u *UpdateRow) error {
		if u.AuthorKey != m.Key {
			return storage.ErrNoChange
		}
		u.AuthorKey, u.AuthorName = memberdata.Forgotten, ""
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.forgetFeed(ctx, m.Key); err != nil {
		return err
	}
	if err := storage.DeletePartition(ctx, seats.userEvents, m.Key); err != nil {
		return err
	}
	if err := storage.Forget(ctx, s.registrations.Table, m.Key, "w"); err != nil {
		return err
	}
	return seats.marks.Forget(ctx, m.Key)
}

// forgetRegistration gives up memberKey's place at an event through
// the cancellation's own path (Cancel: its seats go to the waitlist, and
// whoever moves is told), says in the event's chat that a deleted member
// left, brings the event's counts in step, and only then deletes the
// cancelled registration and its ticket (Seats.Forget): a run cut short
// before that finds the registration again and finishes.
func (s *Service) forgetRegistration(ctx context.Context, eventID, memberKey string) error {
	e, err := s.catalog.Event(ctx, eventID)
	gone := errors.Is(err, ErrNoEvent)
	if err != nil && !gone {
		return err
	}
	moves, err := s.catalog.seats.Cancel(ctx, eventID, memberKey)
	switch {
	case errors.Is(err, ErrNotRegistered) || gone && errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return err
	default:
		s.settled(ctx, e, moves)
		if s.chat != nil {
			s.chat.Left(ctx, "event-"+eventID, memberdata.Forgotten, "")
		}
	}
	if !gone {
		// The counts, and the cards that show them: a sync whose cards
		// failed is logged, and one whose counts are right writes none.
		if _, err := s.catalog.SyncSeats(ctx, eventID); err != nil {
			return err
		}
		if err := s.catalog.listing.Follow(ctx, eventsPart, eventID); err != nil {
			return err
		}
		if err := s.catalog.seats.followAll(ctx, eventID); err != nil {
			return err
		}
	}
	return s.catalog.seats.Forget(ctx, eventID, memberKey)
}

// forgetRunner takes m off an event they run: a co-organizer's place
// goes; an upcoming event they made passes to its first co-organizer,
// or is cancelled when it has none (everyone registered is told first,
// at the notice's key, so a run cut short tells nobody twice); what
// stays is made by Forgotten. The change is written with its listing
// rows, and a failure of those is an error here (the next run repairs
// an event whose record still names m).
func (s *Service) forgetRunner(ctx context.Context, e EventRow, m memberdata.Member) error {
	if !e.runBy(m.Key) {
		return s.catalog.listing.Repair(ctx, eventsPart, e.RowKey)
	}
	upcoming, cancel := e.fateWithout(m.Key, s.now())
	if cancel {
		if err := s.tellCancelled(ctx, e); err != nil {
			return err
		}
	}
	_, err := s.catalog.listing.Change(ctx, eventsPart, e.RowKey, ErrNoEvent, func(e *EventRow) error {
		e.dropCoHost(m.Key)
		if e.OrganizerKey == m.Key {
			e.OrganizerKey = memberdata.Forgotten
			if keys := e.coHostKeys(); len(keys) > 0 && upcoming {
				e.OrganizerKey = keys[0]
				e.dropCoHost(keys[0])
			}
		}
		if cancel {
			e.cancel()
		}
		e.UpdatedAt = s.now().UTC()
		return nil
	})
	return err
}

// fateWithout is what the deletion of memberKey's account does to e,
// which they run (forgetRunner): upcoming is an event neither over nor
// cancelled; one of those they made passes to its first co-organizer,
// or, with none, is cancelled (cancel).
func (e EventRow) fateWithout(memberKey string, now time.Time) (upcoming, cancel bool) {
	upcoming = e.End.After(now) && !e.IsCancelled
	return upcoming, e.OrganizerKey == memberKey && upcoming && len(e.coHostKeys()) == 0
}

// PreviewForget lists the upcoming events m made, each with what their
// deletion would do to it: pass it to its first co-organizer, or cancel
// it and tell the people registered (memberdata.Previewer). One query of
// their "Events you run" rows, a read of each upcoming one, and a
// profile read per co-organizer named.
func (s *Service) PreviewForget(ctx context.Context, m memberdata.Member) ([]memberdata.Consequence, error) {
	now := s.now()
	var ids []string
	err := s.catalog.byDate.QueryAll(ctx, storage.Query{PartitionKey: organizingPart(m.Key), Select: []string{"eventId", "end", "isCancelled"}}, func(e storage.Entity) error {
		end, _ := e.Props["end"].(time.Time)
		if cancelled, _ := e.Props["isCancelled"].(bool); !cancelled && end.After(now) {
			id, _ := e.Props["eventId"].(string)
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []memberdata.Consequence
	for _, id := range ids {
		e, err := s.catalog.Event(ctx, id)
		if errors.Is(err, ErrNoEvent) {
			continue
		}
		if err != nil {
			return nil, err
		}
		upcoming, cancel := e.fateWithout(m.Key, now)
		if !upcoming || e.OrganizerKey != m.Key {
			continue // a co-organizer's place just goes
		}
		outcome := i18n.T(ctx, "events.forget.cancelled")
		if !cancel {
			outcome = i18n.T(ctx, "events.forget.passes", "name", s.coHostName(ctx, e, 0))
		}
		out = append(out, memberdata.Consequence{What: e.Title, URL: eventURL(e.RowKey), Outcome: outcome})
	}
	return out, nil
}

// coHostName is e's i-th co-organizer's name, or their address when
// their profile cannot be read.
func (s *Service) coHostName(ctx context.Context, e EventRow, i int) string {
	keys, emails := e.coHostKeys(), coHostEmails(e)
	if s.people != nil && i < len(keys) {
		if p, err := s.people.Profile(ctx, keys[i]); err == nil && p.DisplayName != "" {
			return p.DisplayName
		}
	}
	if i < len(emails) {
		return emails[i]
	}
	return ""
}

// coHostEmails are e's co-organizers' addresses, in its co-organizers'
// order.
func coHostEmails(e EventRow) []string {
	if e.CoHostEmails == "" {
		return nil
	}
	return strings.Split(e.CoHostEmails, ", ")
}

// without is list without its i-th item (list as it is when shorter).
func without(list []string, i int) []string {
	if i >= len(list) {
		return list
	}
	return slices.Delete(slices.Clone(list), i, i+1)
}

// forgetFeed deletes memberKey's calendar feed: every token row naming
// them (one a replacement cut short left too), then their own row.
func (s *Service) forgetFeed(ctx context.Context, memberKey string) error {
	err := s.feeds.QueryAll(ctx, ownRows(memberKey), func(e storage.Entity) error {
		return storage.Forget(ctx, s.feeds, e.PartitionKey, e.RowKey)
	})
	if err != nil {
		return err
	}
	return storage.Forget(ctx, s.feeds, memberKey, "m")
}

// followAll brings every registration of eventID in step in "My
// events": the cancellation's mirror logs a failure and goes on, and a
// run resumed after it has no other way to find whom it moved. One
// query, and a read of each registration (a write where it is behind).
func (s *Seats) followAll(ctx context.Context, eventID string) error {
	rows, err := storage.All[AttendeeRow](ctx, s.table, storage.Query{PartitionKey: eventID, RowKeyPrefix: attendeePrefix, Select: []string{"RowKey"}})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := s.mine.Follow(ctx, eventID, r.RowKey); err != nil {
			return err
		}
	}
	return nil
}

// Forget deletes memberKey's registration for eventID once it is
// cancelled (Cancel), with its ticket, and any row of the event that
// still names them (none unless a write was lost): a cancelled
// registration holds no seat, so the counter does not change. The
// registration and its ticket go in one transaction, at the
// registration's ETag.
func (s *Seats) Forget(ctx context.Context, eventID, memberKey string) error {
	a, err := storage.Get[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey))
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return err
	case a.Status != StatusCancelled:
		return fmt.Errorf("events: %s's registration for %s is %s, not cancelled", memberKey, eventID, a.Status)
	default:
		tx := (&storage.Tx{}).Delete(eventID, a.RowKey, a.ETag)
		if a.Ticket != "" {
			if ok, err := storage.Exists(ctx, s.table, eventID, ticketRowKey(a.Ticket)); err != nil {
				return err
			} else if ok {
				tx.Delete(eventID, ticketRowKey(a.Ticket), storage.AnyETag)
			}
		}
		if err := tx.Commit(ctx, s.table); err != nil {
			return err
		}
		if err := s.mine.Sync(ctx, &a, nil); err != nil {
			return err
		}
	}
	q := storage.Query{PartitionKey: eventID, Filters: []storage.Filter{{Name: "memberKey", Op: storage.Eq, Value: memberKey}}, Select: []string{"RowKey"}}
	return s.table.QueryAll(ctx, q, func(e storage.Entity) error {
		return storage.Forget(ctx, s.table, e.PartitionKey, e.RowKey)
	})
}

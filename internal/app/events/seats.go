package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// Seat-change limits.
const (
	// seatAttempts is how often a seat change retries when another one
	// committed first: under a rush of registrations every attempt but
	// one loses each round, and the jittered backoff spreads them out.
	seatAttempts = 200
	// maxPromotions bounds the people one change moves off the waitlist,
	// so the transaction stays within its 100 operations (two each).
	maxPromotions = 40
	// MaxParty is the most seats one registration may take.
	MaxParty = 10
)

// Errors of seat changes.
var (
	// ErrCapacityBelowGoing refuses a capacity under the seats taken.
	ErrCapacityBelowGoing = fault.New(http.StatusConflict, "events.error.capacity_below_going", "events: capacity below the seats taken")
	// ErrBadParty is a party size out of range.
	ErrBadParty = fault.New(http.StatusUnprocessableEntity, "events.error.party", "events: bad party size")
	// ErrNotRegistered is a cancellation by someone not registered.
	ErrNotRegistered = fault.New(http.StatusNotFound, "events.error.not_registered", "events: not registered")
)

// Seats is the seat accounting of events on one table, and each
// person's list of their registrations (UserEvents, mine.go).
type Seats struct {
	table      *storage.Table
	userEvents *storage.Table
	mine       *projection.Projection[AttendeeRow]
	log        *slog.Logger
	now        func() time.Time
}

// NewSeats keeps the accounting in store's EventAttendees table.
func NewSeats(store *storage.Store, log *slog.Logger, now func() time.Time) *Seats {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Seats{table: store.Table(AttendeesTable), userEvents: store.Table(UserEventsTable), log: log, now: now}
	s.mine = userEventsProjection(s.table, s.userEvents)
	return s
}

// Registration is a person's state for an event.
type Registration struct {
	Status string
	Party  int
	// Position is their place on the waitlist (1 is next), 0 otherwise.
	Position int
}

// Open creates an event's seat counter with its capacity (0 means no
// limit). Opening an open event changes nothing.
func (s *Seats) Open(ctx context.Context, eventID string, capacity int) error {
	_, err := storage.Insert(ctx, s.table, SeatsRow{PartitionKey: eventID, RowKey: seatsRowKey, Capacity: capacity, UpdatedAt: s.now().UTC()})
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	return err
}

// Counts reads the counter: seats taken, people waiting, capacity.
func (s *Seats) Counts(ctx context.Context, eventID string) (SeatsRow, error) {
	return storage.Get[SeatsRow](ctx, s.table, eventID, seatsRowKey)
}

// fits reports whether party more seats fit.
func fits(c SeatsRow, party int) bool { return c.Capacity == 0 || c.Going+party <= c.Capacity }

// Person is who registers: their memberKey, and their name and email as
// the organizer's attendee list shows them.
type Person struct {
	MemberKey string
	Name      string
	Email     string
}

// Register registers p with party seats. Someone already going or
// waiting keeps their place (nothing changes). While anyone waits, or the
// seats do not fit, they join the end of the waitlist. One transaction at
// the counter's ETag; retried when another change committed first.
func (s *Seats) Register(ctx context.Context, eventID string, p Person, party int) (Registration, error) {
	if party < 1 || party > MaxParty {
		return Registration{}, ErrBadParty
	}
	memberKey := p.MemberKey
	var out Registration
	var changes []change
	err := storage.Optimistic(ctx, seatAttempts, func(ctx context.Context) error {
		changes = nil
		c, err := s.Counts(ctx, eventID)
		if err != nil {
			return err
		}
		a, err := storage.Get[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey))
		var before *AttendeeRow
		if err == nil {
			before = &a
		}
		switch {
		case err == nil && (a.Status == StatusGoing || a.Status == StatusWaitlist):
			out = Registration{Status: a.Status, Party: a.Party}
			return nil
		case err != nil && !errors.Is(err, storage.ErrNotFound):
			return err
		}
		now := s.now().UTC()
		row := AttendeeRow{PartitionKey: eventID, RowKey: attendeeRowKey(memberKey), MemberKey: memberKey, Party: party,
			RegisteredAt: now, UpdatedAt: now, Name: p.Name, Email: p.Email}
		var ops []storage.TxOp
		if before != nil {
			row.ETag = before.ETag
		}
		if before != nil && before.Ticket != "" {
			row.Ticket = before.Ticket
		} else {
			row.Ticket = newTicketCode()
			ops = append(ops, insertOp(TicketRow{PartitionKey: eventID, RowKey: ticketRowKey(row.Ticket), MemberKey: memberKey}))
		}
		if c.Waiting == 0 && fits(c, party) {
			row.Status = StatusGoing
			c.Going += party
		} else {
			row.Status, row.Seq = StatusWaitlist, c.NextSeq
			c.Waiting, c.NextSeq = c.Waiting+1, c.NextSeq+1
			ops = append(ops, insertOp(QueueRow{PartitionKey: eventID, RowKey: queueRowKey(row.Seq, memberKey), MemberKey: memberKey, Party: party}))
		}
		c.UpdatedAt = now
		ops = append(ops, counterOp(c), attendeeOp(row))
		if err := s.commit(ctx, ops); err != nil {
			return err
		}
		out = Registration{Status: row.Status, Party: party}
		changes = []change{{before, &row}}
		return nil
	})
	if err != nil {
		return Registration{}, err
	}
	s.mirror(ctx, changes)
	if out.Status == StatusWaitlist {
		out.Position, err = s.position(ctx, eventID, memberKey)
	}
	return out, err
}

// Cancel cancels memberKey's registration. Seats a going person frees go
// to the head of the waitlist in the same transaction, first come first
// served, never a party into fewer seats than it needs (the queue waits
// for the head rather than letting a smaller party past it). It returns
// the memberKeys it promoted.
func (s *Seats) Cancel(ctx context.Context, eventID, memberKey string) ([]string, error) {
	var promoted []string
	var changes []change
	err := storage.Optimistic(ctx, seatAttempts, func(ctx context.Context) error {
		promoted, changes = nil, nil
		c, err := s.Counts(ctx, eventID)
		if err != nil {
			return err
		}
		a, err := storage.Get[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey))
		if errors.Is(err, storage.ErrNotFound) || err == nil && a.Status == StatusCancelled {
			return ErrNotRegistered
		}
		if err != nil {
			return err
		}
		now := s.now().UTC()
		var ops []storage.TxOp
		switch a.Status {
		case StatusGoing:
			c.Going -= a.Party
		case StatusWaitlist:
			c.Waiting--
			ops = append(ops, deleteOp(eventID, queueRowKey(a.Seq, memberKey)))
		}
		before := a
		a.Status, a.UpdatedAt = StatusCancelled, now
		ops = append(ops, attendeeOp(a))
		more, moved, err := s.promote(ctx, &c, now)
		if err != nil {
			return err
		}
		c.UpdatedAt = now
		ops = append(append(ops, more...), counterOp(c))
		if err := s.commit(ctx, ops); err != nil {
			return err
		}
		changes = append([]change{{&before, &a}}, moved...)
		promoted = keysOf(moved)
		return nil
	})
	if err == nil {
		s.mirror(ctx, changes)
	}
	return promoted, err
}

// SetCapacity changes an event's capacity: raising it promotes as many
// from the waitlist as now fit; lowering it below the seats taken is
// refused (ErrCapacityBelowGoing). 0 means no limit.
func (s *Seats) SetCapacity(ctx context.Context, eventID string, capacity int) ([]string, error) {
	var promoted []string
	var changes []change
	err := storage.Optimistic(ctx, seatAttempts, func(ctx context.Context) error {
		promoted, changes = nil, nil
		c, err := s.Counts(ctx, eventID)
		if err != nil {
			return err
		}
		if capacity < 0 || capacity > 0 && capacity < c.Going {
			return ErrCapacityBelowGoing
		}
		now := s.now().UTC()
		c.Capacity, c.UpdatedAt = capacity, now
		ops, moved, err := s.promote(ctx, &c, now)
		if err != nil {
			return err
		}
		if err := s.commit(ctx, append(ops, counterOp(c))); err != nil {
			return err
		}
		changes, promoted = moved, keysOf(moved)
		return nil
	})
	if err == nil {
		s.mirror(ctx, changes)
	}
	return promoted, err
}

// keysOf are the memberKeys of changed registrations.
func keysOf(changes []change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, c.after.MemberKey)
	}
	return out
}

// commit runs one seat change's transaction. A row it deletes or updates
// being gone, or one it inserts being there, means another change
// committed since this one read (the counter's ETag would refuse it
// too): a conflict, retried.
func (s *Seats) commit(ctx context.Context, ops []storage.TxOp) error {
	err := s.table.Transact(ctx, ops)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrExists) {
		return fmt.Errorf("%w: %w", storage.ErrPrecondition, err)
	}
	return err
}

// promote moves the head of the waitlist into free seats, in order,
// stopping at the first party that does not fit: it returns the
// transaction's operations and the registrations it changes, and updates
// c.
func (s *Seats) promote(ctx context.Context, c *SeatsRow, now time.Time) ([]storage.TxOp, []change, error) {
	if c.Waiting == 0 {
		return nil, nil, nil
	}
	page, err := s.table.Query(ctx, storage.Query{PartitionKey: c.PartitionKey, RowKeyPrefix: queuePrefix, Limit: maxPromotions})
	if err != nil {
		return nil, nil, err
	}
	var ops []storage.TxOp
	var moved []change
	for _, e := range page.Entities {
		var q QueueRow
		if err := storage.Unmarshal(e, &q); err != nil {
			return nil, nil, err
		}
		if !fits(*c, q.Party) {
			break
		}
		a, err := storage.Get[AttendeeRow](ctx, s.table, c.PartitionKey, attendeeRowKey(q.MemberKey))
		if err != nil {
			return nil, nil, fmt.Errorf("events: waitlisted %s: %w", q.MemberKey, err)
		}
		before := a
		a.Status, a.Seq, a.UpdatedAt = StatusGoing, 0, now
		c.Going, c.Waiting = c.Going+q.Party, c.Waiting-1
		ops = append(ops, deleteOp(c.PartitionKey, q.RowKey), attendeeOp(a))
		moved = append(moved, change{&before, &a})
	}
	return ops, moved, nil
}

// position is memberKey's place on the waitlist: one query of the
// queue up to their entry.
func (s *Seats) position(ctx context.Context, eventID, memberKey string) (int, error) {
	a, err := storage.Get[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey))
	if err != nil || a.Status != StatusWaitlist {
		return 0, err
	}
	n := 0
	err = s.table.QueryAll(ctx, storage.Query{PartitionKey: eventID, RowKeyFrom: queuePrefix, RowKeyTo: queueRowKey(a.Seq, memberKey) + "\x00", Select: []string{"memberKey"}}, func(storage.Entity) error {
		n++
		return nil
	})
	return n, err
}

// Waitlist is the event's waitlist in order (memberKeys).
func (s *Seats) Waitlist(ctx context.Context, eventID string) ([]string, error) {
	rows, err := storage.All[QueueRow](ctx, s.table, storage.Query{PartitionKey: eventID, RowKeyPrefix: queuePrefix})
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.MemberKey
	}
	return keys, err
}

// Attendees are the event's registrations, by memberKey.
func (s *Seats) Attendees(ctx context.Context, eventID string) ([]AttendeeRow, error) {
	return storage.All[AttendeeRow](ctx, s.table, storage.Query{PartitionKey: eventID, RowKeyPrefix: "m|"})
}

func counterOp(c SeatsRow) storage.TxOp {
	e, _ := storage.Marshal(c) // a SeatsRow always marshals
	return storage.TxOp{Kind: storage.TxUpdate, Entity: e, Mode: storage.Replace, IfMatch: c.ETag}
}

// attendeeOp writes a registration: a new one inserted, a read one at
// the ETag it was read with, so a seat change never overwrites a
// check-in it did not see (the transaction fails and is retried).
func attendeeOp(a AttendeeRow) storage.TxOp {
	e, _ := storage.Marshal(a) // an AttendeeRow always marshals
	if a.ETag == "" {
		return storage.TxOp{Kind: storage.TxInsert, Entity: e}
	}
	return storage.TxOp{Kind: storage.TxUpdate, Entity: e, Mode: storage.Replace, IfMatch: a.ETag}
}

func insertOp(v any) storage.TxOp {
	e, _ := storage.Marshal(v)
	return storage.TxOp{Kind: storage.TxInsert, Entity: e}
}

func deleteOp(pk, rk string) storage.TxOp {
	return storage.TxOp{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: rk}, IfMatch: storage.AnyETag}
}

// Status is memberKey's registration for the event: "" when none.
func (s *Seats) Status(ctx context.Context, eventID, memberKey string) (Registration, error) {
	a, err := storage.Get[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey))
	if errors.Is(err, storage.ErrNotFound) {
		return Registration{}, nil
	}
	if err != nil {
		return Registration{}, err
	}
	r := Registration{Status: a.Status, Party: a.Party}
	if a.Status == StatusWaitlist {
		r.Position, err = s.position(ctx, eventID, memberKey)
	}
	return r, err
}

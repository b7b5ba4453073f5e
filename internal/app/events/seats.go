package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// Seat-change limits.
const (
	// seatAttempts is how often a seat change retries when another one
	// committed first: under a rush of registrations every attempt but
	// one loses each round, and the jittered backoff spreads them out.
	seatAttempts = 200
	// maxPromotions bounds the people one change moves off the waitlist
	// or whose offers it expires, per query.
	maxPromotions = 40
	// maxTxOps is a transaction's most operations (Azure's limit).
	maxTxOps = 100
	// MaxParty is the most seats one registration may take.
	MaxParty = 10
)

// Errors of seat changes.
var (
	// ErrCapacityBelowGoing refuses a capacity under the seats taken.
	ErrCapacityBelowGoing = fault.New(http.StatusUnprocessableEntity, "events.error.capacity_below_going", "events: capacity below the seats taken")
	// ErrBadParty is a party size out of range.
	ErrBadParty = fault.New(http.StatusUnprocessableEntity, "events.error.party", "events: bad party size")
	// ErrNotRegistered is a cancellation by someone not registered.
	ErrNotRegistered = fault.New(http.StatusNotFound, "events.error.not_registered", "events: not registered")
	// ErrOfferLapsed is taking a seat whose offer lapsed (409).
	ErrOfferLapsed = fault.New(http.StatusConflict, "events.error.offer_lapsed", "events: the offer lapsed")
	// ErrNoOffer is taking a seat nobody offered (404).
	ErrNoOffer = fault.New(http.StatusNotFound, "events.error.no_offer", "events: no offer")
	// ErrNoRequest is approving or declining someone who did not ask
	// to join (404).
	ErrNoRequest = fault.New(http.StatusNotFound, "events.error.no_request", "events: no request to join")
	// ErrDecided is approving or declining a request decided already
	// (409).
	ErrDecided = fault.New(http.StatusConflict, "events.error.decided", "events: the request was decided already")
	// ErrNoApproval is approving or declining at an event whose
	// registrations need no approval (409).
	ErrNoApproval = fault.New(http.StatusConflict, "events.error.no_approval", "events: registrations need no approval")
	// ErrDeclined refuses a new request from someone the organizers
	// declined (409).
	ErrDeclined = fault.New(http.StatusConflict, "events.error.declined", "events: the request was declined")
	// ErrRequestsPending refuses turning approval off while requests
	// wait for it (409): each is approved or declined first.
	ErrRequestsPending = fault.New(http.StatusConflict, "events.error.requests_pending", "events: requests are waiting for approval")
)

// Seats is the seat accounting of events on one table, and each
// person's list of their registrations (UserEvents, mine.go).
type Seats struct {
	table      *storage.Table
	userEvents *storage.Table
	// marks are the events each member has rows at (their registrations,
	// the updates they sent: memberdata.Footprints), each written before
	// their first row there.
	marks *memberdata.Footprints
	mine  *projection.Projection[AttendeeRow]
	log   *slog.Logger
	now   func() time.Time
}

// NewSeats keeps the accounting in store's EventAttendees table.
func NewSeats(store *storage.Store, log *slog.Logger, now func() time.Time) *Seats {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Seats{table: store.Table(AttendeesTable), userEvents: store.Table(UserEventsTable), marks: memberdata.NewFootprints(store, "events", now), log: log, now: now}
	s.mine = userEventsProjection(s.table, s.userEvents)
	return s
}

// Registration is a person's state for an event.
type Registration struct {
	Status string
	Party  int
	// Position is their place on the waitlist (1 is next), 0 otherwise.
	Position int
	// OfferUntil is when a seat offered to them lapses (StatusOffered);
	// OfferLapsed marks a registration an unanswered offer ended.
	OfferUntil  time.Time
	OfferLapsed bool
	// New is true when this call registered them, false when they were
	// registered already.
	New bool
	// DecidedAt is when an organizer approved or declined their request,
	// Declined whether they declined it (AttendeeRow.DecidedAt).
	DecidedAt time.Time
	Declined  bool
	// ToldAt keys the notice of their registration or of their taking
	// an offer (AttendeeRow.ToldAt); zero for a registration from before
	// it was kept.
	ToldAt time.Time
	// RegisteredAt is when they last registered (or asked to join): it
	// keys the organizers' notice of a request.
	RegisteredAt time.Time
	// Rating and Feedback are theirs of the event once it ended (0 and
	// "" for none: feedback.go).
	Rating   int
	Feedback string
}

// Plan is an event's seat settings.
type Plan struct {
	// Capacity is the seats; 0 is no limit.
	Capacity int
	// OfferHold, when set, is offer mode: a freed seat is offered to the
	// head of the waitlist for this long instead of given to them.
	OfferHold time.Duration
	// OffersEnd is when offers stop (a set time before the start): from
	// then on freed seats go straight to the head of the waitlist, and
	// no offer runs past it.
	OffersEnd time.Time
	// Approval makes each registration a request (StatusPending) that
	// holds nothing until an organizer approves it.
	Approval bool
}

// Moves are the people a seat change moved besides the one acting: who
// got a seat from the waitlist, who was offered one, and whose offer
// lapsed.
type Moves struct {
	Promoted []string
	Offered  []Offer
	Expired  []string
	// At is when the change was made: the promoted registrations'
	// PromotedAt.
	At time.Time
}

// Offer is a seat offered to MemberKey until Until.
type Offer struct {
	MemberKey string
	Until     time.Time
}

// Open creates an event's seat counter with its plan. Opening an open
// event changes nothing.
func (s *Seats) Open(ctx context.Context, eventID string, p Plan) error {
	c := SeatsRow{PartitionKey: eventID, RowKey: seatsRowKey, UpdatedAt: s.now().UTC()}
	c.setPlan(p)
	_, err := storage.Insert(ctx, s.table, c)
	if errors.Is(err, storage.ErrExists) {
		return nil
	}
	return err
}

// Counts reads the counter: seats taken, people waiting, capacity.
func (s *Seats) Counts(ctx context.Context, eventID string) (SeatsRow, error) {
	return storage.Get[SeatsRow](ctx, s.table, eventID, seatsRowKey)
}

// fits reports whether party more seats fit: seats held by offers are
// taken until the offers lapse.
func fits(c SeatsRow, party int) bool {
	return c.Capacity == 0 || c.Going+c.Offered+party <= c.Capacity
}

// Person is who registers: their memberKey, and their name and email as
// the organizer's attendee list shows them.
type Person struct {
	MemberKey string
	Name      string
	Email     string
	// Answers are theirs to the event's questions, as JSON (questions.go).
	Answers string
}

// seatTx is one seat change: the counter as read, the transaction's
// operations (one per row: a later write of a row replaces an earlier
// one, so a row expired and then changed again is written once, at the
// ETag it was read with), the registrations read and changed, and who
// moved.
type seatTx struct {
	s       *Seats
	eventID string
	now     time.Time
	c       SeatsRow
	ops     []storage.TxOp
	at      map[string]int
	rows    map[string]*AttendeeRow
	changes []change
	moves   Moves
}

// begin reads the counter for a change of eventID's seats.
func (s *Seats) begin(ctx context.Context, eventID string) (*seatTx, error) {
	c, err := s.Counts(ctx, eventID)
	if err != nil {
		return nil, err
	}
	return &seatTx{s: s, eventID: eventID, now: s.now().UTC(), c: c, at: map[string]int{}, rows: map[string]*AttendeeRow{}}, nil
}

// put adds op, replacing an earlier op on the same row.
func (t *seatTx) put(op storage.TxOp) {
	if i, ok := t.at[op.Entity.RowKey]; ok {
		t.ops[i] = op
		return
	}
	t.at[op.Entity.RowKey] = len(t.ops)
	t.ops = append(t.ops, op)
}

// attendee reads memberKey's registration once per change; later reads
// see this change's edits. ok is false when there is none.
func (t *seatTx) attendee(ctx context.Context, memberKey string) (*AttendeeRow, bool, error) {
	if a, ok := t.rows[memberKey]; ok {
		return a, a.ETag != "" || a.Status != "", nil
	}
	a, err := storage.Get[AttendeeRow](ctx, t.s.table, t.eventID, attendeeRowKey(memberKey))
	if errors.Is(err, storage.ErrNotFound) {
		t.rows[memberKey] = &AttendeeRow{PartitionKey: t.eventID, RowKey: attendeeRowKey(memberKey), MemberKey: memberKey}
		return t.rows[memberKey], false, nil
	}
	if err != nil {
		return nil, false, err
	}
	t.rows[memberKey] = &a
	return &a, true, nil
}

// write records a's new state (before is how it was), with the intent
// of its UserEvents row (projection.Intend), so that the mirror after
// the commit writes no intent of its own: that write would move the
// row's ETag under the next seat change. An Intend that fails fails
// the mirror's follow too, which logs it.
func (t *seatTx) write(before AttendeeRow, a *AttendeeRow) {
	a.UpdatedAt = t.now
	_ = t.s.mine.Intend(a)
	t.put(attendeeOp(*a))
	b := before
	var bp *AttendeeRow
	if b.Status != "" {
		bp = &b
	}
	after := *a
	t.changes = append(t.changes, change{bp, &after})
}

// commit writes the counter at its ETag with every op in one
// transaction, then mirrors the changed registrations into UserEvents.
func (t *seatTx) commit(ctx context.Context) error {
	for _, a := range t.rows {
		if _, written := t.at[a.RowKey]; written && a.ETag == "" {
			if err := t.s.marks.Mark(ctx, a.MemberKey, t.eventID); err != nil {
				return err
			}
		}
	}
	t.c.UpdatedAt = t.now
	t.put(counterOp(t.c))
	return t.s.commit(ctx, t.ops)
}

// change runs f as one seat change of eventID, after settling the
// offers that lapsed (so every change sees the seats as they are now),
// retried from a fresh read when another change committed first; the
// changed registrations are mirrored after it commits. It returns the
// moves the change made.
func (s *Seats) change(ctx context.Context, eventID string, f func(ctx context.Context, t *seatTx) error) (Moves, error) {
	var done *seatTx
	err := storage.Optimistic(ctx, seatAttempts, func(ctx context.Context) error {
		t, err := s.begin(ctx, eventID)
		if err != nil {
			return err
		}
		if err := t.settle(ctx); err != nil {
			return err
		}
		if err := f(ctx, t); err != nil {
			return err
		}
		if len(t.ops) > 0 {
			if err := t.commit(ctx); err != nil {
				return err
			}
		}
		done = t
		return nil
	})
	if err != nil {
		return Moves{}, err
	}
	s.mirror(ctx, done.changes)
	done.moves.At = done.now
	return done.moves, nil
}

// Register registers p with party seats. Someone already going, waiting,
// offered a seat or asking to join keeps their place (nothing changes).
// At an event that needs approval they ask to join (StatusPending: no
// seat, no ticket), unless the organizers declined them (ErrDeclined).
// Otherwise they take a seat (place). Lapsed offers are settled first,
// in the same transaction at the counter's ETag; retried when another
// change committed first.
func (s *Seats) Register(ctx context.Context, eventID string, p Person, party int) (Registration, Moves, error) {
	if party < 1 || party > MaxParty {
		return Registration{}, Moves{}, ErrBadParty
	}
	var out Registration
	moves, err := s.change(ctx, eventID, func(ctx context.Context, t *seatTx) error {
		out = Registration{}
		a, _, err := t.attendee(ctx, p.MemberKey)
		if err != nil {
			return err
		}
		if a.Status == StatusGoing || a.Status == StatusWaitlist || a.Status == StatusOffered || a.Status == StatusPending {
			out = registrationOf(*a)
			return nil
		}
		if t.c.Approval && a.Declined {
			return ErrDeclined
		}
		before := *a
		now := t.now
		a.Party, a.RegisteredAt, a.Name, a.Email, a.Seq, a.OfferUntil, a.Attended, a.CheckedInAt, a.PromotedAt, a.ToldAt = party, t.now, p.Name, p.Email, 0, nil, false, nil, nil, &now
		a.DecidedAt, a.Declined, a.Answers = nil, false, p.Answers
		if t.c.Approval {
			a.Status, a.ToldAt = StatusPending, nil
			t.c.Pending++
		} else {
			t.place(a)
		}
		t.write(before, a)
		out = registrationOf(*a)
		out.New = true
		return nil
	})
	if err != nil {
		return Registration{}, Moves{}, err
	}
	if out.Status == StatusWaitlist {
		out.Position, err = s.position(ctx, eventID, p.MemberKey)
	}
	return out, moves, err
}

// place gives a, who holds nothing, a seat with a ticket: while anyone
// waits, or the seats do not fit, at the end of the waitlist.
func (t *seatTx) place(a *AttendeeRow) {
	if a.Ticket == "" {
		a.Ticket = newTicketCode()
		t.put(insertOp(TicketRow{PartitionKey: t.eventID, RowKey: ticketRowKey(a.Ticket), MemberKey: a.MemberKey}))
	}
	if t.c.Waiting == 0 && fits(t.c, a.Party) {
		a.Status = StatusGoing
		t.c.Going += a.Party
		return
	}
	a.Status, a.Seq = StatusWaitlist, t.c.NextSeq
	t.c.Waiting, t.c.NextSeq = t.c.Waiting+1, t.c.NextSeq+1
	t.put(insertOp(QueueRow{PartitionKey: t.eventID, RowKey: queueRowKey(a.Seq, a.MemberKey), MemberKey: a.MemberKey, Party: a.Party}))
}

// registrationOf is a registration as its person sees it.
func registrationOf(a AttendeeRow) Registration {
	r := Registration{Status: a.Status, Party: a.Party, OfferLapsed: a.OfferLapsed, Declined: a.Declined, RegisteredAt: a.RegisteredAt, Rating: a.Rating, Feedback: a.Feedback}
	if a.OfferUntil != nil {
		r.OfferUntil = *a.OfferUntil
	}
	if a.ToldAt != nil {
		r.ToldAt = *a.ToldAt
	}
	if a.DecidedAt != nil {
		r.DecidedAt = *a.DecidedAt
	}
	return r
}

// Approve gives memberKey, who asked to join, a seat as registering
// would have (place: going, or the end of the waitlist), with their
// ticket; Decline ends their request. Either is refused for someone who
// did not ask (ErrNoRequest), a request decided already (ErrDecided) and
// an event that needs no approval (ErrNoApproval), and writes nothing
// then. The decision's time keys the notice that tells them. The moves
// are those of lapsed offers settled first, as in every seat change.
func (s *Seats) Approve(ctx context.Context, eventID, memberKey string) (Registration, Moves, error) {
	return s.decide(ctx, eventID, memberKey, (*seatTx).place)
}

// Decline ends memberKey's request to join (see Approve).
func (s *Seats) Decline(ctx context.Context, eventID, memberKey string) (Registration, Moves, error) {
	return s.decide(ctx, eventID, memberKey, func(_ *seatTx, a *AttendeeRow) {
		a.Status, a.Declined = StatusCancelled, true
	})
}

// undecided says what is wrong with deciding a (a zero row: none) at
// an event whose counter has approval: nil for a request waiting for
// its decision.
func undecided(approval bool, a AttendeeRow) error {
	switch {
	case !approval:
		return ErrNoApproval
	case a.Status == StatusPending:
		return nil
	case a.DecidedAt != nil:
		return ErrDecided
	}
	return ErrNoRequest
}

// Undecided reads, writing nothing, memberKey's request to join
// eventID waiting for a decision, or the error Approve and Decline would
// refuse it with. Two reads.
func (s *Seats) Undecided(ctx context.Context, eventID, memberKey string) (AttendeeRow, error) {
	if memberKey == "" || storage.ValidateKey(memberKey) != nil {
		return AttendeeRow{}, ErrNoRequest
	}
	c, err := s.Counts(ctx, eventID)
	if err != nil {
		return AttendeeRow{}, err
	}
	a, err := storage.Find[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey), nil)
	if err != nil {
		return AttendeeRow{}, err
	}
	return a, undecided(c.Approval, a)
}

// decide moves memberKey's pending request on with then, which gives
// it its new state.
func (s *Seats) decide(ctx context.Context, eventID, memberKey string, then func(*seatTx, *AttendeeRow)) (Registration, Moves, error) {
	if memberKey == "" || storage.ValidateKey(memberKey) != nil {
		return Registration{}, Moves{}, ErrNoRequest
	}
	var out Registration
	moves, err := s.change(ctx, eventID, func(ctx context.Context, t *seatTx) error {
		a, _, err := t.attendee(ctx, memberKey)
		if err != nil {
			return err
		}
		if err := undecided(t.c.Approval, *a); err != nil {
			return err
		}
		before := *a
		t.release(a)
		now := t.now
		a.DecidedAt = &now
		then(t, a)
		t.write(before, a)
		out = registrationOf(*a)
		return nil
	})
	return out, moves, err
}

// Cancel cancels memberKey's registration, or declines a seat offered
// to them. Seats freed go to the head of the waitlist in the same
// transaction (or are offered to it, in offer mode), first come first
// served, never a party into fewer seats than it needs (the queue waits
// for the head rather than letting a smaller party past it).
func (s *Seats) Cancel(ctx context.Context, eventID, memberKey string) (Moves, error) {
	moves, err := s.change(ctx, eventID, func(ctx context.Context, t *seatTx) error {
		a, ok, err := t.attendee(ctx, memberKey)
		if err != nil {
			return err
		}
		if !ok || a.Status == StatusCancelled {
			return ErrNotRegistered
		}
		before := *a
		t.release(a)
		a.Status = StatusCancelled
		t.write(before, a)
		return t.promote(ctx)
	})
	return moves, err
}

// release gives up a's seats or place (before it changes status).
func (t *seatTx) release(a *AttendeeRow) {
	switch a.Status {
	case StatusGoing:
		t.c.Going -= a.Party
	case StatusWaitlist:
		t.c.Waiting--
		t.put(deleteOp(t.eventID, queueRowKey(a.Seq, a.MemberKey)))
	case StatusOffered:
		t.c.Offered -= a.Party
		if a.OfferUntil != nil {
			t.put(deleteOp(t.eventID, offerRowKey(*a.OfferUntil, a.MemberKey)))
		}
	case StatusPending:
		t.c.Pending--
	}
	a.Seq, a.OfferUntil = 0, nil
}

// Accept takes the seat offered to memberKey: they are going (someone
// going already stays so, and nothing changes). An offer that lapsed is
// ErrOfferLapsed (and the seat has gone on).
func (s *Seats) Accept(ctx context.Context, eventID, memberKey string) (Registration, Moves, error) {
	var out Registration
	moves, err := s.change(ctx, eventID, func(ctx context.Context, t *seatTx) error {
		a, _, err := t.attendee(ctx, memberKey)
		if err != nil {
			return err
		}
		switch a.Status {
		case StatusGoing:
			out = registrationOf(*a)
			return nil
		case StatusOffered:
		default:
			if a.Status == StatusCancelled && a.OfferLapsed {
				return ErrOfferLapsed
			}
			return ErrNoOffer
		}
		before := *a
		t.release(a)
		now := t.now
		a.Status, a.ToldAt = StatusGoing, &now
		t.c.Going += a.Party
		t.write(before, a)
		out = registrationOf(*a)
		return nil
	})
	return out, moves, err
}

// SetPlan changes an event's seat plan: raising the capacity promotes
// (or offers to) as many from the waitlist as now fit; lowering it below
// the seats taken and offered is refused (ErrCapacityBelowGoing). 0
// means no limit. Approval is turned off only when no request waits for
// it (ErrRequestsPending).
func (s *Seats) SetPlan(ctx context.Context, eventID string, p Plan) (Moves, error) {
	moves, err := s.change(ctx, eventID, func(ctx context.Context, t *seatTx) error {
		if p.Capacity < 0 || p.Capacity > 0 && p.Capacity < t.c.Going+t.c.Offered {
			return ErrCapacityBelowGoing
		}
		if !p.Approval && t.c.Pending > 0 {
			return ErrRequestsPending
		}
		t.c.setPlan(p)
		t.put(counterOp(t.c))
		return t.promote(ctx)
	})
	return moves, err
}

// Settle judges the event's lapsed offers now (an offer is over at its
// time, whether or not anything ran then) and moves their seats on: the
// read path calls it when a lapsed offer is outstanding.
func (s *Seats) Settle(ctx context.Context, eventID string) (Moves, error) {
	return s.change(ctx, eventID, func(context.Context, *seatTx) error { return nil })
}

// lapsed reports whether c has an offer outstanding that lapsed by now:
// one query, only while offers are out.
func (s *Seats) lapsed(ctx context.Context, c SeatsRow, now time.Time) (bool, error) {
	if c.Offered == 0 {
		return false, nil
	}
	page, err := s.table.Query(ctx, storage.Query{PartitionKey: c.PartitionKey, RowKeyFrom: offerPrefix, RowKeyTo: offerBound(now), Limit: 1, Select: []string{"RowKey"}})
	return err == nil && len(page.Entities) > 0, err
}

// settle expires the offers that lapsed by the change's time, and gives
// their seats on (promote).
func (t *seatTx) settle(ctx context.Context) error {
	if t.c.Offered == 0 {
		return t.promote(ctx)
	}
	offers, _, err := storage.Take[OfferRow](ctx, t.s.table, storage.Query{PartitionKey: t.eventID, RowKeyFrom: offerPrefix, RowKeyTo: offerBound(t.now)}, maxPromotions)
	if err != nil {
		return err
	}
	for _, o := range offers {
		a, ok, err := t.attendee(ctx, o.MemberKey)
		if err != nil {
			return err
		}
		if !ok || a.Status != StatusOffered {
			t.put(deleteOp(t.eventID, o.RowKey)) // a stray: its offer ended otherwise
			continue
		}
		before := *a
		t.release(a)
		a.Status, a.OfferLapsed = StatusCancelled, true
		t.write(before, a)
		t.moves.Expired = append(t.moves.Expired, a.MemberKey)
	}
	return t.promote(ctx)
}

// offering reports whether a freed seat is offered now rather than
// given.
func (t *seatTx) offering() bool {
	return t.c.OfferHoldMinutes > 0 && (t.c.OffersEnd == nil || t.now.Before(*t.c.OffersEnd))
}

// promote moves the head of the waitlist into free seats, in order,
// stopping at the first party that does not fit: in offer mode (until
// offers stop) they are offered the seats until now plus the hold,
// never past the end of offers; otherwise they are going.
func (t *seatTx) promote(ctx context.Context) error {
	if t.c.Waiting == 0 {
		return nil
	}
	queue, _, err := storage.Take[QueueRow](ctx, t.s.table, storage.Query{PartitionKey: t.eventID, RowKeyPrefix: queuePrefix}, maxPromotions)
	if err != nil {
		return err
	}
	for _, q := range queue {
		if !fits(t.c, q.Party) || len(t.ops) > maxTxOps-4 {
			break
		}
		a, ok, err := t.attendee(ctx, q.MemberKey)
		if err != nil {
			return err
		}
		if !ok || a.Status != StatusWaitlist {
			return fmt.Errorf("events: waitlisted %s has no waiting registration: %w", q.MemberKey, storage.ErrPrecondition)
		}
		before := *a
		t.release(a)
		if t.offering() {
			until := t.now.Add(time.Duration(t.c.OfferHoldMinutes) * time.Minute).Truncate(time.Second)
			if t.c.OffersEnd != nil && until.After(*t.c.OffersEnd) {
				until = *t.c.OffersEnd
			}
			a.Status, a.OfferUntil = StatusOffered, &until
			t.c.Offered += a.Party
			t.put(insertOp(OfferRow{PartitionKey: t.eventID, RowKey: offerRowKey(until, a.MemberKey), MemberKey: a.MemberKey}))
			t.moves.Offered = append(t.moves.Offered, Offer{MemberKey: a.MemberKey, Until: until})
		} else {
			at := t.now
			a.Status, a.PromotedAt = StatusGoing, &at
			t.c.Going += a.Party
			t.moves.Promoted = append(t.moves.Promoted, a.MemberKey)
		}
		t.write(before, a)
	}
	return nil
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
	return storage.All[AttendeeRow](ctx, s.table, storage.Query{PartitionKey: eventID, RowKeyPrefix: attendeePrefix})
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

// Judge reads the event's counter, first settling any lapsed offer
// outstanding (Settle): an offer is over at its time, so every page
// shows what holds even if no job ran then. Without offers out it is
// one read.
func (s *Seats) Judge(ctx context.Context, eventID string) (SeatsRow, Moves, error) {
	c, err := s.Counts(ctx, eventID)
	if err != nil {
		return c, Moves{}, err
	}
	lapsed, err := s.lapsed(ctx, c, s.now().UTC())
	if err != nil || !lapsed {
		return c, Moves{}, err
	}
	moves, err := s.Settle(ctx, eventID)
	if err != nil {
		return c, moves, err
	}
	c, err = s.Counts(ctx, eventID)
	return c, moves, err
}

// Status is memberKey's registration for the event: "" when none.
func (s *Seats) Status(ctx context.Context, eventID, memberKey string) (Registration, error) {
	a, err := storage.Find[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey), nil)
	if err != nil {
		return Registration{}, err
	}
	r := registrationOf(a)
	if a.Status == StatusWaitlist {
		r.Position, err = s.position(ctx, eventID, memberKey)
	}
	return r, err
}

package events

import (
	"fmt"
	"time"
)

// AttendeesTable holds, per event (one partition), its seat counter,
// each person's registration and the waitlist queue, so every seat
// change is one transaction of one partition.
const AttendeesTable = "EventAttendees"

// Registration states.
const (
	StatusGoing     = "going"
	StatusWaitlist  = "waitlist"
	StatusOffered   = "offered" // offer mode: a seat held for them until OfferUntil
	StatusCancelled = "cancelled"
	// StatusPending is a request to join an event that needs the
	// organizer's approval (Plan.Approval): it holds no seat and no place
	// on the waitlist until they approve it (Seats.Approve).
	StatusPending = "pending"
)

// SeatsRow is an event's seat counter: RowKey seatsRowKey. Every change
// to registrations is written at its ETag.
type SeatsRow struct {
	PartitionKey string `table:"PartitionKey"` // eventId
	RowKey       string `table:"RowKey"`       // seatsRowKey
	ETag         string `table:"ETag"`
	Capacity     int    `table:"capacity"`
	// Going is the seats taken (parties count their guests); Waiting the
	// people on the waitlist.
	Going   int `table:"going"`
	Waiting int `table:"waiting"`
	// Offered is the seats held by offers (offer mode) until they are
	// taken or lapse.
	Offered int `table:"offered"`
	// OfferHoldMinutes is offer mode's hold (0: seats are given, not
	// offered); OffersEnd when offers stop.
	OfferHoldMinutes int        `table:"offerHoldMinutes"`
	OffersEnd        *time.Time `table:"offersEnd"`
	// NextSeq numbers waitlist entries, first come first served.
	NextSeq int64 `table:"nextSeq"`
	// Approval makes registrations requests the organizers approve or
	// decline; Pending counts the requests waiting for them.
	Approval  bool      `table:"approval"`
	Pending   int       `table:"pending"`
	UpdatedAt time.Time `table:"updatedAt"`
}

// AttendeeRow is one person's registration (TABLES.md: RK memberKey,
// here prefixed so the partition's other rows cannot collide with it).
type AttendeeRow struct {
	PartitionKey string    `table:"PartitionKey"` // eventId
	RowKey       string    `table:"RowKey"`       // attendeeRowKey
	ETag         string    `table:"ETag"`
	MemberKey    string    `table:"memberKey"`
	Status       string    `table:"status"`
	Party        int       `table:"party"` // seats: themselves and their guests
	Seq          int64     `table:"seq"`   // waitlist order while waiting
	RegisteredAt time.Time `table:"registeredAt"`
	UpdatedAt    time.Time `table:"updatedAt"`
	// Name and Email are the person's when they registered, for the
	// organizer's attendee list and check-in.
	Name  string `table:"name"`
	Email string `table:"email"`
	// Answers are theirs to the event's questions when they registered,
	// as JSON (questions.go).
	Answers string `table:"answers"`
	// Ticket is the code on their ticket's QR (ticketRowKey finds the
	// registration from it); it survives cancelling and registering
	// again.
	Ticket string `table:"ticket"`
	// OfferUntil is when the seat offered to them lapses (StatusOffered);
	// OfferLapsed marks a registration ended by a lapsed offer.
	OfferUntil  *time.Time `table:"offerUntil"`
	OfferLapsed bool       `table:"offerLapsed"`
	// PromotedAt is when the waitlist gave them their seat (going, not
	// offered): it keys their "promoted" notice, so the rebuild can post
	// again one a crash lost, and never twice.
	PromotedAt *time.Time `table:"promotedAt"`
	// ToldAt is when their own step placed them: registering (going or
	// waitlisted) or taking a seat offered. It keys the notice telling
	// them so, as PromotedAt keys a promotion's. Rows from before it
	// have none, and the rebuild posts nothing for them.
	ToldAt *time.Time `table:"toldAt"`
	// DecidedAt is when an organizer approved or declined their request
	// (Declined): it keys the notice telling them so, as PromotedAt
	// keys a promotion's.
	DecidedAt   *time.Time `table:"decidedAt"`
	Declined    bool       `table:"declined"`
	Attended    bool       `table:"attended"`
	CheckedInAt *time.Time `table:"checkedInAt"`
	// Rating is theirs of the event once it ended, from 1 to 5 (0: none),
	// with their words and when they gave it (feedback.go).
	Rating   int        `table:"rating"`
	Feedback string     `table:"feedback"`
	RatedAt  *time.Time `table:"ratedAt"`
	// Mirrored records the UserEvents row last written for it
	// (projection.Follow's record), so two seat changes of one
	// registration in quick succession cannot leave the older status in
	// "My events".
	Mirrored string `table:"mirrored"`
}

// TicketRow finds a registration from its ticket code: RowKey
// ticketRowKey, written in the registering transaction.
type TicketRow struct {
	PartitionKey string `table:"PartitionKey"` // eventId
	RowKey       string `table:"RowKey"`       // ticketRowKey
	ETag         string `table:"ETag"`
	MemberKey    string `table:"memberKey"`
}

// ticketRowKey is a ticket code's RowKey: "t|{code}".
func ticketRowKey(code string) string { return "t|" + code }

// QueueRow is one waitlist entry: its RowKey sorts by arrival.
type QueueRow struct {
	PartitionKey string `table:"PartitionKey"` // eventId
	RowKey       string `table:"RowKey"`       // queueRowKey
	ETag         string `table:"ETag"`
	MemberKey    string `table:"memberKey"`
	Party        int    `table:"party"`
}

// seatsRowKey is the seat counter's RowKey.
const seatsRowKey = "c|seats"

// attendeePrefix starts every registration's RowKey.
const attendeePrefix = "m|"

// attendeeRowKey is a registration's RowKey: "m|{memberKey}".
func attendeeRowKey(memberKey string) string { return attendeePrefix + memberKey }

// queuePrefix starts every waitlist entry's RowKey.
const queuePrefix = "w|"

// queueRowKey is a waitlist entry's RowKey: "w|{seq, 12 digits}|{memberKey}",
// so the partition's w| range reads the waitlist in order.
func queueRowKey(seq int64, memberKey string) string {
	return fmt.Sprintf("%s%012d|%s", queuePrefix, seq, memberKey)
}

// setPlan copies p into the counter.
func (c *SeatsRow) setPlan(p Plan) {
	c.Capacity, c.OfferHoldMinutes, c.OffersEnd, c.Approval = p.Capacity, int(p.OfferHold/time.Minute), nil, p.Approval
	if p.OfferHold > 0 && !p.OffersEnd.IsZero() {
		end := p.OffersEnd.UTC()
		c.OffersEnd = &end
	}
}

// OfferRow is an outstanding offer: RowKey offerRowKey sorts offers by
// when they lapse, so the lapsed ones are one range of the partition.
type OfferRow struct {
	PartitionKey string `table:"PartitionKey"` // eventId
	RowKey       string `table:"RowKey"`       // offerRowKey
	ETag         string `table:"ETag"`
	MemberKey    string `table:"memberKey"`
}

// offerPrefix starts every offer's RowKey.
const offerPrefix = "o|"

// offerRowKey is an offer's RowKey: "o|{until, UTC seconds}|{memberKey}".
func offerRowKey(until time.Time, memberKey string) string {
	return offerPrefix + until.UTC().Format("20060102150405") + "|" + memberKey
}

// offerBound is the RowKeyTo (exclusive) that reads the offers lapsed by
// now: those whose time is now or earlier.
func offerBound(now time.Time) string {
	return offerPrefix + now.UTC().Add(time.Second).Format("20060102150405")
}

package events

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// UserEventsTable lists each person's registrations (document 000's
// reverse index): "My events" reads one partition.
const UserEventsTable = "UserEvents"

// UserEventRow is one of a person's registrations, mirrored from their
// AttendeeRow by the projection kit.
type UserEventRow struct {
	PartitionKey string     `table:"PartitionKey"` // memberKey
	RowKey       string     `table:"RowKey"`       // eventId
	ETag         string     `table:"ETag"`
	Status       string     `table:"status"`
	Party        int        `table:"party"`
	Seq          int64      `table:"seq"`
	OfferUntil   *time.Time `table:"offerUntil"`
	UpdatedAt    time.Time  `table:"updatedAt"`
	// Rating is the person's rating of the event once it ended (0: none
	// yet), so "My events" asks for one or shows it without reading the
	// registration.
	Rating int `table:"rating"`
}

// userEventsProjection mirrors each registration into its person's
// UserEvents partition; the seat counter and the waitlist queue are not
// registrations (Canon), and a cancelled registration leaves no row. It
// follows the registration as stored (Recorded), since the job settling
// lapsed offers and the person can change one registration at once.
func userEventsProjection(attendees, userEvents *storage.Table) *projection.Projection[AttendeeRow] {
	return &projection.Projection[AttendeeRow]{
		Canonical: attendees,
		Derived:   []*storage.Table{userEvents},
		Canon:     func(e storage.Entity) bool { return strings.HasPrefix(e.RowKey, attendeePrefix) },
		Recorded:  "mirrored",
		Rows: func(a AttendeeRow) ([]projection.Row, error) {
			if a.Status == StatusCancelled {
				return nil, nil
			}
			r, err := projection.RowOf(userEvents, UserEventRow{
				PartitionKey: a.MemberKey, RowKey: a.PartitionKey,
				Status: a.Status, Party: a.Party, Seq: a.Seq, OfferUntil: a.OfferUntil, UpdatedAt: a.UpdatedAt,
				Rating: a.Rating,
			})
			return []projection.Row{r}, err
		},
	}
}

// Mine lists memberKey's registrations (going and waiting): one query.
func (s *Seats) Mine(ctx context.Context, memberKey string) ([]UserEventRow, error) {
	return storage.All[UserEventRow](ctx, s.userEvents, storage.Query{PartitionKey: memberKey})
}

// RebuildUserEvents recomputes UserEvents from the registrations.
func (s *Seats) RebuildUserEvents(ctx context.Context) (projection.Report, error) {
	return s.mine.Rebuild(ctx)
}

// eventSeats is one event's rows of EventAttendees as a scan read them:
// its counter (nil when it has none) and its registrations.
type eventSeats struct {
	eventID       string
	counter       *SeatsRow
	registrations []AttendeeRow
}

// rebuildUserEvents is RebuildUserEvents handing each event's counter
// and registrations to each as the kit's scan of EventAttendees reads
// them (the table's partitions are its events, in the scan's order), so
// the rest of the events rebuild reads no event's seats again, and
// holds one event's registrations at a time; footprint is given the
// members' footprints each row implies (footprintsIn). The first error
// of each ends the calls to it; the rebuild of UserEvents goes on, and
// then returns it.
func (s *Seats) rebuildUserEvents(ctx context.Context, each func(eventSeats) error, footprint func(memberKey, eventID string)) (projection.Report, error) {
	var at eventSeats
	var failed error
	hand := func() {
		if at.eventID != "" && failed == nil {
			failed = each(at)
		}
	}
	rep, err := tapped(s.mine, func(e storage.Entity) {
		footprintsIn(e, footprint)
		if e.PartitionKey != at.eventID {
			hand()
			at = eventSeats{eventID: e.PartitionKey}
		}
		if failed != nil {
			return
		}
		switch {
		case e.RowKey == seatsRowKey:
			var c SeatsRow
			failed = storage.Unmarshal(e, &c)
			at.counter = &c
		case strings.HasPrefix(e.RowKey, attendeePrefix):
			var a AttendeeRow
			failed = storage.Unmarshal(e, &a)
			at.registrations = append(at.registrations, a)
		}
	}).Rebuild(ctx)
	if err != nil {
		return rep, err
	}
	hand()
	return rep, failed
}

// change is a registration as it was and as a seat change left it.
type change struct{ before, after *AttendeeRow }

// mirror brings the registrations a seat change touched in step in
// UserEvents, after the change committed. A failure leaves their rows
// stale until RebuildUserEvents: it is logged, and the seat change
// stands.
func (s *Seats) mirror(ctx context.Context, changes []change) {
	for _, c := range changes {
		if err := s.mine.Sync(ctx, c.before, c.after); err != nil {
			s.log.WarnContext(ctx, "events: my events not updated", "event", c.after.PartitionKey, "member", c.after.MemberKey, "err", err)
		}
	}
}

// MyEvent is one of a person's registrations with its event.
type MyEvent struct {
	Event    EventRow
	Status   string
	Position int
	// OfferUntil is when a seat offered to them lapses.
	OfferUntil time.Time
	// Rating is their rating of the event (0: none).
	Rating int
}

// MyEvents lists memberKey's registrations with their events, by start:
// one query of their UserEvents, one batch read of the events per
// storage.MaxRowKeysIn, and, for each waitlist place, one query for its
// position.
func (c *Catalog) MyEvents(ctx context.Context, memberKey string) ([]MyEvent, error) {
	mine, err := c.seats.Mine(ctx, memberKey)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(mine))
	for i, m := range mine {
		ids[i] = m.RowKey
	}
	byID := map[string]EventRow{}
	for chunk := range slices.Chunk(ids, storage.MaxRowKeysIn) {
		rows, err := storage.All[EventRow](ctx, c.events, storage.Query{PartitionKey: eventsPart, RowKeyIn: chunk})
		if err != nil {
			return nil, err
		}
		for _, e := range rows {
			byID[e.RowKey] = e
		}
	}
	var out []MyEvent
	for _, m := range mine {
		e, ok := byID[m.RowKey]
		if !ok {
			continue
		}
		my := MyEvent{Event: e, Status: m.Status, Rating: m.Rating}
		if m.OfferUntil != nil {
			my.OfferUntil = *m.OfferUntil
		}
		if m.Status == StatusWaitlist {
			if my.Position, err = c.seats.position(ctx, e.RowKey, memberKey); err != nil {
				return nil, err
			}
		}
		out = append(out, my)
	}
	slices.SortFunc(out, func(a, b MyEvent) int { return a.Event.Start.Compare(b.Event.Start) })
	return out, nil
}

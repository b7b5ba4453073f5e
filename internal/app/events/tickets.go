package events

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"net/http"
	"strings"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Tickets and check-in: every registration has a ticket code, shown as
// a QR code on the person's ticket page; the code opens the organizer's
// check-in page on that person, who is marked attended there (document
// 000's Attended).

// ticketCodeLen is a ticket code's length: 80 random bits in base32.
const ticketCodeLen = 16

// ErrNoTicket is a ticket code that names no registration, or one not
// going (404).
var ErrNoTicket = fault.New(http.StatusNotFound, "events.error.no_ticket", "events: no such ticket")

// newTicketCode is a fresh ticket code: unguessable, so a made-up code
// cannot pass the door as someone else.
func newTicketCode() string {
	b := make([]byte, 10)
	rand.Read(b) // never fails
	return base32.StdEncoding.EncodeToString(b)
}

// validTicketCode reports whether code could be a ticket code.
func validTicketCode(code string) bool {
	if len(code) != ticketCodeLen {
		return false
	}
	_, err := base32.StdEncoding.DecodeString(code)
	return err == nil
}

// Ticket finds the registration a ticket code belongs to: two reads.
// Codes are matched without regard to case, as people type them.
func (s *Seats) Ticket(ctx context.Context, eventID, code string) (AttendeeRow, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if !validTicketCode(code) {
		return AttendeeRow{}, ErrNoTicket
	}
	t, err := storage.Find[TicketRow](ctx, s.table, eventID, ticketRowKey(code), ErrNoTicket)
	if err != nil {
		return AttendeeRow{}, err
	}
	return s.Attendee(ctx, eventID, t.MemberKey)
}

// Attendee is memberKey's registration; ErrNoTicket when there is none.
func (s *Seats) Attendee(ctx context.Context, eventID, memberKey string) (AttendeeRow, error) {
	a, err := storage.Find[AttendeeRow](ctx, s.table, eventID, attendeeRowKey(memberKey), ErrNoTicket)
	return a, err
}

// CheckIn marks memberKey attended (or, with attended false, undoes a
// mistaken mark). Only people going can be: anyone else is ErrNoTicket.
// It writes at the registration's ETag, so it never overwrites a seat
// change it did not see.
func (s *Seats) CheckIn(ctx context.Context, eventID, memberKey string, attended bool) (AttendeeRow, error) {
	if storage.ValidateKey(memberKey) != nil || memberKey == "" {
		return AttendeeRow{}, ErrNoTicket
	}
	return storage.Change(ctx, s.table, eventID, attendeeRowKey(memberKey), ErrNoTicket, func(a *AttendeeRow) error {
		if a.Status != StatusGoing {
			return ErrNoTicket
		}
		if a.Attended == attended {
			return storage.ErrNoChange
		}
		a.Attended, a.CheckedInAt = attended, nil
		if attended {
			now := s.now().UTC()
			a.CheckedInAt = &now
		}
		return nil
	})
}

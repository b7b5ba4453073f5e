package events

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// Approval (Luma's "Require approval"): an event whose form ticks
// "Registrations need my approval" takes requests to join instead of
// registrations (Seats.Register: StatusPending, no seat, no ticket). Its
// organizers approve each on the check-in page (a seat, or the end of
// the waitlist, as registering would have given) or decline it, and the
// person is told in their inbox either way. The organizers are told of
// each new request (tellRequested).

// Approve gives memberKey, who asked to join e, a seat (or a place on
// the waitlist) and tells them (decide).
func (s *Service) Approve(ctx context.Context, e EventRow, memberKey string) error {
	return s.decide(ctx, e, memberKey, s.catalog.seats.Approve)
}

// Decline ends memberKey's request to join e and tells them (decide).
func (s *Service) Decline(ctx context.Context, e EventRow, memberKey string) error {
	return s.decide(ctx, e, memberKey, s.catalog.seats.Decline)
}

// decide makes the organizers' decision on memberKey's request (f: the
// seat change) and tells them, keyed by when it was decided: the
// rebuild posts it again at that key when a crash lost it
// (requeueSeats).
func (s *Service) decide(ctx context.Context, e EventRow, memberKey string, f func(ctx context.Context, eventID, memberKey string) (Registration, Moves, error)) error {
	r, moves, err := f(ctx, e.RowKey, memberKey)
	if err != nil {
		return err
	}
	s.settled(ctx, e, moves)
	s.tell(ctx, e, decidedKind(r.Status, r.Declined), stampOf(r.DecidedAt), memberKey)
	return nil
}

// decidedKind is the notice of a decision that left its person with
// status: declined, approved onto the waitlist, or approved and going.
func decidedKind(status string, declined bool) string {
	switch {
	case declined:
		return "events.notify.declined"
	case status == StatusWaitlist:
		return "events.notify.approved_waitlist"
	}
	return "events.notify.approved"
}

// requestURL is the organizers' action on memberKey's request to join
// ("approve" or "decline").
func requestURL(eventID, memberKey, action string) string {
	return eventURL(eventID) + "/requests/" + url.PathEscape(memberKey) + "/" + action
}

// requestsAnchor is the check-in page's list of requests to join.
const requestsAnchor = "#requests"

// requestItems are the event's requests to join among all its
// registrations, oldest first, as the organizers' list shows them.
func requestItems(ctx context.Context, eventID string, all []AttendeeRow, zone *time.Location) []views.Request {
	pending := slices.DeleteFunc(slices.Clone(all), func(a AttendeeRow) bool { return a.Status != StatusPending })
	slices.SortFunc(pending, func(a, b AttendeeRow) int { return a.RegisteredAt.Compare(b.RegisteredAt) })
	out := make([]views.Request, 0, len(pending))
	for _, a := range pending {
		out = append(out, views.Request{
			Name: a.Name, Email: a.Email, Party: a.Party,
			Asked: i18n.DateTime(ctx, a.RegisteredAt.In(zone)), Datetime: a.RegisteredAt.UTC().Format(time.RFC3339),
			ApproveURL: requestURL(eventID, a.MemberKey, "approve"), DeclineURL: requestURL(eventID, a.MemberKey, "decline"),
			Answers: answerViews(ctx, a),
		})
	}
	return out
}

// approveRequest is POST /events/:id/requests/:member/approve (managed):
// the person gets a seat or a place on the waitlist, and is told. A
// cancelled event gives no seats (400), as it takes no registrations.
func (s *Service) approveRequest(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	if e.IsCancelled {
		return web.BadRequest(i18n.T(ctx, "events.register.cancelled_event"), nil)
	}
	if err := s.Approve(ctx, e, c.Param("member")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.approved", checkInURL(e.RowKey, "")+requestsAnchor)
}

// declineRequest is POST /events/:id/requests/:member/decline (managed),
// after confirmation: the request ends, and the person is told.
func (s *Service) declineRequest(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	if !web.Confirmed(c) {
		// Asked of a request waiting for its decision alone.
		a, err := s.catalog.seats.Undecided(ctx, e.RowKey, c.Param("member"))
		if err != nil {
			return err
		}
		return web.AskConfirm(c, views.DeclineConfirm(ctx, "", a.Name))
	}
	if err := s.Decline(ctx, e, c.Param("member")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.declined", checkInURL(e.RowKey, "")+requestsAnchor)
}

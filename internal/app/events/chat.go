package events

import (
	"context"

	"github.com/harmony/harmony/internal/auth"
)

// EventChat authorizes id for the event's chat: who runs it (manages)
// and people going read and post; people on the waitlist or offered a seat read,
// unless the organizer closed the chat to them; anyone else, and anyone
// who cancelled, is ErrNoEvent. It returns the event's title. The
// registration is read on every call, so cancelling closes the chat at
// once.
func (s *Service) EventChat(ctx context.Context, eventID string, id *auth.Identity) (title string, canPost bool, err error) {
	e, err := s.catalog.Event(ctx, eventID)
	if err != nil {
		return "", false, err
	}
	if manages(id, e) {
		return e.Title, true, nil
	}
	if id == nil || !e.IsPublished {
		return "", false, ErrNoEvent
	}
	r, err := s.catalog.seats.Status(ctx, e.RowKey, id.MemberKey)
	if err != nil {
		return "", false, err
	}
	switch r.Status {
	case StatusGoing:
		return e.Title, true, nil
	case StatusWaitlist, StatusOffered:
		if !e.ChatClosedToWaitlist {
			return e.Title, false, nil
		}
	}
	return "", false, ErrNoEvent
}

// FirstUpcoming is the id of the first upcoming listed event, "" when
// there is none (the chat's demo content).
func (s *Service) FirstUpcoming(ctx context.Context) (string, error) {
	page, err := s.catalog.List(ctx, false, "", 1, nil)
	if err != nil || len(page.Rows) == 0 {
		return "", err
	}
	return page.Rows[0].EventID, nil
}

// ChatLeaver is told when someone gives up their place (the chat
// module): it says so in the event's chat and ends their open streams.
type ChatLeaver interface {
	Left(ctx context.Context, chatID, memberKey, name string)
}

// UseChat has cancellations told to the event's chat. Call it while
// wiring.
func (s *Service) UseChat(c ChatLeaver) { s.chat = c }

package events

import (
	"cmp"
	"context"
	"slices"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/events"
)

// The guest list. An event may show who is going, as Luma and Meetup
// do: its page then names the first people to register to anyone signed
// in, with how many more are going. The organizer chooses it on the form
// (new events show it; events made before it existed do not, so nobody
// who registered then is named without having been told). It costs the
// page one query of the event's registrations, those going only.

// shownGuests is how many people the list names; guestsRead bounds the
// registrations the page reads to count the rest.
const (
	shownGuests = 12
	guestsRead  = 500
)

// guests are e's first shownGuests people going, and how many more are
// going, for its page; none when e does not show them.
func (s *Service) guests(ctx context.Context, e EventRow) ([]views.Guest, int, error) {
	if !e.ShowGuests || e.IsCancelled || !e.IsPublished {
		return nil, 0, nil
	}
	rows, _, err := storage.Take[AttendeeRow](ctx, s.catalog.seats.table, storage.Query{
		PartitionKey: e.RowKey, RowKeyPrefix: attendeeRowKey(""),
		Filters: []storage.Filter{{Name: "status", Op: storage.Eq, Value: StatusGoing}},
		Select:  []string{"memberKey", "name", "registeredAt"},
	}, guestsRead)
	if err != nil {
		return nil, 0, err
	}
	slices.SortStableFunc(rows, func(a, b AttendeeRow) int { return cmp.Compare(a.RegisteredAt.UnixNano(), b.RegisteredAt.UnixNano()) })
	out := make([]views.Guest, 0, min(len(rows), shownGuests))
	for _, r := range rows[:min(len(rows), shownGuests)] {
		out = append(out, views.Guest{Name: r.Name, URL: auth.ProfileURL(r.MemberKey)})
	}
	return out, len(rows) - len(out), nil
}

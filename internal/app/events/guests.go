package events

import (
	"cmp"
	"context"
	"slices"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/events"
)

// The guest list. An event may show who is going, as Luma and Meetup
// do: its page then names the first people to register to anyone signed
// in, with how many more are going. The organizer chooses it on the form
// (new events show it; events made before it existed do not, so nobody
// who registered then is named without having been told). It costs the
// page one query of the event's registrations, those going only, and a
// point read of each person it shows (their photo).

// shownGuests is how many people the list names; guestsRead bounds the
// registrations the page reads to count the rest.
const (
	shownGuests     = 12
	guestsRead      = 500
	guestPhotoReads = 8
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
	shown := rows[:min(len(rows), shownGuests)]
	out := make([]views.Guest, len(shown))
	for i, r := range shown {
		out[i] = views.Guest{Name: r.Name, URL: auth.ProfileURL(r.MemberKey)}
	}
	keys := make([]string, len(shown))
	for i, r := range shown {
		keys[i] = r.MemberKey
	}
	if err := s.dress(ctx, keys, out); err != nil {
		return nil, 0, err
	}
	return out, len(rows) - len(out), nil
}

// dress gives the people of keys, shown as out, their names as they are
// now and their photos from their profiles, as a group's roster shows
// them: bounded parallel point reads. A profile that cannot be read
// leaves its entry as it was (a guest's registered name and initials).
func (s *Service) dress(ctx context.Context, keys []string, out []views.Guest) error {
	if s.people == nil {
		return nil
	}
	return storage.Each(ctx, len(keys), guestPhotoReads, func(ctx context.Context, i int) error {
		p, err := s.people.Profile(ctx, keys[i])
		if err != nil {
			s.log.WarnContext(ctx, "events: a profile not read", "member", keys[i], "err", err)
			return nil
		}
		if p.DisplayName != "" {
			out[i].Name = p.DisplayName
		}
		out[i].PhotoURL = account.AvatarURL(keys[i], p.PhotoKey)
		return nil
	})
}

// hosts are who runs e, its maker first, as its page names them ("Hosted
// by", as on Meetup and Luma): at most 1+MaxCoHosts point reads. One
// whose profile cannot be read or has no name, and a maker whose account
// is deleted, are left out.
func (s *Service) hosts(ctx context.Context, e EventRow) ([]views.Guest, error) {
	var keys []string
	for _, k := range append([]string{e.OrganizerKey}, e.coHostKeys()...) {
		if k != "" && !memberdata.IsForgotten(k) && !auth.IsGuestKey(k) {
			keys = append(keys, k)
		}
	}
	all := make([]views.Guest, len(keys))
	for i, k := range keys {
		all[i].URL = auth.ProfileURL(k)
	}
	if err := s.dress(ctx, keys, all); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(g views.Guest) bool { return g.Name == "" }), nil
}

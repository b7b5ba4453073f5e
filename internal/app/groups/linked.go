package groups

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
)

// Appointments added from another module: an event becomes an
// appointment in one of the person's groups, with who picks up, and the
// appointment links back to the event. The source's key is kept as the
// appointment's ImportUID, so adding the same event to the same group
// again finds the appointment instead of making a second one.

// Source is an appointment's origin in another module.
type Source struct {
	// Kind names the module ("event"); Title and URL the item.
	Kind  string `json:"kind"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// GroupChoice is one of a person's active groups with its active
// members, for picking where an event goes and who picks it up.
type GroupChoice struct {
	GroupID string
	Name    string
	Members []MemberChoice
}

// MemberChoice is an active member, by memberKey and name.
type MemberChoice struct {
	MemberKey string
	Name      string
}

// maxLinkGroups bounds the groups offered (one roster query each).
const maxLinkGroups = 20

// GroupChoices are id's active groups (up to maxLinkGroups) with their
// active members: one query of their groups, one of each roster.
func (s *Service) GroupChoices(ctx context.Context, id *auth.Identity) ([]GroupChoice, error) {
	if id == nil || id.UserKey == "" {
		return nil, nil
	}
	page, err := s.MyGroups(ctx, id.UserKey, nil, maxLinkGroups)
	if err != nil {
		return nil, err
	}
	var out []GroupChoice
	for _, g := range page.Groups {
		if g.Status != StatusActive {
			continue
		}
		members, err := s.ActiveMembers(ctx, g.Group.GroupID)
		if err != nil {
			return nil, err
		}
		c := GroupChoice{GroupID: g.Group.GroupID, Name: g.Group.GroupName}
		for _, m := range members {
			if k := memberKeyOf(m); k != "" {
				c.Members = append(c.Members, MemberChoice{MemberKey: k, Name: m.DisplayName})
			}
		}
		slices.SortFunc(c.Members, func(a, b MemberChoice) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, c)
	}
	return out, nil
}

// LinkedInput is an item to add as an appointment.
type LinkedInput struct {
	// Key identifies the item across adds ("event:{id}").
	Key   string
	Title string
	Start time.Time
	End   time.Time
	// Location and Notes as the item gives them.
	Location string
	Notes    string
	Source   Source
}

// AddLinked adds in to groupID's calendar for an active member id, with
// responsible ("" for nobody) picking up, or finds the appointment an
// earlier add made (created false). Bad input is FieldErrors and writes
// nothing.
func (s *Service) AddLinked(ctx context.Context, groupID string, id *auth.Identity, in LinkedInput, responsible string) (Appointment, bool, error) {
	m, g, err := s.Open(ctx, groupID, id, AccessMember)
	if err != nil {
		return Appointment{}, false, err
	}
	uids, err := s.importedUIDs(ctx, groupID)
	if err != nil {
		return Appointment{}, false, err
	}
	if existing, ok := uids[in.Key]; ok {
		d, err := s.Appointment(ctx, m, existing)
		return d.Doc, false, err
	}
	zone := auth.Zone(g.Timezone)
	form := AppointmentInput{
		Title: in.Title, Location: in.Location, Notes: in.Notes, Responsible: responsible,
		Start: in.Start.In(zone).Format(FormTimeLayout), End: in.End.In(zone).Format(FormTimeLayout),
	}
	doc, err := s.createAppointment(ctx, m, id, form, zone, func(a *Appointment) {
		a.ImportUID, a.Source = in.Key, &in.Source
	})
	return doc, err == nil, err
}

// AppointmentURL is an appointment's page.
func AppointmentURL(groupID, appointmentID string) string {
	return appointmentURL(groupID, appointmentID)
}

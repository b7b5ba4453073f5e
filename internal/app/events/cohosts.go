package events

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
)

// Co-organizers. An event is run by the organizer who made it, the
// organizers they name on its form (at most MaxCoHosts, by email), and
// admins (manages). A co-organizer edits, publishes, cancels, checks
// people in and reads the attendees as the event's maker does, and finds
// the event on their "Events you run" page. Naming them takes the
// organizer role (admins grant it), so the form cannot hand an event to
// just anyone.

// MaxCoHosts bounds the co-organizers of one event.
const MaxCoHosts = 5

// Directory finds an account by its address (the auth module).
type Directory interface {
	MemberByEmail(ctx context.Context, email string) (string, error)
}

// People says what an account may do now, and shows its profile (the
// account module).
type People interface {
	Identity(ctx context.Context, memberKey string) (*auth.Identity, error)
	Profile(ctx context.Context, memberKey string) (account.ProfileRow, error)
}

// UsePeople lets the form name co-organizers: d finds their accounts, p
// their roles. Call it while wiring, before serving; without it the form
// refuses any co-organizer.
func (s *Service) UsePeople(d Directory, p People) { s.directory, s.people = d, p }

// coHostKeys are an event's co-organizers' member keys.
func (e EventRow) coHostKeys() []string {
	if e.CoHosts == "" {
		return nil
	}
	return strings.Split(e.CoHosts, ";")
}

// runBy reports whether memberKey runs e as its maker or a co-organizer.
func (e EventRow) runBy(memberKey string) bool {
	return memberKey != "" && (e.OrganizerKey == memberKey || slices.Contains(e.coHostKeys(), memberKey))
}

// resolveCoHosts reads the form's co-organizers (addresses separated by
// commas, spaces or lines) into in: each must be an organizer's account,
// and not the event's maker. A refusal is kept in in for the form to show
// with its other fields' errors; err is a failure to read.
func (s *Service) resolveCoHosts(ctx context.Context, maker string, in *EventInput) error {
	in.coHostKeys, in.coHostEmails = nil, nil
	problem, err := s.coHosts(ctx, maker, in)
	in.coHostsProblem = problem
	return err
}

// coHosts does resolveCoHosts's work, returning the refusal's key.
func (s *Service) coHosts(ctx context.Context, maker string, in *EventInput) (string, error) {
	fields := strings.FieldsFunc(in.CoHosts, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
	if len(fields) > MaxCoHosts {
		return "events.error.cohosts_many", nil
	}
	for _, f := range fields {
		email, err := auth.NormalizeEmail(f)
		if err != nil || s.directory == nil || s.people == nil {
			return "events.error.cohost", nil
		}
		key, err := s.directory.MemberByEmail(ctx, email)
		if errors.Is(err, storage.ErrNotFound) {
			return "events.error.cohost", nil
		}
		if err != nil {
			return "", err
		}
		id, err := s.people.Identity(ctx, key)
		if errors.Is(err, storage.ErrNotFound) || err == nil && !organizer(id) {
			return "events.error.cohost", nil
		}
		if err != nil {
			return "", err
		}
		if key == maker || slices.Contains(in.coHostKeys, key) {
			continue
		}
		in.coHostKeys = append(in.coHostKeys, key)
		in.coHostEmails = append(in.coHostEmails, email)
	}
	return "", nil
}

// tellNewCoHosts tells the co-organizers e names that before did not
// (member keys), once per event each: they learn they can run it, and
// find it on their "Events you run".
func (s *Service) tellNewCoHosts(ctx context.Context, e EventRow, before []string) {
	var added []string
	for _, k := range e.coHostKeys() {
		if !slices.Contains(before, k) {
			added = append(added, k)
		}
	}
	s.tell(ctx, e, "events.notify.cohost", "named", added...)
}

package events

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// Co-organizers. An event is run by the organizer who made it, the
// organizers they name on its form (at most MaxCoHosts, by email), and
// admins (manages). A co-organizer edits, publishes, cancels, checks
// people in and reads the attendees as the event's maker does, and finds
// the event on their "Events you run" page. Naming them takes the
// organizer role (admins grant it), so the form cannot hand an event to
// just anyone. They are told when named, and may step down (StepDown),
// as a co-host may on Luma and Meetup: the event's maker is told.

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

// ErrNotCoHost refuses a step down from someone the event does not name
// as a co-organizer (409): its maker, an admin, anyone else, or a second
// click.
var ErrNotCoHost = fault.New(http.StatusConflict, "events.error.not_cohost", "events: not a co-organizer")

// StepDown takes memberKey off eventID's co-organizers: the event leaves
// their "Events you run", and its maker is told who stepped down.
func (s *Service) StepDown(ctx context.Context, eventID, memberKey string) (EventRow, error) {
	before, err := s.catalog.Event(ctx, eventID)
	if err != nil {
		return EventRow{}, err
	}
	i := slices.Index(before.coHostKeys(), memberKey)
	if memberKey == "" || i < 0 {
		return EventRow{}, ErrNotCoHost
	}
	name := s.coHostName(ctx, before, i)
	e, err := s.catalog.listing.Change(ctx, eventsPart, eventID, ErrNoEvent, func(e *EventRow) error {
		if !e.dropCoHost(memberKey) {
			return ErrNotCoHost
		}
		e.UpdatedAt = s.now().UTC()
		return nil
	})
	if err != nil {
		return EventRow{}, err
	}
	if s.notifier != nil && !auth.IsGuestKey(e.OrganizerKey) {
		err := s.notifier.Post(ctx, inbox.Notice{
			To:   []inbox.Recipient{{MemberKey: e.OrganizerKey}},
			Kind: "events.notify.cohost_left",
			Args: map[string]string{"title": e.Title, "place": e.Place, "name": name},
			When: e.Start, Link: eventURL(e.RowKey), From: memberKey,
			Key: "events.notify.cohost_left|" + e.RowKey + "|" + memberKey + "|" + s.stamp(),
		})
		if err != nil {
			s.log.WarnContext(ctx, "events: step down not told", "event", e.RowKey, "err", err)
		}
	}
	return e, nil
}

// dropCoHost takes memberKey off e's co-organizers, with their address,
// and reports whether e named them.
func (e *EventRow) dropCoHost(memberKey string) bool {
	keys, emails := e.coHostKeys(), coHostEmails(*e)
	i := slices.Index(keys, memberKey)
	if i < 0 {
		return false
	}
	keys, emails = slices.Delete(keys, i, i+1), without(emails, i)
	e.CoHosts, e.CoHostEmails = strings.Join(keys, ";"), strings.Join(emails, ", ")
	return true
}

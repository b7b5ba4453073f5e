package events

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/tasks"
)

// Service is the events module: the catalog with its listing, the seats,
// and the pages (handlers.go).
type Service struct {
	catalog  *Catalog
	cursors  *storage.Cursors
	notifier Notifier
	// baseURL is the app's address, for the links in tickets' QR codes.
	baseURL string
	// reminders queues the day-before reminders (reminders.go).
	reminders *tasks.Kind[reminderTask]
	// lapses settle offers when they lapse (reminders.go).
	lapses *tasks.Kind[lapseTask]
	// asks ask the guests for their ratings once an event ends
	// (feedback.go).
	asks *tasks.Kind[askTask]
	// chat is told of people giving up their place (chat.go).
	chat ChatLeaver
	// groups adds events to group calendars (togroup.go).
	groups GroupCalendars
	// feeds holds the "My events" calendar feeds' tokens (feed.go).
	feeds *storage.Table
	// directory and people resolve the form's co-organizers (cohosts.go).
	directory Directory
	people    People
	// registrations bounds one person's registrations per minute, and
	// updates an event's updates to its guests per day.
	registrations quota.Limit
	updates       quota.Limit
	// counts counts new events and registrations.
	counts metrics.Counting
	// Reporting lets members report an event (reports.go).
	moderation.Reporting
	log *slog.Logger
	now func() time.Time
}

// New builds the module on store.
func New(store *storage.Store, cursors *storage.Cursors, log *slog.Logger, now func() time.Time) *Service {
	c := NewCatalog(store, now)
	c.seats.log, c.images.Log, c.log = log, log, log
	return &Service{catalog: c, cursors: cursors, log: log, now: now, feeds: store.Table(FeedsTable), registrations: quota.Limit{
		Table: store.Table(QuotaTable), Max: DefaultRegistrationsPerMinute, Window: time.Minute, Err: ErrTooManyRegistrations,
	}, updates: updatesLimit(store)}
}

// QuotaTable counts each person's registrations in the current minute,
// and each event's updates in the current day ("update|{eventId}").
const QuotaTable = "EventQuota"

// DefaultRegistrationsPerMinute is one person's registrations a minute
// unless LimitRegistrations says otherwise.
const DefaultRegistrationsPerMinute = 10

// ErrTooManyRegistrations refuses a registration past the person's limit
// (429); nothing changes.
var ErrTooManyRegistrations = fault.New(http.StatusTooManyRequests, "events.error.too_many", "events: too many registrations")

// LimitRegistrations sets how many registrations one person may make in
// a minute (REGISTRATIONS_PER_MINUTE). Call it while wiring.
func (s *Service) LimitRegistrations(perMinute int) { s.registrations.Max = perMinute }

// UseBaseURL sets the app's address (BASE_URL) for absolute links: the
// check-in link in a ticket's QR code. Call it while wiring.
func (s *Service) UseBaseURL(u string) { s.baseURL = strings.TrimSuffix(u, "/") }

// The daily counters the module increments.
const (
	NewEvents     metrics.Counter = "newEvents"
	Registrations metrics.Counter = "registrations"
)

// CountWith registers the module's counters with d and counts new events
// and registrations from now on (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) {
	s.counts = d.Counting(s.log, "events", NewEvents, Registrations)
}

// createEvent adds an unpublished event by organizerKey and counts it.
func (s *Service) createEvent(ctx context.Context, organizerKey string, in EventInput, zone *time.Location) (EventRow, error) {
	if err := s.resolveCoHosts(ctx, organizerKey, &in); err != nil {
		return EventRow{}, err
	}
	e, err := s.catalog.Create(ctx, organizerKey, in, zone)
	if err == nil {
		s.counts.Add(ctx, NewEvents)
		s.tellNewCoHosts(ctx, e, nil)
	}
	return e, err
}

// Slug names the module's section.
func (s *Service) Slug() string { return "events" }

// Tables are the tables the module needs provisioned.
func (s *Service) Tables() []string { return append(s.catalog.Tables(), QuotaTable, FeedsTable) }

// RebuildSubject and Rebuild make the module's derived rows one of the
// app's rebuilds (web reindex events, the admin button): the listing
// index, everyone's "My events", and the reminders and offer lapses
// queued.
func (s *Service) RebuildSubject() string { return "events" }

// Rebuild recomputes EventsByDate and UserEvents, copies each event's
// seat counts from its counter where they drifted, then queues again the
// reminders and offer lapses to come, and the seat notices a crash may
// have lost (requeue), and last writes the members' footprints the
// registrations and updates imply and are missing (footprintsIn; one
// scan of the module's footprints). It reads each table once: Events and the
// registrations (with the counters beside them) in the scans of their
// projections' rebuilds, one event's registrations at a time.
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	listing, all, err := s.catalog.rebuildListing(ctx)
	if err != nil {
		return rebuildReport{listing.String()}, err
	}
	r := s.requeuing(all)
	marks := s.catalog.seats.marks.Recorder()
	mine, err := s.catalog.seats.rebuildUserEvents(ctx, func(seats eventSeats) error { return r.event(ctx, seats) }, marks.Add)
	if err == nil {
		err = r.rest(ctx)
	}
	if err == nil {
		err = marks.Done(ctx)
	}
	return rebuildReport{listing.String(), mine.String(), strconv.Itoa(r.reminders), strconv.Itoa(r.asks), strconv.Itoa(r.lapses), marks.String()}, err
}

type rebuildReport [6]string

func (r rebuildReport) String() string {
	return "listing: " + r[0] + "; my events: " + r[1] + "; reminders queued: " + r[2] + "; rating asks queued: " + r[3] + "; offer lapses queued: " + r[4] + "; " + r[5]
}

// Seed marks the members' footprints complete on a new store
// (memberdata.Footprints.Start; on a store of before, the job
// events-footprints reads the registrations for them) (platform.Seeder).
func (s *Service) Seed(ctx context.Context) error {
	seats := s.catalog.seats
	return seats.marks.Start(ctx, func(ctx context.Context) (bool, error) {
		return memberdata.Empty(ctx, seats.table, storage.Query{Scan: true, Select: []string{"RowKey"}})
	})
}

// Jobs are the module's background work: the reading of the
// registrations of before for members' footprints (once).
func (s *Service) Jobs() []jobs.Job {
	return []jobs.Job{s.catalog.seats.marks.Job("events-footprints", s.catalog.seats.footprintsOf, s.log)}
}

// footprintsOf reads the events' rows for the footprints they imply
// (footprintsIn). It reads the whole EventAttendees table once, two
// columns; the rebuild finds them in its own read of the table instead.
func (s *Seats) footprintsOf(ctx context.Context, add func(memberKey, eventID string)) error {
	return s.table.QueryAll(ctx, storage.Query{Scan: true, Select: footprintColumns}, func(e storage.Entity) error {
		footprintsIn(e, add)
		return nil
	})
}

// footprintColumns name the members an EventAttendees row holds.
var footprintColumns = []string{"memberKey", "authorKey"}

// footprintsIn gives add the footprints (memberdata.Footprints) row e of
// EventAttendees implies: the member whose registration, waitlist
// place, offer or ticket it is, or who sent the update it is.
func footprintsIn(e storage.Entity, add func(memberKey, eventID string)) {
	for _, p := range footprintColumns {
		if who, _ := e.Props[p].(string); who != "" {
			add(who, e.PartitionKey)
		}
	}
}

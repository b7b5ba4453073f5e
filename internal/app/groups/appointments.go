package groups

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// Appointment limits.
const (
	MaxTitleLength    = 120
	MaxLocationLength = 200
	MaxNotesLength    = 2000
	// MaxParticipants keeps one appointment's participants within one
	// table transaction (100 operations: writes plus deletes).
	MaxParticipants = 49
	// FormTimeLayout is how the form's datetime-local fields read.
	FormTimeLayout = "2006-01-02T15:04"
)

// Appointment is the canonical appointment, stored as JSON at
// appointmentBlobName. Times are UTC; Timezone is the zone they were
// entered in.
type Appointment struct {
	AppointmentID string            `json:"appointmentId"`
	GroupID       string            `json:"groupId"`
	Title         string            `json:"title"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	Timezone      string            `json:"timezone"`
	Location      string            `json:"location"`
	Notes         string            `json:"notes"`
	Status        AppointmentStatus `json:"status"`
	// AllDay: Start and End are midnights in Timezone, End exclusive.
	AllDay bool `json:"allDay,omitempty"`
	// Repeat makes it a series (recurrence.go): the RRULE, Start and End
	// its first occurrence. ExDates are removed occurrences' starts,
	// Moved those edited on their own (each replaced by an override).
	Repeat  string      `json:"repeat,omitempty"`
	ExDates []time.Time `json:"exDates,omitempty"`
	Moved   []time.Time `json:"moved,omitempty"`
	// An override names its series and the occurrence start it replaces.
	SeriesID     string     `json:"seriesId,omitempty"`
	RecurrenceID *time.Time `json:"recurrenceId,omitempty"`
	// SeriesSequence is, for an override, the series' Sequence its
	// RecurrenceID agrees with: the series' moves of every date since
	// then (Shift) are still to move it (pending.go).
	SeriesSequence int `json:"seriesSequence,omitempty"`
	// Pending is, for a series, what its last changes still carry to
	// other appointments (pending.go).
	Pending *SeriesPending `json:"pending,omitempty"`
	// Sequence counts changes, for the .ics feed's SEQUENCE.
	Sequence int `json:"sequence"`
	// WhoVersion is one more than the Sequence at which Who was last
	// made the participants (0: never, an appointment older than it):
	// the rebuild sets them again from Who only when their version row
	// is older (repairParticipants), as other changes of them (a guest
	// signing in) leave Who as it was.
	WhoVersion int `json:"whoVersion,omitempty"`
	// Remind is everyone's reminder, minutes before the start (0: none;
	// who picks up still gets one, reminders.go).
	Remind int `json:"remind,omitempty"`
	// Who are the participants' memberKeys, who picks up first.
	Who []string `json:"who,omitempty"`
	// ImportUID is the UID of the calendar event it was imported from:
	// importing it again updates it (import.go).
	ImportUID string `json:"importUid,omitempty"`
	// Source is the item in another module it was added from (an
	// event), linked from its page.
	Source *Source `json:"source,omitempty"`
	// Responsible is the memberKey of who picks up, "" for nobody.
	Responsible string    `json:"responsible"`
	CreatedBy   string    `json:"createdBy"` // memberKey
	UpdatedBy   string    `json:"updatedBy"` // memberKey
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// AppointmentInput is the appointment form as typed: times are wall
// clock in the person's zone (FormTimeLayout), participants memberKeys.
type AppointmentInput struct {
	Title        string   `form:"title"`
	Start        string   `form:"start"`
	End          string   `form:"end"`
	Location     string   `form:"location"`
	Notes        string   `form:"notes"`
	Participants []string `form:"participant"`
	Responsible  string   `form:"responsible"`
	// AllDay takes only the dates of Start and End (End inclusive).
	AllDay bool `form:"allDay"`
	// Repeat makes it a series; Scope says, when editing an occurrence,
	// what the edit applies to (ScopeThis, ScopeFollowing, ScopeAll),
	// and At which occurrence ("" for the series or a single one).
	Repeat RepeatInput
	Scope  string `form:"scope"`
	At     string `form:"at"`
	// Remind is the reminder for everyone, minutes from ReminderLeads.
	Remind string `form:"remind"`
	// Revision is the version the edit form was opened at (Revision of
	// the appointment); "" when creating. An edit at an older one is
	// refused with ErrStaleEdit, so two people editing at once do not
	// overwrite each other unseen.
	Revision string `form:"revision"`
}

// Revision names an appointment's version: its last change, to the
// nanosecond.
func Revision(a Appointment) string { return strconv.FormatInt(a.UpdatedAt.UnixNano(), 10) }

// FieldErrors maps a form field to the i18n key of what is wrong with
// it. Returned as an error, it means nothing was written.
type FieldErrors = formrule.FieldErrors

// Errors about appointments.
var (
	// ErrStaleEdit refuses an edit made on an older version: someone
	// saved in between.
	ErrStaleEdit = fault.New(http.StatusConflict, "groups.appointments.error.stale", "groups: the appointment changed since the form was opened")
	// ErrBusy is a change that lost the race to others again and again
	// (retryStale): nothing was saved (409).
	ErrBusy = fault.New(http.StatusConflict, "groups.appointments.error.busy", "groups: the appointment keeps changing under this write")
	// ErrNoAppointment is a missing, deleted or foreign appointment (404).
	ErrNoAppointment = fault.NotFound("groups: no such appointment", storage.ErrNotFound)
	// ErrNotCreator refuses deleting an appointment to a member who is
	// neither its creator nor an owner (403).
	ErrNotCreator = fault.New(http.StatusForbidden, "groups.appointments.error.not_creator", "groups: only its creator or an owner may delete an appointment")
)

// AppointmentDetail is one appointment as its page shows it.
type AppointmentDetail struct {
	Doc          Appointment
	Index        AppointmentIndexRow
	Participants []ParticipantRow
	// At is the occurrence of a series the detail shows (Occurrence);
	// zero for the series or a single appointment.
	At time.Time
	// docETag is the blob's ETag as read: a save writes over that
	// version only (saveAppointment).
	docETag string
}

// Zone is the person's time zone, which their session carries from the
// profile (auth.Identity.Location); UTC for guests and when unset. No read.
func (s *Service) Zone(_ context.Context, id *auth.Identity) *time.Location {
	return id.Location()
}

// memberKeyOf is the memberKey a member row stands for: the account's
// "auth:…" key, or the guest's key (their RowKey).
func memberKeyOf(row MemberRow) string {
	if row.MemberKey != "" {
		return row.MemberKey
	}
	if auth.IsGuestKey(row.RowKey) {
		return row.RowKey
	}
	return ""
}

// ActiveMembers lists the group's active members, the choices for
// participants: one query of the group's GroupMembers partition.
func (s *Service) ActiveMembers(ctx context.Context, groupID string) ([]MemberRow, error) {
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{
		PartitionKey: groupID,
		Filters:      []storage.Filter{{Name: "status", Op: storage.Eq, Value: StatusActive}},
	})
	return slices.DeleteFunc(rows, func(row MemberRow) bool { return memberKeyOf(row) == "" }), err
}

// Rules of an appointment's text fields.
var (
	appointmentTitleRule    = formrule.Text{Max: MaxTitleLength, Required: true}
	appointmentLocationRule = formrule.Text{Max: MaxLocationLength}
	appointmentNotesRule    = formrule.Text{Max: MaxNotesLength, Multiline: true}
)

// parseAppointment checks the form and returns the appointment's fields
// and its participants' memberKeys (responsible first when set).
func parseAppointment(in AppointmentInput, zone *time.Location, members []MemberRow) (Appointment, []string, FieldErrors) {
	tz := zone
	errs := FieldErrors{}
	var a Appointment
	a.Title = errs.CheckAs("title", appointmentTitleRule, in.Title, "groups.appointments.error.title_missing", "groups.appointments.error.title")
	a.Location = errs.CheckAs("location", appointmentLocationRule, in.Location, "", "groups.appointments.error.location")
	a.Notes = errs.CheckAs("notes", appointmentNotesRule, in.Notes, "", "groups.appointments.error.notes")
	if in.AllDay {
		// All-day appointments are dates, the same wherever one looks
		// from: kept as midnights UTC.
		zone = time.UTC
	}
	start, bad := parseFormTime(in.Start, zone, in.AllDay, "groups.appointments.error.start")
	if bad != "" {
		errs["start"] = bad
	}
	end, bad := parseFormTime(in.End, zone, in.AllDay, "groups.appointments.error.end")
	if in.AllDay && bad == "" {
		end = end.AddDate(0, 0, 1) // the form's last day is included
	}
	switch {
	case bad != "":
		errs["end"] = bad
	case errs["start"] != "":
	case !end.After(start):
		errs["end"] = "groups.appointments.error.end_before_start"
	case end.Sub(start) > MaxAppointmentDays*24*time.Hour+time.Hour: // an hour for a DST change
		errs["end"] = "groups.appointments.error.too_long"
	}
	a.AllDay = in.AllDay
	if errs["start"] == "" && errs["end"] == "" {
		a.Repeat = parseRepeat(in.Repeat, start, errs)
	}
	if v := strings.TrimSpace(in.Remind); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !validLead(n) {
			errs["remind"] = "groups.reminder.error"
		}
		a.Remind = n
	}
	a.Start, a.End, a.Timezone = start.UTC(), end.UTC(), tz.String()

	active := map[string]bool{}
	for _, m := range members {
		active[memberKeyOf(m)] = true
	}
	var keys []string
	a.Responsible = strings.TrimSpace(in.Responsible)
	if a.Responsible != "" {
		if !active[a.Responsible] {
			errs["responsible"] = "groups.appointments.error.responsible"
		}
		keys = append(keys, a.Responsible)
	}
	for _, k := range in.Participants {
		if k == "" || slices.Contains(keys, k) {
			continue
		}
		if !active[k] {
			errs["participants"] = "groups.appointments.error.participants"
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) > MaxParticipants {
		errs["participants"] = "groups.appointments.error.too_many"
	}
	if len(errs) > 0 {
		return Appointment{}, nil, errs
	}
	return a, keys, nil
}

// parseFormTime reads a form's date and time, wall clock in zone; with
// dateOnly, just the day (its midnight), from a date or a datetime. The
// problem is an i18n key, "" when the time is good. A time the zone
// skips (clocks going forward) is refused rather than silently moved:
// Go would make 02:30 on a spring-forward night 03:30.
func parseFormTime(v string, zone *time.Location, dateOnly bool, missing string) (time.Time, string) {
	v = strings.TrimSpace(v)
	if dateOnly && len(v) >= len(time.DateOnly) {
		v = v[:len(time.DateOnly)] + "T00:00"
	}
	t, err := time.ParseInLocation(FormTimeLayout, v, zone)
	switch {
	case err != nil:
		return time.Time{}, missing
	case formrule.CheckDate(t) != formrule.OK:
		return time.Time{}, formrule.DateOutOfRange.Key()
	case !dateOnly && t.Add(-time.Hour).Format(FormTimeLayout) == v:
		// An hour the clocks go back over happens twice: take the first,
		// as RFC 5545 does.
		return t.Add(-time.Hour), ""
	case t.Format(FormTimeLayout) != v:
		if dateOnly {
			// A zone whose day starts at 01:00 (a midnight DST change):
			// the day starts when it starts.
			return t, ""
		}
		return time.Time{}, "groups.appointments.error.dst_gap"
	}
	return t, ""
}

// CreateAppointment saves a new appointment for an active member: the
// JSON blob, then the index row (document 004's budget: 1 blob write + 1
// table write), then the participants in one transaction. A blob without
// its index row is invisible (the detail page needs both), so a failure
// between them leaves nothing anyone sees. Bad input is FieldErrors and
// writes nothing.
func (s *Service) CreateAppointment(ctx context.Context, m Membership, id *auth.Identity, in AppointmentInput, zone *time.Location) (Appointment, error) {
	return s.createAppointment(ctx, m, id, in, zone, nil)
}

// createAppointment is CreateAppointment, with from (if set) filling in
// what the form does not carry before it is saved.
func (s *Service) createAppointment(ctx context.Context, m Membership, id *auth.Identity, in AppointmentInput, zone *time.Location, from func(*Appointment)) (Appointment, error) {
	members, err := s.ActiveMembers(ctx, m.GroupID)
	if err != nil {
		return Appointment{}, err
	}
	doc, keys, errs := parseAppointment(in, zone, members)
	if errs != nil {
		return Appointment{}, errs
	}
	now := s.now().UTC()
	doc.AppointmentID, doc.GroupID, doc.Status = newAppointmentID(), m.GroupID, AppointmentActive
	doc.CreatedBy, doc.UpdatedBy = id.MemberKey, id.MemberKey
	doc.CreatedAt, doc.UpdatedAt = now, now
	if from != nil {
		from(&doc)
	}
	if err := s.calendarWrote(ctx, m.GroupID, s.commitWith(ctx, &doc, nil, keys, id.MemberKey)); err != nil {
		return Appointment{}, err
	}
	s.counts.Add(ctx, NewAppointments)
	s.notifyAppointment(ctx, id, "groups.notify.appointment_created", doc, members)
	return doc, nil
}

// UpdateAppointment changes an appointment's fields and participants,
// for an active member. An edit from a form opened at an older version
// (in.Revision) is refused (ErrStaleEdit); without one, the last writer
// wins, whole: two edits never mix.
func (s *Service) UpdateAppointment(ctx context.Context, m Membership, id *auth.Identity, appointmentID string, in AppointmentInput, zone *time.Location) (Appointment, error) {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return Appointment{}, err
	}
	members, err := s.ActiveMembers(ctx, m.GroupID)
	if err != nil {
		return Appointment{}, err
	}
	if in.Revision != "" && in.Revision != Revision(d.Doc) {
		return Appointment{}, ErrStaleEdit
	}
	if d.Doc.Repeat != "" && in.At != "" {
		doc, err := s.editOccurrence(ctx, m, id, d, in, zone, members)
		return doc, s.calendarWrote(ctx, m.GroupID, err)
	}
	fields, keys, errs := parseAppointment(in, zone, members)
	if errs != nil {
		return Appointment{}, errs
	}
	d, err = s.update(ctx, m.GroupID, &d, true, func(d *AppointmentDetail) ([]string, error) {
		if in.Revision != "" && in.Revision != Revision(d.Doc) {
			return nil, ErrStaleEdit
		}
		doc := &d.Doc
		doc.Title, doc.Start, doc.End, doc.Timezone = fields.Title, fields.Start, fields.End, fields.Timezone
		doc.Location, doc.Notes, doc.Responsible, doc.AllDay = fields.Location, fields.Notes, fields.Responsible, fields.AllDay
		doc.Repeat, doc.Remind = fields.Repeat, fields.Remind
		doc.UpdatedBy, doc.UpdatedAt = id.MemberKey, s.now().UTC()
		return keys, nil
	})
	if err := s.calendarWrote(ctx, m.GroupID, err); err != nil {
		return Appointment{}, err
	}
	s.notifyAppointment(ctx, id, "groups.notify.appointment_changed", d.Doc, members)
	return d.Doc, nil
}

// CancelAppointment marks an appointment canceled (it stays listed, and
// the feed says STATUS:CANCELLED). Any active member may.
func (s *Service) CancelAppointment(ctx context.Context, m Membership, id *auth.Identity, appointmentID string) error {
	return s.setStatus(ctx, m, id, appointmentID, AppointmentCanceled, "groups.notify.appointment_cancelled")
}

// RestoreAppointment undoes a cancellation: the appointment takes place
// after all. Any active member may.
func (s *Service) RestoreAppointment(ctx context.Context, m Membership, id *auth.Identity, appointmentID string) error {
	return s.setStatus(ctx, m, id, appointmentID, AppointmentActive, "groups.notify.appointment_restored")
}

// setStatus changes an appointment's status and tells the other members
// (kind is the notice). Setting the status it has changes nothing.
func (s *Service) setStatus(ctx context.Context, m Membership, id *auth.Identity, appointmentID string, status AppointmentStatus, kind string) error {
	d, err := s.update(ctx, m.GroupID, &AppointmentDetail{Doc: Appointment{AppointmentID: appointmentID}}, false, func(d *AppointmentDetail) ([]string, error) {
		if d.Doc.Status == status {
			return nil, errUnchanged
		}
		d.Doc.Status, d.Doc.UpdatedBy, d.Doc.UpdatedAt = status, id.MemberKey, s.now().UTC()
		return nil, nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	if err := s.calendarWrote(ctx, m.GroupID, err); err != nil {
		return err
	}
	if s.notifier != nil {
		members, err := s.ActiveMembers(ctx, m.GroupID)
		if err != nil {
			s.log.WarnContext(ctx, "groups: status change not announced", "err", err)
			return nil
		}
		s.notifyAppointment(ctx, id, kind, d.Doc, members)
	}
	return nil
}

// announcementsPerHour bounds the appointment changes one person
// announces in an hour (notifyAppointment).
const announcementsPerHour = 30

// errAnnounced is a person's announcements this hour used up.
var errAnnounced = errors.New("groups: announcements this hour used up")

// notifyAppointment tells the group's other members with an account what
// id did to doc. The change is saved already, so a failure to post is
// logged, not returned: the member's edit stands.
//
// A person's changes announce themselves at most announcementsPerHour
// times an hour: cancelling and restoring in a loop must not bury the
// others' inboxes. Past that a change is saved and shown in the
// calendar, unannounced.
func (s *Service) notifyAppointment(ctx context.Context, id *auth.Identity, kind string, doc Appointment, members []MemberRow) {
	if s.notifier == nil {
		return
	}
	if err := s.announcements.Take(ctx, "a|"+id.MemberKey, s.now()); err != nil {
		if !errors.Is(err, errAnnounced) {
			s.log.WarnContext(ctx, "groups: appointment change not announced", "err", err)
		}
		return
	}
	var to []inbox.Recipient
	for _, m := range members {
		if m.MemberKey != "" && m.MemberKey != id.MemberKey {
			to = append(to, inbox.Recipient{MemberKey: m.MemberKey})
		}
	}
	if len(to) == 0 {
		return
	}
	g, err := s.group(ctx, doc.GroupID)
	if err == nil {
		err = s.notifier.Post(ctx, inbox.Notice{
			To:    to,
			Kind:  kind,
			Args:  map[string]string{"name": id.DisplayName, "group": g.GroupName, "title": doc.Title},
			Names: map[string]string{"name": id.MemberKey},
			When:  announcedStart(doc, s.now()),
			Link:  appointmentURL(doc.GroupID, doc.AppointmentID),
		})
	}
	if err != nil {
		s.log.WarnContext(ctx, "groups: appointment change not announced", "kind", kind, "err", err)
	}
}

// CanDelete reports whether m may delete the appointment: an owner, or
// whoever created it (from the index row, never the blob).
func CanDelete(m Membership, id *auth.Identity, row AppointmentIndexRow) bool {
	return m.Owner() || (id != nil && row.CreatedBy != "" && row.CreatedBy == id.MemberKey)
}

// DeleteAppointment soft-deletes an appointment: only its index row
// changes (isDeleted and the purge fields); the blob stays until the
// purge. Owners and the creator may. A series takes its overrides (its
// moved, changed and cancelled dates) with it. An edit that changed the
// row since it was read is read again, so the delete still goes through.
func (s *Service) DeleteAppointment(ctx context.Context, m Membership, id *auth.Identity, appointmentID string) error {
	d, err := s.bury(ctx, m.GroupID, appointmentID, id, func(d AppointmentDetail) error {
		if !CanDelete(m, id, d.Index) {
			return ErrNotCreator
		}
		return nil
	})
	if err == nil && d.Doc.Repeat != "" {
		err = s.deleteOverrides(ctx, m.GroupID, d.Doc.AppointmentID, time.Time{}, id)
	}
	if err == nil {
		s.refreshUpcoming(ctx, m.GroupID)
	}
	return s.calendarWrote(ctx, m.GroupID, err)
}

// softDelete marks row deleted by id, at its ETag (ErrPrecondition when
// it changed since).
func (s *Service) softDelete(ctx context.Context, row AppointmentIndexRow, id *auth.Identity) error {
	now := s.now().UTC()
	row.bury(id, now)
	row.UpdatedAt = now
	_, err := storage.Update(ctx, s.appointments, row, row.ETag)
	return err
}

// staleTries bounds how often a write that another write came before is
// tried again from a fresh read (retryStale).
const staleTries = 5

// errUnchanged is an edit that changes nothing (update writes nothing).
var errUnchanged = errors.New("groups: nothing to change")

// retryStale runs write, again after a short, growing wait while another
// write came between its read and its own (storage.Optimistic), at most
// staleTries times; then the answer is ErrBusy, which is no failed
// precondition, so a caller's own retry does not run it all again.
func retryStale(ctx context.Context, write func() error) error {
	err := storage.Optimistic(ctx, staleTries, func(context.Context) error { return write() })
	if errors.Is(err, storage.ErrConflict) {
		return ErrBusy
	}
	return err
}

// update changes one appointment and saves it: edit changes d.Doc and,
// with setKeys, returns its participants' keys. d is the caller's read
// of it (only its AppointmentID counts when its docETag is empty: then
// the appointment is read first). When another write came between the
// read and the save (the blob's ETag), update reads it again and edits
// that, so concurrent changes of one appointment (two dates of a series
// cancelled at once) each stand, and an edit never undoes a delete.
func (s *Service) update(ctx context.Context, groupID string, d *AppointmentDetail, setKeys bool, edit func(*AppointmentDetail) ([]string, error)) (AppointmentDetail, error) {
	read := *d
	var next AppointmentDetail
	err := retryStale(ctx, func() error {
		if read.docETag == "" {
			fresh, err := s.Appointment(ctx, Membership{GroupID: groupID}, read.Doc.AppointmentID)
			if err != nil {
				return err
			}
			read = fresh
		}
		next = read
		next.Doc.ExDates, next.Doc.Moved, next.Doc.Who = slices.Clone(read.Doc.ExDates), slices.Clone(read.Doc.Moved), slices.Clone(read.Doc.Who)
		keys, err := edit(&next)
		if err != nil {
			return err
		}
		if setKeys {
			err = s.commitWith(ctx, &next.Doc, &read, keys, next.Doc.UpdatedBy)
		} else {
			err = s.commit(ctx, &next.Doc, &read, next.Participants)
		}
		read.docETag = "" // read again if this try lost
		return err
	})
	return next, err
}

// saveAppointment writes the blob, over the version old read (none for
// a new appointment), then the index row (writeIndex). A blob changed
// since old was read is storage.ErrPrecondition and writes nothing: the
// caller reads again (update). The blob is the truth for what the
// appointment says and the row follows it; if the process fails between
// the two, the row is behind the blob: the detail page shows the blob,
// lists show the row, and the next save of the appointment writes the
// row again.
func (s *Service) saveAppointment(ctx context.Context, doc *Appointment, old *AppointmentDetail) (AppointmentIndexRow, error) {
	if old != nil {
		doc.Sequence++ // every change, for calendars that follow the feed
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return AppointmentIndexRow{}, err
	}
	ifMatch := ""
	if old != nil {
		ifMatch = old.docETag
	}
	if _, err := s.blobs.PutIf(ctx, appointmentBlobName(doc.GroupID, doc.AppointmentID), data, "application/json", ifMatch); err != nil {
		return AppointmentIndexRow{}, err
	}
	if old == nil {
		return s.insertIndex(ctx, *doc)
	}
	row, err := s.writeIndex(ctx, *doc, old.Index)
	if err == nil && doc.Repeat != "" && old.Index.Repeat == "" {
		err = s.markHasSeries(ctx, doc.GroupID)
	}
	if err == nil && row.IsDeleted {
		err = ErrNoAppointment // deleted while it was being changed
	}
	return row, err
}

// insertIndex lists a new appointment: its index row, and for a series
// the group's mark that it has series.
func (s *Service) insertIndex(ctx context.Context, doc Appointment) (AppointmentIndexRow, error) {
	row := AppointmentIndexRow{CreatedAt: doc.CreatedAt, CreatedBy: doc.CreatedBy}
	derive(&row, doc)
	_, err := storage.Insert(ctx, s.appointments, row)
	if err == nil && doc.Repeat != "" {
		err = s.markHasSeries(ctx, doc.GroupID)
	}
	return row, err
}

// derive sets row's key and listed fields from doc; what the row alone
// holds (deletion, scan, creation) stays.
func derive(row *AppointmentIndexRow, doc Appointment) {
	row.PartitionKey, row.RowKey = appointmentIndexKey(doc.GroupID, doc.Start, doc.AppointmentID)
	if doc.Repeat != "" {
		row.PartitionKey, row.RowKey = seriesIndexKey(doc.GroupID, doc.AppointmentID)
	}
	row.AppointmentID, row.Sequence = doc.AppointmentID, doc.Sequence
	row.StartTime, row.EndTime, row.Title, row.Location = doc.Start, doc.End, doc.Title, doc.Location
	row.Status, row.AllDay, row.UpdatedAt = doc.Status, doc.AllDay, doc.UpdatedAt
	row.Repeat, row.Timezone, row.SeriesID, row.Skipped, row.SeriesEnd = doc.Repeat, doc.Timezone, doc.SeriesID, "", nil
	row.Who = strings.Join(doc.Who[:min(len(doc.Who), maxShownParticipants)], ",")
	row.ImportUID = doc.ImportUID
	if doc.Repeat != "" {
		row.Skipped, row.SeriesEnd = skippedKeys(doc), timePtr(seriesEnd(doc))
	}
}

// writeIndex makes the index row say what doc says, from old, the row as
// its writer read it: an update at old's ETag, or when the start moved
// the row's key, the new row and the old one's delete in one
// transaction (a series, which changes partition, in two writes). A row
// another write changed since is read again and written over, keeping
// what the row alone holds, so an edit never undoes a delete; a row that
// a newer version of the blob wrote already stays as it is.
func (s *Service) writeIndex(ctx context.Context, doc Appointment, old AppointmentIndexRow) (AppointmentIndexRow, error) {
	var row AppointmentIndexRow
	err := retryStale(ctx, func() error {
		if old.Sequence > doc.Sequence {
			row = old
			return nil
		}
		row = old
		derive(&row, doc)
		var err error
		switch {
		case row.PartitionKey == old.PartitionKey && row.RowKey == old.RowKey:
			_, err = storage.Update(ctx, s.appointments, row, old.ETag)
		case row.PartitionKey == old.PartitionKey:
			err = s.moveIndexRow(ctx, row, old)
		default:
			if _, err = storage.Insert(ctx, s.appointments, row); err == nil {
				err = s.appointments.Delete(ctx, old.PartitionKey, old.RowKey, old.ETag)
			}
		}
		if errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrExists) {
			fresh, ferr := s.findIndexRow(ctx, doc.GroupID, doc.AppointmentID, old.StartTime, old.Repeat != "")
			if ferr != nil {
				return ferr
			}
			old = fresh
			return storage.ErrPrecondition
		}
		return err
	})
	return row, err
}

// moveIndexRow writes row, whose key the start moved, and deletes old at
// its ETag, in one transaction of their partition. A row of the same
// appointment at the new key (one a stopped move left there) is
// written over.
func (s *Service) moveIndexRow(ctx context.Context, row, old AppointmentIndexRow) error {
	var tx storage.Tx
	return tx.Upsert(row).Delete(old.PartitionKey, old.RowKey, old.ETag).Commit(ctx, s.appointments)
}

// markHasSeries notes on the group that it has a series, so the
// dashboard knows to read its series partition (HasSeries).
func (s *Service) markHasSeries(ctx context.Context, groupID string) error {
	pk, rk := groupKey(groupID)
	_, err := storage.Change(ctx, s.groups, pk, rk, storage.ErrNoChange, func(g *GroupRow) error {
		if g.HasSeries {
			return storage.ErrNoChange
		}
		g.HasSeries = true
		return nil
	})
	return err
}

// setParticipants makes keys (responsible first when doc has one) the
// appointment's participants: one read of its partition, then one
// transaction of inserts, updates and deletes at the ETags read, so the
// set never shows half changed and there is never more than one
// responsible. The partition's version row (participantsVersion) goes in
// the same transaction: participants of an older version of doc than it
// names are not written, and a write between the read and the
// transaction makes it read again.
func (s *Service) setParticipants(ctx context.Context, doc Appointment, keys []string, by string) ([]ParticipantRow, error) {
	var final []ParticipantRow
	err := retryStale(ctx, func() error {
		var err error
		final, err = s.participantOps(ctx, doc, keys, by)
		if errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrNotFound) {
			return storage.ErrPrecondition
		}
		return err
	})
	return final, err
}

// participantOps is one try of setParticipants.
func (s *Service) participantOps(ctx context.Context, doc Appointment, keys []string, by string) ([]ParticipantRow, error) {
	pk := participantsPartition(doc.GroupID, doc.AppointmentID)
	existing := map[string]ParticipantRow{}
	version := participantsVersionRow{PartitionKey: pk, RowKey: participantsVersion}
	err := s.participants.QueryAll(ctx, storage.Query{PartitionKey: pk}, func(e storage.Entity) error {
		if e.RowKey == participantsVersion {
			return storage.Unmarshal(e, &version)
		}
		var row ParticipantRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return err
		}
		existing[row.RowKey] = row
		return nil
	})
	if err != nil {
		return nil, err
	}
	if version.ETag != "" && version.Sequence > doc.Sequence {
		// A newer version's participants are there already.
		return slices.Collect(maps.Values(existing)), nil
	}
	now := s.now().UTC()
	var final []ParticipantRow
	var tx storage.Tx
	changes := 0
	keep := map[string]bool{}
	for _, key := range keys {
		_, rk := participantKey(doc.GroupID, doc.AppointmentID, key)
		keep[rk] = true
		role := RoleParticipant
		if key == doc.Responsible {
			role = RoleResponsible
		}
		row, ok := existing[rk]
		if ok && row.Role == role && row.Status == StatusActive {
			final = append(final, row)
			continue
		}
		if !ok {
			row = ParticipantRow{PartitionKey: pk, RowKey: rk, MemberKey: key, AssignedAt: timePtr(now), AssignedBy: by}
		}
		row.Status, row.Role, row.UpdatedAt = StatusActive, role, now
		if role == RoleResponsible && (!ok || existing[rk].Role != RoleResponsible) {
			row.AssignedAt, row.AssignedBy = timePtr(now), by
		}
		final = append(final, row)
		writeAt(&tx, row, row.ETag)
		changes++
	}
	for rk, row := range existing {
		if !keep[rk] {
			tx.Delete(pk, rk, row.ETag)
			changes++
		}
	}
	if changes == 0 && (version.Sequence >= doc.Sequence && version.ETag != "" || doc.Sequence == 0) {
		// Nothing to change, and the version row says this version
		// already (or the appointment is new: no older write of its
		// participants can come).
		return final, nil
	}
	etag := version.ETag
	version.Sequence = doc.Sequence
	return final, writeAt(&tx, version, etag).Commit(ctx, s.participants)
}

// writeAt adds to tx the write of v over the row at etag, or its insert
// where etag is "" (a row that must not exist yet).
func writeAt(tx *storage.Tx, v any, etag string) *storage.Tx {
	if etag == "" {
		return tx.Insert(v)
	}
	return tx.Replace(v, etag)
}

// commitWith saves doc (after old, nil when new), makes keys its
// participants, and schedules its next reminder.
func (s *Service) commitWith(ctx context.Context, doc *Appointment, old *AppointmentDetail, keys []string, by string) error {
	doc.Who, doc.WhoVersion = keys, doc.Sequence+1
	if old != nil {
		doc.WhoVersion++ // saveAppointment counts this change
	}
	row, err := s.saveAppointment(ctx, doc, old)
	if err != nil {
		return err
	}
	parts, err := s.setParticipants(ctx, *doc, keys, by)
	if err != nil {
		return err
	}
	s.scheduleReminders(ctx, AppointmentDetail{Doc: *doc, Index: row, Participants: parts})
	s.refreshUpcoming(ctx, doc.GroupID)
	return nil
}

// commit saves doc (after old), whose participants stay parts, and
// schedules its next reminder.
func (s *Service) commit(ctx context.Context, doc *Appointment, old *AppointmentDetail, parts []ParticipantRow) error {
	row, err := s.saveAppointment(ctx, doc, old)
	if err != nil {
		return err
	}
	s.scheduleReminders(ctx, AppointmentDetail{Doc: *doc, Index: row, Participants: parts})
	s.refreshUpcoming(ctx, doc.GroupID)
	return nil
}

// Appointment reads one appointment of m's group: the blob, then its
// index row (which must exist and not be deleted), then its
// participants. The blob only names where the row is; whether the
// appointment exists is the row's answer.
func (s *Service) Appointment(ctx context.Context, m Membership, appointmentID string) (AppointmentDetail, error) {
	doc, etag, err := s.appointmentBlob(ctx, m.GroupID, appointmentID)
	if err != nil {
		return AppointmentDetail{}, err
	}
	row, err := s.findIndexRow(ctx, m.GroupID, appointmentID, doc.Start, doc.Repeat != "")
	if err != nil {
		return AppointmentDetail{}, err
	}
	if row.IsDeleted {
		return AppointmentDetail{}, ErrNoAppointment
	}
	parts, err := storage.All[ParticipantRow](ctx, s.participants, storage.Query{
		PartitionKey: participantsPartition(m.GroupID, appointmentID),
		RowKeyPrefix: "m:", // not the version row
	})
	if err != nil {
		return AppointmentDetail{}, err
	}
	slices.SortStableFunc(parts, func(a, b ParticipantRow) int {
		if (a.Role == RoleResponsible) != (b.Role == RoleResponsible) {
			if a.Role == RoleResponsible {
				return -1
			}
			return 1
		}
		return strings.Compare(a.RowKey, b.RowKey)
	})
	return AppointmentDetail{Doc: doc, Index: row, Participants: parts, docETag: etag}, nil
}

// appointmentDoc reads and decodes the appointment blob.
func (s *Service) appointmentDoc(ctx context.Context, groupID, appointmentID string) (Appointment, error) {
	doc, _, err := s.appointmentBlob(ctx, groupID, appointmentID)
	return doc, err
}

// appointmentBlob is appointmentDoc with the blob's ETag.
func (s *Service) appointmentBlob(ctx context.Context, groupID, appointmentID string) (Appointment, string, error) {
	if !storage.IsID(appointmentID) {
		return Appointment{}, "", ErrNoAppointment
	}
	b, err := s.blobs.Get(ctx, appointmentBlobName(groupID, appointmentID))
	if errors.Is(err, storage.ErrNotFound) {
		return Appointment{}, "", ErrNoAppointment
	}
	if err != nil {
		return Appointment{}, "", err
	}
	var doc Appointment
	if err := json.Unmarshal(b.Data, &doc); err != nil {
		return Appointment{}, "", fmt.Errorf("groups: appointment %s: %w", appointmentID, err)
	}
	if doc.AppointmentID != appointmentID || doc.GroupID != groupID {
		return Appointment{}, "", ErrNoAppointment
	}
	return doc, b.ETag, nil
}

// findIndexRow reads the index row at the blob's start: one point read.
// After a half-finished move (see saveAppointment) the row may still sit
// at an older start; then one query of the group's partition finds it
// by id.
func (s *Service) findIndexRow(ctx context.Context, groupID, appointmentID string, start time.Time, series bool) (AppointmentIndexRow, error) {
	pk, rk := appointmentIndexKey(groupID, start, appointmentID)
	if series {
		pk, rk = seriesIndexKey(groupID, appointmentID)
	}
	row, err := storage.Get[AppointmentIndexRow](ctx, s.appointments, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		row, err = storage.First[AppointmentIndexRow](ctx, s.appointments, storage.Query{
			PartitionKey: groupID,
			Filters:      []storage.Filter{{Name: "appointmentId", Op: storage.Eq, Value: appointmentID}},
		}, nil, ErrNoAppointment)
	}
	return row, err
}

// agendaSpan is how far an agenda page looks ahead for repeating
// appointments when no single one bounds it.
const agendaSpan = 90 * 24 * time.Hour

// notDeleted is the filter every listing of the index uses.
var notDeleted = storage.Filter{Name: "isDeleted", Op: storage.Eq, Value: false}

// notCanceled keeps index rows whose appointment still takes place.
var notCanceled = storage.Filter{Name: "status", Op: storage.Ne, Value: AppointmentCanceled}

// AgendaPage is one page of a group's agenda.
type AgendaPage struct {
	// Rows are appointments and occurrences of series starting in
	// [from, Next), in time order.
	Rows []AppointmentIndexRow
	// Next is where the next page starts; zero on the last.
	Next time.Time
}

// agendaPagesAtOnce bounds the pages of the agenda one read joins
// (AgendaThrough): as far as a viewer scrolls with "load more" before a
// change refreshes their page.
const agendaPagesAtOnce = 10

// AgendaThrough is Agenda's pages from from on, joined, through the one
// that begins at until (the last page a viewer loaded), at most
// agendaPagesAtOnce; the first page alone for a zero until.
func (s *Service) AgendaThrough(ctx context.Context, m Membership, from, until time.Time) (AgendaPage, error) {
	var out AgendaPage
	for range agendaPagesAtOnce {
		page, err := s.Agenda(ctx, m, from)
		if err != nil {
			return AgendaPage{}, err
		}
		out.Rows, out.Next = append(out.Rows, page.Rows...), page.Next
		if page.Next.IsZero() || page.Next.After(until) {
			break
		}
		from = page.Next
	}
	return out, nil
}

// Agenda reads what the group has coming from from on: one range query
// of its single appointments (at most agendaPage) and one of its series,
// expanded up to the last single read (or agendaSpan when that was all).
// A page ends where its last appointment starts, so the next page, from
// there, repeats and skips nothing.
func (s *Service) Agenda(ctx context.Context, m Membership, from time.Time) (AgendaPage, error) {
	page, err := s.appointments.Query(ctx, storage.Query{
		PartitionKey: m.GroupID,
		RowKeyFrom:   appointmentTimeKey(from),
		Filters:      []storage.Filter{notDeleted},
		Limit:        s.rosterPageSize,
	})
	if err != nil {
		return AgendaPage{}, err
	}
	var rows []AppointmentIndexRow
	for _, e := range page.Entities {
		var row AppointmentIndexRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return AgendaPage{}, err
		}
		rows = append(rows, row)
	}
	end, more := from.Add(agendaSpan), false
	if page.Next != nil && len(rows) > 0 {
		end, more = rows[len(rows)-1].StartTime, true
	}
	series, err := s.seriesRunning(ctx, m.GroupID, from, end)
	if err != nil {
		return AgendaPage{}, err
	}
	for _, row := range series {
		for _, occ := range Occurrences(row, from, end) {
			if !occ.StartTime.Before(from) {
				rows = append(rows, occ)
			}
		}
		if row.SeriesEnd != nil && row.SeriesEnd.After(end) {
			more = true
		}
	}
	slices.SortStableFunc(rows, func(a, b AppointmentIndexRow) int { return a.StartTime.Compare(b.StartTime) })
	if len(rows) > s.rosterPageSize {
		end, more = rows[s.rosterPageSize].StartTime, true
	}
	if !end.After(from) {
		end = from.Add(time.Second) // all at one instant: show them, move on
	}
	out := AgendaPage{}
	for _, r := range rows {
		if r.StartTime.Before(end) {
			out.Rows = append(out.Rows, r)
		}
	}
	if more {
		out.Next = end
	}
	return out, nil
}

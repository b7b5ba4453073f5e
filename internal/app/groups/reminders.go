package groups

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// ErrNotParticipant refuses a reminder choice to someone who does not
// take part (403).
var ErrNotParticipant = fault.New(http.StatusForbidden, "groups.reminder.error.not_participant", "groups: not a participant")

// Reminders tell participants an appointment is coming, in their inbox
// and by email (as their settings allow), through the task queue. Every
// save schedules the appointment's next reminder (nextReminder) as a
// task keyed by the appointment's version, the occurrence and the due
// time. The task reads the appointment again: a stale one (the
// appointment changed since) does nothing, since the save that changed
// it scheduled its own. A current one tells each participant whose
// reminder is due then, each notice keyed by appointment, occurrence,
// person and lead, and schedules the next. So a reminder goes out once,
// with two instances draining the queue, or a task run twice.

// ReminderLeads are the reminder times the forms offer, in minutes
// before the start; 0 is none.
var ReminderLeads = []int{0, 10, 60, 1440}

// responsibleLead reminds who picks up when the appointment sets no
// reminder: they should not forget.
const responsibleLead = 60

// NoReminder is a participant's own choice of no reminder; "" follows
// the appointment.
const NoReminder = "none"

// reminderTask is one scheduled reminder: the occurrence starting at
// Start, for the participants whose reminder is due at Due, of the
// appointment at version Sequence.
type reminderTask struct {
	GroupID       string
	AppointmentID string
	Start         time.Time
	Due           time.Time
	Sequence      int
}

// UseTasks lets the service send reminders through q, forget previewed
// calendar files nobody imported (import.go), and finish series changes
// (pending.go) and list deletions (lists.go) that stopped half way. Call
// it while wiring, before serving; without it no reminder is sent,
// previews stay until they are imported, only the rebuild finishes a
// series change, and only deleting it again finishes a list's.
func (s *Service) UseTasks(q *tasks.Queue) error {
	return errors.Join(
		tasks.Into(q, &s.reminders, "groups.reminder", s.remind),
		tasks.Into(q, &s.previews, "groups.import.forget", s.forgetPreview),
		tasks.Into(q, &s.finishes, "groups.finish-series", s.finish),
		tasks.Into(q, &s.listBurials, "groups.bury-list", s.buryQueuedList),
	)
}

// validLead reports whether minutes is a lead the forms offer.
func validLead(minutes int) bool { return slices.Contains(ReminderLeads, minutes) }

// leadOf is how long before the start p is reminded of doc, 0 for not:
// their own choice, else the appointment's, else an hour for who picks
// up.
func leadOf(doc Appointment, p ParticipantRow) time.Duration {
	n := 0
	switch {
	case p.Remind == NoReminder:
	case p.Remind != "":
		n, _ = strconv.Atoi(p.Remind)
	case doc.Remind > 0:
		n = doc.Remind
	case p.Role == RoleResponsible:
		n = responsibleLead
	}
	return time.Duration(n) * time.Minute
}

// nextReminder is d's first reminder due after after: when, and the
// start of the occurrence it is for.
func nextReminder(d AppointmentDetail, after time.Time) (due, start time.Time, ok bool) {
	var leads []time.Duration
	for _, p := range d.Participants {
		if l := leadOf(d.Doc, p); l > 0 && !slices.Contains(leads, l) {
			leads = append(leads, l)
		}
	}
	if len(leads) == 0 || d.Doc.Status == AppointmentCanceled {
		return time.Time{}, time.Time{}, false
	}
	longest := slices.Max(leads)
	starts := []time.Time{d.Doc.Start}
	if d.Doc.Repeat != "" {
		starts = nil
		for _, o := range Occurrences(d.Index, after, after.Add(longest).AddDate(1, 0, 0)) {
			starts = append(starts, o.StartTime)
		}
	}
	for _, st := range starts {
		if ok && st.Add(-longest).After(due) {
			break // later occurrences remind later still
		}
		for _, l := range leads {
			if at := st.Add(-l); at.After(after) && (!ok || at.Before(due)) {
				due, start, ok = at, st, true
			}
		}
	}
	return due, start, ok
}

// scheduleReminders queues d's next reminder after now.
func (s *Service) scheduleReminders(ctx context.Context, d AppointmentDetail) {
	s.scheduleAfter(ctx, d, s.now())
}

// scheduleAfter queues d's first reminder due after after; a failure is
// logged, and the groups rebuild queues it again (rescheduleReminders).
func (s *Service) scheduleAfter(ctx context.Context, d AppointmentDetail, after time.Time) {
	if _, err := s.queueAfter(ctx, d, after); err != nil {
		s.log.WarnContext(ctx, "groups: reminder not scheduled", "appointment", d.Doc.AppointmentID, "err", err)
	}
}

// queueAfter queues d's first reminder due after after, if it has one,
// and says so.
func (s *Service) queueAfter(ctx context.Context, d AppointmentDetail, after time.Time) (bool, error) {
	if s.reminders == nil || d.Index.IsDeleted {
		return false, nil
	}
	due, start, ok := nextReminder(d, after)
	if !ok {
		return false, nil
	}
	t := reminderTask{GroupID: d.Doc.GroupID, AppointmentID: d.Doc.AppointmentID, Start: start, Due: due, Sequence: d.Doc.Sequence}
	key := fmt.Sprintf("remind|%s|%d|%s|%s", t.AppointmentID, t.Sequence, appointmentTimeKey(start), appointmentTimeKey(due))
	return true, s.reminders.EnqueueAt(ctx, due, key, t)
}

// rescheduleReminders queues again the next reminder of every
// appointment of the group still to come, single or a series: the repair
// when queueing one failed at a save (scheduleAfter logs it and the save
// stands). A reminder queued already is not queued twice (its key is
// kept until a while after it was due), and one queued twice all the
// same still reaches each person once (each notice has a key of its
// own). It reads the group's coming appointments and series, then each
// one's participants, and returns how many reminders it queued.
func (s *Service) rescheduleReminders(ctx context.Context, groupID string) (int, error) {
	now := s.now()
	rows, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{
		PartitionKey: groupID, RowKeyFrom: appointmentTimeKey(now),
		Filters: []storage.Filter{notDeleted, notCanceled},
	})
	if err != nil {
		return 0, err
	}
	series, err := s.seriesRunning(ctx, groupID, now, forever)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, row := range append(rows, series...) {
		d, err := s.Appointment(ctx, Membership{GroupID: groupID}, row.AppointmentID)
		if errors.Is(err, ErrNoAppointment) {
			continue // deleted since the query
		}
		if err != nil {
			return n, err
		}
		queued, err := s.queueAfter(ctx, d, now)
		if err != nil {
			return n, err
		}
		if queued {
			n++
		}
	}
	return n, nil
}

// remind runs a reminder task (see the top of this file).
func (s *Service) remind(ctx context.Context, t reminderTask) error {
	g, err := s.group(ctx, t.GroupID)
	if errors.Is(err, ErrNoGroup) || err == nil && g.IsDeleted {
		return nil
	}
	if err != nil {
		return err
	}
	d, err := s.Appointment(ctx, Membership{GroupID: t.GroupID}, t.AppointmentID)
	if errors.Is(err, ErrNoAppointment) || err == nil && d.Doc.Sequence != t.Sequence {
		return nil // deleted, or changed: its save scheduled anew
	}
	if err != nil {
		return err
	}
	if d.Doc.Status != AppointmentCanceled && s.notifier != nil {
		if err := s.sendReminders(ctx, g, d, t); err != nil {
			return err
		}
	}
	// The next one: a failure to queue it fails the task, which is tried
	// again (its notices have keys, so nobody hears twice); a series'
	// reminders would otherwise stop here.
	_, err = s.queueAfter(ctx, d, t.Due)
	return err
}

// sendReminders tells the active participants whose reminder of the
// occurrence at t.Start is due at t.Due.
func (s *Service) sendReminders(ctx context.Context, g GroupRow, d AppointmentDetail, t reminderTask) error {
	link := appointmentURL(t.GroupID, t.AppointmentID)
	if d.Doc.Repeat != "" {
		if _, err := occurrenceAt(d, appointmentTimeKey(t.Start)); err != nil || slices.ContainsFunc(d.Doc.Moved, t.Start.Equal) {
			return nil // removed or moved: an override has its own
		}
		link = occurrenceURL(t.GroupID, t.AppointmentID, t.Start)
	} else if !d.Doc.Start.Equal(t.Start) {
		return nil
	}
	active, err := s.ActiveMembers(ctx, t.GroupID)
	if err != nil {
		return err
	}
	for _, p := range d.Participants {
		lead := leadOf(d.Doc, p)
		if lead == 0 || !t.Start.Add(-lead).Equal(t.Due) || auth.IsGuestKey(p.MemberKey) ||
			!slices.ContainsFunc(active, func(m MemberRow) bool { return memberKeyOf(m) == p.MemberKey }) {
			continue
		}
		kind := "groups.notify.reminder"
		if p.Role == RoleResponsible {
			kind = "groups.notify.reminder_responsible"
		}
		err := s.notifier.Post(ctx, inbox.Notice{
			To:   []inbox.Recipient{{MemberKey: p.MemberKey}},
			Kind: kind,
			Args: map[string]string{"group": g.GroupName, "title": d.Doc.Title, "location": d.Doc.Location},
			When: t.Start,
			Link: link,
			Key:  fmt.Sprintf("reminder|%s|%s|%s|%d", t.AppointmentID, appointmentTimeKey(t.Start), p.MemberKey, int(lead.Minutes())),
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// SetMyReminder sets the reminder the member id gets of an appointment
// they take part in: "" follows the appointment, NoReminder is none,
// else minutes from ReminderLeads. It reschedules.
func (s *Service) SetMyReminder(ctx context.Context, m Membership, id *auth.Identity, appointmentID, choice string) error {
	if choice != "" && choice != NoReminder {
		n, err := strconv.Atoi(choice)
		if err != nil || n == 0 || !validLead(n) {
			return FieldErrors{"remind": "groups.reminder.error"}
		}
	}
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(d.Participants, func(p ParticipantRow) bool { return p.MemberKey == id.MemberKey })
	if i < 0 {
		return ErrNotParticipant
	}
	row := d.Participants[i]
	if row.Remind == choice {
		return nil
	}
	row.Remind, row.UpdatedAt = choice, s.now().UTC()
	etag, err := storage.Update(ctx, s.participants, row, row.ETag)
	if errors.Is(err, storage.ErrPrecondition) {
		return storage.ErrConflict
	}
	if err != nil {
		return err
	}
	row.ETag = etag
	d.Participants[i] = row
	s.scheduleReminders(ctx, d)
	return nil
}

package groups

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// What an edit, cancellation or deletion of one occurrence of a series
// applies to.
const (
	ScopeThis      = "this"
	ScopeFollowing = "following"
	ScopeAll       = "all"
)

// ErrNoOccurrence is an ?at= that is not an occurrence of the series
// (404).
var ErrNoOccurrence = fault.New(http.StatusNotFound, "groups.repeat.error.no_occurrence", "groups: not an occurrence of the series")

// parseAt reads an occurrence's start as links carry it
// (appointmentTimeKey).
func parseAt(v string) (time.Time, bool) {
	t, err := time.Parse("20060102150405Z", v)
	return t.UTC(), err == nil
}

// Occurrence reads one occurrence of a series: the series' detail with
// Doc's start and end moved to the occurrence's. A removed occurrence,
// or a time the rule does not give, is ErrNoOccurrence.
func (s *Service) Occurrence(ctx context.Context, m Membership, appointmentID, at string) (AppointmentDetail, error) {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return AppointmentDetail{}, err
	}
	t, err := occurrenceAt(d, at)
	if err != nil {
		return AppointmentDetail{}, err
	}
	length := d.Doc.End.Sub(d.Doc.Start)
	d.Doc.Start, d.Doc.End, d.At = t, t.Add(length), t
	return d, nil
}

// occurrenceAt reads ?at= as an occurrence of the series d: one the
// rule gives and that was not removed.
func occurrenceAt(d AppointmentDetail, at string) (time.Time, error) {
	t, ok := parseAt(at)
	if !ok || d.Doc.Repeat == "" || !isOccurrence(d.Index, t) || slices.ContainsFunc(d.Doc.ExDates, t.Equal) {
		return time.Time{}, ErrNoOccurrence
	}
	return t, nil
}

// editOccurrence applies an edit of the occurrence at in.At to the
// series d by in.Scope: this one becomes an override, this and the
// following ones a new series (the old one ends before it), all the
// series itself (the edit's change of time moves every occurrence).
func (s *Service) editOccurrence(ctx context.Context, m Membership, id *auth.Identity, d AppointmentDetail, in AppointmentInput, zone *time.Location, members []MemberRow) (Appointment, error) {
	at, err := occurrenceAt(d, in.At)
	if err != nil {
		return Appointment{}, err
	}
	if in.Scope == ScopeThis {
		in.Repeat = RepeatInput{} // one occurrence does not repeat
	}
	fields, keys, errs := parseAppointment(in, zone, members)
	if errs != nil {
		return Appointment{}, errs
	}
	now := s.now().UTC()
	switch {
	case in.Scope == ScopeThis:
		doc := fields
		doc.AppointmentID, doc.GroupID, doc.Status = newAppointmentID(), m.GroupID, AppointmentActive
		doc.SeriesID, doc.RecurrenceID, doc.SeriesSequence = d.Doc.AppointmentID, timePtr(at), d.Doc.Sequence
		// The occurrence stays the series creator's: whoever edits it may
		// not then delete it, as they may not delete the series.
		doc.CreatedBy, doc.UpdatedBy, doc.CreatedAt, doc.UpdatedAt = d.Doc.CreatedBy, id.MemberKey, now, now
		if err := s.commitWith(ctx, &doc, nil, keys, id.MemberKey); err != nil {
			return Appointment{}, err
		}
		if err := s.hideReplaced(ctx, m.GroupID, &d, doc, id.MemberKey, now); err != nil {
			return Appointment{}, err
		}
		s.notifyAppointment(ctx, id, "groups.notify.appointment_changed", doc, members)
		return doc, nil
	case in.Scope == ScopeFollowing && at.After(d.Doc.Start):
		doc := fields
		doc.AppointmentID, doc.GroupID, doc.Status = newAppointmentID(), m.GroupID, AppointmentActive
		// The following ones stay the series creator's, as above.
		doc.CreatedBy, doc.UpdatedBy, doc.CreatedAt, doc.UpdatedAt = d.Doc.CreatedBy, id.MemberKey, now, now
		// The series ends before at and records the new one it continues
		// with, in one write (pending.go): a stop after it leaves the new
		// one to the task queued first, not lost.
		next := Continuation{At: at, Doc: doc, Keys: keys, By: id.MemberKey}
		s.finishLater(ctx, m.GroupID, d.Doc.AppointmentID)
		if _, err := s.update(ctx, m.GroupID, &d, false, func(d *AppointmentDetail) ([]string, error) {
			rule, err := untilBefore(d.Doc.Repeat, d.Doc.Start.In(seriesZone(d.Index)), at)
			d.Doc.Repeat, d.Doc.UpdatedBy, d.Doc.UpdatedAt = rule, id.MemberKey, now
			d.Doc.Pending = d.Doc.Pending.withNext(next)
			return nil, err
		}); err != nil {
			return Appointment{}, err
		}
		// The dates from then on are the new series': their overrides
		// (moved, changed, cancelled) go, as when they are deleted.
		if err := s.deleteOverrides(ctx, m.GroupID, d.Doc.AppointmentID, at, id); err != nil {
			return Appointment{}, err
		}
		if err := s.commitWith(ctx, &doc, nil, keys, id.MemberKey); err != nil && !errors.Is(err, storage.ErrExists) {
			return Appointment{}, err // (made already: by the task)
		}
		s.notifyAppointment(ctx, id, "groups.notify.appointment_changed", doc, members)
		return doc, nil
	default: // all of them
		moved := false
		if fields.Repeat != "" && !allShift(d.Doc, at, fields).none() {
			s.finishLater(ctx, m.GroupID, d.Doc.AppointmentID) // the overrides' move (pending.go)
		}
		d, err := s.update(ctx, m.GroupID, &d, true, func(d *AppointmentDetail) ([]string, error) {
			at, err := occurrenceAt(*d, in.At) // again, when another change came first
			if err != nil {
				return nil, err
			}
			series := &d.Doc
			sh := allShift(*series, at, fields)
			series.UpdatedBy, series.UpdatedAt = id.MemberKey, now
			series.Title, series.Location, series.Notes, series.Responsible = fields.Title, fields.Location, fields.Notes, fields.Responsible
			series.AllDay, series.Timezone, series.Repeat, series.Remind = fields.AllDay, fields.Timezone, fields.Repeat, fields.Remind
			moved = false
			if fields.Repeat == "" {
				series.Start, series.End = fields.Start, fields.End
				return keys, nil
			}
			// The edit moves every occurrence as it moved this one, and
			// the removed and overridden ones with them.
			series.Start = sh.move(series.Start)
			series.End = series.Start.Add(fields.End.Sub(fields.Start))
			series.ExDates, series.Moved = shifted(series.ExDates, sh), shifted(series.Moved, sh)
			if moved = !sh.none(); moved {
				// The overrides follow, after this write (pending.go).
				sh.Sequence = series.Sequence + 1
				series.Pending = series.Pending.withShift(sh)
			}
			return keys, nil
		})
		if err == nil && moved {
			err = s.shiftOverrides(ctx, m.GroupID, d.Doc.AppointmentID, d.Doc.Pending.Shifts)
		}
		if err != nil {
			return Appointment{}, err
		}
		s.notifyAppointment(ctx, id, "groups.notify.appointment_changed", d.Doc, members)
		return d.Doc, nil
	}
}

// hideReplaced hides in series d the date override replaces (its
// moved dates), by who at now. A move of every date that came since the
// override was made moves that date too (shiftSince), so the date
// hidden is the one the series now has.
func (s *Service) hideReplaced(ctx context.Context, groupID string, d *AppointmentDetail, override Appointment, by string, now time.Time) error {
	_, err := s.update(ctx, groupID, d, false, func(d *AppointmentDetail) ([]string, error) {
		date := *override.RecurrenceID
		if d.Doc.Pending != nil {
			date, _ = shiftSince(d.Doc.Pending.Shifts, override.SeriesSequence, date)
		}
		d.Doc.Moved, d.Doc.UpdatedBy, d.Doc.UpdatedAt = append(d.Doc.Moved, date), by, now
		return nil, nil
	})
	return err
}

// removeOccurrences deletes the occurrence at (ScopeThis) or it and the
// following ones (ScopeFollowing) from a series; ScopeAll is the
// caller's: deleting the series.
func (s *Service) removeOccurrences(ctx context.Context, m Membership, id *auth.Identity, d AppointmentDetail, scope, at string) error {
	occ, err := s.Occurrence(ctx, m, d.Doc.AppointmentID, at)
	if err != nil {
		return err
	}
	_, err = s.update(ctx, m.GroupID, &d, false, func(d *AppointmentDetail) ([]string, error) {
		series := &d.Doc
		series.UpdatedBy, series.UpdatedAt = id.MemberKey, s.now().UTC()
		if scope != ScopeFollowing {
			series.ExDates = append(series.ExDates, occ.At)
			return nil, nil
		}
		rule, err := untilBefore(series.Repeat, series.Start.In(seriesZone(d.Index)), occ.At)
		series.Repeat = rule
		return nil, err
	})
	if err != nil || scope != ScopeFollowing {
		return err
	}
	return s.deleteOverrides(ctx, m.GroupID, d.Doc.AppointmentID, occ.At, id)
}

// deleteOverrides soft-deletes the overrides of series seriesID (its
// moved, changed and cancelled dates) that replace an occurrence at or
// after from (every one for a zero from), with the series or its dates
// from then on: one query of the group's appointments, and each
// override's blob when from is set.
func (s *Service) deleteOverrides(ctx context.Context, groupID, seriesID string, from time.Time, id *auth.Identity) error {
	rows, err := s.overrides(ctx, groupID, seriesID)
	if err != nil {
		return err
	}
	for _, row := range rows {
		err := storage.ErrPrecondition
		if from.IsZero() {
			err = s.softDelete(ctx, row, id) // as the query read it
		}
		if errors.Is(err, storage.ErrPrecondition) {
			_, err = s.bury(ctx, groupID, row.AppointmentID, id, func(d AppointmentDetail) error {
				if !from.IsZero() && (d.Doc.RecurrenceID == nil || d.Doc.RecurrenceID.Before(from)) {
					return errUnchanged // an earlier date's: it stays
				}
				return nil
			})
		}
		if err != nil && !errors.Is(err, ErrNoAppointment) && !errors.Is(err, errUnchanged) {
			return err
		}
	}
	return nil
}

// bury soft-deletes appointment appointmentID by id when may (its check
// of the appointment as read) allows it: from a fresh read, again when
// another write changed its row in between.
func (s *Service) bury(ctx context.Context, groupID, appointmentID string, id *auth.Identity, may func(AppointmentDetail) error) (AppointmentDetail, error) {
	var d AppointmentDetail
	err := retryStale(ctx, func() error {
		var err error
		if d, err = s.Appointment(ctx, Membership{GroupID: groupID}, appointmentID); err != nil {
			return err
		}
		if err := may(d); err != nil {
			return err
		}
		return s.softDelete(ctx, d.Index, id)
	})
	return d, err
}

// cancelOccurrence cancels one occurrence: an override with the series'
// fields at that time, marked cancelled, so it shows struck through.
func (s *Service) cancelOccurrence(ctx context.Context, m Membership, id *auth.Identity, d AppointmentDetail, at string) error {
	occ, err := s.Occurrence(ctx, m, d.Doc.AppointmentID, at)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	doc := occ.Doc
	doc.AppointmentID, doc.Repeat, doc.ExDates, doc.Moved = newAppointmentID(), "", nil, nil
	doc.SeriesID, doc.RecurrenceID, doc.Status, doc.Sequence = d.Doc.AppointmentID, timePtr(occ.At), AppointmentCanceled, 0
	doc.SeriesSequence, doc.Pending = d.Doc.Sequence, nil
	// The series' creator stays the override's, as in editOccurrence:
	// who cancels one date gains no right to delete it.
	doc.CreatedBy, doc.UpdatedBy, doc.CreatedAt, doc.UpdatedAt = d.Doc.CreatedBy, id.MemberKey, now, now
	var keys []string
	for _, p := range d.Participants {
		keys = append(keys, p.MemberKey)
	}
	if err := s.commitWith(ctx, &doc, nil, keys, id.MemberKey); err != nil {
		return err
	}
	err = s.hideReplaced(ctx, m.GroupID, &d, doc, id.MemberKey, now)
	if err == nil && s.notifier != nil {
		if members, merr := s.ActiveMembers(ctx, m.GroupID); merr == nil {
			s.notifyAppointment(ctx, id, "groups.notify.appointment_cancelled", doc, members)
		}
	}
	return err
}

// DeleteOccurrences removes the occurrence at, or it and the following
// ones (scope), from a series: for its creator or an owner, as deleting
// it is.
func (s *Service) DeleteOccurrences(ctx context.Context, m Membership, id *auth.Identity, appointmentID, scope, at string) error {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return err
	}
	if !CanDelete(m, id, d.Index) {
		return ErrNotCreator
	}
	return s.calendarWrote(ctx, m.GroupID, s.removeOccurrences(ctx, m, id, d, scope, at))
}

// CancelOccurrence cancels one occurrence of a series, for any active
// member.
func (s *Service) CancelOccurrence(ctx context.Context, m Membership, id *auth.Identity, appointmentID, at string) error {
	d, err := s.Appointment(ctx, m, appointmentID)
	if err != nil {
		return err
	}
	return s.calendarWrote(ctx, m.GroupID, s.cancelOccurrence(ctx, m, id, d, at))
}

// appointmentOrOccurrence reads an appointment, or with at one
// occurrence of a series.
func (s *Service) appointmentOrOccurrence(ctx context.Context, m Membership, appointmentID, at string) (AppointmentDetail, error) {
	if at == "" {
		return s.Appointment(ctx, m, appointmentID)
	}
	return s.Occurrence(ctx, m, appointmentID, at)
}

// allShift is the move of every date of series that an edit of all of
// them makes when it moves the occurrence at to fields' start: on the
// wall clock, from the series' zone into the edit's.
func allShift(series Appointment, at time.Time, fields Appointment) Shift {
	from, to := docZone(series), docZone(fields)
	return Shift{Delta: wallClock(fields.Start, to).Sub(wallClock(at, from)), From: from.String(), To: to.String()}
}

// none reports whether sh moves nothing.
func (sh Shift) none() bool { return sh.Delta == 0 && sh.From == sh.To }

// shifted is ts, each moved by sh.
func shifted(ts []time.Time, sh Shift) []time.Time {
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = sh.move(t)
	}
	return out
}

// overrides are the index rows of series seriesID's overrides that are
// not deleted: one query of the group's appointments.
func (s *Service) overrides(ctx context.Context, groupID, seriesID string) ([]AppointmentIndexRow, error) {
	return storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{
		PartitionKey: groupID,
		Filters:      []storage.Filter{notDeleted, {Name: "seriesId", Op: storage.Eq, Value: seriesID}},
	})
}

// shiftOverrides moves the occurrence each override of the series
// replaces (RecurrenceID) as the series moved: by the shifts made since
// the override last agreed with the series (SeriesSequence), so an
// override moved already is not moved again. One query of the group's
// appointments for the series' overrides, then each one's blob and row.
// Their own times stay as they were set.
func (s *Service) shiftOverrides(ctx context.Context, groupID, seriesID string, shifts []Shift) error {
	rows, err := s.overrides(ctx, groupID, seriesID)
	if err != nil {
		return err
	}
	for _, row := range rows {
		_, err := s.update(ctx, groupID, &AppointmentDetail{Doc: Appointment{AppointmentID: row.AppointmentID}}, false, func(d *AppointmentDetail) ([]string, error) {
			if d.Doc.RecurrenceID == nil {
				return nil, errUnchanged
			}
			moved, last := shiftSince(shifts, d.Doc.SeriesSequence, *d.Doc.RecurrenceID)
			if last == 0 {
				return nil, errUnchanged
			}
			d.Doc.RecurrenceID, d.Doc.SeriesSequence = timePtr(moved), last
			return nil, nil
		})
		if err != nil && !errors.Is(err, ErrNoAppointment) && !errors.Is(err, errUnchanged) {
			return err
		}
	}
	return nil
}

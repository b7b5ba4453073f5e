package groups

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
)

// Changes of a series that reach other appointments. Two edits of a
// series write more than the series itself:
//   - "this and following" ends the series before the date and makes a
//     new series from it (Continuation);
//   - "all" with a new time moves every date, and each override's
//     RecurrenceID, the date it replaces, moves with them (Shift).
//
// The series' own write records what is still to follow (Pending), in
// the same blob write that ends or moves it, and a task is queued before
// it (finishLater). The request then does the rest at once; if it stops
// half way, the task finishes it a minute later, and so does the
// rebuild (repairAppointments). Each step can run again: the new series
// is made under the id the series recorded (a second make finds it),
// and an override carries the series' Sequence it agrees with
// (SeriesSequence), so it moves by the shifts made after it alone. The
// task takes what it finished off the series.

// SeriesPending is what a series' last changes still carry to other
// appointments.
type SeriesPending struct {
	// Next are the series that continue this one, each made after this
	// one was ended before its At (two, when a second "this and
	// following" came before the first one's task).
	Next []Continuation `json:"next,omitempty"`
	// Shifts are moves of every date that the overrides follow.
	Shifts []Shift `json:"shifts,omitempty"`
}

// Continuation is a series to make (with its id chosen first), its
// participants and who made it; At is the first date it replaces.
type Continuation struct {
	At   time.Time   `json:"at"`
	Doc  Appointment `json:"doc"`
	Keys []string    `json:"keys,omitempty"`
	By   string      `json:"by"`
}

// Shift is a move of every date of a series by Delta on the wall clock
// (wallShift), from zone From into zone To (the series' zones before
// and after; the same unless the change moved it), saved as the
// series' Sequence.
type Shift struct {
	Delta    time.Duration `json:"delta"`
	From     string        `json:"from"`
	To       string        `json:"to"`
	Sequence int           `json:"sequence"`
}

// move is t moved by sh.
func (sh Shift) move(t time.Time) time.Time {
	return wallShift(t, auth.Zone(sh.From), auth.Zone(sh.To), sh.Delta)
}

// clone is a copy of p (empty for nil) that changes nothing of p's:
// update may run its edit again on the same read.
func (p *SeriesPending) clone() SeriesPending {
	if p == nil {
		return SeriesPending{}
	}
	return SeriesPending{Next: slices.Clone(p.Next), Shifts: slices.Clone(p.Shifts)}
}

// withNext is p with one more series to make.
func (p *SeriesPending) withNext(next Continuation) *SeriesPending {
	out := p.clone()
	out.Next = append(out.Next, next)
	return &out
}

// withShift is p with one more shift.
func (p *SeriesPending) withShift(sh Shift) *SeriesPending {
	out := p.clone()
	out.Shifts = append(out.Shifts, sh)
	return &out
}

// without is p less what done had, which was finished; nil when nothing
// is left.
func (p *SeriesPending) without(done SeriesPending) *SeriesPending {
	if p == nil {
		return nil
	}
	var out SeriesPending
	for _, n := range p.Next {
		if !slices.ContainsFunc(done.Next, func(d Continuation) bool { return d.Doc.AppointmentID == n.Doc.AppointmentID }) {
			out.Next = append(out.Next, n)
		}
	}
	for _, sh := range p.Shifts {
		if !slices.Contains(done.Shifts, sh) {
			out.Shifts = append(out.Shifts, sh)
		}
	}
	if len(out.Next) == 0 && len(out.Shifts) == 0 {
		return nil
	}
	return &out
}

// shiftSince moves t, the date an override saved at the series'
// Sequence seq replaces, by the shifts made after it, in order; last is
// the Sequence of the last one, 0 for none.
func shiftSince(shifts []Shift, seq int, t time.Time) (moved time.Time, last int) {
	for _, sh := range shifts {
		if sh.Sequence > seq {
			t, last = sh.move(t), max(last, sh.Sequence)
		}
	}
	return t, last
}

// finishAfter is how long a series change has before its task finishes
// what the change itself did not.
const finishAfter = time.Minute

// finishTask is a series whose pending changes are to be finished.
type finishTask struct {
	GroupID  string
	SeriesID string
}

// finishLater queues the finishing of series seriesID's change, before
// the change is saved: a change that fails to save leaves nothing
// pending, and the task does nothing.
func (s *Service) finishLater(ctx context.Context, groupID, seriesID string) {
	s.finishes.Later(ctx, s.now().Add(finishAfter), seriesID, finishTask{GroupID: groupID, SeriesID: seriesID}, s.log, "groups: a series change's finishing not queued; the rebuild finishes it", "appointment", seriesID)
}

// finish runs a finishTask.
func (s *Service) finish(ctx context.Context, t finishTask) error {
	_, err := s.finishSeries(ctx, t.GroupID, t.SeriesID)
	return err
}

// finishSeries carries series seriesID's pending changes to the other
// appointments, then takes them off the series. It reports whether
// there were any. A new series being made at that moment by its own
// request is storage.ErrExists: nothing is taken off, to be tried again.
func (s *Service) finishSeries(ctx context.Context, groupID, seriesID string) (bool, error) {
	doc, err := s.appointmentDoc(ctx, groupID, seriesID)
	if errors.Is(err, ErrNoAppointment) {
		return false, nil
	}
	if err != nil || doc.Pending == nil {
		return false, err
	}
	done := *doc.Pending
	for _, next := range done.Next {
		if err := s.finishNext(ctx, groupID, seriesID, next); err != nil {
			return true, err
		}
	}
	if len(done.Shifts) > 0 {
		if err := s.shiftOverrides(ctx, groupID, seriesID, done.Shifts); err != nil {
			return true, err
		}
	}
	_, err = s.update(ctx, groupID, &AppointmentDetail{Doc: Appointment{AppointmentID: seriesID}}, false, func(d *AppointmentDetail) ([]string, error) {
		rest := d.Doc.Pending.without(done)
		if rest == nil && d.Doc.Pending == nil {
			return nil, errUnchanged
		}
		d.Doc.Pending = rest
		return nil, nil
	})
	if errors.Is(err, errUnchanged) || errors.Is(err, ErrNoAppointment) {
		err = nil // a deleted series keeps its record: finishing again changes nothing
	}
	return true, err
}

// finishNext makes the series next continues series seriesID with, as
// "this and following" would have: the old series' overrides from
// next.At go, then the new series is made, or, made already, gets the
// row and participants a stop may have kept from it.
func (s *Service) finishNext(ctx context.Context, groupID, seriesID string, next Continuation) error {
	if err := s.deleteOverrides(ctx, groupID, seriesID, next.At, &auth.Identity{MemberKey: next.By}); err != nil {
		return err
	}
	doc, err := s.appointmentDoc(ctx, groupID, next.Doc.AppointmentID)
	if errors.Is(err, ErrNoAppointment) {
		doc = next.Doc
		return s.commitWith(ctx, &doc, nil, next.Keys, next.By)
	}
	if err != nil {
		return err
	}
	rows, err := s.indexRowsOf(ctx, groupID, doc.AppointmentID)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		if _, err := s.insertIndex(ctx, doc); err != nil && !errors.Is(err, storage.ErrExists) {
			return err
		}
	}
	return s.repairParticipants(ctx, doc, &AppointmentRepairs{})
}

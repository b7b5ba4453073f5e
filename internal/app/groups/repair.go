package groups

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/storage"
)

// The appointments' repair: the rebuild's part for a group's calendar.
// An appointment is its blob; its index row, its participants and, for
// an override, its series' list of moved dates follow the blob in
// writes of their own (saveAppointment, editOccurrence). A process that
// stops between them leaves the followers behind; repairAppointments
// brings them up to the blobs again.

// AppointmentRepairs counts what repairAppointments changed.
type AppointmentRepairs struct {
	// Rows are index rows written again from their blob (behind it, or
	// missing their twin's delete after a move); Stale, rows deleted
	// that a move left behind.
	Rows, Stale int
	// Participants are appointments whose participants were set again
	// from their blob's list.
	Participants int
	// Moved are overrides whose series still showed the date they
	// replace, now hidden.
	Moved int
	// Finished are series whose changes of other appointments (a new
	// series from a date on, overrides' moves) were finished
	// (pending.go).
	Finished int
}

func (r AppointmentRepairs) String() string {
	return fmt.Sprintf("%d appointment rows written again, %d stale ones deleted, %d participant lists set again, %d replaced dates hidden, %d series changes finished",
		r.Rows, r.Stale, r.Participants, r.Moved, r.Finished)
}

// Add sums r and o.
func (r AppointmentRepairs) Add(o AppointmentRepairs) AppointmentRepairs {
	return AppointmentRepairs{Rows: r.Rows + o.Rows, Stale: r.Stale + o.Stale, Participants: r.Participants + o.Participants, Moved: r.Moved + o.Moved, Finished: r.Finished + o.Finished}
}

// repairAppointments brings group groupID's index rows, participants
// and series up to its appointments' blobs, and finishes series changes
// that stopped half way (finishSeries): a listing of the blobs, then
// for each its blob, its rows (a query of each index partition) and its
// participants' version row, and for an override its series' blob. A
// blob with no row at all is a creation that stopped before its row,
// which its maker was told failed: it stays unlisted, as it is. An
// appointment whose row is ahead of the blob read is changing at that
// moment, and is let be.
func (s *Service) repairAppointments(ctx context.Context, groupID string) (AppointmentRepairs, error) {
	var r AppointmentRepairs
	ids, err := s.appointmentIDs(ctx, groupID)
	if err != nil {
		return r, err
	}
	for _, id := range ids {
		if err := s.repairAppointment(ctx, groupID, id, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// repairAppointment brings one appointment's index rows, participants
// and series up to its blob (repairAppointments), counting in r what it
// changed.
func (s *Service) repairAppointment(ctx context.Context, groupID, id string, r *AppointmentRepairs) error {
	// The blob first, then the rows: a change made in between leaves a
	// row ahead.
	doc, err := s.appointmentDoc(ctx, groupID, id)
	if errors.Is(err, ErrNoAppointment) {
		return nil
	}
	if err != nil {
		return err
	}
	found, err := s.indexRowsOf(ctx, groupID, id)
	if err != nil {
		return err
	}
	if len(found) == 0 || slices.ContainsFunc(found, func(row AppointmentIndexRow) bool { return row.Sequence > doc.Sequence }) {
		return nil // never listed, or changing at this moment
	}
	row, err := s.repairRows(ctx, doc, found, r)
	if err != nil || row.IsDeleted {
		return err
	}
	if err := s.repairParticipants(ctx, doc, r); err != nil {
		return err
	}
	if err := s.repairMoved(ctx, doc, r); err != nil {
		return err
	}
	if doc.Pending != nil {
		switch finished, err := s.finishSeries(ctx, groupID, id); {
		case errors.Is(err, storage.ErrExists):
			// its new series is being made at this moment
		case err != nil:
			return err
		case finished:
			r.Finished++
		}
	}
	return nil
}

// indexRowsOf are the index rows of appointment id: one query of each of
// the group's two partitions.
func (s *Service) indexRowsOf(ctx context.Context, groupID, id string) ([]AppointmentIndexRow, error) {
	var out []AppointmentIndexRow
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		rows, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{
			PartitionKey: pk,
			Filters:      []storage.Filter{{Name: "appointmentId", Op: storage.Eq, Value: id}},
		})
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// appointmentIDs lists the group's appointments that have a blob.
func (s *Service) appointmentIDs(ctx context.Context, groupID string) ([]string, error) {
	prefix := "groups/" + groupID + "/appointments/"
	infos, err := s.blobs.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, info := range infos {
		id, ok := strings.CutSuffix(strings.TrimPrefix(info.Name, prefix), "/appointment.json")
		if ok && !strings.Contains(id, "/") {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// repairRows leaves one index row for doc, at its key and as it says:
// a row behind the blob is written again (writeIndex, keeping its
// deletion), and one a move left at an older key is deleted.
func (s *Service) repairRows(ctx context.Context, doc Appointment, found []AppointmentIndexRow, r *AppointmentRepairs) (AppointmentIndexRow, error) {
	want := AppointmentIndexRow{}
	derive(&want, doc)
	// The row to keep: the one at doc's key, else the newest.
	slices.SortFunc(found, func(a, b AppointmentIndexRow) int {
		atA, atB := a.PartitionKey == want.PartitionKey && a.RowKey == want.RowKey, b.PartitionKey == want.PartitionKey && b.RowKey == want.RowKey
		if atA != atB {
			if atA {
				return -1
			}
			return 1
		}
		return b.UpdatedAt.Compare(a.UpdatedAt)
	})
	keep := found[0]
	buried := false
	for _, stale := range found[1:] {
		if stale.IsDeleted && !keep.IsDeleted {
			// A delete that reached the old row alone: it stands.
			keep.Tombstone, buried = stale.Tombstone, true
		}
		err := s.appointments.Delete(ctx, stale.PartitionKey, stale.RowKey, stale.ETag)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return keep, err
		}
		r.Stale++
	}
	if !buried && keep.Sequence == doc.Sequence && keep.PartitionKey == want.PartitionKey && keep.RowKey == want.RowKey {
		return keep, nil
	}
	row, err := s.writeIndex(ctx, doc, keep)
	if err == nil {
		r.Rows++
	}
	return row, err
}

// repairParticipants sets doc's participants again from its list (Who)
// when the last change that set them stopped before they were written:
// their version row is older than that change (WhoVersion). Other
// changes of the participants (a guest signing in moves theirs to the
// account) leave Who as it was, and so do appointments older than
// WhoVersion: those stay as they are.
func (s *Service) repairParticipants(ctx context.Context, doc Appointment, r *AppointmentRepairs) error {
	if doc.WhoVersion == 0 {
		return nil
	}
	version, err := storage.Get[participantsVersionRow](ctx, s.participants, participantsPartition(doc.GroupID, doc.AppointmentID), participantsVersion)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		if len(doc.Who) == 0 {
			return nil // none, and none were to be
		}
	case err != nil:
		return err
	case version.Sequence+1 >= doc.WhoVersion:
		return nil
	}
	if _, err := s.setParticipants(ctx, doc, doc.Who, doc.UpdatedBy); err != nil {
		return err
	}
	r.Participants++
	return nil
}

// repairMoved hides, in its series, the date an override replaces when
// the series still shows it: an edit or cancellation of one date that
// stopped after writing the override (editOccurrence).
func (s *Service) repairMoved(ctx context.Context, doc Appointment, r *AppointmentRepairs) error {
	if doc.SeriesID == "" || doc.RecurrenceID == nil {
		return nil
	}
	at := *doc.RecurrenceID
	_, err := s.update(ctx, doc.GroupID, &AppointmentDetail{Doc: Appointment{AppointmentID: doc.SeriesID}}, false, func(d *AppointmentDetail) ([]string, error) {
		if slices.ContainsFunc(d.Doc.Moved, at.Equal) || slices.ContainsFunc(d.Doc.ExDates, at.Equal) {
			return nil, errUnchanged
		}
		if d.Doc.Pending != nil {
			if _, last := shiftSince(d.Doc.Pending.Shifts, doc.SeriesSequence, at); last != 0 {
				return nil, errUnchanged // the override is still to move (finishSeries)
			}
		}
		d.Doc.Moved = append(d.Doc.Moved, at)
		return nil, nil
	})
	if errors.Is(err, errUnchanged) || errors.Is(err, ErrNoAppointment) {
		return nil
	}
	if err == nil {
		r.Moved++
	}
	return err
}

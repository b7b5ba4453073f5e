package groups

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
}

func (r AppointmentRepairs) String() string {
	return fmt.Sprintf("%d appointment rows written again, %d stale ones deleted, %d participant lists set again, %d replaced dates hidden",
		r.Rows, r.Stale, r.Participants, r.Moved)
}

// Add sums r and o.
func (r AppointmentRepairs) Add(o AppointmentRepairs) AppointmentRepairs {
	return AppointmentRepairs{Rows: r.Rows + o.Rows, Stale: r.Stale + o.Stale, Participants: r.Participants + o.Participants, Moved: r.Moved + o.Moved}
}

// repairAppointments brings group groupID's index rows, participants
// and series up to its appointments' blobs: a listing of the blobs and
// a read of each, the group's two index partitions, and each
// appointment's participants. A blob with no row at all is a creation
// that stopped before its row, which its maker was told failed: it
// stays unlisted, as it is.
func (s *Service) repairAppointments(ctx context.Context, groupID string) (AppointmentRepairs, error) {
	var r AppointmentRepairs
	docs, err := s.appointmentBlobs(ctx, groupID)
	if err != nil {
		return r, err
	}
	rows := map[string][]AppointmentIndexRow{}
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		all, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{PartitionKey: pk})
		if err != nil {
			return r, err
		}
		for _, row := range all {
			rows[row.AppointmentID] = append(rows[row.AppointmentID], row)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(docs)) {
		doc, found := docs[id], rows[id]
		if len(found) == 0 {
			continue
		}
		row, err := s.repairRows(ctx, doc, found, &r)
		if err != nil {
			return r, err
		}
		if row.IsDeleted {
			continue
		}
		if err := s.repairParticipants(ctx, doc, &r); err != nil {
			return r, err
		}
		if err := s.repairMoved(ctx, doc, docs, rows, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// appointmentBlobs reads every appointment blob of the group, by id.
func (s *Service) appointmentBlobs(ctx context.Context, groupID string) (map[string]Appointment, error) {
	infos, err := s.blobs.List(ctx, "groups/"+groupID+"/appointments/")
	if err != nil {
		return nil, err
	}
	docs := map[string]Appointment{}
	for _, info := range infos {
		id, ok := strings.CutSuffix(strings.TrimPrefix(info.Name, "groups/"+groupID+"/appointments/"), "/appointment.json")
		if !ok || strings.Contains(id, "/") {
			continue
		}
		doc, err := s.appointmentDoc(ctx, groupID, id)
		if errors.Is(err, ErrNoAppointment) {
			continue
		}
		if err != nil {
			return nil, err
		}
		docs[id] = doc
	}
	return docs, nil
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
	// The row follows the blob, whatever version it claims.
	keep.Sequence = min(keep.Sequence, doc.Sequence)
	row, err := s.writeIndex(ctx, doc, keep)
	if err == nil {
		r.Rows++
	}
	return row, err
}

// repairParticipants sets doc's participants again when the stored ones
// are not the blob's list.
func (s *Service) repairParticipants(ctx context.Context, doc Appointment, r *AppointmentRepairs) error {
	parts, err := storage.All[ParticipantRow](ctx, s.participants, storage.Query{
		PartitionKey: participantsPartition(doc.GroupID, doc.AppointmentID), RowKeyPrefix: "m:",
	})
	if err != nil {
		return err
	}
	var have []string
	for _, p := range parts {
		have = append(have, p.MemberKey)
	}
	slices.Sort(have)
	want := slices.Sorted(slices.Values(doc.Who))
	if slices.Equal(have, want) {
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
func (s *Service) repairMoved(ctx context.Context, doc Appointment, docs map[string]Appointment, rows map[string][]AppointmentIndexRow, r *AppointmentRepairs) error {
	series, ok := docs[doc.SeriesID]
	if doc.SeriesID == "" || doc.RecurrenceID == nil || !ok || len(rows[doc.SeriesID]) == 0 {
		return nil
	}
	at := *doc.RecurrenceID
	if slices.ContainsFunc(append(slices.Clone(series.Moved), series.ExDates...), at.Equal) {
		return nil
	}
	_, err := s.update(ctx, doc.GroupID, &AppointmentDetail{Doc: Appointment{AppointmentID: doc.SeriesID}}, false, func(d *AppointmentDetail) ([]string, error) {
		if slices.ContainsFunc(d.Doc.Moved, at.Equal) {
			return nil, errUnchanged
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

package groups

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/storage"
)

// GroupBlobsContainer holds the groups' files under groups/{groupId}/
// (appointment JSON, scans): TABLES.md's "familyscheduler".
const GroupBlobsContainer = "familyscheduler"

// PurgeEvery is how often the purge job runs.
const PurgeEvery = time.Hour

// Jobs are the module's background jobs (platform.JobProvider).
func (s *Service) Jobs() []jobs.Job { return []jobs.Job{s.PurgeJob()} }

// PurgeJob is the background job that removes deleted groups past their
// purgeAfterAt.
func (s *Service) PurgeJob() jobs.Job {
	return jobs.Job{Name: "groups-purge", Every: PurgeEvery, Run: s.Purge}
}

// purgeStep removes one kind of a group's data. Each step is idempotent,
// and the Groups row goes last, so a run cut short is finished by the
// next one.
type purgeStep struct {
	name string
	run  func(ctx context.Context, groupID string) error
}

// purgeSteps are the steps in order: the group's chat (while the member
// rows still say whose lists hold it), the member rows (with each
// member's UserGroups row), the join links, the appointments (index and
// participants), the lists (with their items), the blobs. Modules that keep
// more per-group data in this package add their step here.
func (s *Service) purgeSteps() []purgeStep {
	return []purgeStep{
		{"chat", s.purgeChat},
		{"members", s.purgeMembers},
		{"join-sessions", s.purgeJoinSessions},
		{"appointments", s.purgeAppointments},
		{"lists", s.purgeLists},
		{"blobs", s.purgeBlobs},
	}
}

// Purge removes every group whose purgeAfterAt has passed, and returns
// how many it removed. It is idempotent and resumable.
func (s *Service) Purge(ctx context.Context) error {
	_, err := s.purgeDue(ctx)
	return err
}

func (s *Service) purgeDue(ctx context.Context) (int, error) {
	now := s.now()
	deleted, err := storage.All[GroupRow](ctx, s.groups, storage.Query{
		PartitionKey: groupsPartition,
		Filters:      []storage.Filter{{Name: "isDeleted", Op: storage.Eq, Value: true}},
	})
	if err != nil {
		return 0, err
	}
	due := slices.DeleteFunc(deleted, func(g GroupRow) bool { return g.PurgeAfterAt == nil || g.PurgeAfterAt.After(now) })
	for i, g := range due {
		if err := s.purgeGroup(ctx, g); err != nil {
			return i, err
		}
	}
	return len(due), nil
}

// purgeGroup runs every step, then deletes the Groups row under the ETag
// it was listed with, so a group restored meanwhile is kept.
func (s *Service) purgeGroup(ctx context.Context, g GroupRow) error {
	for _, step := range s.purgeSteps() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step.run(ctx, g.GroupID); err != nil {
			return errors.Join(errors.New("groups: purge "+g.GroupID+": "+step.name), err)
		}
	}
	pk, rk := groupKey(g.GroupID)
	err := s.groups.Delete(ctx, pk, rk, g.ETag)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err == nil {
		s.log.InfoContext(ctx, "groups: purged", "group", g.GroupID)
	}
	return err
}

// purgeMembers deletes each member's UserGroups row, then their
// GroupMembers row (in that order: the member row is what finds the
// UserGroups row on a rerun).
func (s *Service) purgeMembers(ctx context.Context, groupID string) error {
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{PartitionKey: groupID})
	if err != nil {
		return err
	}
	for _, row := range rows {
		pk, rk := userGroupKey(userGroupsPartition(row), groupID)
		if err := storage.Forget(ctx, s.userGroups, pk, rk); err != nil {
			return err
		}
		pk, rk = groupMemberKey(groupID, row.RowKey)
		if err := storage.Forget(ctx, s.members, pk, rk); err != nil {
			return err
		}
	}
	return nil
}

// purgeChat has the chat module forget the group's chat, with every
// member's, former ones' too, place of it in their chat list.
func (s *Service) purgeChat(ctx context.Context, groupID string) error {
	if s.chat == nil {
		return nil
	}
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{PartitionKey: groupID})
	if err != nil {
		return err
	}
	var keys []string
	for _, row := range rows {
		if k := memberKeyOf(row); k != "" {
			keys = append(keys, k)
		}
	}
	return s.chat.Forget(ctx, chatID(groupID), keys)
}

// purgeJoinSessions deletes the group's JoinSessions partition.
func (s *Service) purgeJoinSessions(ctx context.Context, groupID string) error {
	return storage.DeletePartition(ctx, s.joinSessions, groupID)
}

// purgeAppointments deletes each appointment's AppointmentParticipants
// partition, then its AppointmentsIndex row (which is what finds the
// participants on a rerun).
func (s *Service) purgeAppointments(ctx context.Context, groupID string) error {
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		var rows []storage.Entity
		err := s.appointments.QueryAll(ctx, storage.Query{PartitionKey: pk, Select: []string{"appointmentId"}}, func(e storage.Entity) error {
			rows = append(rows, e)
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range rows {
			if apptID, _ := e.Props["appointmentId"].(string); apptID != "" {
				if err := storage.DeletePartition(ctx, s.participants, participantsPartition(groupID, apptID)); err != nil {
					return err
				}
				if err := s.comments.DeleteAll(ctx, commentPart(groupID, apptID)); err != nil {
					return err
				}
			}
			if err := storage.Forget(ctx, s.appointments, pk, e.RowKey); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupBlobPrefix is where a group's blobs live.
func groupBlobPrefix(groupID string) string { return "groups/" + groupID + "/" }

// purgeBlobs deletes every blob under groups/{groupId}/.
func (s *Service) purgeBlobs(ctx context.Context, groupID string) error {
	return s.blobs.DeletePrefix(ctx, groupBlobPrefix(groupID))
}

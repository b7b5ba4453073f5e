package groups

import (
	"context"
	"errors"
	"fmt"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
)

// Guests are people who joined by link without an account. Their
// GroupMembers rows are keyed by their memberKey "guest:{gsid}", and so
// are their UserGroups rows (PartitionKey = the guest memberKey, since a
// guest has no userKey): one partition is still a guest's whole
// dashboard. When a guest signs in, UpgradeGuest moves both to the
// account.

var _ auth.GuestUpgrader = (*Service)(nil)

// UpgradeGuest moves a guest's memberships to the account memberKey they
// signed in to (auth calls it at sign-in; register it with
// auth.OnGuestUpgrade). For each group: the account's GroupMembers row
// is written (or, when they were already invited, made active), then its
// UserGroups row, then the guest's appointment participation moves
// (moveParticipation), and only then are the guest's GroupMembers row
// and, last, their UserGroups row deleted. The guest's UserGroups
// partition is what finds the groups, so a failure part way is finished
// by the next call and a second call finds nothing to do. Removed guest
// memberships are not carried over, and their participation is dropped.
func (s *Service) UpgradeGuest(ctx context.Context, guestKey, memberKey string) error {
	if !auth.IsGuestKey(guestKey) || s.profiles == nil {
		return nil
	}
	account, err := s.accountIdentity(ctx, memberKey)
	if err != nil {
		return fmt.Errorf("groups: upgrade guest: %w", err)
	}
	return s.moveMemberships(ctx, guestKey, account)
}

// LinkEmail moves the memberships an account held under its derived
// userKey (auth.MemberUserKey, before it had a verified email) to the
// userKey of the email it has just verified, where invitations to that
// address wait (auth calls it; register it with auth.OnEmailLinked). The
// memberKey stays, so appointment participation needs no move. An
// invitation to the address and an active membership under the old key
// become one active membership.
func (s *Service) LinkEmail(ctx context.Context, memberKey, email, fromUserKey string) error {
	account, err := s.accountIdentity(ctx, memberKey)
	if err != nil {
		return fmt.Errorf("groups: link email: %w", err)
	}
	account.Email, account.UserKey = email, auth.UserKey(email)
	return s.moveMemberships(ctx, fromUserKey, account)
}

// accountIdentity is the account memberKey as its memberships name it:
// the userKey of its verified email, or the derived one without.
func (s *Service) accountIdentity(ctx context.Context, memberKey string) (*auth.Identity, error) {
	if s.profiles == nil {
		return nil, errors.New("no profiles to read the account from")
	}
	p, err := s.profiles.Profile(ctx, memberKey)
	if err != nil {
		return nil, fmt.Errorf("account profile: %w", err)
	}
	account := &auth.Identity{MemberKey: memberKey, UserKey: auth.MemberUserKey(memberKey), DisplayName: p.DisplayName}
	if email, err := auth.NormalizeEmail(p.Email); err == nil {
		account.UserKey, account.Email = auth.UserKey(email), email
	}
	return account, nil
}

// moveMemberships moves every membership listed in the UserGroups
// partition from (a guest's memberKey, or an account's derived userKey)
// to account, group by group (upgradeMembership).
func (s *Service) moveMemberships(ctx context.Context, from string, account *auth.Identity) error {
	if from == account.UserKey {
		return nil
	}
	var groupIDs []string
	err := s.userGroups.QueryAll(ctx, storage.Query{PartitionKey: from}, func(e storage.Entity) error {
		groupIDs = append(groupIDs, e.RowKey)
		return nil
	})
	if err != nil {
		return err
	}
	for _, groupID := range groupIDs {
		if err := s.upgradeMembership(ctx, groupID, from, account); err != nil {
			return err
		}
	}
	return nil
}

// upgradeMembership moves one group's membership row keyed by from (a
// guest's memberKey, or an account's derived userKey) to account.
func (s *Service) upgradeMembership(ctx context.Context, groupID, from string, account *auth.Identity) error {
	old, err := s.memberRow(ctx, groupID, from)
	if errors.Is(err, ErrNoMember) {
		// Moved already: only the old UserGroups row is left.
		pk, rk := userGroupKey(from, groupID)
		return storage.Forget(ctx, s.userGroups, pk, rk)
	}
	if err != nil {
		return err
	}
	to := "" // a removed guest's participation is dropped
	if old.Status == StatusActive {
		active, err := s.carryOver(ctx, old, account)
		if err != nil {
			return err
		}
		if active {
			to = account.MemberKey
		}
	}
	if auth.IsGuestKey(from) {
		// Participation is keyed by memberKey, which only a guest's move
		// changes.
		if err := s.moveParticipation(ctx, groupID, from, to); err != nil {
			return err
		}
	}
	pk, rk := groupMemberKey(groupID, from)
	if err := storage.Forget(ctx, s.members, pk, rk); err != nil {
		return err
	}
	if old.Status == StatusActive && auth.IsGuestKey(from) {
		s.refreshColors(ctx, groupID) // the member has another key now
	}
	pk, rk = userGroupKey(from, groupID)
	return storage.Forget(ctx, s.userGroups, pk, rk)
}

// carryOver makes account an active member of the guest's group, keeping
// the better of the two roles and the guest's join date and link, and
// reports whether it is one. An account the owners removed stays removed:
// joining by a link as a guest and then signing in does not undo a
// removal, as a link does not (ErrJoinRemoved), unless the membership
// moving is an owner's (they own the group under the key they leave, and
// a group is never left without its owner). An invitation that ended
// and a membership left are no removal (MemberRow.barred).
func (s *Service) carryOver(ctx context.Context, guest MemberRow, account *auth.Identity) (bool, error) {
	groupID := guest.PartitionKey
	pk, rk := groupMemberKey(groupID, account.UserKey)
	row := guest
	row.PartitionKey, row.RowKey, row.ETag = pk, rk, ""
	row.UserKey, row.MemberKey, row.Email = account.UserKey, account.MemberKey, account.Email
	if account.DisplayName != "" {
		row.DisplayName = account.DisplayName
	}
	row.UpdatedAt = s.now().UTC()
	err := s.insertMember(ctx, row)
	if errors.Is(err, storage.ErrExists) {
		active := false
		_, err = s.changeMember(ctx, groupID, account.UserKey, func(r *MemberRow) error {
			active = r.Status == StatusActive
			if active || r.barred() && guest.Role != RoleOwner {
				return storage.ErrNoChange
			}
			// Invited, an invitation that ended, left: the guest's active
			// membership is the answer.
			r.Status, r.JoinedAt, r.JoinedVia = StatusActive, guest.JoinedAt, guest.JoinedVia
			r.MemberKey, r.Role, r.RemovedAt, r.Left = account.MemberKey, guest.Role, nil, false
			active = true
			return nil
		})
		if errors.Is(err, storage.ErrNoChange) {
			err = nil
		}
		return active, err
	}
	if err != nil {
		return false, err
	}
	return true, s.mirror(ctx, row)
}

// moveParticipation hands the guest's part in the group's appointments
// to memberKey, or drops it when memberKey is "": their
// AppointmentParticipants row moves (moveParticipant), and an index row
// they created names memberKey as its creator, so the account keeps the
// right to delete it. Deleted appointments are included, so nothing
// stays under the guest key. There is no per-member index of
// appointments: this reads the group's index partitions once (its
// appointments' and its series') and each appointment's guest row by
// point read, metaReads at a time, which an upgrade (once per guest and
// group) can afford.
func (s *Service) moveParticipation(ctx context.Context, groupID, guestKey, memberKey string) error {
	var rows []AppointmentIndexRow
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		some, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{PartitionKey: pk, Select: []string{"appointmentId", "createdBy"}})
		if err != nil {
			return err
		}
		rows = append(rows, some...)
	}
	return storage.Each(ctx, len(rows), metaReads, func(ctx context.Context, i int) error {
		row := rows[i]
		if err := s.moveParticipant(ctx, groupID, row.AppointmentID, guestKey, memberKey); err != nil {
			return err
		}
		if memberKey == "" || row.CreatedBy != guestKey {
			return nil
		}
		return s.moveCreator(ctx, row.PartitionKey, row.RowKey, guestKey, memberKey)
	})
}

// moveParticipant replaces the guest's participant row of one
// appointment with memberKey's in one transaction of the appointment's
// partition (the delete of the guest row at its ETag, the account's row
// inserted or updated at its ETag), so the move is all or nothing and a
// concurrent edit of the participants makes it start over. When the
// account takes part already it keeps its row, and becomes responsible
// if the guest was.
func (s *Service) moveParticipant(ctx context.Context, groupID, appointmentID, guestKey, memberKey string) error {
	if appointmentID == "" {
		return nil
	}
	return storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		pk, guestRK := participantKey(groupID, appointmentID, guestKey)
		guest, err := storage.Get[ParticipantRow](ctx, s.participants, pk, guestRK)
		if errors.Is(err, storage.ErrNotFound) {
			return nil // not a participant, or moved already
		}
		if err != nil {
			return err
		}
		ops := []storage.TxOp{{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: guestRK}, IfMatch: guest.ETag}}
		if memberKey != "" {
			op, ok, err := s.takeOverParticipant(ctx, groupID, appointmentID, guest, memberKey)
			if err != nil {
				return err
			}
			if ok {
				ops = append(ops, op)
			}
		}
		return s.participants.Transact(ctx, ops)
	})
}

// takeOverParticipant is the write that gives memberKey the guest's
// participant row: an insert of a copy, or, when memberKey takes part
// already, an update that makes them responsible if the guest was
// (ok is false when their row needs no change).
func (s *Service) takeOverParticipant(ctx context.Context, groupID, appointmentID string, guest ParticipantRow, memberKey string) (op storage.TxOp, ok bool, err error) {
	pk, rk := participantKey(groupID, appointmentID, memberKey)
	row, kind, ifMatch := guest, storage.TxInsert, ""
	e, err := s.participants.Get(ctx, pk, rk)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return storage.TxOp{}, false, err
	default:
		if guest.Role != RoleResponsible {
			return storage.TxOp{}, false, nil
		}
		if err := storage.Unmarshal(e, &row); err != nil {
			return storage.TxOp{}, false, err
		}
		row.Role, row.AssignedAt, row.AssignedBy = RoleResponsible, guest.AssignedAt, guest.AssignedBy
		kind, ifMatch = storage.TxUpdate, row.ETag
	}
	row.RowKey, row.MemberKey, row.ETag, row.UpdatedAt = rk, memberKey, "", s.now().UTC()
	e, err = storage.Marshal(row)
	if err != nil {
		return storage.TxOp{}, false, err
	}
	return storage.TxOp{Kind: kind, Entity: e, Mode: storage.Replace, IfMatch: ifMatch}, true, nil
}

// moveCreator makes memberKey the creator of an index row the guest
// created, at the row's ETag. A row gone meanwhile was purged, or moved
// by an edit of the start that copied the guest as creator: that race
// leaves the copy to owners' delete rights.
func (s *Service) moveCreator(ctx context.Context, pk, rk, guestKey, memberKey string) error {
	return storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		e, err := s.appointments.Get(ctx, pk, rk)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if by, _ := e.Props["createdBy"].(string); by != guestKey {
			return nil
		}
		_, err = s.appointments.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"createdBy": memberKey}}, storage.Merge, e.ETag)
		return err
	})
}

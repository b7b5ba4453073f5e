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
// UserGroups row, and only then are the guest's two rows deleted, so a
// failure part way is finished by the next call and a second call finds
// nothing to do. Removed guest memberships are not carried over.
func (s *Service) UpgradeGuest(ctx context.Context, guestKey, memberKey string) error {
	if !auth.IsGuestKey(guestKey) || s.profiles == nil {
		return nil
	}
	p, err := s.profiles.Profile(ctx, memberKey)
	if err != nil {
		return fmt.Errorf("groups: upgrade guest: account profile: %w", err)
	}
	email, err := auth.NormalizeEmail(p.Email)
	if err != nil {
		// An account without an address has no userKey to hold
		// memberships; the guest rows stay as they are.
		s.log.WarnContext(ctx, "groups: guest upgraded to an account without email; memberships kept under the guest key", "member", memberKey)
		return nil
	}
	account := &auth.Identity{MemberKey: memberKey, UserKey: auth.UserKey(email), Email: email, DisplayName: p.DisplayName}
	var groupIDs []string
	err = s.userGroups.QueryAll(ctx, storage.Query{PartitionKey: guestKey}, func(e storage.Entity) error {
		groupIDs = append(groupIDs, e.RowKey)
		return nil
	})
	if err != nil {
		return err
	}
	for _, groupID := range groupIDs {
		if err := s.upgradeMembership(ctx, groupID, guestKey, account); err != nil {
			return err
		}
	}
	return nil
}

// upgradeMembership moves one group's guest membership to account.
func (s *Service) upgradeMembership(ctx context.Context, groupID, guestKey string, account *auth.Identity) error {
	guest, err := s.memberRow(ctx, groupID, guestKey)
	if errors.Is(err, ErrNoMember) {
		// Moved already: only the guest's UserGroups row is left.
		pk, rk := userGroupKey(guestKey, groupID)
		return deleteRow(ctx, s.userGroups, pk, rk)
	}
	if err != nil {
		return err
	}
	if guest.Status == StatusActive {
		if err := s.carryOver(ctx, guest, account); err != nil {
			return err
		}
	}
	pk, rk := userGroupKey(guestKey, groupID)
	if err := deleteRow(ctx, s.userGroups, pk, rk); err != nil {
		return err
	}
	pk, rk = groupMemberKey(groupID, guestKey)
	return deleteRow(ctx, s.members, pk, rk)
}

// carryOver makes account an active member of the guest's group, keeping
// the better of the two roles and the guest's join date and link.
func (s *Service) carryOver(ctx context.Context, guest MemberRow, account *auth.Identity) error {
	groupID := guest.PartitionKey
	pk, rk := groupMemberKey(groupID, account.UserKey)
	row := guest
	row.PartitionKey, row.RowKey, row.ETag = pk, rk, ""
	row.UserKey, row.MemberKey, row.Email = account.UserKey, account.MemberKey, account.Email
	if account.DisplayName != "" {
		row.DisplayName = account.DisplayName
	}
	row.UpdatedAt = s.now().UTC()
	err := insertRow(ctx, s.members, row)
	if errors.Is(err, storage.ErrExists) {
		_, err = s.changeMember(ctx, groupID, account.UserKey, func(r *MemberRow) error {
			if r.Status == StatusActive {
				return nil
			}
			// Invited, or removed as an account but admitted as a guest
			// by the link since: the guest's active membership wins.
			r.Status, r.JoinedAt, r.JoinedVia, r.RemovedAt = StatusActive, guest.JoinedAt, guest.JoinedVia, nil
			r.MemberKey, r.Role = account.MemberKey, guest.Role
			return nil
		})
		return err
	}
	if err != nil {
		return err
	}
	return s.mirror(ctx, row)
}

package groups

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
)

// memberRow reads one GroupMembers row.
func (s *Service) memberRow(ctx context.Context, groupID, rowKey string) (MemberRow, error) {
	pk, rk := groupMemberKey(groupID, rowKey)
	row, err := storage.Find[MemberRow](ctx, s.members, pk, rk, ErrNoMember)
	return row, err
}

// mirror copies a member row's status and dates into the person's
// UserGroups row, the dashboard's index. GroupMembers is written first
// and is the truth; an error here is returned so the caller retries,
// and every step is idempotent.
func (s *Service) mirror(ctx context.Context, row MemberRow) error {
	return s.memberships.Sync(ctx, nil, &row)
}

// insertMember inserts a new member row, its mirror's intent recorded in
// it (projection.Intend); mirror writes the mirror after.
func (s *Service) insertMember(ctx context.Context, row MemberRow) error {
	row.Mirrored = "" // a new row: nothing is mirrored yet
	if err := s.memberships.Intend(&row); err != nil {
		return err
	}
	_, err := storage.Insert(ctx, s.members, row)
	return err
}

// addMember adds who (their keys, email and name) to groupID under
// rowKey with status (active: joined now; invited: invited now) and role,
// and mirrors the row.
func (s *Service) addMember(ctx context.Context, groupID, rowKey string, status Status, role Role, who MemberRow, now time.Time) error {
	who.PartitionKey, who.RowKey = groupMemberKey(groupID, rowKey)
	who.Status, who.Role, who.UpdatedAt = status, role, now
	if status == StatusInvited {
		who.InvitedAt = timePtr(now)
	} else {
		who.JoinedAt = timePtr(now)
	}
	if err := s.insertMember(ctx, who); err != nil {
		return err
	}
	if err := s.mirror(ctx, who); err != nil {
		// The member row stands; its mirror waits for a repair.
		return fmt.Errorf("%w: %w", projection.ErrBehind, err)
	}
	return nil
}

// membershipProjection is UserGroups as a projection of GroupMembers:
// each member row (invited, active or removed) has one mirror row in the
// person's partition, which the dashboard reads.
func (s *Service) membershipProjection() *projection.Projection[MemberRow] {
	return &projection.Projection[MemberRow]{
		Canonical: s.members,
		Derived:   []*storage.Table{s.userGroups},
		Recorded:  "mirrored",
		Rows: func(row MemberRow) ([]projection.Row, error) {
			pk, rk := userGroupKey(userGroupsPartition(row), row.PartitionKey)
			r, err := projection.RowOf(s.userGroups, UserGroupRow{
				PartitionKey: pk, RowKey: rk, GroupID: row.PartitionKey,
				Status: row.Status, InvitedAt: row.InvitedAt, JoinedAt: row.JoinedAt,
				RemovedAt: row.RemovedAt, UpdatedAt: row.UpdatedAt,
			})
			return []projection.Row{r}, err
		},
	}
}

// RebuildSubject and Rebuild make the mirror's repair one of the app's
// rebuilds (platform.Rebuilder): web reindex groups, and the admin
// button.
func (s *Service) RebuildSubject() string { return "groups" }

// Rebuild recomputes UserGroups from GroupMembers (missing and stale
// mirror rows are written, rows without a member row deleted), then
// brings every group's appointment rows, participants and series up to
// their blobs (repair.go), and recomputes its summary of what comes
// next (upcoming.go) and the colours its members were given
// (colors.go).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	r, err := s.memberships.Rebuild(ctx)
	if err != nil {
		return r, err
	}
	report := RebuildReport{Report: r}
	err = s.groups.QueryAll(ctx, storage.Query{PartitionKey: groupsPartition, Select: []string{"isDeleted"}}, func(e storage.Entity) error {
		if deleted, _ := e.Props["isDeleted"].(bool); deleted {
			return nil
		}
		fixed, err := s.repairAppointments(ctx, e.RowKey)
		report.Appointments = report.Appointments.Add(fixed)
		if err != nil {
			return err
		}
		s.refreshUpcoming(ctx, e.RowKey)
		s.refreshColors(ctx, e.RowKey)
		report.Summaries++
		n, err := s.rescheduleReminders(ctx, e.RowKey)
		report.Reminders += n
		return err
	})
	return report, err
}

// RebuildReport says what the groups rebuild did: the mirror's report,
// the appointments it repaired, how many group summaries it recomputed
// and how many reminders it queued again.
type RebuildReport struct {
	projection.Report
	Appointments         AppointmentRepairs
	Summaries, Reminders int
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("%s; %s; %d group summaries recomputed; %d reminders queued", r.Report, r.Appointments, r.Summaries, r.Reminders)
}

// RepairMembership rewrites one member row's mirror from what is stored:
// the repair of a member write that stopped before its mirror.
func (s *Service) RepairMembership(ctx context.Context, groupID, rowKey string) error {
	pk, rk := groupMemberKey(groupID, rowKey)
	return s.memberships.Repair(ctx, pk, rk)
}

// changeMember applies change to a member row under its ETag and mirrors
// the result into UserGroups. change returns an error to abandon.
func (s *Service) changeMember(ctx context.Context, groupID, rowKey string, change func(row *MemberRow) error) (MemberRow, error) {
	pk, rk := groupMemberKey(groupID, rowKey)
	return s.memberships.Change(ctx, pk, rk, ErrNoMember, func(row *MemberRow) error {
		if err := change(row); err != nil {
			return err
		}
		row.UpdatedAt = s.now().UTC()
		return nil
	})
}

// Invite invites email to the group, as an owner: the GroupMembers row
// (status invited, keyed by the address's userKey, so no account is
// needed), its UserGroups mirror, and a mail with the link. Inviting an
// invited address again is a resend (with its cooldown); inviting a
// removed one invites them afresh.
func (s *Service) Invite(ctx context.Context, m Membership, g GroupRow, by *auth.Identity, email string) (MemberRow, error) {
	if !m.Owner() {
		return MemberRow{}, ErrNotOwner
	}
	email, err := auth.NormalizeEmail(email)
	if err != nil {
		return MemberRow{}, ErrEmail
	}
	release, err := s.reserveInvite(ctx, by.MemberKey)
	if err != nil {
		return MemberRow{}, err
	}
	row, sent, err := s.invite(ctx, g, by, email)
	if !sent {
		release()
	}
	return row, err
}

// invite is Invite within the inviter's quota; sent reports whether a mail
// went out (or would have, without a mailer).
func (s *Service) invite(ctx context.Context, g GroupRow, by *auth.Identity, email string) (_ MemberRow, sent bool, err error) {
	userKey := auth.UserKey(email)
	now := s.now().UTC()
	pk, rk := groupMemberKey(g.GroupID, userKey)
	fresh := MemberRow{
		PartitionKey: pk, RowKey: rk, UserKey: userKey, Email: email,
		Status: StatusInvited, Role: RoleMember,
		InvitedAt: timePtr(now), InvitedByUserKey: by.UserKey, InviteSentAt: timePtr(now),
		UpdatedAt: now,
	}
	err = s.insertMember(ctx, fresh)
	if errors.Is(err, storage.ErrExists) {
		var row MemberRow
		reinvited := false
		row, err = s.changeMember(ctx, g.GroupID, userKey, func(row *MemberRow) error {
			reinvited = false // a retry starts over
			switch row.Status {
			case StatusActive:
				return ErrAlreadyMember
			case StatusInvited:
				if row.InviteSentAt != nil && now.Sub(*row.InviteSentAt) < ResendCooldown {
					return ErrCooldown
				}
			case StatusRemoved:
				// Cancelling an invitation and inviting again is a resend
				// too: the cooldown holds, or the pair would mail a
				// stranger as fast as the inviter's quota allows.
				if row.InviteSentAt != nil && now.Sub(*row.InviteSentAt) < ResendCooldown {
					return ErrCooldown
				}
				row.Status, row.Role, row.RemovedAt, row.JoinedAt = StatusInvited, RoleMember, nil, nil
				row.InvitedAt = timePtr(now)
				reinvited = true
			}
			row.InvitedByUserKey = by.UserKey
			row.InviteSentAt = timePtr(now)
			return nil
		})
		if err != nil {
			return MemberRow{}, false, err
		}
		if reinvited {
			s.counts.Add(ctx, InvitesSent)
		}
		err = s.sendInvite(ctx, g, by, row.Email)
		return row, err == nil, err
	}
	if err != nil {
		return MemberRow{}, false, err
	}
	if err := s.mirror(ctx, fresh); err != nil {
		return MemberRow{}, false, err
	}
	s.counts.Add(ctx, InvitesSent)
	err = s.sendInvite(ctx, g, by, email)
	return fresh, err == nil, err
}

// Resend mails a pending invitation again, at most once per
// ResendCooldown.
func (s *Service) Resend(ctx context.Context, m Membership, g GroupRow, by *auth.Identity, userKey string) error {
	if !m.Owner() {
		return ErrNotOwner
	}
	release, err := s.reserveInvite(ctx, by.MemberKey)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	row, err := s.changeMember(ctx, g.GroupID, userKey, func(row *MemberRow) error {
		if row.Status != StatusInvited {
			return ErrNoMember
		}
		if row.InviteSentAt != nil && now.Sub(*row.InviteSentAt) < ResendCooldown {
			return ErrCooldown
		}
		row.InviteSentAt = timePtr(now)
		return nil
	})
	if err != nil {
		release()
		return err
	}
	if err := s.sendInvite(ctx, g, by, row.Email); err != nil {
		release()
		return err
	}
	return nil
}

// InviteURL is the link an invitation mail carries.
func (s *Service) InviteURL(groupID string) string {
	return s.baseURL + invitePath(groupID)
}

// invitePath is an invitation's page.
func invitePath(groupID string) string { return "/groups/" + url.PathEscape(groupID) + "/invite" }

// sendInvite tells the invitee: in their inbox when the address has an
// account, and by email in the inviter's language otherwise (or as the
// invitee's settings allow). Without a notifier the invitation stands and
// the owner can share the link.
func (s *Service) sendInvite(ctx context.Context, g GroupRow, by *auth.Identity, to string) error {
	if s.notifier == nil {
		return nil
	}
	err := s.notifier.Post(ctx, inbox.Notice{
		To:   []inbox.Recipient{{Email: to}},
		Kind: "groups.notify.invited",
		Args: map[string]string{"name": by.DisplayName, "group": g.GroupName, "email": to},
		Link: invitePath(g.GroupID),
		From: by.MemberKey,
	})
	if err != nil {
		return fmt.Errorf("groups: invitation saved but not sent: %w", err)
	}
	return nil
}

// Cancel withdraws a pending invitation (status removed).
func (s *Service) Cancel(ctx context.Context, m Membership, userKey string) error {
	return s.ownerChange(ctx, m, userKey, StatusInvited, s.markRemoved)
}

// ownerChange is an owner's change of userKey's row, which must have
// status (ErrNoMember otherwise).
func (s *Service) ownerChange(ctx context.Context, m Membership, userKey string, status Status, change func(row *MemberRow)) error {
	if !m.Owner() {
		return ErrNotOwner
	}
	_, err := s.changeMember(ctx, m.GroupID, userKey, func(row *MemberRow) error {
		if row.Status != status {
			return ErrNoMember
		}
		change(row)
		return nil
	})
	return err
}

func (s *Service) markRemoved(row *MemberRow) {
	row.Status = StatusRemoved
	row.RemovedAt = timePtr(s.now().UTC())
}

// Accept makes the invitee active, with joinedAt, their memberKey and
// display name: an account invited by address, or a guest invited under
// their guest key (a group started from a join link, SpinOff).
func (s *Service) Accept(ctx context.Context, m Membership, id *auth.Identity) (MemberRow, error) {
	if m.Row.RowKey != memberRowKey(id) {
		return MemberRow{}, ErrNotInvitee
	}
	accepted := false
	row, err := s.changeMember(ctx, m.GroupID, m.Row.RowKey, func(row *MemberRow) error {
		accepted = false // a retry starts over
		switch row.Status {
		case StatusActive:
			return nil // a second click changes nothing
		case StatusRemoved:
			return ErrNotInvitee
		}
		row.Status = StatusActive
		row.JoinedAt = timePtr(s.now().UTC())
		row.MemberKey = id.MemberKey
		row.DisplayName = id.DisplayName
		accepted = true
		return nil
	})
	if err == nil && accepted {
		s.counts.Add(ctx, InvitesAccepted)
		s.refreshColors(ctx, m.GroupID)
	}
	return row, err
}

// Decline turns the invitation down (status removed).
func (s *Service) Decline(ctx context.Context, m Membership, id *auth.Identity) error {
	if m.Row.RowKey != memberRowKey(id) {
		return ErrNotInvitee
	}
	_, err := s.changeMember(ctx, m.GroupID, m.Row.RowKey, func(row *MemberRow) error {
		if row.Status != StatusInvited {
			return ErrNotInvitee
		}
		s.markRemoved(row)
		return nil
	})
	if err != nil {
		return err
	}
	s.notifyOwners(ctx, m.GroupID, "groups.notify.declined", id)
	return nil
}

// notifyOwners tells the group's active owners what id did. The change is
// saved already, so a failure is logged, not returned.
func (s *Service) notifyOwners(ctx context.Context, groupID, kind string, id *auth.Identity) {
	if s.notifier == nil {
		return
	}
	owners, err := storage.All[MemberRow](ctx, s.members, storage.Query{
		PartitionKey: groupID,
		Filters: []storage.Filter{
			{Name: "role", Op: storage.Eq, Value: RoleOwner},
			{Name: "status", Op: storage.Eq, Value: StatusActive},
		},
	})
	var to []inbox.Recipient
	for _, o := range owners {
		if o.MemberKey != "" {
			to = append(to, inbox.Recipient{MemberKey: o.MemberKey})
		}
	}
	var g GroupRow
	if err == nil && len(to) > 0 {
		if g, err = s.group(ctx, groupID); err == nil {
			err = s.notifier.Post(ctx, inbox.Notice{
				To: to, Kind: kind, Link: groupURL(groupID) + "/members",
				Args:  map[string]string{"name": id.DisplayName, "group": g.GroupName},
				Names: map[string]string{"name": id.MemberKey},
			})
		}
	}
	if err != nil {
		s.log.WarnContext(ctx, "groups: owners not told", "kind", kind, "err", err)
	}
}

// ErrGuestOwner refuses making a guest an owner (409): owners invite by
// email, see members' addresses and answer for the group, which takes an
// account.
var ErrGuestOwner = fault.New(http.StatusConflict, "groups.error.guest_owner", "groups: a guest cannot be an owner")

// Promote makes an active member with an account an owner.
func (s *Service) Promote(ctx context.Context, m Membership, userKey string) error {
	if auth.IsGuestKey(userKey) {
		return ErrGuestOwner
	}
	return s.ownerChange(ctx, m, userKey, StatusActive, func(row *MemberRow) { row.Role = RoleOwner })
}

// Remove takes an active member out of the group, as an owner. An owner
// other than the last may be removed; removing yourself is Leave.
func (s *Service) Remove(ctx context.Context, m Membership, userKey string) error {
	if !m.Owner() {
		return ErrNotOwner
	}
	return s.leave(ctx, m.GroupID, userKey, false)
}

// Leave takes the member out of the group. The last owner must hand over
// (promote someone) first.
// SoleOwner reports whether m is the group's only active owner, who may
// not leave (the group would have no owner): the page offers them no
// "Leave" button.
func (s *Service) SoleOwner(ctx context.Context, m Membership) (bool, error) {
	if !m.Owner() {
		return false, nil
	}
	_, err := s.otherOwner(ctx, m.GroupID, m.Row.RowKey)
	if errors.Is(err, ErrLastOwner) {
		return true, nil
	}
	return false, err
}

func (s *Service) Leave(ctx context.Context, m Membership) error {
	return s.leave(ctx, m.GroupID, m.Row.RowKey, true)
}

// leave marks an active member removed (ownerKept), by the owners or of
// their own accord (self: MemberRow.Left), and tells the group's chat,
// which ends their open chat streams.
func (s *Service) leave(ctx context.Context, groupID, rowKey string, self bool) error {
	var left MemberRow
	err := s.ownerKept(ctx, groupID, rowKey, func(row *MemberRow) error {
		s.markRemoved(row)
		row.Left = self
		left = *row
		return nil
	})
	if err != nil {
		return err
	}
	s.refreshColors(ctx, groupID)
	if s.chat != nil && left.MemberKey != "" {
		s.chat.Left(ctx, chatID(groupID), left.MemberKey, left.DisplayName)
	}
	return nil
}

// Demote makes an owner a plain member again, as another owner. The
// group keeps at least one owner (ownerKept).
func (s *Service) Demote(ctx context.Context, m Membership, userKey string) error {
	if !m.Owner() {
		return ErrNotOwner
	}
	return s.ownerKept(ctx, m.GroupID, userKey, func(row *MemberRow) error {
		if row.Role != RoleOwner {
			return ErrNoMember
		}
		row.Role = RoleMember
		return nil
	})
}

// ownerKept changes an active member's row with change. When they are
// an owner, the write goes in one transaction with a touch of another
// active owner's row under its ETag, so two owners leaving or demoting
// each other at once cannot both succeed and leave the group without
// an owner.
func (s *Service) ownerKept(ctx context.Context, groupID, rowKey string, change func(*MemberRow) error) error {
	var out MemberRow
	err := storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		row, err := s.memberRow(ctx, groupID, rowKey)
		if err != nil {
			return err
		}
		if row.Status != StatusActive {
			return ErrNoMember
		}
		wasOwner := row.Role == RoleOwner
		if err := change(&row); err != nil {
			return err
		}
		row.UpdatedAt = s.now().UTC()
		if err := s.memberships.Intend(&row); err != nil {
			return err
		}
		if !wasOwner {
			etag, err := storage.Update(ctx, s.members, row, row.ETag)
			row.ETag = etag
			out = row
			return err
		}
		other, err := s.otherOwner(ctx, groupID, rowKey)
		if err != nil {
			return err
		}
		var tx storage.Tx
		err = tx.Replace(row, row.ETag).Replace(other, other.ETag).Commit(ctx, s.members)
		out = row
		return err
	})
	if err != nil {
		return err
	}
	return s.mirror(ctx, out)
}

// otherOwner finds an active owner of the group other than rowKey, or
// ErrLastOwner. It reads the group's partition, which holds one row per
// person ever invited.
func (s *Service) otherOwner(ctx context.Context, groupID, rowKey string) (MemberRow, error) {
	return storage.First(ctx, s.members, storage.Query{
		PartitionKey: groupID,
		Filters: []storage.Filter{
			{Name: "role", Op: storage.Eq, Value: RoleOwner},
			{Name: "status", Op: storage.Eq, Value: StatusActive},
		},
	}, func(row MemberRow) bool { return row.RowKey != rowKey }, ErrLastOwner)
}

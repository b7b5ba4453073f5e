package groups

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// A member's data in Groups. Their memberships go: the GroupMembers row
// (an invitation to them too) and its UserGroups mirror, found by their
// UserGroups partitions (the userKey of their address, or the one
// derived from their memberKey without one). A group they own alone
// passes first to its longest-standing member with an account, or, with
// none, is deleted as an owner deletes it (the purge removes it later).
// What the group relies on stays, by memberdata.Forgotten with no name:
// appointments they made or changed (the blob and its index row), list
// items they added or ticked, lists they started, join links they made,
// their comments (comments.Thread.ForgetAuthor), and the "invited by"
// of others' invitations (a pending one they sent is withdrawn). Their
// place among an appointment's participants goes, and with it their
// reminders; their colour, and their day counters.

// memberships are the UserGroups partitions that may hold m's groups.
func memberships(m memberdata.Member) []string {
	keys := []string{auth.MemberUserKey(m.Key)}
	if m.UserKey != "" && m.UserKey != keys[0] {
		keys = append(keys, m.UserKey)
	}
	return keys
}

// exportedMembership is one group in the member's archive.
type exportedMembership struct {
	Group    string     `json:"group"`
	Role     string     `json:"role"`
	Status   string     `json:"status"`
	JoinedAt *time.Time `json:"joined_at,omitempty"`
}

// exportedAppointment is an appointment the member made.
type exportedAppointment struct {
	Group    string    `json:"group"`
	Title    string    `json:"title"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Location string    `json:"location,omitempty"`
	Notes    string    `json:"notes,omitempty"`
}

// exportedItem is a list item the member added.
type exportedItem struct {
	Group string    `json:"group"`
	List  string    `json:"list"`
	Text  string    `json:"text"`
	At    time.Time `json:"at"`
}

// exportedComment is a comment the member wrote on an appointment.
type exportedComment struct {
	Body string    `json:"body"`
	At   time.Time `json:"at"`
}

// ExportMember writes groups/memberships.json, groups/appointments.json
// (those they made), groups/list_items.json (those they added) and
// groups/comments.json (memberdata.Exporter).
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	out := struct {
		memberships  []exportedMembership
		appointments []exportedAppointment
		items        []exportedItem
	}{[]exportedMembership{}, []exportedAppointment{}, []exportedItem{}}
	err := s.eachGroup(ctx, m, func(g GroupRow, row MemberRow) error {
		out.memberships = append(out.memberships, exportedMembership{Group: g.GroupName, Role: row.Role, Status: row.Status, JoinedAt: row.JoinedAt})
		rows, err := s.indexRows(ctx, g.GroupID)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.CreatedBy != m.Key || r.IsDeleted {
				continue
			}
			doc, err := s.appointmentDoc(ctx, g.GroupID, r.AppointmentID)
			if errors.Is(err, ErrNoAppointment) {
				continue
			}
			if err != nil {
				return err
			}
			out.appointments = append(out.appointments, exportedAppointment{Group: g.GroupName, Title: doc.Title, Start: doc.Start, End: doc.End, Location: doc.Location, Notes: doc.Notes})
		}
		return s.eachList(ctx, g.GroupID, func(l ListRow) error {
			return s.listItems.QueryAll(ctx, storage.Query{PartitionKey: l.ListID, RowKeyPrefix: itemKeyPrefix}, func(e storage.Entity) error {
				var it ListItemRow
				if err := storage.Unmarshal(e, &it); err != nil || it.AddedBy != m.Key {
					return err
				}
				out.items = append(out.items, exportedItem{Group: g.GroupName, List: l.Name, Text: it.Text, At: it.AddedAt})
				return nil
			})
		})
	})
	if err != nil {
		return err
	}
	written, err := s.comments.Authored(ctx, m.Key)
	if err != nil {
		return err
	}
	comments := []exportedComment{}
	for _, c := range written {
		if !c.Deleted {
			comments = append(comments, exportedComment{Body: c.Body, At: c.CreatedAt})
		}
	}
	return memberdata.Files(to, "groups", map[string]any{
		"memberships": out.memberships, "appointments": out.appointments, "list_items": out.items, "comments": comments,
	})
}

// eachGroup calls f with each group m has a membership row in (any
// status), and the row.
func (s *Service) eachGroup(ctx context.Context, m memberdata.Member, f func(g GroupRow, row MemberRow) error) error {
	for _, key := range memberships(m) {
		groupIDs, err := s.groupsOf(ctx, key)
		if err != nil {
			return err
		}
		for _, id := range groupIDs {
			row, err := s.memberRow(ctx, id, key)
			if errors.Is(err, ErrNoMember) {
				continue
			}
			if err != nil {
				return err
			}
			pk, rk := groupKey(id)
			g, err := storage.Find[GroupRow](ctx, s.groups, pk, rk, ErrNoGroup)
			if errors.Is(err, ErrNoGroup) {
				continue
			}
			if err != nil {
				return err
			}
			if err := f(g, row); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupsOf are the groups in a UserGroups partition.
func (s *Service) groupsOf(ctx context.Context, partition string) ([]string, error) {
	var ids []string
	err := s.userGroups.QueryAll(ctx, storage.Query{PartitionKey: partition, Select: []string{"RowKey"}}, func(e storage.Entity) error {
		ids = append(ids, e.RowKey)
		return nil
	})
	return ids, err
}

// indexRows are every index row of a group, deleted ones too: its
// appointments' partition and its series'.
func (s *Service) indexRows(ctx context.Context, groupID string) ([]AppointmentIndexRow, error) {
	var rows []AppointmentIndexRow
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		some, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{PartitionKey: pk})
		if err != nil {
			return nil, err
		}
		rows = append(rows, some...)
	}
	return rows, nil
}

// eachList calls f with each of a group's lists (not its head).
func (s *Service) eachList(ctx context.Context, groupID string, f func(ListRow) error) error {
	lists, err := storage.All[ListRow](ctx, s.lists, storage.Query{PartitionKey: groupID, RowKeyPrefix: listKeyPrefix})
	if err != nil {
		return err
	}
	for _, l := range lists {
		if err := f(l); err != nil {
			return err
		}
	}
	return nil
}

// ForgetMember erases m from every group they were in
// (memberdata.Forgetter), group by group, their membership last: the
// UserGroups partition that finds a group is emptied only once all else
// in it is done, so a run cut short finds the group again; each step
// rewrites only what still names m, so a second run changes nothing.
// Then their comments, and their counters.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return errors.New("groups: forget of no member")
	}
	for _, key := range memberships(m) {
		groupIDs, err := s.groupsOf(ctx, key)
		if err != nil {
			return err
		}
		for _, id := range groupIDs {
			if err := s.forgetInGroup(ctx, id, key, m); err != nil {
				return err
			}
		}
	}
	if err := s.comments.ForgetAuthor(ctx, m.Key); err != nil {
		return err
	}
	// Their counters: announcements, scans and groups made by memberKey,
	// previews and scans by their membership's key, and guests' scans in
	// the groups they made (comments' went with ForgetAuthor).
	type counter struct {
		t  *storage.Table
		pk string
	}
	counters := []counter{{s.announcements.Table, "a|" + m.Key}, {s.scansPerPerson.Table, "p|" + m.Key}, {s.creations.Table, creationsKey(m.Key)}}
	for _, key := range memberships(m) {
		counters = append(counters, counter{s.previewsPerPerson.Table, "preview|" + key}, counter{s.scansPerPerson.Table, "p|" + key}, counter{s.scansPerGroup.Table, "o|" + key})
	}
	for _, c := range counters {
		if err := storage.Forget(ctx, c.t, c.pk, "w"); err != nil {
			return err
		}
	}
	return storage.DeletePartition(ctx, s.inviteQuota, m.Key)
}

// forgetInGroup erases m, whose membership row is keyed rowKey, from
// one group: its ownership passed on (or the group deleted), m's part
// in its appointments and lists, the links and invitations they made,
// the group row's mentions of them, and last their membership.
func (s *Service) forgetInGroup(ctx context.Context, groupID, rowKey string, m memberdata.Member) error {
	row, err := s.memberRow(ctx, groupID, rowKey)
	if errors.Is(err, ErrNoMember) {
		pk, rk := userGroupKey(rowKey, groupID)
		return storage.Forget(ctx, s.userGroups, pk, rk) // the member row went already
	}
	if err != nil {
		return err
	}
	if row.Status == StatusActive && row.Role == RoleOwner {
		if err := s.passOwnership(ctx, groupID, row); err != nil {
			return err
		}
	}
	if err := s.forgetAppointments(ctx, groupID, m); err != nil {
		return err
	}
	if err := s.forgetListAuthors(ctx, groupID, m.Key); err != nil {
		return err
	}
	if err := s.forgetInviter(ctx, groupID, rowKey, m); err != nil {
		return err
	}
	if err := s.forgetInGroupRow(ctx, groupID, m); err != nil {
		return err
	}
	if err := s.repairTouched(ctx, groupID, rowKey); err != nil {
		return err
	}
	// The membership last, then its mirror (what found the group).
	pk, rk := groupMemberKey(groupID, rowKey)
	if err := s.members.Delete(ctx, pk, rk, row.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if err := s.memberships.Sync(ctx, &row, nil); err != nil {
		return err
	}
	pk, rk = userGroupKey(rowKey, groupID)
	if err := storage.Forget(ctx, s.userGroups, pk, rk); err != nil {
		return err
	}
	if row.Status == StatusActive {
		s.refreshColors(ctx, groupID)
		if s.chat != nil {
			s.chat.Left(ctx, chatID(groupID), memberdata.Forgotten, "")
		}
	}
	return nil
}

// passOwnership hands a group whose only owner is leaving (owner, their
// member row) to its heir (heirOf); with none, the group is deleted as
// an owner deletes it (Delete), by Forgotten.
func (s *Service) passOwnership(ctx context.Context, groupID string, owner MemberRow) error {
	heir, stays, err := s.heirOf(ctx, groupID, owner)
	if err != nil || stays {
		return err
	}
	if heir == nil {
		forgotten := &auth.Identity{MemberKey: memberdata.Forgotten, UserKey: memberdata.Forgotten}
		err := s.Delete(ctx, Membership{GroupID: groupID, Row: owner}, forgotten)
		if errors.Is(err, ErrNoGroup) {
			return nil // deleted already
		}
		return err
	}
	_, err = s.changeMember(ctx, groupID, heir.RowKey, func(r *MemberRow) error {
		if r.Status != StatusActive || r.Role == RoleOwner {
			return storage.ErrNoChange
		}
		r.Role = RoleOwner
		return nil
	})
	return ignore(err, storage.ErrNoChange, ErrNoMember)
}

// heirOf is who takes a group from owner (their member row) when they
// leave with their account: nobody when another owner stays (stays);
// else its longest-standing active member with an account, or nil when
// there is none, and the group is deleted. One query when another owner
// stays, two otherwise.
func (s *Service) heirOf(ctx context.Context, groupID string, owner MemberRow) (heir *MemberRow, stays bool, err error) {
	if _, err := s.otherOwner(ctx, groupID, owner.RowKey); !errors.Is(err, ErrLastOwner) {
		return nil, err == nil, err
	}
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{PartitionKey: groupID, Filters: []storage.Filter{{Name: "status", Op: storage.Eq, Value: StatusActive}}})
	if err != nil {
		return nil, false, err
	}
	rows = slices.DeleteFunc(rows, func(r MemberRow) bool { return r.RowKey == owner.RowKey || auth.IsGuestKey(r.RowKey) })
	if len(rows) == 0 {
		return nil, false, nil
	}
	h := slices.MinFunc(rows, func(a, b MemberRow) int {
		return cmp.Or(joinedAt(a).Compare(joinedAt(b)), cmp.Compare(a.RowKey, b.RowKey))
	})
	return &h, false, nil
}

// PreviewForget lists the groups m owns alone, each with what their
// deletion would do to it: pass it to its heir, or delete it with
// nobody left (memberdata.Previewer). It costs eachGroup's reads, and
// heirOf's queries for each group m owns.
func (s *Service) PreviewForget(ctx context.Context, m memberdata.Member) ([]memberdata.Consequence, error) {
	var out []memberdata.Consequence
	err := s.eachGroup(ctx, m, func(g GroupRow, row MemberRow) error {
		if row.Status != StatusActive || row.Role != RoleOwner {
			return nil
		}
		heir, stays, err := s.heirOf(ctx, g.GroupID, row)
		if err != nil || stays {
			return err
		}
		outcome := i18n.T(ctx, "groups.forget.deleted")
		if heir != nil {
			name := heir.DisplayName
			if name == "" {
				name = heir.Email
			}
			outcome = i18n.T(ctx, "groups.forget.passes", "name", name)
		}
		out = append(out, memberdata.Consequence{What: g.GroupName, URL: groupURL(g.GroupID), Outcome: outcome})
		return nil
	})
	return out, err
}

// ignore is err, or nil when it is one of these.
func ignore(err error, these ...error) error {
	for _, e := range these {
		if errors.Is(err, e) {
			return nil
		}
	}
	return err
}

// repairTouched rewrites the mirrors of the member rows a forget changes
// (the group's owners, one of whom may be its heir, and the invitations
// sent by a forgotten member): a change whose mirror failed records it
// as written, and a run resumed finds the row changed already, so only
// a repair brings its mirror in step. It runs while m's membership still
// finds the group: one query of the group's members, and a write per
// row repaired.
func (s *Service) repairTouched(ctx context.Context, groupID, rowKey string) error {
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{PartitionKey: groupID})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.RowKey != rowKey && (r.Status == StatusActive && r.Role == RoleOwner || r.InvitedByUserKey == memberdata.Forgotten) {
			if err := s.RepairMembership(ctx, groupID, r.RowKey); err != nil {
				return err
			}
		}
	}
	return nil
}

// forgetAppointments takes m out of every appointment of the group:
// the creator and last editor they were become Forgotten, in the blob
// (through update, as any edit) and on the index row; their participant
// row goes, and with it their reminders. A deleted appointment (its
// blob waits for the purge) has its rows rewritten only.
func (s *Service) forgetAppointments(ctx context.Context, groupID string, m memberdata.Member) error {
	rows, err := s.indexRows(ctx, groupID)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if !row.IsDeleted {
			if err := s.forgetInAppointment(ctx, groupID, row.AppointmentID, m.Key); err != nil && !errors.Is(err, ErrNoAppointment) {
				return err
			}
		}
		if err := s.forgetParticipant(ctx, groupID, row.AppointmentID, m.Key); err != nil {
			return err
		}
		if err := s.forgetInIndexRow(ctx, row.PartitionKey, row.RowKey, m); err != nil {
			return err
		}
	}
	return nil
}

// forgetInAppointment rewrites one appointment's blob without m: an edit
// like any (its Sequence rises), which also sets its participants
// without them, and after it the rows that follow the blob.
func (s *Service) forgetInAppointment(ctx context.Context, groupID, appointmentID, memberKey string) error {
	doc, err := s.appointmentDoc(ctx, groupID, appointmentID)
	if err != nil {
		return err
	}
	if !names(doc, memberKey) {
		// Rewritten already, perhaps by a run cut short before the rows
		// followed the blob: they follow it now, as the rebuild has them.
		return s.repairAppointment(ctx, groupID, appointmentID, &AppointmentRepairs{})
	}
	_, err = s.update(ctx, groupID, &AppointmentDetail{Doc: Appointment{AppointmentID: appointmentID}}, true, func(d *AppointmentDetail) ([]string, error) {
		doc := &d.Doc
		doc.Who = slices.DeleteFunc(doc.Who, func(k string) bool { return k == memberKey })
		if doc.Responsible == memberKey {
			doc.Responsible = ""
		}
		if doc.CreatedBy == memberKey {
			doc.CreatedBy = memberdata.Forgotten
		}
		if doc.UpdatedBy == memberKey {
			doc.UpdatedBy = memberdata.Forgotten
		}
		return doc.Who, nil
	})
	return err
}

// names reports whether doc names memberKey.
func names(doc Appointment, memberKey string) bool {
	return doc.CreatedBy == memberKey || doc.UpdatedBy == memberKey || doc.Responsible == memberKey || slices.Contains(doc.Who, memberKey)
}

// forgetParticipant deletes memberKey's participant row of an
// appointment, and makes Forgotten who assigned another's.
func (s *Service) forgetParticipant(ctx context.Context, groupID, appointmentID, memberKey string) error {
	pk := participantsPartition(groupID, appointmentID)
	return s.participants.QueryAll(ctx, storage.Query{PartitionKey: pk, RowKeyPrefix: "m:"}, func(e storage.Entity) error {
		var p ParticipantRow
		if err := storage.Unmarshal(e, &p); err != nil {
			return err
		}
		switch {
		case p.MemberKey == memberKey:
			return storage.Forget(ctx, s.participants, pk, p.RowKey)
		case p.AssignedBy == memberKey:
			return s.mergeIfStill(ctx, s.participants, e, map[string]any{"assignedBy": memberdata.Forgotten})
		}
		return nil
	})
}

// forgetInIndexRow makes Forgotten whoever of m an index row names: its
// creator, who deleted it, and m among the first participants (Who; the
// blob's edit rewrites it on a live row, a deleted row keeps its own).
func (s *Service) forgetInIndexRow(ctx context.Context, pk, rk string, m memberdata.Member) error {
	row, err := storage.Get[AppointmentIndexRow](ctx, s.appointments, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	props := map[string]any{}
	if row.CreatedBy == m.Key {
		props["createdBy"] = memberdata.Forgotten
	}
	if slices.Contains(memberships(m), row.DeletedByUserKey) || row.DeletedByUserKey == m.Key {
		props["deletedByUserKey"] = memberdata.Forgotten
	}
	if who := strings.Split(row.Who, ","); slices.Contains(who, m.Key) {
		props["who"] = strings.Join(slices.DeleteFunc(who, func(k string) bool { return k == m.Key }), ",")
	}
	if len(props) == 0 {
		return nil
	}
	return s.mergeIfStill(ctx, s.appointments, storage.Entity{PartitionKey: pk, RowKey: rk, ETag: row.ETag}, props)
}

// mergeIfStill merges props into the row e was read as, at its ETag; a
// row changed or gone since is left to the next run.
func (s *Service) mergeIfStill(ctx context.Context, t *storage.Table, e storage.Entity, props map[string]any) error {
	_, err := t.Update(ctx, storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Props: props}, storage.Merge, e.ETag)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// forgetListAuthors makes Forgotten, with no name, who started a list
// of the group, added one of its items or ticked it.
func (s *Service) forgetListAuthors(ctx context.Context, groupID, memberKey string) error {
	return s.eachList(ctx, groupID, func(l ListRow) error {
		if l.CreatedBy == memberKey {
			pk, rk := listKey(groupID, l.ListID)
			if _, err := s.lists.Update(ctx, storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"createdBy": memberdata.Forgotten}}, storage.Merge, l.ETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		return s.listItems.QueryAll(ctx, storage.Query{PartitionKey: l.ListID, RowKeyPrefix: itemKeyPrefix}, func(e storage.Entity) error {
			props := map[string]any{}
			if by, _ := e.Props["addedBy"].(string); by == memberKey {
				props["addedBy"] = memberdata.Forgotten
			}
			if by, _ := e.Props["tickedBy"].(string); by == memberKey {
				props["tickedBy"], props["tickedByName"] = memberdata.Forgotten, ""
			}
			if len(props) == 0 {
				return nil
			}
			return s.mergeIfStill(ctx, s.listItems, e, props)
		})
	})
}

// forgetInviter withdraws the invitations m sent that still wait, and
// makes Forgotten who sent every other one; the join links they made
// stay, made by Forgotten.
func (s *Service) forgetInviter(ctx context.Context, groupID, rowKey string, m memberdata.Member) error {
	rows, err := storage.All[MemberRow](ctx, s.members, storage.Query{PartitionKey: groupID, Filters: []storage.Filter{{Name: "invitedByUserKey", Op: storage.Eq, Value: rowKey}}})
	if err != nil {
		return err
	}
	for _, r := range rows {
		_, err := s.changeMember(ctx, groupID, r.RowKey, func(r *MemberRow) error {
			if r.InvitedByUserKey != rowKey {
				return storage.ErrNoChange
			}
			if r.Status == StatusInvited {
				s.markRemoved(r)
			}
			r.InvitedByUserKey = memberdata.Forgotten
			return nil
		})
		if err := ignore(err, storage.ErrNoChange, ErrNoMember); err != nil {
			return err
		}
	}
	return s.joinSessions.QueryAll(ctx, storage.Query{PartitionKey: groupID, Filters: []storage.Filter{{Name: "createdByUserKey", Op: storage.Eq, Value: rowKey}}}, func(e storage.Entity) error {
		return s.mergeIfStill(ctx, s.joinSessions, e, map[string]any{"createdByUserKey": memberdata.Forgotten})
	})
}

// forgetInGroupRow makes Forgotten who created or deleted the group,
// takes m's colour out of its palette, and summarizes its next
// appointments again where the summary still names m.
func (s *Service) forgetInGroupRow(ctx context.Context, groupID string, m memberdata.Member) error {
	pk, rk := groupKey(groupID)
	_, err := storage.Change(ctx, s.groups, pk, rk, ErrNoGroup, func(g *GroupRow) error {
		changed := false
		for _, key := range append(memberships(m), m.Key) {
			if g.CreatedByUserKey == key {
				g.CreatedByUserKey, changed = memberdata.Forgotten, true
			}
			if g.DeletedByUserKey == key {
				g.DeletedByUserKey, changed = memberdata.Forgotten, true
			}
		}
		for _, colors := range []*string{&g.Colors, &g.Assigned} {
			if c := colorMap(*colors); hasKey(c, m.Key) {
				delete(c, m.Key)
				b, err := json.Marshal(c)
				if err != nil {
					return err
				}
				*colors, changed = string(b), true
			}
		}
		if strings.Contains(g.Upcoming, m.Key) {
			// A summary from before m's appointments were rewritten (one a
			// run cut short left): a deleted group shows none.
			g.Upcoming, changed = "", true
			if !g.IsDeleted {
				if err := s.summarize(ctx, g); err != nil {
					return err
				}
			}
		}
		if !changed {
			return storage.ErrNoChange
		}
		return nil
	})
	if errors.Is(err, storage.ErrNoChange) || errors.Is(err, ErrNoGroup) {
		return nil
	}
	return err
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

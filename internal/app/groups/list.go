package groups

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// MyGroup is one group on a person's dashboard.
type MyGroup struct {
	Group     GroupRow
	Status    Status
	InvitedAt *time.Time
	JoinedAt  *time.Time
}

// MyGroupsPage is one page of a person's groups.
type MyGroupsPage struct {
	Groups []MyGroup
	// Next is the next page's cursor token, "" on the last page.
	Next string
}

// myGroupsQuery names a person's group list for its cursors. The userKey
// is part of the name, so one person's token is refused for another.
func myGroupsQuery(userKey string) string { return "groups/mine|" + userKey }

// MyGroups reads one page of the groups where userKey is active or
// invited, newest group first by id order, leaving out deleted groups.
// It costs one query on the person's UserGroups partition and one query
// of Groups for the page's rows (groupsByID).
func (s *Service) MyGroups(ctx context.Context, userKey string, cursor *storage.Cursor, limit int) (MyGroupsPage, error) {
	if limit <= 0 {
		limit = s.pageSize
	}
	q := storage.Query{
		PartitionKey: userKey,
		Filters:      []storage.Filter{{Name: "status", Op: storage.Ne, Value: StatusRemoved}},
		Limit:        limit,
	}
	if cursor != nil {
		q.Continuation = cursor.Next
	}
	page, err := s.userGroups.Query(ctx, q)
	if err != nil {
		return MyGroupsPage{}, err
	}
	rows := make([]UserGroupRow, len(page.Entities))
	for i, e := range page.Entities {
		if err := storage.Unmarshal(e, &rows[i]); err != nil {
			return MyGroupsPage{}, err
		}
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.GroupID
	}
	metas, err := s.groupsByID(ctx, ids)
	if err != nil {
		return MyGroupsPage{}, err
	}
	out := MyGroupsPage{}
	for _, r := range rows {
		g, ok := metas[r.GroupID]
		if !ok {
			continue // deleted (or purged): never shown
		}
		out.Groups = append(out.Groups, MyGroup{Group: g, Status: r.Status, InvitedAt: r.InvitedAt, JoinedAt: r.JoinedAt})
	}
	if page.Next != nil {
		out.Next = s.cursors.Encode(myGroupsQuery(userKey), storage.Cursor{Next: page.Next})
	}
	return out, nil
}

// groupsByID reads the groups with these ids that exist and are not
// deleted: one query of the Groups partition per storage.MaxRowKeysIn
// ids, however many.
func (s *Service) groupsByID(ctx context.Context, ids []string) (map[string]GroupRow, error) {
	out := make(map[string]GroupRow, len(ids))
	for chunk := range slices.Chunk(ids, storage.MaxRowKeysIn) {
		rows, err := storage.All[GroupRow](ctx, s.groups, storage.Query{PartitionKey: groupsPartition, RowKeyIn: chunk})
		if err != nil {
			return nil, err
		}
		for _, g := range rows {
			if !g.IsDeleted {
				out[g.GroupID] = g
			}
		}
	}
	return out, nil
}

// RosterEntry is one person on a roster page, with their live profile
// when they have an account.
type RosterEntry struct {
	Row         MemberRow
	DisplayName string
	PhotoKey    string
}

// RosterPage is one page of a group's roster.
type RosterPage struct {
	Entries []RosterEntry
	Next    string
}

// rosterQuery names a group's roster for its cursors.
func rosterQuery(groupID string) string { return "groups/roster|" + groupID }

// Roster reads one page of the group's members: active, invited, and
// removed within RecentlyRemoved (not invitations cancelled or declined). Names and photos come from the members'
// profiles (bounded parallel point reads), falling back to the name
// cached on the row.
func (s *Service) Roster(ctx context.Context, m Membership, cursor *storage.Cursor) (RosterPage, error) {
	q := storage.Query{PartitionKey: m.GroupID, Limit: s.rosterPageSize}
	if cursor != nil {
		q.Continuation = cursor.Next
	}
	page, err := s.members.Query(ctx, q)
	if err != nil {
		return RosterPage{}, err
	}
	since := s.now().Add(-RecentlyRemoved)
	var entries []RosterEntry
	for _, e := range page.Entities {
		var row MemberRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return RosterPage{}, err
		}
		// Removed people show for a while; an invitation that was
		// cancelled or declined (removed, never joined) is simply gone.
		if row.Status == StatusRemoved && (row.RemovedAt == nil || row.RemovedAt.Before(since) || row.JoinedAt == nil) {
			continue
		}
		entries = append(entries, RosterEntry{Row: row, DisplayName: row.DisplayName})
	}
	err = storage.Each(ctx, len(entries), metaReads, func(ctx context.Context, i int) error {
		key := entries[i].Row.MemberKey
		if key == "" || s.profiles == nil {
			return nil
		}
		p, err := s.profiles.Profile(ctx, key)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if p.DisplayName != "" {
			entries[i].DisplayName = p.DisplayName
		}
		entries[i].PhotoKey = p.PhotoKey
		return nil
	})
	if err != nil {
		return RosterPage{}, err
	}
	out := RosterPage{Entries: entries}
	if page.Next != nil {
		out.Next = s.cursors.Encode(rosterQuery(m.GroupID), storage.Cursor{Next: page.Next})
	}
	return out, nil
}

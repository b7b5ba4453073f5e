package groups

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Table names this module owns (document 004, TABLES.md "Groups").
const (
	groupsTable     = "Groups"
	userGroupsTable = "UserGroups"
	membersTable    = "GroupMembers"
)

// Status is a membership's state, the same on GroupMembers and UserGroups.
// An alias, because rows hold plain strings.
type Status = string

const (
	StatusActive  Status = "active"
	StatusInvited Status = "invited"
	StatusRemoved Status = "removed"
)

// Role is what a member may do in a group. Only owners invite, remove,
// rename, delete and promote.
type Role = string

const (
	RoleOwner  Role = "owner"
	RoleMember Role = "member"
)

// GroupRow is a group's metadata, the truth for its name and whether it
// is deleted. Deletion is soft: a purge job (later slice) removes rows
// past PurgeAfterAt.
type GroupRow struct {
	PartitionKey     string     `table:"PartitionKey"` // "group"
	RowKey           string     `table:"RowKey"`       // groupId (ULID)
	ETag             string     `table:"ETag"`
	GroupID          string     `table:"groupId"`
	GroupName        string     `table:"groupName"`
	CreatedAt        time.Time  `table:"createdAt"`
	UpdatedAt        time.Time  `table:"updatedAt"`
	CreatedByUserKey string     `table:"createdByUserKey"`
	IsDeleted        bool       `table:"isDeleted"`
	DeletedAt        *time.Time `table:"deletedAt"`
	DeletedByUserKey string     `table:"deletedByUserKey"`
	PurgeAfterAt     *time.Time `table:"purgeAfterAt"`
}

// groupsPartition is the one partition of Groups: every read is a point
// read by id, so one partition costs nothing.
const groupsPartition = "group"

// groupKey is the Groups key: PK "group", RK the group's ULID.
func groupKey(groupID string) (pk, rk string) { return groupsPartition, groupID }

// UserGroupRow lists a group under a person: the dashboard reads one
// partition of these. It mirrors the GroupMembers row's status; the
// GroupMembers row is the truth when they disagree.
type UserGroupRow struct {
	PartitionKey string     `table:"PartitionKey"` // userKey
	RowKey       string     `table:"RowKey"`       // groupId
	ETag         string     `table:"ETag"`
	GroupID      string     `table:"groupId"`
	Status       Status     `table:"status"`
	InvitedAt    *time.Time `table:"invitedAt"`
	JoinedAt     *time.Time `table:"joinedAt"`
	RemovedAt    *time.Time `table:"removedAt"`
	UpdatedAt    time.Time  `table:"updatedAt"`
}

// userGroupKey is the UserGroups key: PK userKey, RK groupId.
func userGroupKey(userKey, groupID string) (pk, rk string) { return userKey, groupID }

// MemberRow is one person in a group, the source of truth for
// authorization. It is keyed by userKey (sha256 of the email), so an
// invite works before the person has an account; a guest (later slice)
// is keyed by their memberKey "guest:{gsid}".
type MemberRow struct {
	PartitionKey string `table:"PartitionKey"` // groupId
	RowKey       string `table:"RowKey"`       // userKey, or guest memberKey
	ETag         string `table:"ETag"`
	UserKey      string `table:"userKey"`
	// MemberKey is the account's "auth:…" key, known once they accept
	// (or at creation for the owner); "" while invited.
	MemberKey string `table:"memberKey"`
	Email     string `table:"email"` // normalized
	Status    Status `table:"status"`
	Role      Role   `table:"role"`
	// DisplayName is cached at accept time; the roster prefers the live
	// profile and falls back to it.
	DisplayName      string     `table:"displayName"`
	InvitedAt        *time.Time `table:"invitedAt"`
	InvitedByUserKey string     `table:"invitedByUserKey"`
	// InviteSentAt is the last invitation mail, for the resend cooldown.
	InviteSentAt *time.Time `table:"inviteSentAt"`
	JoinedAt     *time.Time `table:"joinedAt"`
	RemovedAt    *time.Time `table:"removedAt"`
	UpdatedAt    time.Time  `table:"updatedAt"`
}

// groupMemberKey is the GroupMembers key: PK groupId, RK userKey (or a
// guest's memberKey).
func groupMemberKey(groupID, rowKey string) (pk, rk string) { return groupID, rowKey }

// newGroupID mints a group id: a ULID, so ids sort by creation.
func newGroupID() string { return ulid.Make().String() }

// validGroupID reports whether s can be a group id; anything else is a
// 404 before any storage call.
func validGroupID(s string) bool {
	_, err := ulid.ParseStrict(s)
	return err == nil && len(s) == ulid.EncodedSize
}

// validUserKey reports whether s is a userKey (64 lower-case hex digits).
func validUserKey(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func timePtr(t time.Time) *time.Time { return &t }

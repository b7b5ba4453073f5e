package groups

import (
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/auth"
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

// Tombstone is how a group or an appointment is deleted: soft, marked
// with when and by whom, and purged (purge.go) once PurgeAfterAt has
// passed.
type Tombstone struct {
	IsDeleted bool       `table:"isDeleted"`
	DeletedAt *time.Time `table:"deletedAt"`
	// DeletedByUserKey is who deleted it: their userKey, a guest's
	// memberKey.
	DeletedByUserKey string     `table:"deletedByUserKey"`
	PurgeAfterAt     *time.Time `table:"purgeAfterAt"`
}

// bury marks it deleted by id at now, to be purged after PurgeAfter.
func (t *Tombstone) bury(id *auth.Identity, now time.Time) {
	t.IsDeleted, t.DeletedAt, t.DeletedByUserKey = true, timePtr(now), id.UserKey
	if id.Guest {
		t.DeletedByUserKey = id.MemberKey
	}
	t.PurgeAfterAt = timePtr(now.Add(PurgeAfter))
}

// GroupRow is a group's metadata, the truth for its name and whether it
// is deleted. Deletion is soft: a purge job (later slice) removes rows
// past PurgeAfterAt.
type GroupRow struct {
	PartitionKey     string    `table:"PartitionKey"` // "group"
	RowKey           string    `table:"RowKey"`       // groupId (ULID)
	ETag             string    `table:"ETag"`
	GroupID          string    `table:"groupId"`
	GroupName        string    `table:"groupName"`
	CreatedAt        time.Time `table:"createdAt"`
	UpdatedAt        time.Time `table:"updatedAt"`
	CreatedByUserKey string    `table:"createdByUserKey"`
	Tombstone
	// CalendarToken is the key (128 random bits, hex) from which each
	// member's .ics feed secret is derived (memberFeedToken); "" until an
	// owner turns the feed on. Regenerating it stops every member's feed
	// URL at once. It never opens the feed by itself.
	CalendarToken string `table:"calendarToken"`
	// Timezone is the group's home zone (IANA), its creator's at first;
	// pages note it where it differs from the viewer's.
	Timezone string `table:"timezone"`
	// HasSeries says the group has had a recurring series: only then do
	// the dashboard's next appointments read its series partition.
	HasSeries bool `table:"hasSeries"`
	// Colors are the colours members chose (JSON memberKey → 0…7;
	// colors.go).
	Colors string `table:"colors"`
	// Assigned are the colours given to the members who chose none, so
	// that members do not share one (JSON memberKey → 0…7; colors.go).
	Assigned string `table:"assignedColors"`
	// Upcoming is the summary of its next appointments (JSON,
	// upcoming.go), a cache for the dashboard.
	Upcoming string `table:"upcoming"`
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
	// JoinedVia is the join session (RowKey of JoinSessions) the person
	// came in by, "" for invitations and owners.
	JoinedVia string `table:"joinedVia"`
	// Left says a removed member left of their own accord (barred).
	Left bool `table:"left"`
	// Mirrored records the UserGroups row last written for the member
	// (projection.Follow's record); a row copied to new keys starts
	// without one.
	Mirrored string `table:"mirrored"`
}

// groupMemberKey is the GroupMembers key: PK groupId, RK userKey (or a
// guest's memberKey).
func groupMemberKey(groupID, rowKey string) (pk, rk string) { return groupID, rowKey }

// newGroupID mints a group id: a ULID, so ids sort by creation.
func newGroupID() string { return ulid.Make().String() }

func timePtr(t time.Time) *time.Time { return &t }

// barred reports whether r keeps its person out of the group: removed
// by its owners. An invitation that ended (declined or cancelled: never
// a membership) and a member who left bar nothing, so a join link lets
// them in, and their guest membership carries over when they sign in.
func (r MemberRow) barred() bool { return r.Status == StatusRemoved && r.JoinedAt != nil && !r.Left }

// joinSessionsTable holds the join links (document 004's "ignite").
const joinSessionsTable = "JoinSessions"

// JoinStatus is a join session's state.
type JoinStatus = string

const (
	JoinOpen   JoinStatus = "open"
	JoinClosed JoinStatus = "closed"
)

// JoinSessionRow is one join link of a group: whoever holds its URL may
// join while it is open and not past ExpiresAt. The session id is the
// secret (128 random bits), so it is never listed to non-owners.
type JoinSessionRow struct {
	PartitionKey     string     `table:"PartitionKey"` // groupId
	RowKey           string     `table:"RowKey"`       // sessionId (32 hex digits)
	ETag             string     `table:"ETag"`
	Status           JoinStatus `table:"status"`
	CreatedByUserKey string     `table:"createdByUserKey"`
	CreatedAt        time.Time  `table:"createdAt"`
	ExpiresAt        time.Time  `table:"expiresAt"`
	ClosedAt         *time.Time `table:"closedAt"`
	// Meta is the owner's note shown on the join page ("Saturday picnic").
	Meta      string    `table:"meta"`
	UpdatedAt time.Time `table:"updatedAt"`
	// SpunOff is the group started from the people who joined by the link
	// (SpinOff), "" before; a link starts one.
	SpunOff string `table:"spunOff"`
}

// joinSessionKey is the JoinSessions key: PK groupId, RK sessionId.
func joinSessionKey(groupID, sessionID string) (pk, rk string) { return groupID, sessionID }

// validSessionID reports whether s can be a join session id (32 lower-case
// hex digits); anything else is a 404 before any storage call.
func validSessionID(s string) bool { return len(s) == 32 && isLowerHex(s) }

// userGroupsPartition is the UserGroups PartitionKey of a member row: the
// userKey of an account, and for a guest (no userKey) their memberKey
// "guest:{gsid}", so a guest's dashboard reads one partition too.
func userGroupsPartition(row MemberRow) string {
	if row.UserKey != "" {
		return row.UserKey
	}
	return row.RowKey
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Appointment tables (document 004, TABLES.md "Groups").
const (
	appointmentsTable = "AppointmentsIndex"
	participantsTable = "AppointmentParticipants"
)

// AppointmentStatus is an appointment's state; soft deletion is apart
// (IsDeleted), so a canceled appointment still shows, struck through.
type AppointmentStatus = string

const (
	AppointmentActive   AppointmentStatus = "active"
	AppointmentCanceled AppointmentStatus = "canceled"
)

// AppointmentIndexRow is an appointment's listing row: the truth for
// whether it exists (IsDeleted) and the fields lists show. The full
// appointment is the JSON blob (appointmentBlobName). Title, EndTime,
// Location and CreatedBy are promoted too, so lists and the dashboard
// read no blob and delete rights come from a table, not a blob.
type AppointmentIndexRow struct {
	PartitionKey  string            `table:"PartitionKey"` // groupId
	RowKey        string            `table:"RowKey"`       // appointmentIndexRowKey
	ETag          string            `table:"ETag"`
	AppointmentID string            `table:"appointmentId"`
	StartTime     time.Time         `table:"startTime"`
	EndTime       time.Time         `table:"endTime"`
	Title         string            `table:"title"`
	Location      string            `table:"location"`
	Status        AppointmentStatus `table:"status"`
	// AllDay says the appointment fills whole days (from midnight to
	// midnight in Timezone); its times are not shown.
	AllDay         bool       `table:"allDay"`
	HasScan        bool       `table:"hasScan"`
	ScanCapturedAt *time.Time `table:"scanCapturedAt"`
	// CreatedBy is the creator's memberKey: they may delete it.
	CreatedBy string    `table:"createdBy"`
	CreatedAt time.Time `table:"createdAt"`
	UpdatedAt time.Time `table:"updatedAt"`
	Tombstone
	// A series (recurrence.go) sits in its group's series partition:
	// Repeat is its RRULE, Timezone the zone it repeats in, Skipped the
	// occurrence starts it leaves out (appointmentTimeKeys, comma
	// separated: removed and moved ones), SeriesEnd when its last
	// occurrence ends. StartTime and EndTime are the first occurrence's.
	Repeat    string     `table:"repeat"`
	Timezone  string     `table:"timezone"`
	Skipped   string     `table:"skipped"`
	SeriesEnd *time.Time `table:"seriesEnd"`
	// SeriesID names the series an override replaces an occurrence of.
	SeriesID string `table:"seriesId"`
	// Who names the first participants (memberKeys, comma separated,
	// who picks up first), for their colours in calendars.
	Who string `table:"who"`
	// ImportUID is the calendar event UID it was imported from.
	ImportUID string `table:"importUid"`
	// Sequence is the blob's Sequence the row was derived from: a write
	// that finds a newer row leaves it (writeIndex).
	Sequence int `table:"sequence"`
	// Occurrence is the start of the occurrence an expanded series row
	// stands for (Occurrences); never stored.
	Occurrence time.Time `table:"-"`
}

// seriesPartition is the AppointmentsIndex partition of a group's
// recurring series: one query finds them all, apart from the time-keyed
// single appointments.
func seriesPartition(groupID string) string { return groupID + "|series" }

// seriesIndexKey is a series' AppointmentsIndex key: PK the group's
// series partition, RK the appointmentId.
func seriesIndexKey(groupID, appointmentID string) (pk, rk string) {
	return seriesPartition(groupID), appointmentID
}

// appointmentTimeKey is the time part of an index RowKey:
// YYYYMMDDHHmmssZ of a UTC instant. It sorts as the time does.
func appointmentTimeKey(t time.Time) string { return t.UTC().Format("20060102150405") + "Z" }

// appointmentIndexKey is the AppointmentsIndex key: PK groupId, RK
// "{YYYYMMDDHHmmssZ of the UTC start}|{appointmentId}".
func appointmentIndexKey(groupID string, start time.Time, appointmentID string) (pk, rk string) {
	return groupID, appointmentTimeKey(start) + "|" + appointmentID
}

// ParticipantRole says what a participant does; at most one per
// appointment is RoleResponsible ("who picks up").
type ParticipantRole = string

const (
	RoleParticipant ParticipantRole = "participant"
	RoleResponsible ParticipantRole = "responsible"
)

// ParticipantRow is one member taking part in an appointment. The whole
// appointment's participants share a partition, so they are written in
// one transaction.
type ParticipantRow struct {
	PartitionKey string          `table:"PartitionKey"` // g:{groupId}|a:{appointmentId}
	RowKey       string          `table:"RowKey"`       // m:{memberKey}
	ETag         string          `table:"ETag"`
	MemberKey    string          `table:"memberKey"`
	Status       Status          `table:"status"`
	Role         ParticipantRole `table:"role"`
	AssignedAt   *time.Time      `table:"assignedAt"`
	AssignedBy   string          `table:"assignedBy"` // memberKey
	UpdatedAt    time.Time       `table:"updatedAt"`
	// Remind is the participant's own reminder: "" follows the
	// appointment, "none", or minutes before (reminders.go).
	Remind string `table:"remind"`
}

// participantsVersion is the RowKey of the row in an appointment's
// participants partition that says which version of the appointment
// (its Sequence) the participants are: a write of an older version's
// participants leaves them (setParticipants). "~" sorts it after every
// "m:" row; it is no participant.
const participantsVersion = "~version"

// participantsVersionRow is that row.
type participantsVersionRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Sequence     int    `table:"sequence"`
}

// participantsPartition is an appointment's AppointmentParticipants
// partition: "g:{groupId}|a:{appointmentId}" (both ULIDs, no escaping).
func participantsPartition(groupID, appointmentID string) string {
	return "g:" + groupID + "|a:" + appointmentID
}

// participantKey is the AppointmentParticipants key. A memberKey is
// key-safe as it is (auth.AuthMemberKey escapes the subject once).
func participantKey(groupID, appointmentID, memberKey string) (pk, rk string) {
	return participantsPartition(groupID, appointmentID), "m:" + memberKey
}

// appointmentBlobName is the canonical appointment JSON in the groups'
// container.
func appointmentBlobName(groupID, appointmentID string) string {
	return "groups/" + groupID + "/appointments/" + appointmentID + "/appointment.json"
}

// scanBlobName is an appointment's scan: one re-encoded JPEG, private to
// the group's members.
func scanBlobName(groupID, appointmentID string) string {
	return "groups/" + groupID + "/appointments/" + appointmentID + "/scan/scan.jpg"
}

// newAppointmentID mints an appointment id: a ULID.
func newAppointmentID() string { return ulid.Make().String() }

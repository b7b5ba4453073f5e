// Package groups owns private groups (document 004): the Groups,
// UserGroups and GroupMembers tables, invitations by email, roles
// (owner, member), the roster, the signed-in dashboard at "/" and
// GET /api/me/groups. Every group route authorizes from the GroupMembers
// row of the person asking (authorize), never from anything else.
package groups

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Profiles is what the roster needs from the account module.
type Profiles interface {
	Profile(ctx context.Context, memberKey string) (account.ProfileRow, error)
}

// Service is the groups module.
type Service struct {
	// chat is told of members leaving (chat.go).
	chat       ChatLeaver
	groups     *storage.Table
	userGroups *storage.Table
	members    *storage.Table
	// joinSessions are the join links (join.go).
	joinSessions *storage.Table
	// appointments and participants are the appointment index and its
	// participants (appointments.go).
	appointments *storage.Table
	participants *storage.Table
	// comments are the appointments' comment threads (comments.go).
	comments comments.Thread
	// lists and listItems are the groups' shared lists (lists.go);
	// listBurials finishes deleting a list that stopped half way.
	lists, listItems *storage.Table
	listBurials      *tasks.Kind[listBurial]
	// live publishes the lists' and the calendar's changes and follows
	// them (live.go).
	live groupsLive
	// extractor reads appointment scans; nil hides "Read the scan"
	// (scan.go).
	extractor Extractor
	// blobs is the container with the groups' files, which the purge
	// empties (purge.go).
	blobs    *storage.Container
	profiles Profiles
	// guests signs people in as guests when they join by link; nil
	// until UseGuests (join.go).
	guests GuestSignIn
	// guestPhotos stores a guest's photo from the join form; nil until
	// UseGuestPhotos (join.go).
	guestPhotos GuestPhotos
	// guestJoins bounds how fast one address joins people as guests
	// (join_handlers.go).
	guestJoins *ratelimit.PerIP
	// uploads paces each client's scans.
	uploads *web.UploadPace
	// counts counts new groups, appointments and invitations.
	counts metrics.Counting
	// notifier tells people of invitations and plan changes; nil tells
	// no one (UseNotifier).
	notifier Notifier
	// reminders schedules reminder tasks; nil sends none.
	reminders *tasks.Kind[reminderTask]
	// previews forgets previewed calendar files (import.go); nil keeps
	// them until imported.
	previews *tasks.Kind[string]
	// finishes finishes series changes that stopped half way
	// (pending.go); nil leaves them to the rebuild.
	finishes *tasks.Kind[finishTask]
	// previewsPerPerson bounds the calendar files one person previews.
	previewsPerPerson quota.Limit
	// memberships keeps UserGroups in step with GroupMembers.
	memberships *projection.Projection[MemberRow]
	cursors     *storage.Cursors
	baseURL     string
	log         *slog.Logger
	now         func() time.Time
	// pageSize is how many groups the dashboard shows per page.
	pageSize int
	// rosterPageSize is how many members a roster page shows.
	rosterPageSize int
	// inviteQuota counts invitation mails per inviter (invite_quota.go);
	// scansPerPerson and scansPerGroup the scans read (scan.go).
	inviteQuota                   *storage.Table
	scansPerPerson, scansPerGroup quota.Limit
	// announcements bound what one person's changes tell the others
	// (notifyAppointment); the comments' own limit is theirs.
	announcements quota.Limit
	// creations bound the groups one account makes (Create).
	creations    quota.Limit
	inviteLimits InviteLimits
}

// Limits and periods.
const (
	MaxNameLength = 80
	// ResendCooldown is how long an owner waits before mailing the same
	// invitation again.
	ResendCooldown = 5 * time.Minute
	// PurgeAfter is how long a deleted group is kept before the purge.
	PurgeAfter = 30 * 24 * time.Hour
	// RecentlyRemoved is how long the roster still shows removed people.
	RecentlyRemoved = 30 * 24 * time.Hour
	// metaReads bounds the parallel point reads of group metadata.
	metaReads = 8
)

// Notifier posts to people's inboxes (and their email): the inbox module.
type Notifier = inbox.Poster

// UseNotifier has invitations and appointment changes posted through n.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// New builds the module. baseURL is the public origin that invitation
// links start with.
func New(store *storage.Store, profiles Profiles, cursors *storage.Cursors, baseURL string, log *slog.Logger, now func() time.Time) *Service {
	s := &Service{
		groups:            store.Table(groupsTable),
		userGroups:        store.Table(userGroupsTable),
		members:           store.Table(membersTable),
		joinSessions:      store.Table(joinSessionsTable),
		appointments:      store.Table(appointmentsTable),
		participants:      store.Table(participantsTable),
		comments:          newThreads(store.Table(commentsTable), store.Table(writeQuotaTable), now),
		lists:             store.Table(listsTable),
		listItems:         store.Table(listItemsTable),
		live:              newGroupsLive(store, log, now),
		blobs:             store.Container(GroupBlobsContainer),
		profiles:          profiles,
		cursors:           cursors,
		baseURL:           strings.TrimSuffix(baseURL, "/"),
		log:               log,
		now:               now,
		pageSize:          12,
		rosterPageSize:    25,
		inviteQuota:       store.Table(inviteQuotaTable),
		scansPerPerson:    scanLimit(store.Table(scanQuotaTable), scanReadsPerPerson),
		scansPerGroup:     scanLimit(store.Table(scanQuotaTable), scanReadsPerGroup),
		announcements:     quota.Limit{Table: store.Table(writeQuotaTable), Max: announcementsPerHour, Window: time.Hour, Err: errAnnounced},
		previewsPerPerson: quota.Limit{Table: store.Table(writeQuotaTable), Max: previewsPerHour, Window: time.Hour, Err: ErrTooManyPreviews},
		creations:         quota.Limit{Table: store.Table(writeQuotaTable), Max: GroupsPerDay, Window: 24 * time.Hour, Err: ErrTooManyGroups},
		guestJoins:        ratelimit.New(guestJoinBurst, guestJoinEvery),
		uploads:           web.NewUploadPace(now),
		inviteLimits:      DefaultInviteLimits,
	}
	s.memberships = s.membershipProjection()
	return s
}

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{groupsTable, userGroupsTable, membersTable, joinSessionsTable, appointmentsTable, participantsTable, commentsTable, inviteQuotaTable, scanQuotaTable, writeQuotaTable, listsTable, listItemsTable}
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{GroupBlobsContainer} }

// The daily counters the module increments (metrics.Daily shows them on
// the admin metrics page once registered).
const (
	NewGroups       metrics.Counter = "newGroups"
	NewAppointments metrics.Counter = "newAppointments"
	InvitesSent     metrics.Counter = "invitesSent"
	InvitesAccepted metrics.Counter = "invitesAccepted"
)

// CountWith registers the module's counters with d and counts new
// groups, appointments and invitations from now on. Call it while wiring,
// before serving (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) {
	s.counts = d.Counting(s.log, "groups", NewGroups, NewAppointments, InvitesSent, InvitesAccepted)
}

// Slug is the module's section.
func (s *Service) Slug() string { return "groups" }

// Errors callers act on.
var (
	// ErrNoGroup is a group that does not exist, is deleted, or that the
	// person may not see: the pages answer 404 for all three, so a
	// group's existence never leaks.
	ErrNoGroup = fault.NotFound("groups: no such group", storage.ErrNotFound)
	// ErrNotOwner refuses an owner's action to a member (403: a member
	// knows the group exists).
	ErrNotOwner = fault.New(http.StatusForbidden, "groups.error.not_owner", "groups: only owners may do this")
	// ErrNotInvitee is an invitation link opened by someone it was not
	// sent to (or no longer valid).
	ErrNotInvitee = fault.New(http.StatusForbidden, "groups.error.not_invitee", "groups: this invitation is not for you")
	// ErrName is a group name that is empty, too long or not plain text.
	ErrName = errors.New("groups: bad group name")
	// ErrEmail is an invitation address that is not one email address.
	ErrEmail = fault.New(http.StatusUnprocessableEntity, "groups.error.email", "groups: bad email address")
	// ErrAlreadyMember is an invitation to someone already active.
	ErrAlreadyMember = fault.New(http.StatusUnprocessableEntity, "groups.error.already_member", "groups: already a member")
	// ErrCooldown is a resend within ResendCooldown of the last mail.
	ErrCooldown = fault.New(http.StatusTooManyRequests, "groups.error.cooldown", "groups: invitation sent too recently",
		"minutes", int(ResendCooldown/time.Minute))
	// ErrLastOwner refuses the last owner leaving or being removed.
	ErrLastOwner = fault.New(http.StatusConflict, "groups.error.last_owner", "groups: the last owner cannot leave")
	// ErrNoMember is an action on a row that is not in the right state
	// (cancel an accepted invite, promote an invitee, ...).
	ErrNoMember = fault.NotFound("groups: no such member", storage.ErrNotFound)
)

// Access is what a route needs of the person asking.
type Access int

const (
	// AccessInvitee lets an invited or active person through: the
	// invitation page and its accept and decline.
	AccessInvitee Access = iota
	// AccessMember needs an active membership.
	AccessMember
	// AccessOwner needs an active owner.
	AccessOwner
)

// Membership is the person asking, as their GroupMembers row says.
type Membership struct {
	GroupID string
	Row     MemberRow
}

// Owner reports whether the membership is an active owner's.
func (m Membership) Owner() bool { return m.Row.Status == StatusActive && m.Row.Role == RoleOwner }

// memberRowKey is the GroupMembers RowKey of an identity: the userKey of
// an account, the memberKey of a guest.
func memberRowKey(id *auth.Identity) string {
	if id.Guest {
		return id.MemberKey
	}
	return id.UserKey
}

// authorize is the one gate of every group route: one point read of the
// asker's GroupMembers row. Not found, removed, or invited when need is
// more than AccessInvitee is ErrNoGroup (404); a member asking for an
// owner's action is ErrNotOwner (403). Removal takes effect on the next
// request because nothing is cached.
func (s *Service) authorize(ctx context.Context, groupID string, id *auth.Identity, need Access) (Membership, error) {
	if id == nil || !storage.IsID(groupID) {
		return Membership{}, ErrNoGroup
	}
	rk := memberRowKey(id)
	if rk == "" {
		return Membership{}, ErrNoGroup
	}
	pk, rk := groupMemberKey(groupID, rk)
	row, err := storage.Find[MemberRow](ctx, s.members, pk, rk, ErrNoGroup)
	if err != nil {
		return Membership{}, err
	}
	m := Membership{GroupID: groupID, Row: row}
	switch {
	case row.Status == StatusRemoved:
		return Membership{}, ErrNoGroup
	case row.Status == StatusInvited && need > AccessInvitee:
		return Membership{}, ErrNoGroup
	case need == AccessOwner && !m.Owner():
		return Membership{}, ErrNotOwner
	}
	return m, nil
}

// Open authorizes id for groupID and reads the group, which must not be
// deleted: a group page's two point reads.
func (s *Service) Open(ctx context.Context, groupID string, id *auth.Identity, need Access) (Membership, GroupRow, error) {
	m, err := s.authorize(ctx, groupID, id, need)
	if err != nil {
		return Membership{}, GroupRow{}, err
	}
	g, err := s.group(ctx, groupID)
	if err != nil {
		return Membership{}, GroupRow{}, err
	}
	return m, g, nil
}

// group reads a live group; deleted and missing groups are ErrNoGroup.
func (s *Service) group(ctx context.Context, groupID string) (GroupRow, error) {
	pk, rk := groupKey(groupID)
	g, err := storage.Find[GroupRow](ctx, s.groups, pk, rk, ErrNoGroup)
	if err != nil {
		return GroupRow{}, err
	}
	if g.IsDeleted {
		return GroupRow{}, ErrNoGroup
	}
	return g, nil
}

// nameRule is a group's or a guest's name: one line of 1–80 characters.
var nameRule = formrule.Text{Max: MaxNameLength, Required: true}

// NameError refuses a group or guest name (errors.Is ErrName); Problem
// says what is wrong with it.
type NameError struct{ Problem formrule.Problem }

func (e *NameError) Error() string        { return ErrName.Error() }
func (e *NameError) Is(target error) bool { return target == ErrName }

// CleanName trims a group name and checks it against nameRule.
func CleanName(name string) (string, error) {
	name, p := nameRule.Check(name)
	if p != formrule.OK {
		return "", &NameError{Problem: p}
	}
	return name, nil
}

// nameErrorKey is the i18n key a name field shows for err: fallback (a
// message about the length) for a missing or too-long name, the text
// rules' own message for a bad character.
func nameErrorKey(err error, fallback string) string {
	var ne *NameError
	if errors.As(err, &ne) {
		return ne.Problem.Message(fallback, fallback)
	}
	return fallback
}

// Create makes a group with id as its only owner: the Groups row, the
// owner's GroupMembers row, then their UserGroups row.
func (s *Service) Create(ctx context.Context, id *auth.Identity, name string) (GroupRow, error) {
	return s.create(ctx, id, name, newGroupID())
}

// create is Create under a group id chosen before (SpinOff claims it
// first).
func (s *Service) create(ctx context.Context, id *auth.Identity, name, groupID string) (GroupRow, error) {
	name, err := CleanName(name)
	if err != nil {
		return GroupRow{}, err
	}
	if err := s.creations.Take(ctx, creationsKey(id.MemberKey), s.now()); err != nil {
		return GroupRow{}, err
	}
	now := s.now().UTC()
	pk, rk := groupKey(groupID)
	g := GroupRow{
		PartitionKey: pk, RowKey: rk,
		GroupID: groupID, GroupName: name,
		CreatedAt: now, UpdatedAt: now,
		CreatedByUserKey: id.UserKey,
		Timezone:         id.Location().String(),
		Upcoming:         emptySummary,
		// The owner is its first member: the first colour is theirs.
		Assigned: firstColor(id.MemberKey),
	}
	if _, err := storage.Insert(ctx, s.groups, g); err != nil {
		return GroupRow{}, err
	}
	owner := MemberRow{UserKey: id.UserKey, MemberKey: id.MemberKey, Email: id.Email, DisplayName: id.DisplayName}
	err = s.addMember(ctx, groupID, id.UserKey, StatusActive, RoleOwner, owner, now)
	// The group and its owner stand though the owner's list of groups
	// did not follow (web reindex groups finishes it): failing here
	// would have them make the group twice.
	if err := projection.Stood(ctx, s.log, err, "groups: the owner's UserGroups row not written", "group", groupID); err != nil {
		return GroupRow{}, err
	}
	s.counts.Add(ctx, NewGroups)
	return g, nil
}

// GroupsPerDay is how many groups one account may make in a day (a
// spin-off from a join link counts too): far more than a family or a
// club needs, and a bound on what one account can fill the store with.
const GroupsPerDay = 20

// ErrTooManyGroups refuses a group past GroupsPerDay (429).
var ErrTooManyGroups = fault.New(http.StatusTooManyRequests, "groups.error.too_many_groups", "groups: too many groups made today")

// creationsKey is the creations counter's key for memberKey.
func creationsKey(memberKey string) string { return "create|" + memberKey }

// SetTimezone sets the group's home zone (IANA), as an owner: pages
// note it where it differs from the viewer's. A zone that is not one is
// a field error and writes nothing.
func (s *Service) SetTimezone(ctx context.Context, m Membership, zone string) (GroupRow, error) {
	if !account.ValidTimezone(zone) {
		return GroupRow{}, FieldErrors{"timezone": "groups.timezone.error"}
	}
	return s.updateGroup(ctx, m, func(g *GroupRow) { g.Timezone = zone })
}

// Rename changes a group's name: one read and one conditional update of
// the Groups row, nothing else (document 004's budget).
func (s *Service) Rename(ctx context.Context, m Membership, name string) (GroupRow, error) {
	name, err := CleanName(name)
	if err != nil {
		return GroupRow{}, err
	}
	return s.updateGroup(ctx, m, func(g *GroupRow) { g.GroupName = name })
}

// Delete soft-deletes a group: it disappears from every page and list at
// once, and the purge (later slice) removes it after PurgeAfter.
func (s *Service) Delete(ctx context.Context, m Membership, by *auth.Identity) error {
	_, err := s.updateGroup(ctx, m, func(g *GroupRow) {
		g.bury(by, s.now().UTC())
	})
	return err
}

// updateGroup applies change to a live group under its ETag, for an
// owner.
func (s *Service) updateGroup(ctx context.Context, m Membership, change func(g *GroupRow)) (GroupRow, error) {
	if !m.Owner() {
		return GroupRow{}, ErrNotOwner
	}
	pk, rk := groupKey(m.GroupID)
	return storage.Change(ctx, s.groups, pk, rk, ErrNoGroup, func(g *GroupRow) error {
		if g.IsDeleted {
			return ErrNoGroup
		}
		change(g)
		g.UpdatedAt = s.now().UTC()
		return nil
	})
}

package groups

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// Join links (document 004's "ignite"): an owner opens a join session,
// shares its link or QR code, and whoever opens it joins the group, as
// themselves when signed in, else as a guest. The JoinSessions row is
// the only thing that admits them: open and not expired.

// JoinTTL is how long a join link works unless closed sooner.
const JoinTTL = 24 * time.Hour

// MaxJoinMeta bounds the owner's note on a join link, in characters.
const MaxJoinMeta = 200

// metaRule is the owner's note on a join link: optional, one line.
var metaRule = formrule.Text{Max: MaxJoinMeta}

// Errors of join links.
var (
	// ErrJoinClosed is a join link that was closed or has expired (410).
	ErrJoinClosed = errors.New("groups: this join link is closed")
	// ErrJoinRemoved refuses a join link to someone the owners removed:
	// a link does not undo a removal.
	ErrJoinRemoved = fault.New(http.StatusForbidden, "groups.error.join_removed", "groups: removed from this group")
)

// GuestSignIn is what joining by link needs of auth.
type GuestSignIn interface {
	SignInGuest(c echo.Context, displayName string) (*auth.Identity, error)
}

// UseGuests lets people without an account join by link as guests. Call
// it while wiring, before serving; without it only signed-in people join.
func (s *Service) UseGuests(g GuestSignIn) { s.guests = g }

// GuestPhotos is what joining by link needs of the account module: a
// guest's optional photo.
type GuestPhotos interface {
	GuestPhoto(ctx context.Context, memberKey, displayName string, data []byte) error
}

// UseGuestPhotos lets guests joining by link add a photo. Call it while
// wiring, before serving; without it the join form asks only for a name.
func (s *Service) UseGuestPhotos(p GuestPhotos) { s.guestPhotos = p }

// newSessionID mints a join session id: 128 random bits in hex, the
// link's secret.
func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// JoinURL is the link a join session shares.
func (s *Service) JoinURL(groupID, sessionID string) string {
	return s.baseURL + joinPath(groupID, sessionID)
}

func joinPath(groupID, sessionID string) string {
	return "/join/" + url.PathEscape(groupID) + "/" + url.PathEscape(sessionID)
}

// OpenJoinSession opens a join link for the group, as an owner. It
// expires after JoinTTL. A note that breaks the text rules is
// FieldErrors{"meta": …} and opens nothing.
func (s *Service) OpenJoinSession(ctx context.Context, m Membership, by *auth.Identity, meta string) (JoinSessionRow, error) {
	if !m.Owner() {
		return JoinSessionRow{}, ErrNotOwner
	}
	meta, p := metaRule.Check(meta)
	if p != formrule.OK {
		return JoinSessionRow{}, FieldErrors{"meta": p.Message("", "groups.join.error.meta")}
	}
	now := s.now().UTC()
	pk, rk := joinSessionKey(m.GroupID, newSessionID())
	row := JoinSessionRow{
		PartitionKey: pk, RowKey: rk, Status: JoinOpen,
		CreatedByUserKey: by.UserKey, CreatedAt: now, ExpiresAt: now.Add(JoinTTL),
		Meta: meta, UpdatedAt: now,
	}
	_, err := storage.Insert(ctx, s.joinSessions, row)
	return row, err
}

// joinSession reads a group's join session; a bad or unknown id is
// ErrNoGroup (404).
func (s *Service) joinSession(ctx context.Context, groupID, sessionID string) (JoinSessionRow, error) {
	if !storage.IsID(groupID) || !validSessionID(sessionID) {
		return JoinSessionRow{}, ErrNoGroup
	}
	pk, rk := joinSessionKey(groupID, sessionID)
	row, err := storage.Find[JoinSessionRow](ctx, s.joinSessions, pk, rk, ErrNoGroup)
	return row, err
}

// Usable reports whether the link admits people at now.
func (r JoinSessionRow) Usable(now time.Time) bool {
	return r.Status == JoinOpen && now.Before(r.ExpiresAt)
}

// JoinSession is a join session as its owner sees it.
func (s *Service) JoinSession(ctx context.Context, m Membership, sessionID string) (JoinSessionRow, error) {
	if !m.Owner() {
		return JoinSessionRow{}, ErrNotOwner
	}
	return s.joinSession(ctx, m.GroupID, sessionID)
}

// OpenJoinSessions lists the group's join links that still admit people,
// newest first, for its owners: one query of the group's partition.
func (s *Service) OpenJoinSessions(ctx context.Context, m Membership) ([]JoinSessionRow, error) {
	if !m.Owner() {
		return nil, nil
	}
	now := s.now().UTC()
	rows, err := storage.All[JoinSessionRow](ctx, s.joinSessions, storage.Query{
		PartitionKey: m.GroupID,
		Filters: []storage.Filter{
			{Name: "status", Op: storage.Eq, Value: JoinOpen},
			{Name: "expiresAt", Op: storage.Gt, Value: now},
		},
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b JoinSessionRow) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return rows, nil
}

// CloseJoinSession closes a join link, as an owner: it admits nobody
// from the next request on. Closing twice is fine.
func (s *Service) CloseJoinSession(ctx context.Context, m Membership, sessionID string) error {
	if !m.Owner() {
		return ErrNotOwner
	}
	if !storage.IsID(m.GroupID) || !validSessionID(sessionID) {
		return ErrNoGroup
	}
	pk, rk := joinSessionKey(m.GroupID, sessionID)
	_, err := storage.Modify(ctx, s.joinSessions, pk, rk, func(row *JoinSessionRow, exists bool) error {
		switch {
		case !exists:
			return ErrNoGroup
		case row.Status == JoinClosed:
			return storage.ErrNoChange
		}
		now := s.now().UTC()
		row.Status, row.ClosedAt, row.UpdatedAt = JoinClosed, timePtr(now), now
		return nil
	})
	return err
}

// Joined lists who joined by the session, newest first, removed people
// left out: one query of the group's GroupMembers partition.
func (s *Service) Joined(ctx context.Context, m Membership, sessionID string) ([]MemberRow, error) {
	if !m.Owner() {
		return nil, ErrNotOwner
	}
	var out []MemberRow
	err := s.members.QueryAll(ctx, storage.Query{
		PartitionKey: m.GroupID,
		Filters: []storage.Filter{
			{Name: "joinedVia", Op: storage.Eq, Value: sessionID},
			{Name: "status", Op: storage.Eq, Value: StatusActive},
		},
	}, func(e storage.Entity) error {
		var row MemberRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return err
		}
		out = append(out, row)
		return nil
	})
	// Newest first: the person who just joined is at the top.
	slices.SortStableFunc(out, func(a, b MemberRow) int {
		return joinedTime(b).Compare(joinedTime(a))
	})
	return out, err
}

func joinedTime(r MemberRow) time.Time {
	if r.JoinedAt == nil {
		return time.Time{}
	}
	return *r.JoinedAt
}

// JoinLink is what the join page shows: the group and its open link.
type JoinLink struct {
	Group   GroupRow
	Session JoinSessionRow
}

// OpenLink reads a join link for anyone holding it: ErrNoGroup when the
// link or its group does not exist, ErrJoinClosed when it no longer
// admits anyone.
func (s *Service) OpenLink(ctx context.Context, groupID, sessionID string) (JoinLink, error) {
	js, err := s.joinSession(ctx, groupID, sessionID)
	if err != nil {
		return JoinLink{}, err
	}
	g, err := s.group(ctx, groupID)
	if err != nil {
		return JoinLink{}, err
	}
	if !js.Usable(s.now()) {
		return JoinLink{}, ErrJoinClosed
	}
	return JoinLink{Group: g, Session: js}, nil
}

// Join makes id an active member through the link: a new GroupMembers
// row (keyed by userKey for accounts, by the guest memberKey for
// guests) with joinedVia, and its UserGroups mirror. An invitee is
// admitted as if they accepted; an active member changes nothing; a
// removed one is refused.
func (s *Service) Join(ctx context.Context, link JoinLink, id *auth.Identity) (MemberRow, error) {
	if !link.Session.Usable(s.now()) {
		return MemberRow{}, ErrJoinClosed
	}
	groupID := link.Group.GroupID
	rowKey := memberRowKey(id)
	if rowKey == "" {
		return MemberRow{}, ErrNoGroup
	}
	now := s.now().UTC()
	pk, rk := groupMemberKey(groupID, rowKey)
	fresh := MemberRow{
		PartitionKey: pk, RowKey: rk,
		UserKey: id.UserKey, MemberKey: id.MemberKey, Email: id.Email,
		Status: StatusActive, Role: RoleMember, DisplayName: id.DisplayName,
		JoinedAt: timePtr(now), JoinedVia: link.Session.RowKey, UpdatedAt: now,
	}
	err := s.insertMember(ctx, fresh)
	if errors.Is(err, storage.ErrExists) {
		joined := false
		row, err := s.changeMember(ctx, groupID, rowKey, func(row *MemberRow) error {
			joined = false // a retry starts over
			switch {
			case row.Status == StatusActive:
				return nil
			case row.barred():
				return ErrJoinRemoved
			case row.Status == StatusRemoved: // left, or an invitation that ended
				row.Role, row.RemovedAt, row.Left = RoleMember, nil, false
			}
			row.Status, row.JoinedAt, row.JoinedVia = StatusActive, timePtr(now), link.Session.RowKey
			row.MemberKey, row.DisplayName = id.MemberKey, id.DisplayName
			joined = true
			return nil
		})
		if err == nil && joined {
			s.refreshColors(ctx, groupID)
		}
		return row, err
	}
	if err != nil {
		return MemberRow{}, err
	}
	if err := s.mirror(ctx, fresh); err != nil {
		return fresh, err
	}
	s.refreshColors(ctx, groupID)
	return fresh, nil
}

// spinOffGrace is how long a spin-off may take to make its group before
// another may take its claim on the link over (SpinOff).
const spinOffGrace = 5 * time.Minute

// spunOff is the group the link started or is starting (SpunOff): ""
// for none, and for a claim older than spinOffGrace on a group that was
// never made (a spin-off that stopped half way).
func (s *Service) spunOff(ctx context.Context, sess JoinSessionRow) (string, error) {
	if sess.SpunOff == "" || s.now().Sub(sess.UpdatedAt) < spinOffGrace {
		return sess.SpunOff, nil
	}
	pk, rk := groupKey(sess.SpunOff)
	_, err := storage.Find[GroupRow](ctx, s.groups, pk, rk, ErrNoGroup)
	if errors.Is(err, ErrNoGroup) {
		return "", nil
	}
	return sess.SpunOff, err
}

// SpinOff starts a group owned by owner for the people who joined by the
// session (document 004's "spinoff"): each is invited, under the key they
// have in the original group, and decides, as with any invitation (a
// guest accepts as a guest). People with an account are told in their
// inbox. A link starts one group: asking again gives that group, and
// invites nobody twice.
func (s *Service) SpinOff(ctx context.Context, m Membership, owner *auth.Identity, sessionID, name string) (GroupRow, error) {
	if _, err := CleanName(name); err != nil {
		return GroupRow{}, err
	}
	sess, err := s.JoinSession(ctx, m, sessionID)
	if err != nil {
		return GroupRow{}, err
	}
	// The link names the group it started (SpunOff) before the group is
	// made, so of two requests at once (a double click) one makes it and
	// the other is sent to it. A link that has named its group for
	// longer than spinOffGrace while no such group exists was claimed by
	// a spin-off that stopped half way: this one takes the claim over.
	if made, err := s.spunOff(ctx, sess); made != "" || err != nil {
		// Made already, or being made by a request at this moment, whose
		// group row may not be there yet: either way the answer is its
		// page.
		return GroupRow{GroupID: made}, err
	}
	stale := sess.SpunOff
	joined, err := s.Joined(ctx, m, sessionID)
	if err != nil {
		return GroupRow{}, err
	}
	// A claim taken over keeps its group's id: if the stalled request
	// goes on after all, its group is this one's (create refuses the
	// second), not a second group.
	groupID, claimed := stale, ""
	if groupID == "" {
		groupID = newGroupID()
	}
	pk, rk := joinSessionKey(m.GroupID, sessionID)
	mine := "" // the ETag of the link as this request's claim wrote it
	claim := func(from, to string) error {
		row, err := storage.Modify(ctx, s.joinSessions, pk, rk, func(row *JoinSessionRow, exists bool) error {
			if !exists {
				return ErrNoGroup
			}
			if claimed = row.SpunOff; claimed != from {
				return storage.ErrNoChange
			}
			row.SpunOff, row.UpdatedAt = to, s.now().UTC()
			return nil
		})
		mine = row.ETag
		return err
	}
	// release lets go of this request's claim alone: one that took it
	// over holds the same group id.
	release := func() error {
		_, err := storage.Modify(ctx, s.joinSessions, pk, rk, func(row *JoinSessionRow, exists bool) error {
			if !exists || row.ETag != mine || row.SpunOff != groupID {
				return storage.ErrNoChange
			}
			row.SpunOff, row.UpdatedAt = "", s.now().UTC()
			return nil
		})
		return err
	}
	if err := claim(stale, groupID); err != nil {
		return GroupRow{}, err
	}
	if claimed == "" && stale != "" {
		// The stopped claim was let go meanwhile (its request failed):
		// claim the link afresh, for a group of its own.
		stale, groupID = "", newGroupID()
		if err := claim("", groupID); err != nil {
			return GroupRow{}, err
		}
	}
	if claimed != stale {
		return GroupRow{GroupID: claimed}, nil // another request is making it
	}
	g, err := s.create(ctx, owner, name, groupID)
	if errors.Is(err, storage.ErrExists) {
		// Made meanwhile by the request whose claim this one took over,
		// or which took this one's over: one group, whose maker invites.
		return GroupRow{GroupID: groupID}, nil
	}
	if err != nil {
		if uerr := release(); uerr != nil {
			s.log.WarnContext(ctx, "groups: a failed spin-off still holds its link", "group", groupID, "err", uerr)
		}
		return GroupRow{}, err
	}
	now := s.now().UTC()
	var told []inbox.Recipient
	for _, j := range joined {
		if j.RowKey == memberRowKey(owner) {
			continue
		}
		who := MemberRow{UserKey: j.UserKey, Email: j.Email, DisplayName: j.DisplayName, InvitedByUserKey: owner.UserKey}
		if err := s.addMember(ctx, g.GroupID, j.RowKey, StatusInvited, RoleMember, who, now); err != nil {
			return GroupRow{}, err
		}
		if auth.IsAuthMemberKey(j.MemberKey) {
			told = append(told, inbox.Recipient{MemberKey: j.MemberKey})
		}
	}
	if s.notifier != nil && len(told) > 0 {
		err := s.notifier.Post(ctx, inbox.Notice{
			To: told, Kind: "groups.notify.spun_off", Link: invitePath(g.GroupID), From: owner.MemberKey,
			Args: map[string]string{"name": owner.DisplayName, "group": g.GroupName}, Key: "spinoff|" + g.GroupID,
		})
		if err != nil {
			s.log.WarnContext(ctx, "groups: spin-off invitations not announced", "group", g.GroupID, "err", err)
		}
	}
	return g, nil
}

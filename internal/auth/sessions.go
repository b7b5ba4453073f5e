package auth

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/logctx"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/viewer"
)

// sessionRow is one signed-in browser, in table Sessions. The cookie only
// names it; deleting the row ends the session, whoever holds the cookie.
// The display fields are copies (RefreshSessions keeps them in step), so a
// request costs one point read.
type sessionRow struct {
	MemberKey  string    `table:"PartitionKey"`
	ID         string    `table:"RowKey"`
	ETag       string    `table:"ETag"`
	CreatedAt  time.Time `table:"CreatedAt"`
	LastSeenAt time.Time `table:"LastSeenAt"`
	// ExpiresAt is the absolute end (SESSION_MAX_AGE after sign-in); the
	// idle end is LastSeenAt plus SESSION_IDLE_TIMEOUT.
	ExpiresAt time.Time `table:"ExpiresAt"`
	UserAgent string    `table:"UserAgent"`
	IP        string    `table:"IP"`
	// Email is the verified email the account signed in with; "" for
	// guests and for providers that vouch for none.
	Email       string `table:"Email"`
	DisplayName string `table:"DisplayName"`
	// AdminRole is the granted role; ADMIN_EMAILS is checked on each load.
	AdminRole bool `table:"AdminRole"`
	// OrganizerRole is the granted organizer role (events).
	OrganizerRole bool   `table:"OrganizerRole"`
	Language      string `table:"Language"`
	AvatarURL     string `table:"AvatarURL"`
	Guest         bool   `table:"Guest"`
	// Timezone is the profile's IANA zone, "" for none (UTC).
	Timezone string `table:"Timezone"`
	// ProfileAt is the ProfileState.ProfileAt the fields above come from
	// (nil when it had none).
	ProfileAt *time.Time `table:"ProfileAt"`
}

// sessionKey is the Sessions row's keys: the member's partition holds all
// their sessions, so "sign out everywhere" is one partition.
func sessionKey(memberKey, sessionID string) (pk, rk string) { return memberKey, sessionID }

// Cookie values. The cookie is signed and encrypted by web.Sessions and
// carries only the row's address, never the identity itself.
const (
	cookieMember  = "auth.member"
	cookieSession = "auth.sid"
)

// maxUserAgent bounds the stored User-Agent; it is only shown on the
// sessions page.
const maxUserAgent = 256

// newRandomID is 128 random bits in hex, for session ids and guest ids.
func newRandomID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

func (r *sessionRow) identity(adminEmail bool) *Identity {
	id := newIdentity(r.MemberKey, r.Email, r.Guest, r.AdminRole || adminEmail, r.OrganizerRole)
	id.DisplayName, id.SessionID, id.Language, id.Timezone = r.DisplayName, r.ID, r.Language, r.Timezone
	return id
}

// newIdentity is what an identity's keys and roles are, by one rule for
// the one asking (their session) and for anyone else (IdentityOf): a
// guest has no roles and no userKey; admins are organizers too.
func newIdentity(memberKey, email string, guest, admin, organizer bool) *Identity {
	id := &Identity{MemberKey: memberKey, Email: email, Guest: guest, Admin: !guest && admin, Organizer: !guest && (admin || organizer)}
	switch {
	case email != "":
		id.UserKey = UserKey(email)
	case !guest:
		id.UserKey = MemberUserKey(memberKey)
	}
	return id
}

// IdentityOf is memberKey's identity as a session of theirs would carry
// it, from their profile (st) and ADMIN_EMAILS: for asking what someone
// who is not the one asking may do (whom a chat message mentions).
func (s *Service) IdentityOf(memberKey, email string, st ProfileState) *Identity {
	id := newIdentity(memberKey, email, IsGuestKey(memberKey), st.Admin || s.isAdminEmail(email), st.Organizer)
	id.DisplayName, id.Language, id.Timezone = st.DisplayName, st.Language, st.Timezone
	return id
}

func viewerOf(id *Identity, avatarURL string) viewer.Viewer {
	return viewer.Viewer{SignedIn: true, Guest: id.Guest, Admin: id.Admin, Name: id.DisplayName, AvatarURL: avatarURL,
		ZoneUnset: !id.Guest && id.Timezone == ""}
}

// expired reports whether the session has passed its absolute or idle end.
// Both are checked against the current settings too, so shortening them
// applies to sessions already open.
func (s *Service) expired(r *sessionRow, now time.Time) bool {
	end := earliest(r.ExpiresAt, r.CreatedAt.Add(s.cfg.SessionMaxAge), r.LastSeenAt.Add(s.cfg.SessionIdleTimeout))
	return !now.Before(end)
}

func earliest(ts ...time.Time) time.Time {
	m := ts[0]
	for _, t := range ts[1:] {
		if t.Before(m) {
			m = t
		}
	}
	return m
}

// touchEvery is how stale LastSeenAt may get before a request rewrites it:
// at most once per five minutes, and often enough for a short idle timeout.
func (s *Service) touchEvery() time.Duration {
	return min(5*time.Minute, s.cfg.SessionIdleTimeout/4)
}

// Middleware loads the request's identity from the session cookie and its
// Sessions row (one point read), puts it on the echo context (From) and the
// viewer on the request context (for the page header), and ends sessions
// whose row is gone or whose idle or absolute timeout has passed.
func (s *Service) Middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if skipIdentity(c.Request().URL.Path) {
				return next(c)
			}
			id, avatar, err := s.loadIdentity(c)
			if err != nil {
				return err
			}
			if id != nil {
				s.attach(c, id, avatar)
			}
			return next(c)
		}
	}
}

// skipIdentity spares hashed static files a storage read: they are the
// same for everyone.
func skipIdentity(path string) bool {
	return strings.HasPrefix(path, "/static/") || path == "/favicon.ico"
}

func (s *Service) attach(c echo.Context, id *Identity, avatarURL string) {
	setIdentity(c, id)
	req := c.Request()
	ctx := logctx.WithMember(viewer.With(req.Context(), viewerOf(id, avatarURL)), id.MemberKey)
	c.SetRequest(req.WithContext(ctx))
}

func (s *Service) loadIdentity(c echo.Context) (*Identity, string, error) {
	sess, err := web.Session(c)
	if err != nil {
		return nil, "", err
	}
	memberKey, _ := sess.Values[cookieMember].(string)
	sessionID, _ := sess.Values[cookieSession].(string)
	if memberKey == "" || sessionID == "" {
		return nil, "", nil
	}
	ctx := c.Request().Context()
	row, err := s.getSession(ctx, memberKey, sessionID)
	switch {
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrInvalidKey):
		// Signed out, signed out everywhere, or disabled by an admin.
		return nil, "", s.forgetSession(c, sess)
	case err != nil:
		return nil, "", err
	}
	now := s.now()
	if s.expired(row, now) {
		s.deleteSession(ctx, memberKey, sessionID)
		return nil, "", s.forgetSession(c, sess)
	}
	// The first request of a new UTC day also counts the person as
	// active that day (once a session, once a person: AddOncePerDay).
	newDay := !sameUTCDay(row.LastSeenAt, now)
	if newDay || now.Sub(row.LastSeenAt) >= s.touchEvery() {
		s.touchSession(ctx, row, now)
	}
	if newDay && !row.Guest {
		s.counts.AddOncePerDay(ctx, ActivePeople, memberKey)
	}
	return row.identity(s.isAdminEmail(row.Email)), row.AvatarURL, nil
}

// sameUTCDay reports whether a and b fall on one UTC day.
func sameUTCDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}

// ErrSignedOut is a session that ended after its request began: signed
// out, revoked, the account disabled, or past its idle or absolute end.
var ErrSignedOut = errors.New("auth: the session has ended")

// StillSignedIn asks again, for a response that outlives its request (a
// chat stream), whether id's session stands: one point read. It is
// ErrSignedOut when it does not.
func (s *Service) StillSignedIn(ctx context.Context, id *Identity) error {
	row, err := s.getSession(ctx, id.MemberKey, id.SessionID)
	switch {
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrInvalidKey):
		return ErrSignedOut
	case err != nil:
		return err
	case s.expired(row, s.now()):
		return ErrSignedOut
	}
	return nil
}

func (s *Service) getSession(ctx context.Context, memberKey, sessionID string) (*sessionRow, error) {
	pk, rk := sessionKey(memberKey, sessionID)
	row, err := storage.Get[sessionRow](ctx, s.sessions, pk, rk)
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// touchSession records activity. It merges LastSeenAt alone and needs the
// row to exist, so it never revives a session revoked meanwhile; a failure
// costs only idle-timeout precision, so it is logged, not returned.
func (s *Service) touchSession(ctx context.Context, row *sessionRow, now time.Time) {
	pk, rk := sessionKey(row.MemberKey, row.ID)
	e := storage.Entity{PartitionKey: pk, RowKey: rk, Props: map[string]any{"LastSeenAt": now}}
	if _, err := s.sessions.Update(ctx, e, storage.Merge, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
		s.log.WarnContext(ctx, "session last-seen update failed", "err", err)
	}
}

func (s *Service) deleteSession(ctx context.Context, memberKey, sessionID string) error {
	pk, rk := sessionKey(memberKey, sessionID)
	err := s.sessions.Delete(ctx, pk, rk, storage.AnyETag)
	if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrInvalidKey) {
		s.log.WarnContext(ctx, "session delete failed", "err", err)
		return err
	}
	return nil
}

// forgetSession drops the session's address from the cookie, and with it
// the CSRF token that belonged to the signed-in session.
func (s *Service) forgetSession(c echo.Context, sess *sessions.Session) error {
	delete(sess.Values, cookieMember)
	delete(sess.Values, cookieSession)
	web.RotateCSRFToken(sess)
	return web.SaveSession(c, sess)
}

// startSession is the one way into a session (sign-in and guests): it
// writes a new row under a fresh id, deletes the row the cookie named
// before, and rotates the cookie and the CSRF token, so nothing seen
// before sign-in is worth anything after it.
func (s *Service) startSession(c echo.Context, memberKey, email string, st ProfileState, guest bool) (*sessionRow, error) {
	ctx := c.Request().Context()
	sess, err := web.Session(c)
	if err != nil {
		return nil, err
	}
	now := s.now()
	row := &sessionRow{
		MemberKey:     memberKey,
		CreatedAt:     now,
		LastSeenAt:    now,
		ExpiresAt:     now.Add(s.cfg.SessionMaxAge),
		UserAgent:     truncate(c.Request().UserAgent(), maxUserAgent),
		IP:            c.RealIP(),
		Email:         email,
		DisplayName:   st.DisplayName,
		AdminRole:     st.Admin,
		OrganizerRole: st.Organizer,
		Language:      st.Language,
		Timezone:      st.Timezone,
		AvatarURL:     st.AvatarURL,
		Guest:         guest,
		ProfileAt:     st.profileAt(),
	}
	for attempt := 0; ; attempt++ {
		row.ID = newRandomID()
		e, err := storage.Marshal(row)
		if err != nil {
			return nil, err
		}
		if _, err = s.sessions.Insert(ctx, e); err == nil {
			break
		} else if !errors.Is(err, storage.ErrExists) || attempt == 2 {
			return nil, fmt.Errorf("auth: create session: %w", err)
		}
	}
	if !guest {
		s.counts.AddOncePerDay(ctx, ActivePeople, memberKey)
	}
	if oldMember, _ := sess.Values[cookieMember].(string); oldMember != "" {
		oldID, _ := sess.Values[cookieSession].(string)
		s.deleteSession(ctx, oldMember, oldID)
	}
	for k := range sess.Values {
		if k, ok := k.(string); ok && strings.HasPrefix(k, pendingPrefix) {
			delete(sess.Values, k)
		}
	}
	sess.Values[cookieMember] = row.MemberKey
	sess.Values[cookieSession] = row.ID
	web.RotateCSRFToken(sess)
	if err := web.SaveSession(c, sess); err != nil {
		s.deleteSession(ctx, row.MemberKey, row.ID)
		return nil, fmt.Errorf("auth: save session cookie: %w", err)
	}
	s.attach(c, row.identity(s.isAdminEmail(email)), row.AvatarURL)
	return row, nil
}

// SignOut ends the request's session: the row goes, so a copy of the
// cookie is worthless too.
func (s *Service) SignOut(c echo.Context) error {
	sess, err := web.Session(c)
	if err != nil {
		return err
	}
	memberKey, _ := sess.Values[cookieMember].(string)
	sessionID, _ := sess.Values[cookieSession].(string)
	if memberKey != "" && sessionID != "" {
		if err := s.deleteSession(c.Request().Context(), memberKey, sessionID); err != nil {
			return err
		}
	}
	setIdentity(c, nil)
	return s.forgetSession(c, sess)
}

// SessionInfo is one of a member's sessions, for the sessions page.
type SessionInfo struct {
	ID                               string
	CreatedAt, LastSeenAt, ExpiresAt time.Time
	UserAgent                        string
	// Current marks the session making the request.
	Current bool
}

// ListSessions returns the member's live sessions, most recently used
// first. Expired rows met on the way are deleted.
func (s *Service) ListSessions(ctx context.Context, memberKey, currentID string) ([]SessionInfo, error) {
	rows, err := s.memberSessions(ctx, memberKey)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var out []SessionInfo
	for _, r := range rows {
		if s.expired(r, now) {
			s.deleteSession(ctx, r.MemberKey, r.ID)
			continue
		}
		end := earliest(r.ExpiresAt, r.CreatedAt.Add(s.cfg.SessionMaxAge))
		out = append(out, SessionInfo{
			ID: r.ID, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt, ExpiresAt: end,
			UserAgent: r.UserAgent, Current: r.ID == currentID,
		})
	}
	slices.SortFunc(out, func(a, b SessionInfo) int { return b.LastSeenAt.Compare(a.LastSeenAt) })
	return out, nil
}

// RevokeSession ends one of the member's sessions. Ending one that is
// already gone is not an error (a double click).
func (s *Service) RevokeSession(ctx context.Context, memberKey, sessionID string) error {
	return s.deleteSession(ctx, memberKey, sessionID)
}

// RevokeAllSessions ends every session of the member: "sign out
// everywhere", and what disabling an account does at once.
func (s *Service) RevokeAllSessions(ctx context.Context, memberKey string) error {
	rows, err := s.memberSessions(ctx, memberKey)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range rows {
		if err := s.deleteSession(ctx, r.MemberKey, r.ID); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RefreshSessions copies the display name, role, language and avatar into
// the member's session rows after a change, so the next request sees them.
// A disabled account's sessions end instead.
func (s *Service) RefreshSessions(ctx context.Context, memberKey string, st ProfileState) error {
	if !st.Enabled {
		return s.RevokeAllSessions(ctx, memberKey)
	}
	rows, err := s.memberSessions(ctx, memberKey)
	if err != nil {
		return err
	}
	for _, r := range rows {
		// At the row's ETag, and only forward: a refresh from an older
		// profile (a save racing a role change) leaves a newer one be. A
		// state with no time is applied.
		pk, rk := sessionKey(r.MemberKey, r.ID)
		_, err := storage.Change(ctx, s.sessions, pk, rk, storage.ErrNoChange, func(r *sessionRow) error {
			if r.ProfileAt != nil && !st.ProfileAt.IsZero() && st.ProfileAt.Before(*r.ProfileAt) {
				return storage.ErrNoChange
			}
			r.DisplayName, r.AdminRole, r.OrganizerRole = st.DisplayName, st.Admin, st.Organizer
			r.Language, r.AvatarURL, r.Timezone, r.ProfileAt = st.Language, st.AvatarURL, st.Timezone, st.profileAt()
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// memberSessions reads the member's partition; a member has a handful of
// sessions, so one query loop is enough.
func (s *Service) memberSessions(ctx context.Context, memberKey string) ([]*sessionRow, error) {
	if err := storage.ValidateKey(memberKey); err != nil || memberKey == "" {
		return nil, fmt.Errorf("auth: bad member key: %w", storage.ErrInvalidKey)
	}
	var rows []*sessionRow
	err := s.sessions.QueryAll(ctx, storage.Query{PartitionKey: memberKey}, func(e storage.Entity) error {
		var r sessionRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		rows = append(rows, &r)
		return nil
	})
	return rows, err
}

// truncate cuts s to at most n bytes of valid UTF-8.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

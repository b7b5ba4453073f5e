// Package account owns a person's account: the profile (UserProfiles), the
// Users directory derived from it, settings (UserSettings), people-search
// preferences (UserPreferences), profile photos (container profile-images),
// and the account pages (/account…), including the list of signed-in
// devices. It implements auth.Profiles, so sign-in creates the profile, and
// gives the admin module its user list and the enable and role switches.
package account

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web"
)

// Sessions is what this module needs from the auth service: the sessions
// page, and keeping signed-in sessions in step with the profile.
type Sessions interface {
	ListSessions(ctx context.Context, memberKey, currentID string) ([]auth.SessionInfo, error)
	RevokeSession(ctx context.Context, memberKey, sessionID string) error
	RevokeAllSessions(ctx context.Context, memberKey string) error
	RefreshSessions(ctx context.Context, memberKey string, st auth.ProfileState) error
	IdentityOf(memberKey, email string, st auth.ProfileState) *auth.Identity
	AdminsConfigured() bool
	// SignOut ends the request's session (an account just closed).
	SignOut(c echo.Context) error
}

// Service is the account module: its tables, its photo container and its
// pages.
type Service struct {
	profiles  *storage.Table
	directory *storage.Table
	// listing keeps the directory in step with the profiles.
	listing     *projection.Projection[ProfileRow]
	settings    *storage.Table
	preferences *storage.Table
	photos      pictures.Store
	// uploads paces each client's photo uploads.
	uploads  *web.UploadPace
	sessions Sessions
	log      *slog.Logger
	now      func() time.Time
	// counts counts the accounts created at first sign-in.
	counts metrics.Counting
	// aiUsage, when set, feeds the profile page's AI usage (see ShowAIUsage).
	aiUsage      AIUsageReader
	aiConfigured bool
	// messageAction is where people's pages post "Message" ("": none).
	messageAction string
	// personExtra adds another module's part to people's pages.
	personExtra PersonExtra
	// data are the modules' exports and forgets (UseMemberData), and
	// forgetTask queues the erasure of a closed account.
	data       MemberData
	forgetTask tasks.Kind[forgetTask]
	// downloads paces each account's data downloads.
	downloads *ratelimit.PerIP
}

// NewUsers is the daily counter of accounts created at a first sign-in.
const NewUsers metrics.Counter = "newUsers"

// CountWith registers NewUsers with d, in the metrics page's "people"
// section, and counts the accounts created from now on. Call it while
// wiring, before serving (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) { s.counts = d.Counting(s.log, "people", NewUsers) }

// New builds the module. The auth service is both this module's sessions
// and its caller (auth.Profiles): cmd/web breaks the cycle with
// auth.ProfilesFunc.
func New(store *storage.Store, sessions Sessions, log *slog.Logger, now func() time.Time) *Service {
	s := &Service{
		profiles:    store.Table(profilesTable),
		directory:   store.Table(directoryTable),
		settings:    store.Table(settingsTable),
		preferences: store.Table(preferencesTable),
		photos:      pictures.Store{Container: store.Container(photoContainer), Large: largePhotoSide, Small: smallPhotoSide, Log: log},
		uploads:     web.NewUploadPace(now),
		downloads:   ratelimit.New(1, DownloadEvery),
		sessions:    sessions,
		log:         log,
		now:         now,
	}
	s.listing = s.directoryProjection()
	return s
}

// directoryProjection is the Users directory as a projection of the
// profiles: one row per account's profile, none for guests (they may
// have a profile, a photo from joining by link, but are not accounts),
// and a second in the People partition for an enabled account shown in
// People (discovery.go).
func (s *Service) directoryProjection() *projection.Projection[ProfileRow] {
	_, profileRK := profileKey("")
	return &projection.Projection[ProfileRow]{
		Canonical: s.profiles,
		Derived:   []*storage.Table{s.directory},
		Recorded:  "listed",
		Canon:     func(e storage.Entity) bool { return e.RowKey == profileRK },
		Rows: func(p ProfileRow) ([]projection.Row, error) {
			if auth.IsGuestKey(p.PartitionKey) {
				return nil, nil
			}
			row := directoryRowFor(p.PartitionKey, p)
			r, err := projection.RowOf(s.directory, row)
			if err != nil || !shownInPeople(p) {
				return []projection.Row{r}, err
			}
			// Shown in People: its row in the People partition too.
			row.PartitionKey, row.RowKey = peoplePartition, peopleRowKey(row.RowKey)
			shown, err := projection.RowOf(s.directory, row)
			return []projection.Row{r, shown}, err
		},
	}
}

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{profilesTable, directoryTable, settingsTable, preferencesTable}
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{photoContainer} }

// Slug is the module's section.
func (s *Service) Slug() string { return "account" }

// ErrNoAccount is returned for a memberKey without a profile.
var ErrNoAccount = fmt.Errorf("account: no such account: %w", storage.ErrNotFound)

// DisplayName is an enabled account's name (a private chat's other
// person); a missing, disabled or deleted account is storage.ErrNotFound.
func (s *Service) DisplayName(ctx context.Context, memberKey string) (string, error) {
	p, err := s.Profile(ctx, memberKey)
	if err == nil && (!p.Enabled || p.DeletedAt != nil) {
		err = storage.ErrNotFound
	}
	return p.DisplayName, err
}

// Identity is an enabled account as access checks see it when it is not
// the one asking (whom a chat message mentions): its userKey and its roles
// as they are now, from the profile and ADMIN_EMAILS; one read. A missing,
// disabled or deleted account is storage.ErrNotFound.
func (s *Service) Identity(ctx context.Context, memberKey string) (*auth.Identity, error) {
	if s.sessions == nil {
		return nil, errors.New("account: no sessions to ask for roles")
	}
	p, err := s.Profile(ctx, memberKey)
	if err == nil && (!p.Enabled || p.DeletedAt != nil) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.sessions.IdentityOf(memberKey, p.Email, profileState(p)), nil
}

// AdminByConfig reports whether email is in ADMIN_EMAILS: an admin by
// the server's configuration, whatever their role.
func (s *Service) AdminByConfig(email string) bool {
	return s.sessions != nil && email != "" && s.sessions.IdentityOf("", email, auth.ProfileState{}).Admin
}

// AdminsConfigured says ADMIN_EMAILS names someone.
func (s *Service) AdminsConfigured() bool { return s.sessions != nil && s.sessions.AdminsConfigured() }

// CreatedAt is when memberKey's account was made (the forum holds new
// accounts to less on their first day).
func (s *Service) CreatedAt(ctx context.Context, memberKey string) (time.Time, error) {
	p, err := s.Profile(ctx, memberKey)
	return p.CreatedAt, err
}

// Profile returns the profile of memberKey (ErrNoAccount when there is
// none).
func (s *Service) Profile(ctx context.Context, memberKey string) (ProfileRow, error) {
	pk, rk := profileKey(memberKey)
	p, err := storage.Find[ProfileRow](ctx, s.profiles, pk, rk, ErrNoAccount)
	return p, err
}

// updateProfile applies change to the stored profile under its ETag,
// retrying when someone wrote in between, then copies the result into the
// directory. change may return an error to abandon the write.
//
// UpdatedAt only moves forward, whatever the writing instance's clock
// says: sessions keep the newest state by it (auth.RefreshSessions), so a
// role taken away by an instance whose clock runs behind must still read
// as newer than the grant before it.
func (s *Service) updateProfile(ctx context.Context, memberKey string, change func(p *ProfileRow) error) (ProfileRow, error) {
	pk, rk := profileKey(memberKey)
	out, err := s.listing.Change(ctx, pk, rk, ErrNoAccount, func(p *ProfileRow) error {
		if err := change(p); err != nil {
			return err
		}
		now := s.now().UTC()
		if !now.After(p.UpdatedAt) {
			now = p.UpdatedAt.Add(time.Microsecond)
		}
		p.UpdatedAt = now
		return nil
	})
	// The profile is the truth and is saved, so a directory row behind is
	// logged, not returned: the rebuild repairs it.
	if err := projection.Stood(ctx, s.log, err, "directory row not updated; web reindex users repairs it", "member", memberKey); err != nil {
		return ProfileRow{}, err
	}
	return out, nil
}

// Settings returns memberKey's settings (the defaults when none are saved).
func (s *Service) Settings(ctx context.Context, memberKey string) (SettingsRow, error) {
	pk, rk := settingsKey(memberKey)
	row, err := storage.Get[SettingsRow](ctx, s.settings, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return defaultSettings(memberKey, s.now().UTC()), nil
	}
	return row, err
}

// stateOf is what auth keeps in the member's sessions.
func (s *Service) stateOf(ctx context.Context, memberKey string, p ProfileRow) (auth.ProfileState, error) {
	settings, err := s.Settings(ctx, memberKey)
	if err != nil {
		return auth.ProfileState{}, err
	}
	st := profileState(p)
	st.Language, st.AvatarURL = settings.Language, AvatarURL(memberKey, p.PhotoKey)
	return st, nil
}

// profileState is what auth keeps of a profile, but for the language and
// the avatar (stateOf adds them).
func profileState(p ProfileRow) auth.ProfileState {
	return auth.ProfileState{
		DisplayName: p.DisplayName,
		Enabled:     p.Enabled && p.DeletedAt == nil,
		Closing:     p.DeletedAt != nil,
		Admin:       p.Role == RoleAdmin,
		Organizer:   p.Role == RoleOrganizer,
		Timezone:    p.Timezone,
		ProfileAt:   p.UpdatedAt,
	}
}

// refreshSessions copies the profile's display fields into the member's
// signed-in sessions, so the header and language change at once.
func (s *Service) refreshSessions(ctx context.Context, memberKey string, p ProfileRow) error {
	st, err := s.stateOf(ctx, memberKey, p)
	if err != nil {
		return err
	}
	return s.sessions.RefreshSessions(ctx, memberKey, st)
}

// refreshDisplay is refreshSessions after a cosmetic change (name, photo,
// language): the change is saved, and sessions that miss it catch up at
// the next sign-in, so a failure is logged rather than shown as an error.
func (s *Service) refreshDisplay(ctx context.Context, memberKey string, p ProfileRow) {
	// The profile is saved: its sessions must follow even when the
	// browser has gone on to another page and cancelled the request.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.refreshSessions(ctx, memberKey, p); err != nil {
		s.log.WarnContext(ctx, "sessions not refreshed after a profile change", "member", memberKey, "err", err)
	}
}

// mediaPrefix is where profile photos are served.
const mediaPrefix = "/media/profile/"

// AvatarURL is the small photo's URL for a stored photoKey, "" for none.
func AvatarURL(memberKey, photoKey string) string {
	if photoKey == "" {
		return ""
	}
	return photoURL(memberKey, pictures.Small(photoKey))
}

// PhotoURL is the large photo's URL, "" for none.
func PhotoURL(memberKey, photoKey string) string {
	if photoKey == "" {
		return ""
	}
	return photoURL(memberKey, photoKey)
}

func photoURL(memberKey, blobName string) string {
	_, file, _ := strings.Cut(blobName, "/")
	return mediaPrefix + url.PathEscape(memberKey) + "/" + url.PathEscape(file)
}

var _ auth.EmailLinker = (*Service)(nil)

// LinkEmail records the address an account without one has just verified
// on its profile and directory row (auth calls it; register it with
// auth.OnEmailLinked before the modules that read the profile's email).
func (s *Service) LinkEmail(ctx context.Context, memberKey, email, _ string) error {
	_, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		p.Email = email
		return nil
	})
	return err
}

package auth

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"log/slog"
	"time"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/storage"
)

// Profiles is what auth needs from the account module (declared here,
// implemented by account.Service).
type Profiles interface {
	// OnSignIn creates the profile, the Users directory row and default
	// settings on first sign-in, and returns the account's state.
	// displayName may be "" (derive it from the email's local part).
	OnSignIn(ctx context.Context, memberKey, email, displayName string) (ProfileState, error)
}

// ProfilesFunc adapts a function to Profiles. It breaks the construction
// cycle between auth and the account module, which each need the other:
// build auth with a ProfilesFunc that calls the account service built next.
type ProfilesFunc func(ctx context.Context, memberKey, email, displayName string) (ProfileState, error)

// OnSignIn calls f.
func (f ProfilesFunc) OnSignIn(ctx context.Context, memberKey, email, displayName string) (ProfileState, error) {
	return f(ctx, memberKey, email, displayName)
}

// same reports whether a and b are one state (their times as instants).
func (a ProfileState) same(b ProfileState) bool {
	at, bt := a.ProfileAt, b.ProfileAt
	a.ProfileAt, b.ProfileAt = time.Time{}, time.Time{}
	return a == b && at.Equal(bt)
}

// ProfileState is an account's state as sign-in and sessions need it.
type ProfileState struct {
	DisplayName string
	// Enabled is document 003's enabled flag; false refuses sign-in.
	Enabled bool
	// Closing: the member asked to delete the account, which is being
	// erased; sign-in is refused with that reason (Enabled is false too).
	Closing bool
	// Admin is the role granted on the admin users page; ADMIN_EMAILS is
	// added on top by auth.
	Admin bool
	// Organizer is the organizer role (events); admins are organizers
	// too.
	Organizer bool
	// Language is "ru", "en" or "".
	Language  string
	AvatarURL string
	// Timezone is the profile's IANA zone, "" for none.
	Timezone string
	// ProfileAt is when the profile was last written (its UpdatedAt):
	// sessions keep the newest state they were given, so a refresh that
	// comes late cannot put back what a later one took away (a role).
	ProfileAt time.Time
}

// profileAt is ProfileAt as a session keeps it: nil when it is unknown.
func (st ProfileState) profileAt() *time.Time {
	if st.ProfileAt.IsZero() {
		return nil
	}
	at := st.ProfileAt.UTC()
	return &at
}

// GuestUpgrader moves what a guest owns to the account they sign in to
// (the groups module re-keys its memberships).
type GuestUpgrader interface {
	UpgradeGuest(ctx context.Context, guestKey, memberKey string) error
}

// Table names.
const (
	sessionsTable = "Sessions"
	accountsTable = "AccountsByEmail"
	codesTable    = "OtpCodes"
)

// Service is sign-in, sessions and the identity middleware.
type Service struct {
	cfg      *config.Config
	profiles Profiles
	// mailer is nil when the server cannot send mail (production without
	// SMTP_URL): sign-in by code is then unavailable.
	mailer mail.Sender
	// mailbox is the development mailbox page's source; nil in production
	// and whenever mail really goes out.
	mailbox recentMail
	log     *slog.Logger
	now     func() time.Time

	sessions *storage.Table
	accounts *storage.Table
	codes    *storage.Table

	// codeKeys hash one-time codes; the first hashes, all verify.
	codeKeys    [][]byte
	adminEmails map[string]bool
	sendLimit   *ratelimit.PerIP
	verifyLimit *ratelimit.PerIP
	wrongCodes  *ratelimit.PerIP
	upgraders   []GuestUpgrader
	linkers     []EmailLinker

	// oidc is sign-in through the configured OpenID provider (oidc*.go);
	// nil when OIDC_ISSUER is not set.
	oidc *oidcClient

	// counts counts the people active each day.
	counts metrics.Counting
}

// ActivePeople is the daily counter of accounts that used the site that
// day (UTC), each counted once however many devices they use.
const ActivePeople metrics.Counter = "activePeople"

// CountWith registers ActivePeople with d, in the metrics page's "people"
// section, and counts from now on (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) { s.counts = d.Counting(s.log, "people", ActivePeople) }

// recentMail is the development mailbox as the dev mailbox page reads it.
type recentMail interface {
	Recent() []mail.Delivered
}

// New builds the service. mailer may be nil (no mail can be sent); now is the
// clock.
func New(store *storage.Store, cfg *config.Config, profiles Profiles, mailer mail.Sender, log *slog.Logger, now func() time.Time) (*Service, error) {
	if store == nil || cfg == nil || profiles == nil || log == nil || now == nil {
		return nil, errors.New("auth: store, config, profiles, logger and clock are required")
	}
	if len(cfg.SessionKeys) == 0 {
		return nil, errors.New("auth: no session keys")
	}
	s := &Service{
		cfg:         cfg,
		profiles:    profiles,
		mailer:      mailer,
		log:         log,
		now:         now,
		sessions:    store.Table(sessionsTable),
		accounts:    store.Table(accountsTable),
		codes:       store.Table(codesTable),
		adminEmails: map[string]bool{},
		sendLimit:   ratelimit.New(codeSendBurst, codeSendEvery),
		verifyLimit: ratelimit.New(codeVerifyBurst, codeVerifyEvery),
		wrongCodes:  ratelimit.New(wrongCodeBurst, wrongCodeEvery),
	}
	if mb, ok := mail.Delivering(mailer).(recentMail); ok && !cfg.IsProduction() {
		s.mailbox = mb
	}
	for _, key := range cfg.SessionKeys {
		k, err := hkdf.Key(sha256.New, key, nil, "harmony one-time code", 32)
		if err != nil {
			return nil, err
		}
		s.codeKeys = append(s.codeKeys, k)
	}
	for _, e := range cfg.AdminEmails {
		s.adminEmails[e] = true
	}
	if cfg.OIDC.Enabled() {
		// OIDC hook: oidc.go builds the client (discovery bounds its own time).
		var err error
		if s.oidc, err = newOIDC(context.Background(), cfg, log); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Tables lists the tables the service needs provisioned.
func (s *Service) Tables() []string {
	return []string{sessionsTable, accountsTable, codesTable}
}

// OnGuestUpgrade registers u to run when a guest signs in to an account.
// Call it while wiring, before serving.
func (s *Service) OnGuestUpgrade(u GuestUpgrader) {
	s.upgraders = append(s.upgraders, u)
}

// AdminsConfigured says ADMIN_EMAILS names someone: the server's way back
// in should no account hold the admin role.
func (s *Service) AdminsConfigured() bool { return len(s.adminEmails) > 0 }

// isAdminEmail reports an ADMIN_EMAILS address (verified emails only reach
// here).
func (s *Service) isAdminEmail(email string) bool {
	return email != "" && s.adminEmails[email]
}

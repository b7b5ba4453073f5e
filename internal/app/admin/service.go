// Package admin owns the administration pages under /admin (every route
// behind auth.RequireAdmin), the ModerationLog table (an append-only
// record of who did what to which account, and why) and the DailyMetrics
// counters other modules increment (Metrics). It changes accounts only
// through the account module.
//
// Deleting an account (memberdata.go): reports and log lines stay as
// moderation history with the member Forgotten in them; their AI usage
// rows, report quota and once-a-day counter marks go.
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
)

// Accounts is what the admin pages need from the account module.
type Accounts interface {
	ListUsers(ctx context.Context, cursor *storage.Cursor, limit int) ([]account.DirectoryRow, *storage.Cursor, error)
	Profile(ctx context.Context, memberKey string) (account.ProfileRow, error)
	SetEnabled(ctx context.Context, memberKey string, enabled bool) (account.ProfileRow, error)
	SetRole(ctx context.Context, memberKey, role string, granted bool) (account.ProfileRow, error)
	BarFromPeople(ctx context.Context, memberKey string, barred bool) (account.ProfileRow, error)
	AdminByConfig(email string) bool
	AdminsConfigured() bool
	CountAdmins(ctx context.Context) (int, error)
	Admins(ctx context.Context) ([]account.DirectoryRow, error)
	RebuildDirectory(ctx context.Context) (account.RebuildReport, error)
}

// Service is the admin module.
type Service struct {
	accounts Accounts
	log      *storage.Table
	metrics  *metrics.Daily
	// daily is the counters' table, whose once-a-day marks name people
	// (ForgetMember).
	daily   *storage.Table
	usage   *Usage
	cursors *storage.Cursors
	logger  *slog.Logger
	now     func() time.Time
	// pageSize is how many people one users page shows.
	pageSize int
	// rebuilds are the app's repairs of derived tables, one button each;
	// runs their last runs (rebuilds.go), running those this instance runs.
	rebuilds []platform.Rebuilder
	runs     *storage.Table
	running  sync.WaitGroup
	// reports are the moderation queue (reports.go); sources the modules
	// that take down what it names, by kind.
	reports *storage.Table
	// pictures keeps reported pictures while their reports are open.
	pictures    *storage.Container
	reportQuota *storage.Table
	sources     map[string]moderation.Source
	// staffed are the sources whose reports others judge too (review.go).
	staffed []moderation.Staffed
	// notifier tells the admins of a new report: those with the role and
	// configured (ADMIN_EMAILS).
	notifier   inbox.Poster
	configured []string
	// feed tells the admins' open pages a report closed (UseFeed).
	feed *live.Feed
	// tasks is the app's task queue, which /admin/tasks shows (tasks.go).
	tasks TaskQueue
}

// UseRebuilders takes the app's rebuilds (platform.RebuildRunner).
func (s *Service) UseRebuilders(rs []platform.Rebuilder) { s.rebuilds = rs }

// ErrNoRebuild is a rebuild subject the app does not have.
var ErrNoRebuild = fault.NotFound("admin: no such rebuild", storage.ErrNotFound)

// RebuildSubjects names the rebuilds, in module order.
func (s *Service) RebuildSubjects() []string {
	out := make([]string, 0, len(s.rebuilds))
	for _, r := range s.rebuilds {
		out = append(out, r.RebuildSubject())
	}
	return out
}

// New builds the module. cursors signs the users list's paging tokens
// (cmd/web builds it from CURSOR_KEYS).
func New(store *storage.Store, accounts Accounts, cursors *storage.Cursors, logger *slog.Logger, now func() time.Time) *Service {
	return &Service{
		accounts:    accounts,
		log:         store.Table(logTable),
		runs:        store.Table(runsTable),
		reports:     store.Table(reportsTable),
		pictures:    store.Container(PicturesContainer),
		reportQuota: store.Table(reportQuotaTable),
		metrics:     metrics.NewDaily(store, now),
		daily:       store.Table(metrics.Table),
		usage:       NewUsage(store, now),
		cursors:     cursors,
		logger:      logger,
		now:         now,
		pageSize:    25,
	}
}

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return append([]string{logTable, runsTable, reportsTable, reportQuotaTable, metrics.Table}, UsageTables...)
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{PicturesContainer} }

// Metrics are the daily counters, for the modules that increment them.
func (s *Service) Metrics() *metrics.Daily { return s.metrics }

// UseMetrics shows d, the app's shared daily counters, on the metrics
// page instead of counters of the admin module's own. Call it while wiring.
func (s *Service) UseMetrics(d *metrics.Daily) { s.metrics = d }

// Usage are the AI usage counters, for the AI client that records them
// and the account page that shows them.
func (s *Service) Usage() *Usage { return s.usage }

// RecentModelUsage returns the metrics page's per-model AI usage.
func (s *Service) RecentModelUsage(ctx context.Context) ([]ModelUsage, error) {
	return s.usage.ByModel(ctx, metricsDays)
}

// metricsDays is how many days the metrics page (and the account page's AI
// usage) shows.
const metricsDays = 30

// RecentMetrics returns the metrics page's days, oldest first.
func (s *Service) RecentMetrics(ctx context.Context) ([]metrics.Day, error) {
	return s.metrics.Last(ctx, metricsDays)
}

// Slug is the module's section; building the module replaces the "coming
// soon" page at /admin.
func (s *Service) Slug() string { return "admin" }

// Action is something an admin does to an account.
type Action string

const (
	ActionDisable     Action = "disable"
	ActionEnable      Action = "enable"
	ActionGrantAdmin  Action = "grant-admin"
	ActionRevokeAdmin Action = "revoke-admin"
	// An organizer creates and runs events (admins are organizers too).
	ActionGrantOrganizer  Action = "grant-organizer"
	ActionRevokeOrganizer Action = "revoke-organizer"
	// ActionAllowPeople lets someone whose People card the moderators
	// took down show it again (account.BarFromPeople).
	ActionAllowPeople Action = "allow-people"
)

// Actions lists every action, as the routes name them.
var Actions = []Action{ActionDisable, ActionEnable, ActionGrantAdmin, ActionRevokeAdmin, ActionGrantOrganizer, ActionRevokeOrganizer, ActionAllowPeople}

// MaxReason is the longest reason an admin may give.
const MaxReason = 500

// Errors a moderator can act on.
var (
	// ErrSelf refuses an admin disabling or demoting themselves, which
	// would lock them out with nobody to undo it.
	ErrSelf = fault.New(http.StatusBadRequest, "admin.error.self", "admin: an administrator cannot disable or demote themselves")
	// ErrReason refuses a reason that breaks the text rules; the error
	// itself is a *ReasonError.
	ErrReason = errors.New("admin: reason refused")
	// ErrConfiguredAdmin refuses disabling or changing the role of an
	// admin named in ADMIN_EMAILS (409): the server's configuration makes
	// them one, so no granted admin can lock them out, and taking a role
	// away would change nothing.
	ErrConfiguredAdmin = fault.New(http.StatusConflict, "admin.error.configured", "admin: an administrator by the configuration")
	// ErrLastAdmin refuses a change that left no admin (409): two admins
	// taking the role from each other at once, with no ADMIN_EMAILS to
	// come back by. The change was undone.
	ErrLastAdmin = fault.New(http.StatusConflict, "admin.error.last_admin", "admin: no administrator would be left")
)

// ReasonError refuses a moderation reason; Key is the i18n key of what
// is wrong with it (it takes the limit as {max}). Nothing was done.
type ReasonError struct{ Key string }

func (e *ReasonError) Error() string        { return ErrReason.Error() + ": " + e.Key }
func (e *ReasonError) Is(target error) bool { return target == ErrReason }

// Actor is the admin acting, as the log records them.
type Actor struct {
	MemberKey string
	Name      string
}

// Moderate applies action to the account target and records it in the
// ModerationLog. Disabling ends the account's sessions at once (the
// account module does that); an admin cannot disable or demote themselves.
// Unknown accounts are storage.ErrNotFound.
func (s *Service) Moderate(ctx context.Context, actor Actor, target string, action Action, reason string) (account.ProfileRow, error) {
	reason, err := cleanReason(reason)
	if err != nil {
		return account.ProfileRow{}, err
	}
	if target == actor.MemberKey && (action == ActionDisable || action == ActionRevokeAdmin) {
		return account.ProfileRow{}, ErrSelf
	}
	if action != ActionEnable && action != ActionGrantAdmin && action != ActionAllowPeople {
		p, err := s.accounts.Profile(ctx, target)
		if err != nil {
			return account.ProfileRow{}, err
		}
		if s.accounts.AdminByConfig(p.Email) {
			return account.ProfileRow{}, ErrConfiguredAdmin
		}
	}
	var p account.ProfileRow
	switch action {
	case ActionDisable:
		p, err = s.accounts.SetEnabled(ctx, target, false)
	case ActionEnable:
		p, err = s.accounts.SetEnabled(ctx, target, true)
	case ActionGrantAdmin:
		p, err = s.accounts.SetRole(ctx, target, account.RoleAdmin, true)
	case ActionRevokeAdmin:
		p, err = s.accounts.SetRole(ctx, target, account.RoleAdmin, false)
	case ActionGrantOrganizer:
		p, err = s.accounts.SetRole(ctx, target, account.RoleOrganizer, true)
	case ActionRevokeOrganizer:
		p, err = s.accounts.SetRole(ctx, target, account.RoleOrganizer, false)
	case ActionAllowPeople:
		p, err = s.accounts.BarFromPeople(ctx, target, false)
	default:
		return account.ProfileRow{}, fmt.Errorf("admin: unknown action %q: %w", action, storage.ErrNotFound)
	}
	if err != nil {
		return account.ProfileRow{}, err
	}
	if action == ActionDisable || action == ActionRevokeAdmin {
		if p, err = s.keepAnAdmin(ctx, target, action, p); err != nil {
			return account.ProfileRow{}, err
		}
	}
	entry := LogRow{
		Actor:      actor.MemberKey,
		ActorName:  actor.Name,
		Action:     string(action),
		TargetType: targetUser,
		TargetKey:  target,
		TargetName: p.DisplayName,
		Reason:     reason,
	}
	if err := s.appendLog(ctx, entry); err != nil {
		return p, fmt.Errorf("admin: %s done but not logged: %w", action, err)
	}
	return p, nil
}

// keepAnAdmin checks, after target lost the admin role or was disabled
// (p as it is now), that an enabled admin is left, and undoes the change
// with ErrLastAdmin when none is. Only then is it needed: an admin cannot
// act on themselves, so the last one can only go when two admins act on
// each other at once. Checking after the write is what makes that race
// safe: whichever change is counted last sees no admin and is undone. A
// server with ADMIN_EMAILS has its way back in, and is not checked.
func (s *Service) keepAnAdmin(ctx context.Context, target string, action Action, p account.ProfileRow) (account.ProfileRow, error) {
	if s.accounts.AdminsConfigured() || (action == ActionDisable && p.Role != account.RoleAdmin) {
		return p, nil
	}
	n, err := s.accounts.CountAdmins(ctx)
	if err != nil || n > 0 {
		return p, err
	}
	if action == ActionDisable {
		_, err = s.accounts.SetEnabled(ctx, target, true)
	} else {
		_, err = s.accounts.SetRole(ctx, target, account.RoleAdmin, true)
	}
	return account.ProfileRow{}, errors.Join(ErrLastAdmin, err)
}

// reasonRule is a moderation reason: optional, one line.
var reasonRule = formrule.Text{Max: MaxReason}

// cleanReason trims a reason and checks it against the text rules.
func cleanReason(reason string) (string, error) {
	reason, p := reasonRule.Check(reason)
	if p != formrule.OK {
		return "", &ReasonError{Key: p.Message("", "admin.error.reason")}
	}
	return reason, nil
}

// AdminByConfig reports whether email is an admin by ADMIN_EMAILS, whom
// the users page offers no action that Moderate would refuse.
func (s *Service) AdminByConfig(email string) bool { return s.accounts.AdminByConfig(email) }

// Account is one account's profile, for showing its row again.
func (s *Service) Account(ctx context.Context, memberKey string) (account.ProfileRow, error) {
	return s.accounts.Profile(ctx, memberKey)
}

// UsersPage is one page of the users list.
type UsersPage struct {
	Users []account.DirectoryRow
	// Next is the next page's cursor token, "" on the last page.
	Next string
}

// usersListQuery names the users list for its cursors, so a token from
// another listing is refused.
const usersListQuery = "admin/users"

// ListUsers reads one page of the users list from cursor (nil for the
// first page; the handler decodes it with web.ReadCursor and
// usersListQuery) and signs the next page's token.
func (s *Service) ListUsers(ctx context.Context, cursor *storage.Cursor) (UsersPage, error) {
	rows, next, err := s.accounts.ListUsers(ctx, cursor, s.pageSize)
	if err != nil {
		return UsersPage{}, err
	}
	return UsersPage{Users: rows, Next: s.token(usersListQuery, next)}, nil
}

// RebuildDirectory recomputes the Users directory from the profiles (the
// repair after a failed directory write) and reports what it fixed.
func (s *Service) RebuildDirectory(ctx context.Context) (account.RebuildReport, error) {
	r, err := s.accounts.RebuildDirectory(ctx)
	if err != nil {
		return r, err
	}
	s.logger.InfoContext(ctx, "user directory rebuilt", "profiles", r.Profiles, "written", r.Written, "removed", r.Removed)
	return r, nil
}

package people

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/app/chat"
	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/web"
)

// Accounts is what People reads and changes of the account module: the
// Users directory's people (account/discovery.go), settings and
// preferences, and (for the demo) profiles.
type Accounts interface {
	ListPeople(ctx context.Context, f account.PeopleFilter, cursor *storage.Cursor, limit int) ([]account.DirectoryRow, *storage.Cursor, error)
	InPeople(ctx context.Context, memberKey string) (account.DirectoryRow, error)
	DirectoryEntry(ctx context.Context, memberKey string) (account.DirectoryRow, error)
	SetInPeople(ctx context.Context, memberKey string, on bool) (account.ProfileRow, error)
	BarFromPeople(ctx context.Context, memberKey string, barred bool) (account.ProfileRow, error)
	SetPoint(ctx context.Context, memberKey string, at *account.Point) (account.ProfileRow, error)
	UpdatePreferences(ctx context.Context, memberKey string, in account.PreferencesInput) (account.FieldErrors, error)
	Settings(ctx context.Context, memberKey string) (account.SettingsRow, error)
	Preferences(ctx context.Context, memberKey string) (account.PreferencesRow, error)
	UpdateProfile(ctx context.Context, memberKey string, in account.ProfileInput) (account.FieldErrors, error)
	SetCardPhoto(ctx context.Context, memberKey, photo string) error
	SetAnswers(ctx context.Context, memberKey, answers string) error
	ListUsers(ctx context.Context, cursor *storage.Cursor, limit int) ([]account.DirectoryRow, *storage.Cursor, error)
}

// Blocks are the app's blocks (the chat's table).
type Blocks interface {
	HasBlocked(ctx context.Context, blocker, other string) (bool, error)
	Blocked(ctx context.Context, memberKey string) (map[string]chat.BlockRow, error)
}

// Notifier tells people of likes and matches (the inbox).
type Notifier = inbox.Poster

// Service is the people module.
type Service struct {
	likes   *storage.Table
	matches *storage.Table
	skips   *storage.Table
	skipCap int
	quota   *storage.Table
	// photos are the cards' photos (photos.go).
	photos   gallery.Gallery
	uploads  *web.UploadPace
	accounts Accounts
	blocks   Blocks
	notifier Notifier
	moderation.Reporting
	cursors *storage.Cursors
	counts  metrics.Counting
	// messageAction is where "Message" posts (the chat's private chats);
	// "" offers none.
	messageAction string
	log           *slog.Logger
	now           func() time.Time
}

// quotaTable counts each person's likes and places a day.
const quotaTable = "PeopleQuota"

// LikesPerDay bounds one person's likes a day, so nobody likes everyone.
const LikesPerDay = 50

// ErrTooManyLikes refuses a like past LikesPerDay (429).
var ErrTooManyLikes = fault.New(http.StatusTooManyRequests, "people.error.too_many", "people: too many likes today")

// PlacesPerDay bounds how often one person sets their place a day: a
// move, a trip and a retry, but not the many points from which someone's
// distances would give away where they are (trilateration, as was done
// to dating apps that let a client move at will).
const PlacesPerDay = 5

// ErrTooManyPlaces refuses a place past PlacesPerDay (429).
var ErrTooManyPlaces = fault.New(http.StatusTooManyRequests, "people.error.places", "people: too many places today", "max", PlacesPerDay)

// New builds the module on the account module's directory.
func New(store *storage.Store, accounts Accounts, cursors *storage.Cursors, log *slog.Logger, now func() time.Time) *Service {
	return &Service{
		likes:    store.Table(LikesTable),
		matches:  store.Table(MatchesTable),
		skips:    store.Table(SkipsTable),
		skipCap:  maxSkips,
		quota:    store.Table(quotaTable),
		photos:   newGallery(store.Table(PhotosTable), pictures.Store{Container: store.Container(photosContainer), Large: largePhotoSide, Small: smallPhotoSide, Log: log}, now),
		uploads:  web.NewUploadPace(now),
		accounts: accounts,
		cursors:  cursors,
		log:      log,
		now:      now,
	}
}

// UseBlocks keeps the people someone blocked out of their way. Call it
// while wiring.
func (s *Service) UseBlocks(b Blocks) { s.blocks = b }

// UseNotifier has likes and matches told through n. Call it while
// wiring; without it nobody is told.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// UseMessaging offers "Message" on matches: a form posting the other's
// memberKey as "member" to action (the chat's private chats).
func (s *Service) UseMessaging(action string) { s.messageAction = action }

// Slug is the module's section.
func (s *Service) Slug() string { return "people" }

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{LikesTable, MatchesTable, SkipsTable, quotaTable, PhotosTable}
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{photosContainer} }

// BodyLimits lets the photo upload take more than the site-wide
// BODY_LIMIT (web.BodyLimiter).
func (s *Service) BodyLimits() map[string]int64 { return map[string]int64{photosURL: photoBodyLimit} }

// Daily counters of the admin metrics page's "people" section.
const (
	LikesSent  metrics.Counter = "likes"
	NewMatches metrics.Counter = "matches"
)

// CountWith registers the module's daily counters (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) {
	s.counts = d.Counting(s.log, "people", LikesSent, NewMatches)
}

// placeLimit is the daily places quota, counted under placeQuotaKey.
func (s *Service) placeLimit() quota.Limit {
	return quota.Limit{Table: s.quota, Max: PlacesPerDay, Window: 24 * time.Hour, Err: ErrTooManyPlaces}
}

// placeQuotaKey is the key under which memberKey's places are counted.
func placeQuotaKey(memberKey string) string { return memberKey + "|place" }

// likeLimit is the daily likes quota.
func (s *Service) likeLimit() quota.Limit {
	return quota.Limit{Table: s.quota, Max: LikesPerDay, Window: 24 * time.Hour, Err: ErrTooManyLikes}
}

// blocked reports whether blocker blocked other; without blocks wired,
// nobody did. A failed read is an error: a block must not be missed.
func (s *Service) blocked(ctx context.Context, blocker, other string) (bool, error) {
	if s.blocks == nil {
		return false, nil
	}
	return s.blocks.HasBlocked(ctx, blocker, other)
}

// eitherBlocked reports whether a or b blocked the other.
func (s *Service) eitherBlocked(ctx context.Context, a, b string) (bool, error) {
	if hid, err := s.blocked(ctx, a, b); err != nil || hid {
		return hid, err
	}
	return s.blocked(ctx, b, a)
}

// blockedBy are the people memberKey blocked.
func (s *Service) blockedBy(ctx context.Context, memberKey string) (map[string]chat.BlockRow, error) {
	if s.blocks == nil {
		return nil, nil
	}
	return s.blocks.Blocked(ctx, memberKey)
}

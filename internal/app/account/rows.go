package account

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"
)

// Table names this module owns.
const (
	profilesTable    = "UserProfiles"
	directoryTable   = "Users"
	settingsTable    = "UserSettings"
	preferencesTable = "UserPreferences"
)

// photoContainer holds profile photos as {memberKey}/{imageId}.jpg (large)
// and {memberKey}/{imageId}_s.jpg (small).
const photoContainer = "profile-images"

// Roles an admin grants on the admin users page: an admin may do
// everything an organizer may (create and run events).
const (
	RoleAdmin     = "admin"
	RoleOrganizer = "organizer"
)

// ProfileRow is the canonical profile (document 004's UserProfiles, with
// document 000's profile fields and document 003's enabled flag). It is the
// source of truth; the Users directory row is derived from it.
type ProfileRow struct {
	PartitionKey string     `table:"PartitionKey"` // memberKey
	RowKey       string     `table:"RowKey"`       // "profile"
	ETag         string     `table:"ETag"`
	DisplayName  string     `table:"displayName"`
	PhotoKey     string     `table:"photoKey"` // blob name of the large photo, "" for none
	Email        string     `table:"email"`
	Timezone     string     `table:"timezone"`
	Bio          string     `table:"bio"`
	Location     string     `table:"location"`
	Gender       string     `table:"gender"`
	BirthDate    string     `table:"birthDate"` // YYYY-MM-DD, "" for unknown
	Enabled      bool       `table:"enabled"`
	Role         string     `table:"role"` // RoleAdmin, RoleOrganizer or ""
	CreatedAt    time.Time  `table:"createdAt"`
	UpdatedAt    time.Time  `table:"updatedAt"`
	DeletedAt    *time.Time `table:"deletedAt"` // asked to be deleted: closed while account.forget runs
	// InPeople shows the profile in the people module's discovery ("Show
	// me in People"); it needs a birth date of an adult and a profile
	// others may see (SetInPeople).
	InPeople bool `table:"inPeople"`
	// PeopleBarred: the moderators took the card out of People after a
	// report, and only an admin lets its owner show it again
	// (BarFromPeople).
	PeopleBarred bool `table:"peopleBarred"`
	// Lat and Lon are where the person said they are, for People's
	// distances: the browser's location, shared with consent, to within
	// about a kilometre (SetPoint); nil when not shared.
	Lat *float64 `table:"lat"`
	Lon *float64 `table:"lon"`
	// CardPhoto is the first of the person's People photos (the people
	// module's blob name, "" for none), which leads their card.
	CardPhoto string `table:"cardPhoto"`
	// Answers are the questions the person answers on their People card
	// (the people module's JSON, "" for none: SetAnswers).
	Answers string `table:"answers"`
	// Listed records the Users directory row last written for the
	// profile (projection.Follow's record).
	Listed string `table:"listed"`
}

// profileKey is UserProfiles' key: PK memberKey, RK "profile".
func profileKey(memberKey string) (pk, rk string) { return memberKey, "profile" }

// DirectoryRow is one person in the Users directory: 16 partitions, so the
// admin list (and later the people pages) can page through everyone without
// a table scan, with the display fields copied from the profile.
type DirectoryRow struct {
	PartitionKey string    `table:"PartitionKey"` // "user|{h}"
	RowKey       string    `table:"RowKey"`       // memberKey
	ETag         string    `table:"ETag"`
	DisplayName  string    `table:"displayName"`
	Email        string    `table:"email"`
	PhotoKey     string    `table:"photoKey"`
	Enabled      bool      `table:"enabled"`
	Role         string    `table:"role"`
	CreatedAt    time.Time `table:"createdAt"`
	// The people module's discovery reads these (ListPeople): whether
	// the person shows there, and what its filters and cards need.
	InPeople     bool     `table:"inPeople"`
	PeopleBarred bool     `table:"peopleBarred"`
	Lat          *float64 `table:"lat"`
	Lon          *float64 `table:"lon"`
	Gender       string   `table:"gender"`
	BirthDate    string   `table:"birthDate"`
	Location     string   `table:"location"`
	Bio          string   `table:"bio"`
	CardPhoto    string   `table:"cardPhoto"`
	Answers      string   `table:"answers"`
}

const directoryPrefix = "user|"

// directoryKey is the Users key: PK "user|" and the first hex digit of
// sha256(memberKey), which spreads people evenly over 16 partitions; RK the
// memberKey, which is key-safe already.
func directoryKey(memberKey string) (pk, rk string) {
	sum := sha256.Sum256([]byte(memberKey))
	return directoryPrefix + hex.EncodeToString(sum[:1])[:1], memberKey
}

// directoryRowFor derives the directory row from the profile.
func directoryRowFor(memberKey string, p ProfileRow) DirectoryRow {
	pk, rk := directoryKey(memberKey)
	return DirectoryRow{
		PartitionKey: pk,
		RowKey:       rk,
		DisplayName:  p.DisplayName,
		Email:        p.Email,
		PhotoKey:     p.PhotoKey,
		Enabled:      p.Enabled && p.DeletedAt == nil,
		Role:         p.Role,
		CreatedAt:    p.CreatedAt,
		InPeople:     p.InPeople,
		PeopleBarred: p.PeopleBarred,
		Lat:          p.Lat,
		Lon:          p.Lon,
		Gender:       p.Gender,
		BirthDate:    p.BirthDate,
		Location:     p.Location,
		Bio:          p.Bio,
		CardPhoto:    p.CardPhoto,
		Answers:      p.Answers,
	}
}

// Point is where the person said they are, nil when not shared.
func (r DirectoryRow) Point() *Point { return pointOf(r.Lat, r.Lon) }

// Entry is the profile as its directory row shows it.
func (p ProfileRow) Entry() DirectoryRow { return directoryRowFor(p.PartitionKey, p) }

// sameDirectory reports whether a stored directory row already shows p.
func sameDirectory(a, b DirectoryRow) bool {
	return a.PartitionKey == b.PartitionKey && a.RowKey == b.RowKey &&
		a.DisplayName == b.DisplayName && a.Email == b.Email && a.PhotoKey == b.PhotoKey &&
		a.Enabled == b.Enabled && a.Role == b.Role && a.CreatedAt.Equal(b.CreatedAt) &&
		a.InPeople == b.InPeople && a.PeopleBarred == b.PeopleBarred && a.Gender == b.Gender && a.BirthDate == b.BirthDate &&
		samePoint(a.Point(), b.Point()) &&
		a.Location == b.Location && a.Bio == b.Bio && a.CardPhoto == b.CardPhoto && a.Answers == b.Answers
}

// SettingsRow is document 000's UserSettings.
type SettingsRow struct {
	PartitionKey         string `table:"PartitionKey"` // memberKey
	RowKey               string `table:"RowKey"`       // "SETTINGS"
	ETag                 string `table:"ETag"`
	ProfileVisibility    string `table:"ProfileVisibility"`
	AnonymousLikes       bool   `table:"AnonymousLikes"`
	Language             string `table:"Language"` // "ru", "en", or "" (the browser decides)
	NotificationsEnabled bool   `table:"NotificationsEnabled"`
	EmailNotifications   bool   `table:"EmailNotifications"`
	// EmailOff are the EmailAreas whose notices come by no email,
	// comma-separated: empty (every row made before it) emails them all.
	EmailOff  string    `table:"EmailOff"`
	UpdatedAt time.Time `table:"UpdatedAt"`
}

// Emails reports whether a notice of kind ("forum.notify.reply") goes
// by email too, as far as the areas chosen say.
func (r SettingsRow) Emails(kind string) bool {
	area, _, _ := strings.Cut(kind, ".")
	return !slices.Contains(strings.Split(r.EmailOff, ","), area)
}

// EmailAbout are the areas (admins' too) that come by email.
func (r SettingsRow) EmailAbout() []string {
	off := strings.Split(r.EmailOff, ",")
	return slices.DeleteFunc(slices.Clone(allEmailAreas), func(a string) bool { return slices.Contains(off, a) })
}

// settingsKey is UserSettings' key: PK memberKey, RK "SETTINGS".
func settingsKey(memberKey string) (pk, rk string) { return memberKey, "SETTINGS" }

// defaultSettings are a new account's settings.
func defaultSettings(memberKey string, now time.Time) SettingsRow {
	pk, rk := settingsKey(memberKey)
	return SettingsRow{
		PartitionKey:         pk,
		RowKey:               rk,
		ProfileVisibility:    VisibilityMembers,
		NotificationsEnabled: true,
		EmailNotifications:   true,
		UpdatedAt:            now,
	}
}

// PreferencesRow is document 000's UserPreferences (who to show in people
// search).
type PreferencesRow struct {
	PartitionKey  string    `table:"PartitionKey"` // memberKey
	RowKey        string    `table:"RowKey"`       // "PREFS"
	ETag          string    `table:"ETag"`
	AgeRangeMin   int       `table:"AgeRangeMin"`
	AgeRangeMax   int       `table:"AgeRangeMax"`
	MaxDistanceKm int       `table:"MaxDistanceKm"`
	ShowMe        string    `table:"ShowMe"`
	UpdatedAt     time.Time `table:"UpdatedAt"`
}

// preferencesKey is UserPreferences' key: PK memberKey, RK "PREFS".
func preferencesKey(memberKey string) (pk, rk string) { return memberKey, "PREFS" }

// defaultPreferences are shown until someone saves theirs; the row is only
// written then.
func defaultPreferences(memberKey string) PreferencesRow {
	pk, rk := preferencesKey(memberKey)
	return PreferencesRow{
		PartitionKey:  pk,
		RowKey:        rk,
		AgeRangeMin:   MinAge,
		AgeRangeMax:   MaxAge,
		MaxDistanceKm: 100,
		ShowMe:        ShowEveryone,
	}
}

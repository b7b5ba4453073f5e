package account

import (
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"time"

	// Embedded zone data, so timezone checks (time.LoadLocation) work in a
	// distroless image without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/harmony/harmony/internal/formrule"
)

// Limits on profile fields.
const (
	MaxDisplayName = 80
	MaxBio         = 1000
	MaxLocation    = 100
	// People younger than MinAccountAge may not give a birth date; ages past
	// MaxAccountAge are typos.
	MinAccountAge = 13
	MaxAccountAge = 120
)

// Genders a profile may state; "" means not stated.
var Genders = []string{"female", "male", "non-binary", "prefer-not-to-say"}

// Profile visibility values.
const (
	VisibilityPublic  = "public"
	VisibilityMembers = "members"
	VisibilityPrivate = "private"
)

// Visibilities in the order the settings form lists them.
var Visibilities = []string{VisibilityPublic, VisibilityMembers, VisibilityPrivate}

// Languages a setting may name; "" lets the browser decide.
var Languages = []string{"", "en", "ru"}

// People search preferences.
const (
	MinAge         = 18
	MaxAge         = 99
	MinDistanceKm  = 1
	MaxDistanceKm  = 20000
	ShowEveryone   = "everyone"
	ShowWomen      = "women"
	ShowMen        = "men"
	birthDayLayout = "2006-01-02"
)

// ShowMeOptions in the order the preferences form lists them.
var ShowMeOptions = []string{ShowEveryone, ShowWomen, ShowMen}

// CommonTimezones fill the profile form's select, in the order of
// timezones.txt, UTC first; any IANA name is accepted, and
// a saved zone outside this list is added to the select.
var CommonTimezones = strings.Fields(timezonesTXT)

//go:embed timezones.txt
var timezonesTXT string

// FieldErrors maps a form field's name to the message key of what is wrong
// with it. Empty means the input is valid.
type FieldErrors = formrule.FieldErrors

// ProfileInput is the profile form as typed.
type ProfileInput struct {
	DisplayName string `form:"displayName"`
	Bio         string `form:"bio"`
	Location    string `form:"location"`
	Gender      string `form:"gender"`
	BirthDate   string `form:"birthDate"`
	Timezone    string `form:"timezone"`
}

// Rules of the profile's text fields.
var (
	displayNameRule = formrule.Text{Max: MaxDisplayName, Required: true}
	bioRule         = formrule.Text{Max: MaxBio, Multiline: true}
	locationRule    = formrule.Text{Max: MaxLocation}
)

// clean checks a ProfileInput as typed and returns it as it is kept:
// the text rules' cleaning (trimmed, one kind of line break), the other
// fields trimmed. today is the date ages are counted on. A text the
// rules refuse (bad UTF-8, a control character, too long) is a field
// error, never quietly mended.
func (in ProfileInput) clean(today time.Time) (ProfileInput, FieldErrors) {
	errs := FieldErrors{}
	in.DisplayName = errs.CheckAs("displayName", displayNameRule, in.DisplayName, "account.error.display_name_required", "account.error.display_name_invalid")
	in.Bio = errs.CheckAs("bio", bioRule, in.Bio, "", "account.error.bio_invalid")
	in.Location = errs.CheckAs("location", locationRule, in.Location, "", "account.error.location_invalid")
	in.Gender = strings.TrimSpace(in.Gender)
	in.BirthDate = strings.TrimSpace(in.BirthDate)
	in.Timezone = strings.TrimSpace(in.Timezone)
	if in.Gender != "" && !slices.Contains(Genders, in.Gender) {
		errs["gender"] = "account.error.gender_invalid"
	}
	if in.BirthDate != "" {
		born, err := time.Parse(birthDayLayout, in.BirthDate)
		switch {
		case err != nil:
			errs["birthDate"] = "account.error.birth_date_invalid"
		case formrule.CheckDate(born) != formrule.OK:
			errs["birthDate"] = formrule.DateOutOfRange.Key()
		default:
			if age := Age(born, today); age < MinAccountAge || age > MaxAccountAge {
				errs["birthDate"] = "account.error.birth_date_age"
			}
		}
	}
	if in.Timezone != "" && !ValidTimezone(in.Timezone) {
		errs["timezone"] = "account.error.timezone_invalid"
	}
	return in, errs
}

// ValidTimezone reports whether name is an IANA zone name ("Europe/Moscow",
// "UTC"). "Local" names the server's zone, not a place, so it is refused.
func ValidTimezone(name string) bool {
	if name == "" || name == "Local" || len(name) > 64 {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// Age is how many whole years old someone born on born is on today.
func Age(born, today time.Time) int {
	by, bm, bd := born.Date()
	ty, tm, td := today.Date()
	age := ty - by
	if tm < bm || (tm == bm && td < bd) {
		age--
	}
	return age
}

// AgeOn parses a stored birth date and returns the age on today; ok is
// false when no valid date is stored.
func AgeOn(birthDate string, today time.Time) (int, bool) {
	if birthDate == "" {
		return 0, false
	}
	born, err := time.Parse(birthDayLayout, birthDate)
	if err != nil {
		return 0, false
	}
	return Age(born, today), true
}

// SettingsInput is the settings form. Checkboxes are true when ticked.
type SettingsInput struct {
	ProfileVisibility    string `form:"profileVisibility"`
	AnonymousLikes       bool   `form:"anonymousLikes"`
	Language             string `form:"language"`
	NotificationsEnabled bool   `form:"notificationsEnabled"`
	EmailNotifications   bool   `form:"emailNotifications"`
	// EmailAbout are the areas whose notices come by email too, of those
	// the form offered: EmailAreasOffered (EmailAreas when it names none).
	// EmailAreasShown says the form offered any (a form without the boxes
	// leaves the saved choice as it is).
	EmailAbout        []string `form:"emailAbout"`
	EmailAreasShown   bool     `form:"emailAreasShown"`
	EmailAreasOffered []string `form:"emailAreaOffered"`
}

// EmailAreas are the parts of the app whose notices a person may choose
// to get by email or not: the notice kinds' first word
// ("forum.notify.reply" is the forum's). AdminEmailAreas are offered to
// admins only (the moderation queue's notices).
var (
	EmailAreas      = []string{"groups", "events", "forum", "chat", "people", "store", "blog"}
	AdminEmailAreas = []string{"admin"}
	allEmailAreas   = append(slices.Clone(EmailAreas), AdminEmailAreas...)
)

// EmailAreasFor are the areas the settings offer someone: an admin's
// include AdminEmailAreas.
func EmailAreasFor(admin bool) []string {
	if admin {
		return allEmailAreas
	}
	return EmailAreas
}

// emailOff is the EmailOff the form asks for: of the areas it offered,
// those not ticked; the areas it did not offer stay as they were (was),
// so an admin's choice of theirs survives a form that did not show it.
func (in SettingsInput) emailOff(was string) string {
	if !in.EmailAreasShown {
		return was
	}
	offered := in.EmailAreasOffered
	if len(offered) == 0 {
		offered = EmailAreas
	}
	var off []string
	for _, a := range allEmailAreas {
		if slices.Contains(offered, a) && !slices.Contains(in.EmailAbout, a) ||
			!slices.Contains(offered, a) && slices.Contains(strings.Split(was, ","), a) {
			off = append(off, a)
		}
	}
	return strings.Join(off, ",")
}

func (in SettingsInput) validate() FieldErrors {
	errs := FieldErrors{}
	for _, a := range append(slices.Clone(in.EmailAbout), in.EmailAreasOffered...) {
		if !slices.Contains(allEmailAreas, a) {
			errs["emailAbout"] = "account.error.email_area"
		}
	}
	if !slices.Contains(Visibilities, in.ProfileVisibility) {
		errs["profileVisibility"] = "account.error.visibility_invalid"
	}
	if !slices.Contains(Languages, in.Language) {
		errs["language"] = "account.error.language_invalid"
	}
	return errs
}

// PreferencesInput is the preferences form as typed (numbers as text, so a
// refused form shows back what was entered).
type PreferencesInput struct {
	AgeRangeMin   string `form:"ageRangeMin"`
	AgeRangeMax   string `form:"ageRangeMax"`
	MaxDistanceKm string `form:"maxDistanceKm"`
	ShowMe        string `form:"showMe"`
}

// parse validates the input and returns the numbers.
func (in PreferencesInput) parse() (minAge, maxAge, distance int, errs FieldErrors) {
	errs = FieldErrors{}
	minAge, minOK := intIn(in.AgeRangeMin, MinAge, MaxAge)
	if !minOK {
		errs["ageRangeMin"] = "account.error.age_range"
	}
	maxAge, maxOK := intIn(in.AgeRangeMax, MinAge, MaxAge)
	if !maxOK {
		errs["ageRangeMax"] = "account.error.age_range"
	}
	if minOK && maxOK && minAge > maxAge {
		errs["ageRangeMax"] = "account.error.age_order"
	}
	distance, ok := intIn(in.MaxDistanceKm, MinDistanceKm, MaxDistanceKm)
	if !ok {
		errs["maxDistanceKm"] = "account.error.distance_range"
	}
	if !slices.Contains(ShowMeOptions, in.ShowMe) {
		errs["showMe"] = "account.error.show_me_invalid"
	}
	return minAge, maxAge, distance, errs
}

// intIn parses a whole number in [lo, hi].
func intIn(s string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

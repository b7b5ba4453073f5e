package account

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/fault"

	"github.com/harmony/harmony/internal/storage"
)

// UpdateProfile saves the profile form. When the input is invalid it
// returns the field errors and writes nothing. A changed display name
// reaches the member's sessions at once, so the header follows.
func (s *Service) UpdateProfile(ctx context.Context, memberKey string, in ProfileInput) (FieldErrors, error) {
	in, errs := in.clean(s.now().UTC())
	if len(errs) > 0 {
		return errs, nil
	}
	var renamed bool
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		renamed = p.DisplayName != in.DisplayName
		p.DisplayName = in.DisplayName
		p.Bio = in.Bio
		p.Location = in.Location
		p.Gender = in.Gender
		p.BirthDate = in.BirthDate
		p.Timezone = in.Timezone
		// People shows adults only: a birth date taken away, or one of
		// someone younger, takes the profile out of it.
		if age, ok := AgeOn(p.BirthDate, s.now().UTC()); !ok || age < MinPeopleAge {
			p.InPeople = false
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if renamed {
		s.refreshDisplay(ctx, memberKey, p)
	}
	return nil, nil
}

// ErrBadTimezone is a zone name that is not an IANA zone.
var ErrBadTimezone = fault.New(http.StatusUnprocessableEntity, "account.error.timezone_invalid", "account: not a time zone")

// AdoptTimezone sets the browser's zone on a profile that names none (a
// zone chosen by hand stays), and the sessions follow at once. It reports
// whether it changed anything.
func (s *Service) AdoptTimezone(ctx context.Context, memberKey, zone string) (bool, error) {
	zone = strings.TrimSpace(zone)
	if !ValidTimezone(zone) {
		return false, ErrBadTimezone
	}
	changed := false
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		if p.Timezone != "" {
			return errZoneSet
		}
		p.Timezone, changed = zone, true
		return nil
	})
	if errors.Is(err, errZoneSet) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.refreshDisplay(ctx, memberKey, p)
	return changed, nil
}

// errZoneSet abandons AdoptTimezone's write: the profile has a zone.
var errZoneSet = errors.New("account: zone already set")

// SetLanguage saves lang as memberKey's language (the footer's switch),
// keeping the other settings; the sessions follow at once.
func (s *Service) SetLanguage(ctx context.Context, memberKey, lang string) error {
	if !slices.Contains(Languages, lang) {
		return fmt.Errorf("account: language %q", lang)
	}
	pk, rk := settingsKey(memberKey)
	changed := false
	_, err := storage.Modify(ctx, s.settings, pk, rk, func(row *SettingsRow, exists bool) error {
		if !exists {
			*row = defaultSettings(memberKey, s.now().UTC())
		}
		if row.Language == lang {
			return storage.ErrNoChange
		}
		row.Language, row.UpdatedAt, changed = lang, s.now().UTC(), true
		return nil
	})
	if err != nil || !changed {
		return err
	}
	p, err := s.Profile(ctx, memberKey)
	if err != nil {
		return err
	}
	s.refreshDisplay(ctx, memberKey, p)
	return nil
}

// UpdateSettings saves the settings form; invalid input writes nothing. A
// changed language reaches the member's sessions at once.
func (s *Service) UpdateSettings(ctx context.Context, memberKey string, in SettingsInput) (FieldErrors, error) {
	if errs := in.validate(); len(errs) > 0 {
		return errs, nil
	}
	old, err := s.Settings(ctx, memberKey)
	if err != nil {
		return nil, err
	}
	row := defaultSettings(memberKey, s.now().UTC())
	row.ProfileVisibility = in.ProfileVisibility
	row.AnonymousLikes = in.AnonymousLikes
	row.Language = in.Language
	row.NotificationsEnabled = in.NotificationsEnabled
	row.EmailNotifications = in.EmailNotifications
	row.EmailOff = in.emailOff(old.EmailOff)
	e, err := storage.Marshal(row)
	if err != nil {
		return nil, err
	}
	// The form carries every column, so the last save wins whole.
	if _, err := s.settings.Upsert(ctx, e, storage.Replace); err != nil {
		return nil, err
	}
	if old.Language != row.Language {
		p, err := s.Profile(ctx, memberKey)
		if err != nil {
			return nil, err
		}
		s.refreshDisplay(ctx, memberKey, p)
	}
	// A profile kept to its owner is not shown in People.
	if row.ProfileVisibility == VisibilityPrivate {
		if _, err := s.SetInPeople(ctx, memberKey, false); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// Preferences returns memberKey's people-search preferences (the defaults
// until some are saved).
func (s *Service) Preferences(ctx context.Context, memberKey string) (PreferencesRow, error) {
	pk, rk := preferencesKey(memberKey)
	row, err := storage.Get[PreferencesRow](ctx, s.preferences, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return defaultPreferences(memberKey), nil
	}
	return row, err
}

// UpdatePreferences saves the preferences form; invalid input writes
// nothing.
func (s *Service) UpdatePreferences(ctx context.Context, memberKey string, in PreferencesInput) (FieldErrors, error) {
	minAge, maxAge, distance, errs := in.parse()
	if len(errs) > 0 {
		return errs, nil
	}
	row := defaultPreferences(memberKey)
	row.AgeRangeMin = minAge
	row.AgeRangeMax = maxAge
	row.MaxDistanceKm = distance
	row.ShowMe = in.ShowMe
	row.UpdatedAt = s.now().UTC()
	e, err := storage.Marshal(row)
	if err != nil {
		return nil, err
	}
	_, err = s.preferences.Upsert(ctx, e, storage.Replace)
	return nil, err
}

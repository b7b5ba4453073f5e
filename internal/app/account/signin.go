package account

import (
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
)

// OnSignIn implements auth.Profiles. The first sign-in creates the profile,
// its directory row and default settings; later ones only follow a changed
// email, and repair a directory row or settings row that a crash left
// missing. The returned state tells auth whether the account may sign in.
func (s *Service) OnSignIn(ctx context.Context, memberKey, email, displayName string) (auth.ProfileState, error) {
	p, err := s.Profile(ctx, memberKey)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		p, err = s.createProfile(ctx, memberKey, email, displayName)
		if err != nil {
			return auth.ProfileState{}, err
		}
	case err != nil:
		return auth.ProfileState{}, err
	case p.DeletedAt != nil:
		// Being deleted: refused, and nothing the forget erased comes
		// back (settings, a directory row).
		return profileState(p), nil
	case email != "" && p.Email != email:
		p, err = s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
			p.Email = email
			return nil
		})
		if err != nil {
			return auth.ProfileState{}, err
		}
	default:
		if err := s.ensureDirectory(ctx, memberKey, p); err != nil {
			return auth.ProfileState{}, err
		}
	}
	if err := s.ensureSettings(ctx, memberKey); err != nil {
		return auth.ProfileState{}, err
	}
	return s.stateOf(ctx, memberKey, p)
}

// createProfile inserts a new account's profile and directory row. Two
// first sign-ins racing each other both end with the one stored profile.
func (s *Service) createProfile(ctx context.Context, memberKey, email, displayName string) (ProfileRow, error) {
	now := s.now().UTC()
	pk, rk := profileKey(memberKey)
	p := ProfileRow{
		PartitionKey: pk,
		RowKey:       rk,
		DisplayName:  initialDisplayName(displayName, email),
		Email:        email,
		Enabled:      true,
		CreatedAt:    now,
		UpdatedAt:    now,
	}
	if err := s.listing.Intend(&p); err != nil {
		return ProfileRow{}, err
	}
	e, err := storage.Marshal(p)
	if err != nil {
		return ProfileRow{}, err
	}
	etag, err := s.profiles.Insert(ctx, e)
	if errors.Is(err, storage.ErrExists) {
		return s.Profile(ctx, memberKey)
	}
	if err != nil {
		return ProfileRow{}, err
	}
	p.ETag = etag
	s.counts.Add(ctx, NewUsers)
	if err := s.listing.Sync(ctx, nil, &p); err != nil {
		return ProfileRow{}, err
	}
	return p, nil
}

// ensureDirectory writes the directory row if it is missing or stale.
func (s *Service) ensureDirectory(ctx context.Context, memberKey string, p ProfileRow) error {
	want := directoryRowFor(memberKey, p)
	e, err := s.directory.Get(ctx, want.PartitionKey, want.RowKey)
	if err == nil {
		var have DirectoryRow
		if err := storage.Unmarshal(e, &have); err == nil && sameDirectory(have, want) {
			return nil
		}
	} else if !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	// The profile's record may say the row is written: rewrite it anyway.
	pk, rk := profileKey(memberKey)
	return s.listing.Repair(ctx, pk, rk)
}

// ensureSettings inserts default settings unless some are stored.
func (s *Service) ensureSettings(ctx context.Context, memberKey string) error {
	pk, rk := settingsKey(memberKey)
	if _, err := s.settings.Get(ctx, pk, rk); !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	e, err := storage.Marshal(defaultSettings(memberKey, s.now().UTC()))
	if err != nil {
		return err
	}
	if _, err := s.settings.Insert(ctx, e); err != nil && !errors.Is(err, storage.ErrExists) {
		return err
	}
	return nil
}

// fallbackDisplayName is used when a sign-in brings neither a name nor an
// email; the person can change it on the profile page.
const fallbackDisplayName = "Member"

// initialDisplayName is the provider's name hint, else the email's local
// part, cleaned to what the profile form would accept.
func initialDisplayName(hint, email string) string {
	name := cleanName(hint)
	if name == "" {
		local, _, _ := strings.Cut(email, "@")
		name = cleanName(local)
	}
	if name == "" {
		return fallbackDisplayName
	}
	return name
}

// cleanName drops control characters, collapses spaces and cuts the name
// to MaxDisplayName characters.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxDisplayName {
		s = strings.TrimSpace(string(r[:MaxDisplayName]))
	}
	return s
}

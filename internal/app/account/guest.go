package account

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/storage"
)

// ErrNotGuest is GuestPhoto's answer for a memberKey that is not a guest's.
var ErrNotGuest = errors.New("account: not a guest member key")

// validGuestKey reports whether k is a guest's memberKey as auth mints it:
// "guest:" and 32 lowercase hex digits.
func validGuestKey(k string) bool {
	rest, ok := strings.CutPrefix(k, "guest:")
	if !ok || len(rest) != 32 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !('0' <= c && c <= '9') && !('a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// GuestPhoto gives a guest (someone who joined by link without an account)
// a profile photo. The photo is checked first, so a bad image stores
// nothing (ErrPhotoType, ErrPhotoPixels, ErrPhotoMemory, ErrPhotoDamaged
// or ErrPhotoTooLarge); then a minimal profile (the display name, no email,
// enabled) is created if the guest has none, and the photo is stored as
// UploadPhoto stores it. Guests never enter the Users directory.
func (s *Service) GuestPhoto(ctx context.Context, memberKey, displayName string, data []byte) error {
	if !validGuestKey(memberKey) {
		return fmt.Errorf("%w: %q", ErrNotGuest, memberKey)
	}
	photo, err := processPhoto(ctx, data)
	if err != nil {
		return err
	}
	if err := s.ensureGuestProfile(ctx, memberKey, displayName); err != nil {
		return err
	}
	_, err = s.savePhoto(ctx, memberKey, photo)
	return err
}

// ensureGuestProfile inserts a guest's minimal profile unless one is
// stored. It writes no directory row, no settings and counts no new
// account.
func (s *Service) ensureGuestProfile(ctx context.Context, memberKey, displayName string) error {
	if _, err := s.Profile(ctx, memberKey); !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	now := s.now().UTC()
	pk, rk := profileKey(memberKey)
	e, err := storage.Marshal(ProfileRow{
		PartitionKey: pk,
		RowKey:       rk,
		DisplayName:  initialDisplayName(displayName, ""),
		Enabled:      true,
		CreatedAt:    now,
		UpdatedAt:    now,
	})
	if err != nil {
		return err
	}
	if _, err := s.profiles.Insert(ctx, e); err != nil && !errors.Is(err, storage.ErrExists) {
		return err
	}
	return nil
}

package account

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
)

var _ auth.GuestUpgrader = (*Service)(nil)

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
	photo, err := s.photos.Process(ctx, data)
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

// UpgradeGuest gives the account a guest signed in to the photo they
// chose as a guest, when the account has none, and deletes the guest's
// profile (auth calls it at sign-in; the composition root registers
// it). The name comes with the sign-in itself (auth passes the guest's
// name to OnSignIn). A guest without a photo has no profile: nothing to
// do.
func (s *Service) UpgradeGuest(ctx context.Context, guestKey, memberKey string) error {
	if !validGuestKey(guestKey) {
		return nil
	}
	guest, err := s.Profile(ctx, guestKey)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	acct, err := s.Profile(ctx, memberKey)
	if err != nil {
		return err
	}
	if guest.PhotoKey != "" && acct.PhotoKey == "" {
		if err := s.copyPhoto(ctx, guest.PhotoKey, memberKey); err != nil {
			return fmt.Errorf("account: guest photo: %w", err)
		}
	}
	if guest.PhotoKey != "" {
		s.photos.Delete(ctx, guest.PhotoKey)
	}
	pk, rk := profileKey(guestKey)
	return storage.Forget(ctx, s.profiles, pk, rk)
}

// copyPhoto stores the photo at photoKey (both sizes, processed already)
// as memberKey's and points their profile at it.
func (s *Service) copyPhoto(ctx context.Context, photoKey, memberKey string) error {
	large, err := s.photos.Container.Get(ctx, photoKey)
	if err != nil {
		return err
	}
	small, err := s.photos.Container.Get(ctx, pictures.Small(photoKey))
	if err != nil {
		return err
	}
	_, err = s.savePhoto(ctx, memberKey, media.Result{Variants: map[int][]byte{largePhotoSide: large.Data, smallPhotoSide: small.Data}})
	return err
}

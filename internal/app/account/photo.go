package account

import (
	"context"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/storage"
)

// Photo limits: the shared upload pipeline's defaults.
const (
	// MaxPhotoBytes is the largest photo file accepted.
	MaxPhotoBytes = media.DefaultMaxBytes
	// MaxPhotoPixels bounds decoding memory; it is checked from the header
	// before any pixel is decoded.
	MaxPhotoPixels = media.DefaultMaxPixels
	// Sizes of the stored copies: the longer side, in pixels.
	largePhotoSide = 512
	smallPhotoSide = 128
)

// Photo errors a person can act on: the pipeline's.
var (
	ErrPhotoType     = media.ErrUnsupported
	ErrPhotoTooLarge = media.ErrTooLarge
	ErrPhotoPixels   = media.ErrTooManyPixels
	ErrPhotoMemory   = media.ErrTooMuchMemory
	ErrPhotoDamaged  = media.ErrDamaged
)

// UploadPhoto checks and re-encodes a photo, stores its two sizes, points
// the profile at them and deletes the previous photo. Bad images are
// ErrPhotoType, ErrPhotoPixels, ErrPhotoMemory, ErrPhotoDamaged or
// ErrPhotoTooLarge, and nothing is stored.
func (s *Service) UploadPhoto(ctx context.Context, memberKey string, data []byte) (ProfileRow, error) {
	if _, err := s.Profile(ctx, memberKey); err != nil {
		return ProfileRow{}, err
	}
	photo, err := s.photos.Process(ctx, data)
	if err != nil {
		return ProfileRow{}, err
	}
	return s.savePhoto(ctx, memberKey, photo)
}

// savePhoto stores a processed photo's two sizes under memberKey, points
// the existing profile at them and deletes the previous photo.
func (s *Service) savePhoto(ctx context.Context, memberKey string, photo media.Result) (ProfileRow, error) {
	large, err := s.photos.Put(ctx, memberKey, photo)
	if err != nil {
		return ProfileRow{}, err
	}
	var previous string
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		previous = p.PhotoKey
		p.PhotoKey = large
		return nil
	})
	if err != nil {
		s.photos.Delete(ctx, large)
		return ProfileRow{}, err
	}
	if previous != "" && previous != large {
		s.photos.Delete(ctx, previous)
	}
	s.refreshDisplay(ctx, memberKey, p)
	return p, nil
}

// PhotoBlob returns the stored photo that GET /media/profile/:member/:file
// names. Anything that is not exactly a photo name is ErrNotFound, so the
// URL cannot reach other blobs.
func (s *Service) PhotoBlob(ctx context.Context, member, file string) (storage.Blob, error) {
	if !(ValidMemberKey(member) || validGuestKey(member)) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return s.photos.Get(ctx, member, file)
}

// ValidMemberKey reports whether k has the shape of an account's memberKey
// (auth.AuthMemberKey), so a URL can name no other blob.
func ValidMemberKey(k string) bool { return auth.IsAuthMemberKey(k) }

package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"github.com/harmony/harmony/internal/auth"
	"regexp"
	"strings"

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

// newImageID is 128 random bits in hex: photo URLs are unguessable and
// unique per upload, so they can be cached forever.
func newImageID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// largePhotoKey is the large photo's blob name; the profile stores it as
// photoKey.
func largePhotoKey(memberKey, imageID string) string { return memberKey + "/" + imageID + ".jpg" }

// smallPhotoKey is the small photo's blob name for a stored photoKey.
func smallPhotoKey(photoKey string) string {
	return strings.TrimSuffix(photoKey, ".jpg") + "_s.jpg"
}

// UploadPhoto checks and re-encodes a photo, stores its two sizes, points
// the profile at them and deletes the previous photo. Bad images are
// ErrPhotoType, ErrPhotoPixels, ErrPhotoMemory, ErrPhotoDamaged or
// ErrPhotoTooLarge, and nothing is stored.
func (s *Service) UploadPhoto(ctx context.Context, memberKey string, data []byte) (ProfileRow, error) {
	if _, err := s.Profile(ctx, memberKey); err != nil {
		return ProfileRow{}, err
	}
	photo, err := processPhoto(ctx, data)
	if err != nil {
		return ProfileRow{}, err
	}
	return s.savePhoto(ctx, memberKey, photo)
}

// processPhoto checks and re-encodes a photo into its two sizes.
func processPhoto(ctx context.Context, data []byte) (media.Result, error) {
	return media.Process(ctx, bytes.NewReader(data), media.Options{
		MaxBytes:  MaxPhotoBytes,
		MaxPixels: MaxPhotoPixels,
		Sizes:     []int{largePhotoSide, smallPhotoSide},
	})
}

// savePhoto stores a processed photo's two sizes under memberKey, points
// the existing profile at them and deletes the previous photo.
func (s *Service) savePhoto(ctx context.Context, memberKey string, photo media.Result) (ProfileRow, error) {
	large := largePhotoKey(memberKey, newImageID())
	small := smallPhotoKey(large)
	if _, err := s.photos.Put(ctx, large, photo.Variants[largePhotoSide], "image/jpeg"); err != nil {
		return ProfileRow{}, err
	}
	if _, err := s.photos.Put(ctx, small, photo.Variants[smallPhotoSide], "image/jpeg"); err != nil {
		s.deletePhoto(ctx, large)
		return ProfileRow{}, err
	}
	var previous string
	p, err := s.updateProfile(ctx, memberKey, func(p *ProfileRow) error {
		previous = p.PhotoKey
		p.PhotoKey = large
		return nil
	})
	if err != nil {
		s.deletePhoto(ctx, large)
		return ProfileRow{}, err
	}
	if previous != "" && previous != large {
		s.deletePhoto(ctx, previous)
	}
	s.refreshDisplay(ctx, memberKey, p)
	return p, nil
}

// deletePhoto removes both sizes of a photo. A blob left behind costs only
// space, so failures are logged.
func (s *Service) deletePhoto(ctx context.Context, photoKey string) {
	for _, name := range []string{photoKey, smallPhotoKey(photoKey)} {
		if err := s.photos.Delete(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) {
			s.log.WarnContext(ctx, "old profile photo not deleted", "blob", name, "err", err)
		}
	}
}

// photoFile is the file part of a photo URL: 32 hex digits, "_s" for the
// small size, ".jpg".
var photoFile = regexp.MustCompile(`^[0-9a-f]{32}(_s)?\.jpg$`)

// PhotoBlob returns the stored photo that GET /media/profile/:member/:file
// names. Anything that is not exactly a photo name is ErrNotFound, so the
// URL cannot reach other blobs.
func (s *Service) PhotoBlob(ctx context.Context, member, file string) (storage.Blob, error) {
	if !(ValidMemberKey(member) || validGuestKey(member)) || !photoFile.MatchString(file) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return s.photos.Get(ctx, member+"/"+file)
}

// ValidMemberKey reports whether k has the shape of an account's memberKey
// (auth.AuthMemberKey), so a URL can name no other blob.
func ValidMemberKey(k string) bool { return auth.IsAuthMemberKey(k) }

package people

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/people"
)

// Photos: a People card shows up to MaxPhotos photos (document 000's
// UserImages), in the order their owner chose; the first leads the card
// in Discover, and the person's page shows them all. The profile's own
// photo (the account's avatar) stays as it is; with no photos here a card
// shows it. Each photo is re-encoded by the shared pipeline (no EXIF, no
// location) and kept in two sizes; its URL is public to whoever holds it,
// and unguessable.

// Photo storage and limits.
const (
	PhotosTable     = "UserImages"
	photosContainer = "people-photos"
	// MaxPhotos is the most photos a card holds.
	MaxPhotos = 6
	// MaxPhotoBytes is the largest photo file accepted.
	MaxPhotoBytes = media.DefaultMaxBytes
	// photoBodyLimit is the upload route's body limit: the photo and the
	// multipart framing with the CSRF field.
	photoBodyLimit = MaxPhotoBytes + 64<<10
	largePhotoSide = 1080
	smallPhotoSide = 360
	photosURL      = "/people/photos"
	mediaPrefix    = "/media/people/"
)

// PhotoRow is one photo of a card (the gallery kit's row): PK
// memberKey, RK the photo's id.
type PhotoRow = gallery.Row

// photoSmallURL is a photo's small size's address.
func photoSmallURL(r PhotoRow) string { return photoURL(pictures.Small(r.Key)) }

// photoURL is where a stored picture ("{owner}/{file}") is served:
// /media/people/{owner}/{file}, the owner's key escaped for a path, as
// the profile photos' are.
func photoURL(key string) string {
	owner, file, _ := strings.Cut(key, "/")
	return mediaPrefix + url.PathEscape(owner) + "/" + url.PathEscape(file)
}

// Refusals of the photos' changes.
var (
	// ErrPhotosFull: MaxPhotos photos already (409).
	ErrPhotosFull = fault.New(http.StatusConflict, "people.photos.error.full", "people: the card has all its photos")
	// ErrNoPhoto: a photo of someone else's, or none (404).
	ErrNoPhoto = fault.New(http.StatusNotFound, "people.photos.error.none", "people: no such photo")
)

// newGallery is People's photos, kept in their container by the
// pictures kit.
func newGallery(table *storage.Table, store pictures.Store, now func() time.Time) gallery.Gallery {
	return gallery.Gallery{Table: table, Pictures: store, Max: MaxPhotos, Full: ErrPhotosFull, Missing: ErrNoPhoto, Now: now}
}

// Photos are memberKey's photos, in their order: one query.
func (s *Service) Photos(ctx context.Context, memberKey string) ([]PhotoRow, error) {
	return s.photos.List(ctx, memberKey)
}

// AddPhoto adds an upload last on memberKey's card (gallery.Add), and
// records the card's first.
func (s *Service) AddPhoto(ctx context.Context, memberKey string, data []byte) (PhotoRow, error) {
	row, now, err := s.photos.Add(ctx, memberKey, data)
	if err != nil {
		return PhotoRow{}, err
	}
	return row, s.setCard(ctx, memberKey, now)
}

// setCard records the first of rows, memberKey's photos in order, as
// their card's (account.SetCardPhoto; no write when it is already).
func (s *Service) setCard(ctx context.Context, memberKey string, rows []PhotoRow) error {
	first := ""
	if len(rows) > 0 {
		first = rows[0].Key
	}
	return s.accounts.SetCardPhoto(ctx, memberKey, first)
}

// PhotoBlob is the stored picture a media URL names: any file that is
// not exactly a picture's name is storage.ErrNotFound.
func (s *Service) PhotoBlob(ctx context.Context, member, file string) (storage.Blob, error) {
	if !auth.IsAuthMemberKey(member) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return s.photos.Pictures.Get(ctx, member, file)
}

// cardPhotos makes every account's card photo its first People photo:
// the repair of a photo change whose card was not recorded. It reads
// the photos and the directory whole; it returns the cards it fixed.
func (s *Service) cardPhotos(ctx context.Context) (int, error) {
	first, err := s.photos.Firsts(ctx)
	if err != nil {
		return 0, err
	}
	fixed := 0
	var cursor *storage.Cursor
	for {
		page, next, err := s.accounts.ListUsers(ctx, cursor, storage.MaxPageSize)
		if err != nil {
			return fixed, err
		}
		for _, u := range page {
			if want := first[u.RowKey].Key; u.CardPhoto != want {
				if err := s.accounts.SetCardPhoto(ctx, u.RowKey, want); err != nil {
					return fixed, err
				}
				fixed++
			}
		}
		if next == nil {
			return fixed, nil
		}
		cursor = next
	}
}

// photosStillThere checks the viewer's photos the likes on cards are
// about (Card.LikedPhoto): one the viewer removed since is said so
// (LikedPhotoGone) instead of showing a picture no longer kept. One
// query, only when a like is about a photo.
func (s *Service) photosStillThere(ctx context.Context, viewer string, cards []*views.Card) error {
	if !slices.ContainsFunc(cards, func(c *views.Card) bool { return c.LikedPhoto != "" }) {
		return nil
	}
	photos, err := s.Photos(ctx, viewer)
	if err != nil {
		return err
	}
	for _, c := range cards {
		if c.LikedPhoto != "" && !slices.ContainsFunc(photos, func(p PhotoRow) bool { return photoSmallURL(p) == c.LikedPhoto }) {
			c.LikedPhoto, c.LikedPhotoGone = "", true
		}
	}
	return nil
}

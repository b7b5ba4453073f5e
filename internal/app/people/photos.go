package people

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
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

// PhotoRow is one photo of a card: PK memberKey, RK the photo's id (its
// blob name's file part, without ".jpg").
type PhotoRow struct {
	PartitionKey string    `table:"PartitionKey"` // memberKey
	RowKey       string    `table:"RowKey"`       // photo id
	ETag         string    `table:"ETag"`
	Key          string    `table:"key"`   // the large size's blob name
	Order        int       `table:"order"` // place on the card, 0 first
	UploadedAt   time.Time `table:"uploadedAt"`
}

// URL is the photo's large size's address; SmallURL its small one's.
func (p PhotoRow) URL() string      { return photoURL(p.Key) }
func (p PhotoRow) SmallURL() string { return photoURL(pictures.Small(p.Key)) }

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

// Photos are memberKey's photos, in their order: one query.
func (s *Service) Photos(ctx context.Context, memberKey string) ([]PhotoRow, error) {
	rows, err := storage.All[PhotoRow](ctx, s.photos, storage.Query{PartitionKey: memberKey})
	slices.SortFunc(rows, func(a, b PhotoRow) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), a.UploadedAt.Compare(b.UploadedAt))
	})
	return rows, err
}

// AddPhoto checks and re-encodes an upload and adds it last on
// memberKey's card. A bad image is the pipeline's error and stores
// nothing; a full card is ErrPhotosFull. The blob is stored before its
// row, so a crash leaves at most a blob nothing points to; an upload that
// lost a race for the last place is taken back.
func (s *Service) AddPhoto(ctx context.Context, memberKey string, data []byte) (PhotoRow, error) {
	have, err := s.Photos(ctx, memberKey)
	if err != nil {
		return PhotoRow{}, err
	}
	if len(have) >= MaxPhotos {
		return PhotoRow{}, ErrPhotosFull
	}
	img, err := s.pictures.Process(ctx, data)
	if err != nil {
		return PhotoRow{}, err
	}
	key, err := s.pictures.Put(ctx, memberKey, img)
	if err != nil {
		return PhotoRow{}, err
	}
	order := 0
	if len(have) > 0 {
		order = have[len(have)-1].Order + 1
	}
	row := PhotoRow{PartitionKey: memberKey, RowKey: photoID(key), Key: key, Order: order, UploadedAt: s.now().UTC()}
	if _, err := storage.Insert(ctx, s.photos, row); err != nil {
		s.pictures.Delete(ctx, key)
		return PhotoRow{}, err
	}
	now, err := s.Photos(ctx, memberKey)
	if err != nil {
		return row, err
	}
	if len(now) > MaxPhotos {
		return PhotoRow{}, errors.Join(ErrPhotosFull, s.deletePhoto(ctx, memberKey, row.RowKey))
	}
	return row, s.setCard(ctx, memberKey, now)
}

// photoID is a photo's id from its blob name.
func photoID(key string) string { return strings.TrimSuffix(path.Base(key), ".jpg") }

// DeletePhoto deletes one of memberKey's photos: the row, then its blob.
func (s *Service) DeletePhoto(ctx context.Context, memberKey, id string) error {
	if err := s.deletePhoto(ctx, memberKey, id); err != nil {
		return err
	}
	return s.syncCard(ctx, memberKey)
}

// deletePhoto is DeletePhoto but for the card's photo.
func (s *Service) deletePhoto(ctx context.Context, memberKey, id string) error {
	row, err := storage.Find[PhotoRow](ctx, s.photos, memberKey, id, ErrNoPhoto)
	if err != nil {
		return err
	}
	if err := s.photos.Delete(ctx, memberKey, id, storage.AnyETag); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	s.pictures.Delete(ctx, row.Key)
	return nil
}

// MovePhoto moves one of memberKey's photos a place earlier (first: to
// the front), in one transaction of their partition, at the rows' ETags.
func (s *Service) MovePhoto(ctx context.Context, memberKey, id string, first bool) error {
	var moved []PhotoRow // the photos in their new order; nil: no move
	err := storage.Optimistic(ctx, 5, func(ctx context.Context) error {
		moved = nil
		rows, err := s.Photos(ctx, memberKey)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(rows, func(r PhotoRow) bool { return r.RowKey == id })
		switch {
		case i < 0:
			return ErrNoPhoto
		case i == 0:
			return nil
		}
		moved = slices.Clone(rows)
		to := i - 1
		if first {
			to = 0
		}
		p := moved[i]
		moved = slices.Insert(slices.Delete(moved, i, i+1), to, p)
		tx := &storage.Tx{}
		for n, r := range moved {
			if r.Order != n {
				was := r.ETag
				r.Order = n
				tx.Replace(r, was)
			}
		}
		return tx.Commit(ctx, s.photos)
	})
	if err != nil || moved == nil {
		return err
	}
	return s.setCard(ctx, memberKey, moved)
}

// syncCard records memberKey's first photo as their card's, after a
// change of their photos.
func (s *Service) syncCard(ctx context.Context, memberKey string) error {
	rows, err := s.Photos(ctx, memberKey)
	if err != nil {
		return err
	}
	return s.setCard(ctx, memberKey, rows)
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
	return s.pictures.Get(ctx, member, file)
}

// cardPhotos makes every account's card photo its first People photo:
// the repair of a photo change whose card was not recorded. It reads
// the photos and the directory whole; it returns the cards it fixed.
func (s *Service) cardPhotos(ctx context.Context) (int, error) {
	rows, err := storage.All[PhotoRow](ctx, s.photos, storage.Query{Scan: true})
	if err != nil {
		return 0, err
	}
	first := map[string]PhotoRow{}
	for _, r := range rows {
		if f, ok := first[r.PartitionKey]; !ok || r.Order < f.Order || r.Order == f.Order && r.UploadedAt.Before(f.UploadedAt) {
			first[r.PartitionKey] = r
		}
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

// Package pictures keeps uploaded pictures in a blob container, each in
// two sizes: the media pipeline checks and re-encodes the upload (so no
// EXIF survives, and what is not a picture, or too big, is refused
// before anything is written), and both sizes are stored under their
// owner's folder and a name made for the upload,
// "{owner}/{32 hex digits}.jpg" and "…_s.jpg" for the small one. A new
// upload is a new name, so a picture's URL can be cached for a year.
// Account photos, event pictures and chat images are kept this way.
package pictures

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Store keeps one kind of picture.
type Store struct {
	Container *storage.Container
	// Large and Small are the two sizes kept: the longer side, in pixels.
	Large, Small int
	// Log records a picture that could not be deleted (it costs only
	// space: nothing points to it any more).
	Log *slog.Logger
}

// Process checks and re-encodes an upload into the two sizes; nothing
// is written. A refused file is the pipeline's error (media.ErrTooLarge,
// media.ErrUnsupported, …), which web.UploadRefusal words for people.
func (s Store) Process(ctx context.Context, data []byte) (media.Result, error) {
	return media.Process(ctx, bytes.NewReader(data), media.Options{Sizes: []int{s.Large, s.Small}})
}

// FormPicture processes the picture a form carries in field, if it
// carries one (nil data: none, a nil result). A picture refused (not a
// picture, too large, damaged) is the field's error in *errs (made when
// nil), worded by web.UploadRefusal, as the form's other fields' are; any
// other failure is returned.
func (s Store) FormPicture(ctx context.Context, data []byte, field string, errs *formrule.FieldErrors) (*media.Result, error) {
	if data == nil {
		return nil, nil
	}
	img, err := s.Process(ctx, data)
	if _, key, ok := web.UploadRefusal(err); ok {
		if *errs == nil {
			*errs = formrule.FieldErrors{}
		}
		(*errs)[field] = key
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &img, nil
}

// Put stores a processed picture's two sizes under owner and returns the
// large one's key, which names the picture. When the second size cannot
// be stored, the first is deleted again.
func (s Store) Put(ctx context.Context, owner string, img media.Result) (string, error) {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	key := owner + "/" + hex.EncodeToString(b) + ".jpg"
	if _, err := s.Container.Put(ctx, key, img.Variants[s.Large], "image/jpeg"); err != nil {
		return "", err
	}
	if _, err := s.Container.Put(ctx, Small(key), img.Variants[s.Small], "image/jpeg"); err != nil {
		s.Delete(ctx, key)
		return "", err
	}
	return key, nil
}

// Delete removes both sizes of picture key ("" for none), even when the
// request that asks has gone; a size left behind is logged.
func (s Store) Delete(ctx context.Context, key string) {
	if key == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, name := range []string{key, Small(key)} {
		if err := s.Container.Delete(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) && s.Log != nil {
			s.Log.WarnContext(ctx, "picture not deleted", "container", s.Container.Name(), "blob", name, "err", err)
		}
	}
}

// DeleteAll deletes every file in owner's folder, for what the pictures
// belong to is gone: both sizes of each, and any an upload cut short
// left. Unlike Delete it returns the first failure, so that the caller
// keeps what names owner and tries again.
func (s Store) DeleteAll(ctx context.Context, owner string) error {
	if owner == "" {
		return errors.New("pictures: DeleteAll of no owner")
	}
	return s.Container.DeletePrefix(ctx, owner+"/")
}

// Get reads the size of owner's picture that a URL's file part names
// ("{32 hex digits}.jpg" or "…_s.jpg"). Any other file is
// storage.ErrNotFound, so a URL reaches no other blob; the caller checks
// that owner is an id of its kind.
func (s Store) Get(ctx context.Context, owner, file string) (storage.Blob, error) {
	if !fileName.MatchString(file) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return s.Container.Get(ctx, owner+"/"+file)
}

// fileName is the file part of a picture's name.
var fileName = regexp.MustCompile(`^[0-9a-f]{32}(_s)?\.jpg$`)

// Small is the small size's key of picture key.
func Small(key string) string { return strings.TrimSuffix(key, ".jpg") + "_s.jpg" }

// Sized is picture key, or its small size's key when small.
func Sized(key string, small bool) string {
	if small {
		return Small(key)
	}
	return key
}

// Public is a kind of picture served to whoever holds its address, which
// is unguessable, at Prefix+"{owner}/{file}", its owners being ids
// (ULIDs): the blog's and the store's pictures.
type Public struct {
	Store
	// Prefix is the path they are served under ("/media/blog/").
	Prefix string
}

// URL is where picture key is served under prefix, its small size when
// small; "" for none.
func URL(prefix, key string, small bool) string {
	if key == "" {
		return ""
	}
	return prefix + Sized(key, small)
}

// Route is the route pattern Serve answers.
func (p Public) Route() string { return p.Prefix + ":id/:file" }

// Serve answers GET Route(): the picture the path names, or 404 for any
// other path.
func (p Public) Serve(c echo.Context) error {
	id := c.Param("id")
	if !storage.IsID(id) {
		return storage.ErrNotFound
	}
	blob, err := p.Get(c.Request().Context(), id, c.Param("file"))
	if err != nil {
		return err
	}
	return web.ServeImage(c, blob.Data)
}

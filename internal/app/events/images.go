package events

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"

	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/storage"
)

// Event pictures: an organizer uploads one with the event form; the
// shared media pipeline checks and re-encodes it into two sizes, stored
// in the event-images container under the event's id and a name unique
// to the upload (so they may be cached for a year). A bad file is
// refused before anything is written; a replaced or removed picture is
// deleted after the event row points elsewhere.

// ImagesContainer holds the events' pictures.
const ImagesContainer = "event-images"

// Picture sizes: the longer side, in pixels.
const (
	largeImageSide = 1600
	smallImageSide = 480
	// imageBodyLimit lets the event form carry a picture.
	imageBodyLimit = media.DefaultMaxBytes + 1<<20
)

// newImageID is 128 random bits in hex.
func newImageID() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// imageKey is a picture's blob name: "{eventId}/{imageId}.jpg"; the small
// size adds "_s".
func imageKey(eventID, imageID string) string { return eventID + "/" + imageID + ".jpg" }

func smallImageKey(key string) string { return strings.TrimSuffix(key, ".jpg") + "_s.jpg" }

// imageFile is the file part of a picture's URL.
var imageFile = regexp.MustCompile(`^[0-9a-f]{32}(_s)?\.jpg$`)

// imageURL is where a picture is served; "" for none.
func imageURL(key string, small bool) string {
	if key == "" {
		return ""
	}
	if small {
		key = smallImageKey(key)
	}
	return "/media/events/" + key
}

// processImage checks and re-encodes an uploaded picture.
func processImage(ctx context.Context, data []byte) (media.Result, error) {
	return media.Process(ctx, bytes.NewReader(data), media.Options{Sizes: []int{largeImageSide, smallImageSide}})
}

// putImage stores a processed picture for eventID and returns its key.
func (c *Catalog) putImage(ctx context.Context, eventID string, img media.Result) (string, error) {
	key := imageKey(eventID, newImageID())
	if _, err := c.images.Put(ctx, key, img.Variants[largeImageSide], "image/jpeg"); err != nil {
		return "", err
	}
	if _, err := c.images.Put(ctx, smallImageKey(key), img.Variants[smallImageSide], "image/jpeg"); err != nil {
		c.deleteImage(ctx, key)
		return "", err
	}
	return key, nil
}

// deleteImage removes both sizes; a blob left behind only costs space.
func (c *Catalog) deleteImage(ctx context.Context, key string) {
	if key == "" {
		return
	}
	for _, name := range []string{key, smallImageKey(key)} {
		if err := c.images.Delete(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) {
			c.seats.log.WarnContext(ctx, "events: old picture not deleted", "blob", name, "err", err)
		}
	}
}

// ImageBlob is the picture GET /media/events/:id/:file names; anything
// else is storage.ErrNotFound, so the URL reaches no other blob.
func (c *Catalog) ImageBlob(ctx context.Context, eventID, file string) (storage.Blob, error) {
	if !storage.IsID(eventID) || !imageFile.MatchString(file) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return c.images.Get(ctx, eventID+"/"+file)
}

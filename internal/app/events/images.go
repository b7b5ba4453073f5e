package events

import (
	"context"

	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
)

// Event pictures: an organizer uploads one with the event form, kept in
// two sizes (the pictures kit) in the event-images container under the
// event's id. A bad file is refused before anything is written; a
// replaced or removed picture is deleted after the event row points
// elsewhere.

// ImagesContainer holds the events' pictures.
const ImagesContainer = "event-images"

// Picture sizes: the longer side, in pixels.
const (
	largeImageSide = 1600
	smallImageSide = 480
	// imageBodyLimit lets the event form carry a picture.
	imageBodyLimit = media.DefaultMaxBytes + 1<<20
)

// imageURL is where a picture is served; "" for none.
func imageURL(key string, small bool) string {
	if key == "" {
		return ""
	}
	return "/media/events/" + pictures.Sized(key, small)
}

// ImageBlob is the picture GET /media/events/:id/:file names; anything
// else is storage.ErrNotFound, so the URL reaches no other blob.
func (c *Catalog) ImageBlob(ctx context.Context, eventID, file string) (storage.Blob, error) {
	if !storage.IsID(eventID) {
		return storage.Blob{}, storage.ErrNotFound
	}
	return c.images.Get(ctx, eventID, file)
}

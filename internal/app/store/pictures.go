package store

import (
	"context"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/views/components"
)

// More pictures: besides its picture (the card's), an item shows up to
// MaxMorePictures more on its page, as a shop shows a product from
// several sides. The admins add, order and delete them under the item's
// form (the gallery kit, as People's photos); the item records their
// names (ItemRow.More), so its page reads nothing more.

// MaxMorePictures is the most more pictures an item has.
const MaxMorePictures = 5

// Refusals of the more pictures.
var (
	ErrPicturesFull = fault.New(http.StatusConflict, "store.pictures.error.full", "store: the item has all its pictures")
	ErrNoPicture    = fault.New(http.StatusNotFound, "store.pictures.error.none", "store: no such picture")
)

// picturesURL is where an item's more pictures change.
func picturesURL(id string) string { return itemURL(id) + "/pictures" }

// setMore records rows, item id's more pictures in order, on the item.
func (s *Service) setMore(ctx context.Context, id string, rows []gallery.Row) error {
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	more := strings.Join(keys, ",")
	_, err := storage.Change(ctx, s.items, itemsPart, id, ErrNoItem, func(it *ItemRow) error {
		if it.More == more {
			return storage.ErrNoChange
		}
		it.More = more
		return nil
	})
	return err
}

// morePictures are an item's pictures as its page lists them under its
// own when it has more: its own first, then the more, each small and
// linking to its large size. None when it has no more.
func morePictures(it ItemRow) [][2]string {
	var out [][2]string
	for _, key := range append([]string{it.ImageKey}, strings.Split(it.More, ",")...) {
		if key != "" {
			out = append(out, [2]string{pictures.URL(mediaPrefix, key, true), pictures.URL(mediaPrefix, key, false)})
		}
	}
	if it.More == "" {
		return nil
	}
	return out
}

// picturesEditor is the item form's editor of the more pictures (POST
// /store/:id/pictures, and …/:photo/delete and …/:photo/move).
func (s *Service) picturesEditor() gallery.Editor {
	return gallery.Editor{
		Gallery: s.more, Keys: "store.pictures", Uploads: s.uploads, MaxBytes: media.DefaultMaxBytes,
		Owner: func(c echo.Context) (string, error) { return itemScope.From(c).RowKey, nil },
		Back:  func(c echo.Context) string { return itemURL(itemScope.From(c).RowKey) + "/edit#pictures" },
		Page: func(c echo.Context, status int, problem string) error {
			return s.renderEdit(c, status, problem)
		},
		Changed: s.setMore,
	}
}

// galleryOf is item it's more pictures as its form shows them, with a
// refusal's words.
func (s *Service) galleryOf(ctx context.Context, it ItemRow, problem string) (templ.Component, error) {
	rows, err := s.more.List(ctx, it.RowKey)
	if err != nil {
		return nil, err
	}
	small := func(r gallery.Row) string { return pictures.URL(mediaPrefix, r.Key, true) }
	return components.Gallery(s.picturesEditor().Props(rows, picturesURL(it.RowKey), small, problem)), nil
}

package store

import (
	"context"
	"errors"
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

// setMore records item id's more pictures on the item after a change of
// them (the gallery editor's Changed). The editor's rows are a snapshot
// taken before this write, and another upload's may be newer: recordMore
// reads them again.
func (s *Service) setMore(ctx context.Context, id string, _ []gallery.Row) error {
	_, err := s.recordMore(ctx, id)
	return err
}

// recordMore records item id's more pictures, in order, on the item
// (ItemRow.More): the gallery's rows are read inside the item's
// read-change-write, so a write that another change's overtook is done
// again from what both left, and of two uploads at once neither is
// dropped. It reports whether More changed.
func (s *Service) recordMore(ctx context.Context, id string) (bool, error) {
	changed := false
	_, err := storage.Change(ctx, s.items, itemsPart, id, ErrNoItem, func(it *ItemRow) error {
		if it.Deleted {
			return ErrNoItem
		}
		rows, err := s.more.List(ctx, id)
		if err != nil {
			return err
		}
		keys := make([]string, len(rows))
		for i, r := range rows {
			keys[i] = r.Key
		}
		more := strings.Join(keys, ",")
		if changed = it.More != more; !changed {
			return storage.ErrNoChange
		}
		it.More = more
		return nil
	})
	return changed, err
}

// recordAllMore records again the more pictures of every item that has
// some, or records some (recordMore): the repair of a change of them
// whose item was not written (a crash between the two). Two scans and,
// per such item, a read and a query. It returns how many it corrected.
func (s *Service) recordAllMore(ctx context.Context) (int, error) {
	ids, err := s.pictureOwners(ctx)
	if err != nil {
		return 0, err
	}
	err = s.items.QueryAll(ctx, storage.Query{PartitionKey: itemsPart, Select: []string{"RowKey", "more"}}, func(e storage.Entity) error {
		if more, _ := e.Props["more"].(string); more != "" {
			ids[e.RowKey] = true
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	fixed := 0
	for id := range ids {
		changed, err := s.recordMore(ctx, id)
		switch {
		case errors.Is(err, ErrNoItem): // pictures of an item gone (finishDeletions)
		case err != nil:
			return fixed, err
		case changed:
			fixed++
		}
	}
	return fixed, nil
}

// finishDeletions finishes the deletions cut short: it buries every
// item marked deleted, and removes the pictures of items gone (an
// upload that raced its item's deletion, or a deletion from before items
// were marked first). Two scans and, per such item, a read. It returns
// how many items' leftovers it removed.
func (s *Service) finishDeletions(ctx context.Context) (int, error) {
	ids, err := s.pictureOwners(ctx)
	if err != nil {
		return 0, err
	}
	err = s.items.QueryAll(ctx, storage.Query{PartitionKey: itemsPart, Select: []string{"RowKey", "deleted"}}, func(e storage.Entity) error {
		deleted, _ := e.Props["deleted"].(bool)
		ids[e.RowKey] = deleted
		return nil
	})
	if err != nil {
		return 0, err
	}
	removed := 0
	for id, suspect := range ids {
		if !suspect {
			continue // an item there
		}
		// Read again: bury needs the row as it stands.
		it, err := s.stored(ctx, id)
		switch {
		case errors.Is(err, ErrNoItem):
			err = s.forget(ctx, id)
		case err == nil && it.Deleted:
			err = s.bury(ctx, it)
		case err == nil:
			continue
		}
		if err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// pictureOwners are the ids of the items that more pictures' rows name
// (an item gone too): a scan of the rows' keys.
func (s *Service) pictureOwners(ctx context.Context) (map[string]bool, error) {
	ids := map[string]bool{}
	err := s.more.Table.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"PartitionKey"}}, func(e storage.Entity) error {
		ids[e.PartitionKey] = true
		return nil
	})
	return ids, err
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

// Package gallery keeps an owner's pictures in the order the owner
// chose, at most Max: a People card's photos, a store item's pictures.
// Each picture is re-encoded by the media pipeline and kept in two sizes
// (the pictures kit); a row a picture (PK the owner, RK the picture's id)
// holds its blob name and place. The blob is stored before its row, so a
// crash leaves at most a blob nothing points to; an upload that lost a
// race for the last place is taken back; a move rewrites the places in
// one transaction of the owner's partition, at the rows' ETags. The
// editor (editor.go) is the pages' part: add, delete, move.
package gallery

import (
	"cmp"
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
)

// Gallery is a kind of owners' pictures: its table, its pictures, the
// most an owner keeps, and its refusals.
type Gallery struct {
	Table    *storage.Table
	Pictures pictures.Store
	Max      int
	// Full refuses a picture past Max (409); Missing names a picture
	// that is not the owner's (404).
	Full, Missing error
	Now           func() time.Time
}

// Row is one picture.
type Row struct {
	PartitionKey string    `table:"PartitionKey"` // the owner
	RowKey       string    `table:"RowKey"`       // the picture's id (ID)
	ETag         string    `table:"ETag"`
	Key          string    `table:"key"`   // the large size's blob name
	Order        int       `table:"order"` // its place, 0 first
	UploadedAt   time.Time `table:"uploadedAt"`
}

// ID is a picture's id from its blob name.
func ID(key string) string { return strings.TrimSuffix(path.Base(key), ".jpg") }

// List is owner's pictures, in their order: one query.
func (g Gallery) List(ctx context.Context, owner string) ([]Row, error) {
	rows, err := storage.All[Row](ctx, g.Table, storage.Query{PartitionKey: owner})
	slices.SortFunc(rows, order)
	return rows, err
}

// order is the pictures' order: by place, then by upload.
func order(a, b Row) int {
	return cmp.Or(cmp.Compare(a.Order, b.Order), a.UploadedAt.Compare(b.UploadedAt))
}

// Add checks and re-encodes an upload and adds it last of owner's
// pictures; it returns the picture and the owner's pictures after. A
// bad image is the pipeline's error and stores nothing; past Max it is
// Full.
func (g Gallery) Add(ctx context.Context, owner string, data []byte) (Row, []Row, error) {
	have, err := g.List(ctx, owner)
	if err != nil {
		return Row{}, nil, err
	}
	if len(have) >= g.Max {
		return Row{}, nil, g.Full
	}
	img, err := g.Pictures.Process(ctx, data)
	if err != nil {
		return Row{}, nil, err
	}
	key, err := g.Pictures.Put(ctx, owner, img)
	if err != nil {
		return Row{}, nil, err
	}
	place := 0
	if len(have) > 0 {
		place = have[len(have)-1].Order + 1
	}
	row := Row{PartitionKey: owner, RowKey: ID(key), Key: key, Order: place, UploadedAt: g.Now().UTC()}
	if _, err := storage.Insert(ctx, g.Table, row); err != nil {
		g.Pictures.Delete(ctx, key)
		return Row{}, nil, err
	}
	now, err := g.List(ctx, owner)
	if err != nil {
		return row, nil, err
	}
	if len(now) > g.Max {
		_, err := g.Delete(ctx, owner, row.RowKey)
		return Row{}, nil, errors.Join(g.Full, err)
	}
	return row, now, nil
}

// Get is one of owner's pictures (Missing when it is not theirs): one
// point read.
func (g Gallery) Get(ctx context.Context, owner, id string) (Row, error) {
	return storage.Find[Row](ctx, g.Table, owner, id, g.Missing)
}

// Delete deletes one of owner's pictures, the row and then its blob, and
// returns the owner's pictures after.
func (g Gallery) Delete(ctx context.Context, owner, id string) ([]Row, error) {
	row, err := g.Get(ctx, owner, id)
	if err != nil {
		return nil, err
	}
	if err := storage.Forget(ctx, g.Table, owner, id); err != nil {
		return nil, err
	}
	g.Pictures.Delete(ctx, row.Key)
	return g.List(ctx, owner)
}

// Move moves one of owner's pictures a place earlier (first: to the
// front) and returns the pictures in their new order; nil when it was
// first already.
func (g Gallery) Move(ctx context.Context, owner, id string, first bool) ([]Row, error) {
	var moved []Row
	err := storage.Optimistic(ctx, 5, func(ctx context.Context) error {
		moved = nil
		rows, err := g.List(ctx, owner)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(rows, func(r Row) bool { return r.RowKey == id })
		switch {
		case i < 0:
			return g.Missing
		case i == 0:
			return nil
		}
		to := i - 1
		if first {
			to = 0
		}
		moved = slices.Insert(slices.Delete(slices.Clone(rows), i, i+1), to, rows[i])
		tx := &storage.Tx{}
		for n, r := range moved {
			if r.Order != n {
				was := r.ETag
				r.Order = n
				tx.Replace(r, was)
			}
		}
		return tx.Commit(ctx, g.Table)
	})
	return moved, err
}

// DeleteAll deletes all of owner's pictures (what they belong to is
// gone): every file in the owner's folder, then the rows, so that a
// delete cut short leaves the rows that name the owner for the next.
func (g Gallery) DeleteAll(ctx context.Context, owner string) error {
	if err := g.Pictures.DeleteAll(ctx, owner); err != nil {
		return err
	}
	return storage.DeletePartition(ctx, g.Table, owner)
}

// Firsts are every owner's first picture, the table read whole: the
// repair of what records it elsewhere (a People card's photo).
func (g Gallery) Firsts(ctx context.Context) (map[string]Row, error) {
	rows, err := storage.All[Row](ctx, g.Table, storage.Query{Scan: true})
	if err != nil {
		return nil, err
	}
	first := map[string]Row{}
	for _, r := range rows {
		if f, ok := first[r.PartitionKey]; !ok || order(r, f) < 0 {
			first[r.PartitionKey] = r
		}
	}
	return first, nil
}

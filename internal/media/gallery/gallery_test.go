package gallery_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/storage/storetest"
)

var errFull, errMissing = errors.New("full"), errors.New("missing")

// TestAGallery: pictures are added last up to Max, then refused; a move
// puts one earlier or first in one go; a delete takes the row and the
// blobs; Firsts finds each owner's first; DeleteAll empties an owner's.
func TestAGallery(t *testing.T) {
	ctx := t.Context()
	store := storetest.OpenWith(t, embedded.Options{}, []string{"Pictures"}, []string{"pictures"})
	clock := time.Date(2030, 5, 17, 9, 0, 0, 0, time.UTC)
	g := gallery.Gallery{
		Table: store.Table("Pictures"), Pictures: pictures.Store{Container: store.Container("pictures"), Large: 200, Small: 50},
		Max: 3, Full: errFull, Missing: errMissing, Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	var ids []string
	for i := range 3 {
		row, now, err := g.Add(ctx, "ann", mediatest.EncodedPNG(t, 100+i, 80))
		if err != nil || len(now) != i+1 || now[i].RowKey != row.RowKey {
			t.Fatalf("add %d: %v", i, err)
		}
		ids = append(ids, row.RowKey)
	}
	if _, _, err := g.Add(ctx, "ann", mediatest.EncodedPNG(t, 90, 80)); !errors.Is(err, errFull) {
		t.Fatalf("past Max: %v", err)
	}
	if _, _, err := g.Add(ctx, "bob", []byte("not a picture")); err == nil {
		t.Fatal("not a picture was kept")
	}
	order := func(owner string) []string {
		rows, err := g.List(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.RowKey)
		}
		return out
	}
	if moved, err := g.Move(ctx, "ann", ids[2], false); err != nil || !slices.Equal(order("ann"), []string{ids[0], ids[2], ids[1]}) || len(moved) != 3 {
		t.Fatalf("earlier: %q, %v", order("ann"), err)
	}
	if _, err := g.Move(ctx, "ann", ids[1], true); err != nil || !slices.Equal(order("ann"), []string{ids[1], ids[0], ids[2]}) {
		t.Fatalf("first: %q, %v", order("ann"), err)
	}
	if moved, err := g.Move(ctx, "ann", ids[1], true); err != nil || moved != nil {
		t.Fatalf("the first made first: %v, %v", moved, err)
	}
	if _, err := g.Move(ctx, "ann", "nope", true); !errors.Is(err, errMissing) {
		t.Fatalf("a picture not there: %v", err)
	}
	if _, _, err := g.Add(ctx, "bob", mediatest.EncodedPNG(t, 100, 80)); err != nil {
		t.Fatal(err)
	}
	first, err := g.Firsts(ctx)
	if err != nil || first["ann"].RowKey != ids[1] || len(first) != 2 {
		t.Fatalf("firsts: %v, %v", first, err)
	}
	left, err := g.Delete(ctx, "ann", ids[1])
	if err != nil || len(left) != 2 || left[0].RowKey != ids[0] {
		t.Fatalf("delete: %v, %v", left, err)
	}
	if _, err := g.Delete(ctx, "ann", ids[1]); !errors.Is(err, errMissing) {
		t.Fatalf("deleted again: %v", err)
	}
	if err := g.DeleteAll(ctx, "ann"); err != nil || len(order("ann")) != 0 {
		t.Fatalf("delete all: %v", err)
	}
	blobs, err := store.Container("pictures").List(ctx, "")
	if err != nil || len(blobs) != 2 { // bob's, two sizes
		t.Fatalf("blobs left: %d, %v", len(blobs), err)
	}
}

package pictures_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/jpeg"
	"regexp"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

const container = "pictures"

// newStore is a Store on a fresh embedded backend, wrapped by wrap when
// it is not nil.
func newStore(t *testing.T, wrap func(storage.Backend) storage.Backend) pictures.Store {
	t.Helper()
	if wrap == nil {
		wrap = func(b storage.Backend) storage.Backend { return b }
	}
	st := storetest.OpenWrapped(t, wrap)
	if err := st.Provision(context.Background(), nil, []string{container}); err != nil {
		t.Fatal(err)
	}
	return pictures.Store{Container: st.Container(container), Large: 400, Small: 100}
}

// held are the blobs stored under owner.
func held(t *testing.T, s pictures.Store, owner string) []string {
	t.Helper()
	list, err := s.Container.List(context.Background(), owner+"/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	return names
}

// A picture is kept in its two sizes under its owner and a name made for
// the upload; a URL's file part reads either size of that owner's
// picture and nothing else; deleting it removes both, even once the
// request has gone.
func TestPutGetDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, nil)
	img, err := s.Process(ctx, mediatest.EncodedPNG(t, 1000, 500))
	if err != nil {
		t.Fatal(err)
	}
	key, err := s.Put(ctx, "owner-1", img)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^owner-1/[0-9a-f]{32}\.jpg$`).MatchString(key) {
		t.Fatalf("key %q", key)
	}
	again, err := s.Put(ctx, "owner-1", img)
	if err != nil || again == key {
		t.Fatalf("a second upload of the same picture: %q %v, want a new name", again, err)
	}
	_, file, _ := strings.Cut(key, "/")
	for small, side := range map[bool]int{false: 400, true: 100} {
		_, f, _ := strings.Cut(pictures.Sized(key, small), "/")
		b, err := s.Get(ctx, "owner-1", f)
		if err != nil {
			t.Fatalf("get %s: %v", f, err)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b.Data))
		if err != nil || max(cfg.Width, cfg.Height) != side {
			t.Errorf("%s: %dx%d %v, want the longer side %d", f, cfg.Width, cfg.Height, err, side)
		}
	}
	for _, bad := range [][2]string{{"owner-2", file}, {"owner-1", "../owner-1/" + file}, {"owner-1", strings.ToUpper(file)}, {"owner-1", "x.jpg"}, {"owner-1", ""}} {
		if _, err := s.Get(ctx, bad[0], bad[1]); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("get %q of %q: %v, want not found", bad[1], bad[0], err)
		}
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	s.Delete(gone, key)
	s.Delete(ctx, "")
	if names := held(t, s, "owner-1"); len(names) != 2 || strings.HasPrefix(names[0], key[:len(key)-4]) {
		t.Errorf("after deleting %s: %q, want only the other upload's two sizes", key, names)
	}
}

// failSmall refuses to store small sizes.
type failSmall struct{ storage.Backend }

var errRefused = errors.New("refused")

func (f failSmall) PutBlob(ctx context.Context, c, name string, data []byte, ct, ifMatch string) (string, error) {
	if strings.HasSuffix(name, "_s.jpg") {
		return "", errRefused
	}
	return f.Backend.PutBlob(ctx, c, name, data, ct, ifMatch)
}

// When the small size cannot be stored, the large one goes again:
// nothing is left half-stored.
func TestAFailedPutLeavesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t, func(b storage.Backend) storage.Backend { return failSmall{b} })
	img, err := s.Process(ctx, mediatest.EncodedPNG(t, 600, 600))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "owner", img); !errors.Is(err, errRefused) {
		t.Fatalf("put: %v, want the backend's refusal", err)
	}
	if names := held(t, s, "owner"); len(names) != 0 {
		t.Errorf("left behind: %q", names)
	}
}

// What is not a picture is refused before anything is stored.
func TestProcessRefusesWhatIsNotAPicture(t *testing.T) {
	t.Parallel()
	s := newStore(t, nil)
	if _, err := s.Process(context.Background(), []byte("GIF89a not really")); !errors.Is(err, media.ErrUnsupported) {
		t.Errorf("a fake GIF: %v, want media.ErrUnsupported", err)
	}
}

package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// TestBlobOverwriteIsAtomic overwrites one blob while readers read it: every
// read sees one whole version, with the ETag and size of that version.
func TestBlobOverwriteIsAtomic(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	version := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 64<<10+i) }
	etags := sync.Map{} // ETag → version index
	etag, err := b.PutBlob(ctx, "files", "doc", version(0), "text/plain", storage.AnyETag)
	if err != nil {
		t.Fatal(err)
	}
	etags.Store(etag, 0)

	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				blob, err := b.GetBlob(ctx, "files", "doc")
				if err != nil {
					t.Error(err)
					return
				}
				i, ok := etags.Load(blob.ETag)
				if !ok {
					continue // put not recorded yet; checked by content alone below
				}
				if !bytes.Equal(blob.Data, version(i.(int))) || blob.Size != int64(len(blob.Data)) {
					t.Errorf("read with ETag %s has %d bytes that are not version %d", blob.ETag, len(blob.Data), i)
					return
				}
			}
		})
	}
	for i := 1; i <= 40; i++ {
		etag, err := b.PutBlob(ctx, "files", "doc", version(i), "text/plain", storage.AnyETag)
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := etags.LoadOrStore(etag, i); dup {
			t.Errorf("overwrite %d reused ETag %s", i, etag)
		}
	}
	close(done)
	wg.Wait()

	files, err := os.ReadDir(b.containerDir("files"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 {
		t.Errorf("container holds %d data files after overwrites, want 1", len(files))
	}
}

// TestBlobNamesAreAFlatNamespace covers names a file-per-name layout would
// get wrong: a name that is also a "directory" of another, names differing
// only in case, and a segment longer than a file name may be.
func TestBlobNamesAreAFlatNamespace(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	long := string(bytes.Repeat([]byte("x"), 300))
	names := []string{"a", "a/b", "a/b/c", "A", "Ü/é", long}
	for _, name := range names {
		if _, err := b.PutBlob(ctx, "files", name, []byte("data of "+name), "text/plain", storage.AnyETag); err != nil {
			t.Fatalf("put %q: %v", name, err)
		}
	}
	for _, name := range names {
		blob, err := b.GetBlob(ctx, "files", name)
		if err != nil || string(blob.Data) != "data of "+name {
			t.Errorf("get %q: %q, %v", name, blob.Data, err)
		}
	}
	list, err := b.ListBlobs(ctx, "files", "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(blobNames(list)); got != "[a a/b a/b/c]" {
		t.Errorf("list a = %s", got)
	}
}

func blobNames(infos []storage.BlobInfo) []string {
	var names []string
	for _, i := range infos {
		names = append(names, i.Name)
	}
	return names
}

func TestBlobErrors(t *testing.T) {
	ctx := context.Background()
	b := openEmbeddedForTest(t, Options{})
	if _, err := b.GetBlob(ctx, "files", "nope"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("get missing blob: %v", err)
	}
	if err := b.DeleteBlob(ctx, "files", "nope"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("delete missing blob: %v", err)
	}
	if _, err := b.PutBlob(ctx, "nocontainer", "x", []byte("x"), "text/plain", storage.AnyETag); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("put into missing container: %v", err)
	}
	if _, err := b.ListBlobs(ctx, "nocontainer", ""); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("list missing container: %v", err)
	}
	if err := b.CreateContainer(ctx, "files"); err != nil {
		t.Errorf("creating an existing container: %v", err)
	}
	if leftovers, _ := os.ReadDir(filepath.Join(b.blobDir, tmpDirName)); len(leftovers) != 0 {
		t.Errorf("failed put left %d temp files", len(leftovers))
	}
}

func TestOpenSweepsOrphanedBlobFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateContainer(ctx, "files"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.PutBlob(ctx, "files", "kept", []byte("kept"), "text/plain", storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	b.Close()
	// What a crash between writing and committing leaves behind.
	orphan := filepath.Join(dir, "blobs", "files", "ORPHAN")
	tmp := filepath.Join(dir, "blobs", tmpDirName, "PARTIAL")
	for _, p := range []string{orphan, tmp} {
		if err := os.WriteFile(p, []byte("junk"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	b, err = Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, p := range []string{orphan, tmp} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived Open: %v", p, err)
		}
	}
	if blob, err := b.GetBlob(ctx, "files", "kept"); err != nil || string(blob.Data) != "kept" {
		t.Errorf("kept blob: %q, %v", blob.Data, err)
	}
}

package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// putBlob stores a blob the test needs and returns its ETag.
func putBlob(t *testing.T, c *storage.Container, name string, data []byte, contentType string) string {
	t.Helper()
	etag, err := c.Put(t.Context(), name, data, contentType)
	must(t, err, "put "+name)
	if etag == "" {
		t.Fatalf("put %s returned an empty ETag", name)
	}
	return etag
}

// wantBlob reads a blob and checks everything about it.
func wantBlob(t *testing.T, c *storage.Container, name string, data []byte, contentType, etag string) {
	t.Helper()
	b, err := c.Get(t.Context(), name)
	must(t, err, "get "+name)
	if b.Name != name || !bytes.Equal(b.Data, data) || b.ContentType != contentType || b.ETag != etag || b.Size != int64(len(data)) {
		t.Errorf("get %s: name %q, %d bytes (equal: %v), type %q, ETag %q, size %d; want %d bytes, type %q, ETag %q",
			name, b.Name, len(b.Data), bytes.Equal(b.Data, data), b.ContentType, b.ETag, b.Size, len(data), contentType, etag)
	}
	if age := time.Since(b.LastModified); age < -time.Hour || age > time.Hour {
		t.Errorf("get %s: LastModified %v is not about now", name, b.LastModified)
	}
}

// blobRoundTrip puts a blob, reads it back, and deletes it.
func blobRoundTrip(t *testing.T, c *storage.Container, name string, data []byte, contentType string) {
	t.Helper()
	etag := putBlob(t, c, name, data, contentType)
	wantBlob(t, c, name, data, contentType, etag)
	must(t, c.Delete(t.Context(), name), "delete "+name)
	_, err := c.Get(t.Context(), name)
	wantErr(t, err, storage.ErrNotFound, "get after delete")
}

func testBlobs(t *testing.T, s *suite) {
	c := s.container(t)
	t.Run("RoundTrip", func(t *testing.T) {
		t.Parallel()
		blobRoundTrip(t, c, "doc.txt", []byte("hello, мир"), "text/plain; charset=utf-8")
	})
	t.Run("EmptyBlob", func(t *testing.T) {
		t.Parallel()
		blobRoundTrip(t, c, "empty", []byte{}, "application/x-empty")
	})
	t.Run("LargeBlob", func(t *testing.T) {
		t.Parallel()
		blobRoundTrip(t, c, "large.bin", patterned(5<<20+3), "application/octet-stream")
	})
	t.Run("DefaultContentType", func(t *testing.T) {
		t.Parallel()
		etag := putBlob(t, c, "untyped", []byte{1, 2, 3}, "")
		wantBlob(t, c, "untyped", []byte{1, 2, 3}, "application/octet-stream", etag)
	})
	t.Run("UnusualNames", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{
			"ж/файл 1.txt", "a b+c&d=e", "q?x#y%z", "%2F..%2F", "😀.png", "it's", "dir/sub/leaf",
			strings.Repeat("n", 1024),
		} {
			blobRoundTrip(t, c, name, []byte(name), "text/plain")
		}
	})
	t.Run("Overwrite", func(t *testing.T) {
		t.Parallel()
		first := putBlob(t, c, "over", []byte("first version"), "text/plain")
		second := putBlob(t, c, "over", []byte(`{"v":2}`), "application/json")
		if first == second {
			t.Errorf("overwrite kept ETag %q", first)
		}
		wantBlob(t, c, "over", []byte(`{"v":2}`), "application/json", second)
	})
	t.Run("PutIf", func(t *testing.T) {
		t.Parallel()
		ctx := t.Context()
		first, err := c.PutIf(ctx, "cond", []byte("one"), "text/plain", "")
		must(t, err, "create where missing")
		_, err = c.PutIf(ctx, "cond", []byte("again"), "text/plain", "")
		wantErr(t, err, storage.ErrExists, "create over a blob")
		second, err := c.PutIf(ctx, "cond", []byte("two"), "text/plain", first)
		must(t, err, "write at the ETag read")
		_, err = c.PutIf(ctx, "cond", []byte("lost"), "text/plain", first)
		wantErr(t, err, storage.ErrPrecondition, "write at an old ETag")
		wantBlob(t, c, "cond", []byte("two"), "text/plain", second)
		must(t, c.Delete(ctx, "cond"), "delete")
		_, err = c.PutIf(ctx, "cond", []byte("back"), "text/plain", second)
		wantErr(t, err, storage.ErrPrecondition, "write at the ETag of a deleted blob")
		if errors.Is(err, storage.ErrNotFound) {
			t.Errorf("write at the ETag of a deleted blob is also not found: %v", err)
		}
		_, err = c.PutIf(ctx, "cond", []byte("x"), "text/plain", "not\x01an-etag")
		wantErr(t, err, storage.ErrPrecondition, "write at a malformed ETag")
		_, err = c.Get(ctx, "cond")
		wantErr(t, err, storage.ErrNotFound, "get after the refused writes")
	})
	t.Run("ListByPrefix", func(t *testing.T) {
		t.Parallel()
		own := s.container(t)
		names := []string{"a/1", "a/10", "a/2", "a/b/3", "a/ж", "a-z", "ab", "b/1", "b", "ж/1"}
		etags := map[string]string{}
		for _, n := range names {
			etags[n] = putBlob(t, own, n, []byte("data of "+n), "text/x-"+strings.NewReplacer("/", "-", "ж", "zh").Replace(n))
		}
		for _, prefix := range []string{"", "a/", "a", "a/b/", "b", "ж", "zzz", "a/3"} {
			infos, err := own.List(t.Context(), prefix)
			must(t, err, "list "+prefix)
			var want []string
			for _, n := range names {
				if strings.HasPrefix(n, prefix) {
					want = append(want, n)
				}
			}
			slices.Sort(want)
			var got []string
			for _, info := range infos {
				got = append(got, info.Name)
				if info.ETag != etags[info.Name] || info.Size != int64(len("data of "+info.Name)) || !strings.HasPrefix(info.ContentType, "text/x-") {
					t.Errorf("list %q: %s has ETag %q, size %d, type %q; put gave ETag %q", prefix, info.Name, info.ETag, info.Size, info.ContentType, etags[info.Name])
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("list %q: got %q, want %q", prefix, got, want)
			}
		}
	})
	t.Run("Delete", func(t *testing.T) {
		t.Parallel()
		own := s.container(t)
		putBlob(t, own, "keep", []byte("k"), "text/plain")
		putBlob(t, own, "gone", []byte("g"), "text/plain")
		must(t, own.Delete(t.Context(), "gone"), "delete")
		_, err := own.Get(t.Context(), "gone")
		wantErr(t, err, storage.ErrNotFound, "get after delete")
		wantErr(t, own.Delete(t.Context(), "gone"), storage.ErrNotFound, "second delete")
		infos, err := own.List(t.Context(), "")
		must(t, err, "list")
		if len(infos) != 1 || infos[0].Name != "keep" {
			t.Errorf("list after delete: %+v, want only keep", infos)
		}
	})
	t.Run("DeletePrefix", func(t *testing.T) {
		t.Parallel()
		own := s.container(t)
		for _, n := range []string{"a/1", "a/b/2", "ab", "b/1"} {
			putBlob(t, own, n, []byte(n), "text/plain")
		}
		must(t, own.DeletePrefix(t.Context(), "a/"), "delete a/")
		must(t, own.DeletePrefix(t.Context(), "a/"), "delete a/ again")
		infos, err := own.List(t.Context(), "")
		must(t, err, "list")
		var left []string
		for _, info := range infos {
			left = append(left, info.Name)
		}
		if !slices.Equal(left, []string{"ab", "b/1"}) {
			t.Errorf("after deleting a/: %q", left)
		}
		if err := own.DeletePrefix(t.Context(), ""); err == nil {
			t.Error("deleting the whole container by an empty prefix was allowed")
		}
	})
	t.Run("Missing", func(t *testing.T) {
		t.Parallel()
		_, err := c.Get(t.Context(), "never/put")
		wantErr(t, err, storage.ErrNotFound, "get")
		wantErr(t, c.Delete(t.Context(), "never/put"), storage.ErrNotFound, "delete")
	})
	t.Run("ContainersAreSeparate", func(t *testing.T) {
		t.Parallel()
		one, two := s.container(t), s.container(t)
		e1 := putBlob(t, one, "same", []byte("one"), "text/plain")
		wantBlob(t, one, "same", []byte("one"), "text/plain", e1)
		_, err := two.Get(t.Context(), "same")
		wantErr(t, err, storage.ErrNotFound, "get from the other container")
	})
	t.Run("InvalidNames", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{
			"", "../x", "a/../b", "..", ".", "./a", "a/.", "a//b", "/a", "a/", `a\b`, "a\x00b", "a\x1fb", "a\x7fb", "a\u0085b", "\xff",
			strings.Repeat("n", 1025),
		} {
			_, err := c.Put(t.Context(), name, []byte("x"), "text/plain")
			wantErr(t, err, storage.ErrInvalid, fmt.Sprintf("put %+q", name))
			_, err = c.Get(t.Context(), name)
			wantErr(t, err, storage.ErrInvalid, fmt.Sprintf("get %+q", name))
			wantErr(t, c.Delete(t.Context(), name), storage.ErrInvalid, fmt.Sprintf("delete %+q", name))
		}
	})
	t.Run("InvalidContainerNames", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"", "ab", "UPPER", "a--b", "-ab", "ab-", "a_b", "a.b", "ж" + uniqueName(""), strings.Repeat("a", 64)} {
			err := s.store.Provision(t.Context(), nil, []string{name})
			wantErr(t, err, storage.ErrInvalid, fmt.Sprintf("provision container %q", name))
		}
	})
}

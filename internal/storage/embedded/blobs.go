package embedded

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/harmony/harmony/internal/storage"
)

// Blob layout. Each container is a directory, dir/blobs/<container>/, whose
// data files have random names; the bucket of the same name in bbolt maps each
// blob name to its metadata and data file. Naming files after blobs would
// break Azure's flat namespace: blobs "a" and "a/b" can both exist, one
// segment may be longer than a file name may be, and on a case-insensitive
// disk (macOS, Windows) "A" and "a" would share a file.
//
// A put writes a new data file under dir/blobs/.tmp, then in one bbolt write
// transaction moves it into the container and points the metadata at it; the
// replaced file is removed after the commit. Readers never see a partial
// blob, and a reader holding old metadata either opens the old file (still
// readable once open) or finds it gone and reads the metadata again.
const tmpDirName = ".tmp" // container names cannot start with a dot

// blobMeta is a blob's metadata record in bbolt:
//
//	version byte, etag uvarint, modified 8 bytes (ticks, little endian),
//	size uvarint, file (uvarint length + bytes), content type (likewise)
type blobMeta struct {
	seq         uint64
	modified    int64
	size        uint64
	file        string
	contentType string
}

const blobMetaVersion = 1

func (m blobMeta) encode() []byte {
	b := make([]byte, 0, 48+len(m.file)+len(m.contentType))
	b = append(b, blobMetaVersion)
	b = binary.AppendUvarint(b, m.seq)
	b = binary.LittleEndian.AppendUint64(b, uint64(m.modified))
	b = binary.AppendUvarint(b, m.size)
	b = binary.AppendUvarint(b, uint64(len(m.file)))
	b = append(b, m.file...)
	b = binary.AppendUvarint(b, uint64(len(m.contentType)))
	return append(b, m.contentType...)
}

var errCorruptBlobMeta = errors.New("embedded: corrupt blob metadata")

func parseBlobMeta(v []byte) (blobMeta, error) {
	var m blobMeta
	if len(v) < 1 || v[0] != blobMetaVersion {
		return m, errCorruptBlobMeta
	}
	v = v[1:]
	var n int
	if m.seq, n = binary.Uvarint(v); n <= 0 || len(v) < n+8 {
		return m, errCorruptBlobMeta
	}
	m.modified, v = int64(binary.LittleEndian.Uint64(v[n:])), v[n+8:]
	if m.size, n = binary.Uvarint(v); n <= 0 {
		return m, errCorruptBlobMeta
	}
	v = v[n:]
	var ok bool
	if m.file, v, ok = readString(v); !ok {
		return m, errCorruptBlobMeta
	}
	if m.contentType, _, ok = readString(v); !ok {
		return m, errCorruptBlobMeta
	}
	return m, nil
}

func readString(v []byte) (s string, rest []byte, ok bool) {
	l, n := binary.Uvarint(v)
	if n <= 0 || uint64(len(v)-n) < l {
		return "", nil, false
	}
	return string(v[n : n+int(l)]), v[n+int(l):], true
}

// blobETag renders a blob's write sequence in Azure's quoted-hex ETag style.
func blobETag(seq uint64) string {
	return `"0x` + strconv.FormatUint(seq, 16) + `"`
}

func (m blobMeta) info(name string) storage.BlobInfo {
	return storage.BlobInfo{
		Name:         name,
		ContentType:  m.contentType,
		ETag:         blobETag(m.seq),
		LastModified: ticksToTime(m.modified),
		Size:         int64(m.size),
	}
}

func (b *Backend) containerDir(container string) string {
	return filepath.Join(b.blobDir, container)
}

func containerBucket(tx *bolt.Tx, container string) (*bolt.Bucket, error) {
	cb := tx.Bucket(bucketBlobs).Bucket([]byte(container))
	if cb == nil {
		return nil, fmt.Errorf("%w: container not found: %s", storage.ErrNotFound, container)
	}
	return cb, nil
}

// CreateContainer creates a container; an existing one is not an error.
func (b *Backend) CreateContainer(ctx context.Context, container string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(b.containerDir(container), 0o750); err != nil {
		return fmt.Errorf("embedded: create container %s: %w", container, err)
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		_, err := tx.Bucket(bucketBlobs).CreateBucketIfNotExists([]byte(container))
		return err
	})
}

// PutBlob implements storage.Backend.
func (b *Backend) PutBlob(ctx context.Context, container, name string, data []byte, contentType, ifMatch string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	file := rand.Text()
	tmp := filepath.Join(b.blobDir, tmpDirName, file)
	if err := b.writeFile(tmp, data); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("embedded: write blob %s/%s: %w", container, name, err)
	}
	dir := b.containerDir(container)
	final := filepath.Join(dir, file)
	var etag, oldFile string
	moved := false
	err := b.db.Update(func(tx *bolt.Tx) error {
		cb, err := containerBucket(tx, container)
		if err != nil {
			return err
		}
		v := cb.Get([]byte(name))
		if v != nil {
			old, err := parseBlobMeta(v)
			if err != nil {
				return err
			}
			oldFile = old.file
			if ifMatch != storage.AnyETag && ifMatch != blobETag(old.seq) {
				oldFile = ""
				if ifMatch == "" {
					return storage.ErrExists
				}
				return storage.ErrPrecondition
			}
		} else if ifMatch != storage.AnyETag && ifMatch != "" {
			return storage.ErrPrecondition
		}
		seq, err := tx.Bucket(bucketBlobs).NextSequence()
		if err != nil {
			return err
		}
		m := blobMeta{
			seq:         seq,
			modified:    timeToTicks(time.Now().UTC().Truncate(time.Second)), // Azure's Last-Modified has whole seconds
			size:        uint64(len(data)),
			file:        file,
			contentType: contentType,
		}
		if err := cb.Put([]byte(name), m.encode()); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return err
		}
		if err := os.Rename(tmp, final); err != nil {
			return err
		}
		moved = true
		if !b.noSync {
			if err := syncDir(dir); err != nil {
				return err
			}
		}
		etag = blobETag(seq)
		return nil
	})
	if err != nil {
		if moved {
			os.Remove(final)
		} else {
			os.Remove(tmp)
		}
		return "", fmt.Errorf("embedded: put blob %s/%s: %w", container, name, err)
	}
	if oldFile != "" {
		// Best effort: a leftover file is swept at the next Open.
		os.Remove(filepath.Join(dir, oldFile))
	}
	return etag, nil
}

func (b *Backend) writeFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && !b.noSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename into dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// GetBlob implements storage.Backend.
func (b *Backend) GetBlob(ctx context.Context, container, name string) (storage.Blob, error) {
	const attempts = 3
	for i := 1; ; i++ {
		if err := ctx.Err(); err != nil {
			return storage.Blob{}, err
		}
		m, err := b.blobMeta(container, name)
		if err != nil {
			return storage.Blob{}, err
		}
		data, err := readFile(filepath.Join(b.containerDir(container), m.file), m.size)
		if errors.Is(err, fs.ErrNotExist) && i < attempts {
			continue // overwritten or deleted since the metadata was read
		}
		if err != nil {
			return storage.Blob{}, fmt.Errorf("embedded: read blob %s/%s: %w", container, name, err)
		}
		info := m.info(name)
		return storage.Blob{
			Name:         name,
			Data:         data,
			ContentType:  info.ContentType,
			ETag:         info.ETag,
			LastModified: info.LastModified,
			Size:         info.Size,
		}, nil
	}
}

func (b *Backend) blobMeta(container, name string) (blobMeta, error) {
	var m blobMeta
	err := b.db.View(func(tx *bolt.Tx) error {
		var err error
		_, m, err = lookupBlob(tx, container, name)
		return err
	})
	return m, err
}

// lookupBlob finds a blob's metadata in its container's bucket.
func lookupBlob(tx *bolt.Tx, container, name string) (*bolt.Bucket, blobMeta, error) {
	cb, err := containerBucket(tx, container)
	if err != nil {
		return nil, blobMeta{}, err
	}
	v := cb.Get([]byte(name))
	if v == nil {
		return nil, blobMeta{}, fmt.Errorf("%w: blob %s/%s", storage.ErrNotFound, container, name)
	}
	m, err := parseBlobMeta(v)
	return cb, m, err
}

func readFile(path string, size uint64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// DeleteBlob implements storage.Backend.
func (b *Backend) DeleteBlob(ctx context.Context, container, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var file string
	err := b.db.Update(func(tx *bolt.Tx) error {
		cb, m, err := lookupBlob(tx, container, name)
		if err != nil {
			return err
		}
		file = m.file
		return cb.Delete([]byte(name))
	})
	if err != nil {
		return err
	}
	// The blob is gone for callers once the metadata is; should the removal
	// fail, the sweep at the next Open removes the orphaned file.
	os.Remove(filepath.Join(b.containerDir(container), file))
	return nil
}

// ListBlobs implements storage.Backend. Names are listed in byte order, which
// for UTF-8 is code-point order.
func (b *Backend) ListBlobs(ctx context.Context, container, prefix string) ([]storage.BlobInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	infos := []storage.BlobInfo{}
	err := b.db.View(func(tx *bolt.Tx) error {
		cb, err := containerBucket(tx, container)
		if err != nil {
			return err
		}
		c := cb.Cursor()
		p := []byte(prefix)
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			m, err := parseBlobMeta(v)
			if err != nil {
				return err
			}
			infos = append(infos, m.info(string(k)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return infos, nil
}

// sweepBlobFiles removes data files that no metadata points at: leftovers of
// a crash between writing a file and committing, or of a failed removal. It
// runs at Open, when this process holds the database lock and nothing else is
// writing.
func (b *Backend) sweepBlobFiles() error {
	tmp := filepath.Join(b.blobDir, tmpDirName)
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return fmt.Errorf("embedded: sweep %s: %w", tmp, err)
	}
	for _, e := range entries {
		os.Remove(filepath.Join(tmp, e.Name()))
	}
	return b.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBlobs).ForEachBucket(func(container []byte) error {
			used := map[string]bool{}
			err := tx.Bucket(bucketBlobs).Bucket(container).ForEach(func(_, v []byte) error {
				m, err := parseBlobMeta(v)
				if err != nil {
					return err
				}
				used[m.file] = true
				return nil
			})
			if err != nil {
				return err
			}
			dir := b.containerDir(string(container))
			entries, err := os.ReadDir(dir)
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("embedded: sweep %s: %w", dir, err)
			}
			for _, e := range entries {
				if e.Type().IsRegular() && !used[e.Name()] {
					os.Remove(filepath.Join(dir, e.Name()))
				}
			}
			return nil
		})
	})
}

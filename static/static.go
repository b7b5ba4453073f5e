// Package static owns the browser assets (our CSS, vendored htmx, icons),
// embedded into the binary. Each file is served under a content-hashed name,
// /static/css/app.<hash>.css, with a one-year immutable cache lifetime;
// templates get that name from Path. A request for an unhashed or stale name
// is a 404: the hash is the version, so an old page can never receive a new
// file under an old name, and the cache can never hold a wrong one.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

//go:embed css js img
var embedded embed.FS

// Prefix is the URL path every asset is served under.
const Prefix = "/static/"

// hashLen is how many hex digits of the SHA-256 name a file version.
const hashLen = 12

// Asset is one file, ready to serve.
type Asset struct {
	Name        string // logical name, "css/app.css"
	URL         string // "/static/css/app.<hash>.css"
	ContentType string
	hash        string
	data        []byte
	gzipped     []byte // nil when compressing does not pay
}

// Assets maps logical and hashed names to files. It is read-only after New.
type Assets struct {
	byName   map[string]*Asset
	byHashed map[string]*Asset
}

// New reads every file in fsys, hashes it and, for text types, gzips it once
// so no request pays for compression.
func New(fsys fs.FS) (*Assets, error) {
	a := &Assets{byName: map[string]*Asset{}, byHashed: map[string]*Asset{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(name, ".go") {
			return err
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:])[:hashLen]
		hashed := hashedName(name, hash)
		asset := &Asset{
			Name:        name,
			URL:         Prefix + hashed,
			ContentType: contentType(name),
			hash:        hash,
			data:        data,
		}
		if compressible(asset.ContentType) {
			if asset.gzipped, err = gzipBytes(data); err != nil {
				return fmt.Errorf("gzip %s: %w", name, err)
			}
			if len(asset.gzipped) >= len(data) {
				asset.gzipped = nil
			}
		}
		a.byName[name] = asset
		a.byHashed[hashed] = asset
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("static: %w", err)
	}
	return a, nil
}

// hashedName puts the hash before the last extension: css/app.css →
// css/app.<hash>.css, js/htmx.min.js → js/htmx.min.<hash>.js.
func hashedName(name, hash string) string {
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hash + ext
}

// Path returns the URL of the named file ("css/app.css"). An unknown name
// yields an unhashed URL that 404s, which the layout test catches; Path does
// not panic because it runs while a page renders.
func (a *Assets) Path(name string) string {
	if asset, ok := a.byName[name]; ok {
		return asset.URL
	}
	return Prefix + name
}

// Lookup finds the file for a hashed name relative to Prefix
// ("css/app.<hash>.css").
func (a *Assets) Lookup(hashed string) (*Asset, bool) {
	asset, ok := a.byHashed[hashed]
	return asset, ok
}

// Names lists the logical names of every file.
func (a *Assets) Names() []string {
	names := make([]string, 0, len(a.byName))
	for n := range a.byName {
		names = append(names, n)
	}
	return names
}

// ServeHTTP writes the file with an immutable cache lifetime, gzipped when
// the client accepts it and that saves bytes.
func (asset *Asset) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", asset.ContentType)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	body, etag := asset.data, `"`+asset.hash+`"`
	if asset.gzipped != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			body, etag = asset.gzipped, `"`+asset.hash+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// contentTypes pins the types we ship, so they do not depend on the host's
// mime tables.
var contentTypes = map[string]string{
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".webp":  "image/webp",
	".woff2": "font/woff2",
	".json":  "application/json",
	".txt":   "text/plain; charset=utf-8",
	".map":   "application/json",
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// compressible reports text types; images and fonts are compressed already.
func compressible(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") ||
		strings.HasPrefix(contentType, "image/svg") ||
		strings.HasPrefix(contentType, "application/json")
}

func gzipBytes(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Embedded returns the assets compiled into the binary. The hashes are
// computed on first use; call it at start-up so that happens before the
// first request. Reading an embed.FS cannot fail, so an error here is a
// broken build and panics.
func Embedded() *Assets { return embeddedAssets() }

var embeddedAssets = sync.OnceValue(func() *Assets {
	a, err := New(embedded)
	if err != nil {
		panic(err)
	}
	return a
})

// Path is Embedded().Path, for templates: static.Path("css/app.css").
func Path(name string) string {
	return Embedded().Path(name)
}

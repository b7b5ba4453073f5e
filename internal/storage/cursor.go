package storage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrBadCursor is returned for a paging token that is malformed, tampered
// with, or minted for another query. The web layer answers it with 400.
var ErrBadCursor = errors.New("storage: bad cursor")

// Cursor is where a paged listing resumes: a bucket of a bucketed index
// (month, score; empty for plain indexes) and the table continuation inside
// it (nil: the bucket's start).
type Cursor struct {
	Bucket string
	Next   *Continuation
}

const (
	cursorVersion  = 1
	fingerprintLen = 8
	macLen         = 16
	// maxTokenLen bounds the work done on a hostile token.
	maxTokenLen = 4096
)

// Cursors mints and checks opaque paging tokens: base64url of {version, query
// fingerprint, bucket, NextPartitionKey, NextRowKey}, signed with HMAC-SHA256.
// The fingerprint binds a token to the query it came from, so reusing it with
// another filter or list fails instead of leaking another partition.
type Cursors struct {
	keys [][]byte
}

// NewCursors takes the server's cursor secrets (each at least 32 bytes): the
// first signs, and all verify, so a key can be rotated out without breaking
// the "load more" links already on people's screens.
func NewCursors(keys ...[]byte) (*Cursors, error) {
	if len(keys) == 0 {
		return nil, errors.New("cursor keys: none given")
	}
	c := &Cursors{}
	for _, k := range keys {
		if len(k) < 32 {
			return nil, fmt.Errorf("cursor key must be at least 32 bytes, got %d", len(k))
		}
		c.keys = append(c.keys, append([]byte(nil), k...))
	}
	return c, nil
}

// Encode makes the token for cur under query, a string naming the listing and
// every filter that shapes it (for example "prompts/newest?tags=go,ai").
func (c *Cursors) Encode(query string, cur Cursor) string {
	buf := make([]byte, 0, 64)
	buf = append(buf, cursorVersion)
	buf = append(buf, fingerprint(query)...)
	buf = appendString(buf, cur.Bucket)
	if cur.Next != nil {
		buf = append(buf, 1)
		buf = appendString(buf, cur.Next.NextPartitionKey)
		buf = appendString(buf, cur.Next.NextRowKey)
	} else {
		buf = append(buf, 0)
	}
	buf = append(buf, mac(c.keys[0], buf)...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

// Decode checks a token against query and returns its cursor. Any failure is
// ErrBadCursor; the detail is for logs only.
func (c *Cursors) Decode(query, token string) (Cursor, error) {
	if len(token) > maxTokenLen {
		return Cursor{}, fmt.Errorf("%w: too long", ErrBadCursor)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: not base64url", ErrBadCursor)
	}
	if len(raw) < 1+fingerprintLen+macLen {
		return Cursor{}, fmt.Errorf("%w: too short", ErrBadCursor)
	}
	body, sig := raw[:len(raw)-macLen], raw[len(raw)-macLen:]
	if !c.verify(body, sig) {
		return Cursor{}, fmt.Errorf("%w: signature mismatch", ErrBadCursor)
	}
	if body[0] != cursorVersion {
		return Cursor{}, fmt.Errorf("%w: version %d", ErrBadCursor, body[0])
	}
	if !hmac.Equal(body[1:1+fingerprintLen], fingerprint(query)) {
		return Cursor{}, fmt.Errorf("%w: minted for another query", ErrBadCursor)
	}
	r := reader{b: body[1+fingerprintLen:]}
	cur := Cursor{Bucket: r.string()}
	if r.byte() == 1 {
		cur.Next = &Continuation{NextPartitionKey: r.string(), NextRowKey: r.string()}
	}
	if r.err != nil || len(r.b) != 0 {
		return Cursor{}, fmt.Errorf("%w: malformed body", ErrBadCursor)
	}
	return cur, nil
}

func (c *Cursors) verify(body, sig []byte) bool {
	for _, k := range c.keys {
		if hmac.Equal(sig, mac(k, body)) {
			return true
		}
	}
	return false
}

func mac(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(nil)[:macLen]
}

func fingerprint(query string) []byte {
	sum := sha256.Sum256([]byte(query))
	return sum[:fingerprintLen]
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// reader decodes what appendString wrote, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errors.New("short")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) string() string {
	if r.err != nil {
		return ""
	}
	n, k := binary.Uvarint(r.b)
	if k <= 0 || n > uint64(len(r.b)-k) {
		r.err = errors.New("bad length")
		return ""
	}
	s := string(r.b[k : k+int(n)])
	r.b = r.b[k+int(n):]
	return s
}

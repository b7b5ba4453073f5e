package storage

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
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
	// cursorVersion 2 seals the body (version 1 only signed it, so a
	// token showed its row keys — a roster's userKeys — to anyone who
	// decoded it).
	cursorVersion = 2
	nonceLen      = 12
	// maxTokenLen bounds the work done on a hostile token.
	maxTokenLen = 4096
)

// Cursors mints and checks opaque paging tokens: base64url of {version,
// nonce, AES-256-GCM sealed {bucket, NextPartitionKey, NextRowKey}}, with the
// query's fingerprint as additional data. The fingerprint binds a token to
// the query it came from, so reusing it with another filter or list fails
// instead of leaking another partition, and the seal keeps the keys inside
// (which may name people) unreadable. The nonce is a MAC of the query and
// body, so a position always gives the same token (links stay stable) and
// nothing but equality leaks.
//
// Seal and Open use the same construction for any other value a page must
// carry without showing it (a roster row's key).
type Cursors struct {
	keys []cursorKey
}

type cursorKey struct {
	aead   cipher.AEAD
	nonces []byte
}

// NewCursors takes the server's cursor secrets (each at least 32 bytes): the
// first seals, and all open, so a key can be rotated out without breaking
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
		enc, err := hkdf.Key(sha256.New, k, nil, "harmony cursor seal", 32)
		if err != nil {
			return nil, err
		}
		nonces, err := hkdf.Key(sha256.New, k, nil, "harmony cursor nonce", 32)
		if err != nil {
			return nil, err
		}
		block, err := aes.NewCipher(enc)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		c.keys = append(c.keys, cursorKey{aead: aead, nonces: nonces})
	}
	return c, nil
}

// Encode makes the token for cur under query, a string naming the listing and
// every filter that shapes it (for example "prompts/newest?tags=go,ai").
func (c *Cursors) Encode(query string, cur Cursor) string {
	buf := make([]byte, 0, 64)
	buf = appendString(buf, cur.Bucket)
	if cur.Next != nil {
		buf = append(buf, 1)
		buf = appendString(buf, cur.Next.NextPartitionKey)
		buf = appendString(buf, cur.Next.NextRowKey)
	} else {
		buf = append(buf, 0)
	}
	return c.seal(query, buf)
}

// Decode checks a token against query and returns its cursor. Any failure is
// ErrBadCursor; the detail is for logs only.
func (c *Cursors) Decode(query, token string) (Cursor, error) {
	body, err := c.open(query, token)
	if err != nil {
		return Cursor{}, err
	}
	r := reader{b: body}
	cur := Cursor{Bucket: r.string()}
	if r.byte() == 1 {
		cur.Next = &Continuation{NextPartitionKey: r.string(), NextRowKey: r.string()}
	}
	if r.err != nil || len(r.b) != 0 {
		return Cursor{}, fmt.Errorf("%w: malformed body", ErrBadCursor)
	}
	return cur, nil
}

// Seal makes an opaque, tamper-proof token of value for purpose (which
// binds it, as a query binds a cursor).
func (c *Cursors) Seal(purpose, value string) string { return c.seal(purpose, []byte(value)) }

// Open returns the value Seal sealed for purpose; any failure is
// ErrBadCursor.
func (c *Cursors) Open(purpose, token string) (string, error) {
	b, err := c.open(purpose, token)
	return string(b), err
}

func (c *Cursors) seal(purpose string, body []byte) string {
	k := c.keys[0]
	aad := fingerprint(purpose)
	m := hmac.New(sha256.New, k.nonces)
	m.Write(aad)
	m.Write(body)
	nonce := m.Sum(nil)[:nonceLen]
	out := make([]byte, 0, 1+nonceLen+len(body)+k.aead.Overhead())
	out = append(out, cursorVersion)
	out = append(out, nonce...)
	out = k.aead.Seal(out, nonce, body, aad)
	return base64.RawURLEncoding.EncodeToString(out)
}

func (c *Cursors) open(purpose, token string) ([]byte, error) {
	if len(token) > maxTokenLen {
		return nil, fmt.Errorf("%w: too long", ErrBadCursor)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64url", ErrBadCursor)
	}
	if len(raw) < 1+nonceLen+16 {
		return nil, fmt.Errorf("%w: too short", ErrBadCursor)
	}
	if raw[0] != cursorVersion {
		return nil, fmt.Errorf("%w: version %d", ErrBadCursor, raw[0])
	}
	nonce, sealed := raw[1:1+nonceLen], raw[1+nonceLen:]
	aad := fingerprint(purpose)
	for _, k := range c.keys {
		if body, err := k.aead.Open(nil, nonce, sealed, aad); err == nil {
			return body, nil
		}
	}
	return nil, fmt.Errorf("%w: does not open (tampered, foreign key, or minted for another query)", ErrBadCursor)
}

func fingerprint(query string) []byte {
	sum := sha256.Sum256([]byte(query))
	return sum[:8]
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

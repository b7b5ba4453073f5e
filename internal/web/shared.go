package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/viewer"
)

// Shared pages: what a visitor who is not signed in sees of a public page
// is the same for everyone who reads it in the same language, so it is
// rendered once and served from memory for a few seconds, compressed once
// (Discourse's "anonymous cache" does the same). The page carries no CSRF
// token and sets no session cookie: the only form an anonymous public page
// carries, the language switch, needs no token from someone not signed in
// (requireCSRF). A page with a form that needs the token (the development
// demo banner) is never shared, nor is one for a visitor whose session
// holds a message to show (a flash).
//
// Freshness: an entry lives sharedPageTTL at most; any successful unsafe
// request on this instance forgets every entry, so a writer's next
// anonymous look already shows the change, and other instances show it
// within sharedPageTTL. Signed-in people (and guests) always get a page
// rendered for them.

// sharedPageTTL is how long a shared page is served before it is rendered
// again.
const sharedPageTTL = 10 * time.Second

// sharedPagesMaxBytes bounds the memory the entries hold (both copies of
// each); when it is reached, expired entries are dropped and new ones are
// not kept until there is room again.
const sharedPagesMaxBytes = 32 << 20

// sharedPageMaxBytes is the largest page kept (a catalog page is about
// 30 KB): a larger one is served as rendered, and never compressed for
// the store, so an odd query cannot make each request compress megabytes.
const sharedPageMaxBytes = 1 << 20

type sharedPage struct {
	body, gz []byte
	lang     string
	expires  time.Time
}

func (p sharedPage) size() int { return len(p.body) + len(p.gz) }

// sharedPages is the instance's store of shared pages.
type sharedPages struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[string]sharedPage
	bytes   int
	// gen counts forgets: a page rendered from data read before a forget
	// is not kept after it.
	gen uint64
}

func newSharedPages(now func() time.Time) *sharedPages {
	return &sharedPages{now: now, entries: map[string]sharedPage{}}
}

func (s *sharedPages) get(key string) (sharedPage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.entries[key]
	if !ok || !s.now().Before(p.expires) {
		return sharedPage{}, false
	}
	return p, true
}

// generation returns the current generation, for a render to hand to put.
func (s *sharedPages) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// put keeps body under key, compressed once at the best level (the cost is
// shared by every reader), unless the store was forgotten since gen.
func (s *sharedPages) put(key, lang string, body []byte, gen uint64) {
	if len(body) > sharedPageMaxBytes {
		return
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // a valid level never fails
	w.Write(body)
	w.Close()
	p := sharedPage{body: bytes.Clone(body), gz: gz.Bytes(), lang: lang}
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	now := s.now()
	p.expires = now.Add(sharedPageTTL)
	if old, ok := s.entries[key]; ok {
		s.bytes -= old.size()
		delete(s.entries, key)
	}
	if s.bytes+p.size() > sharedPagesMaxBytes {
		for k, e := range s.entries {
			if !now.Before(e.expires) {
				s.bytes -= e.size()
				delete(s.entries, k)
			}
		}
		if s.bytes+p.size() > sharedPagesMaxBytes {
			return
		}
	}
	s.entries[key] = p
	s.bytes += p.size()
}

// forget drops every entry: something on this instance changed data.
func (s *sharedPages) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.entries)
	s.bytes = 0
	s.gen++
}

const (
	sharedServerKey = "web.sharedServer"
	sharedKey       = "web.shared"
)

// sharedRequest is how a shared render is marked on the request: the
// cache key, and whether the result may be kept (a full page; htmx
// requests are rendered for the visitor but not kept).
type sharedRequest struct {
	store *sharedPages
	key   string
	keep  bool
	gen   uint64
}

// sharedKeyOf returns the cache key of a request that may see a shared
// page: a GET from someone not signed in (no identity, no credentials)
// with no message waiting in their session. The key is the language and
// the whole request URI.
func (s *Server) sharedKeyOf(c echo.Context) (string, bool) {
	req := c.Request()
	if req.Method != http.MethodGet || req.Header.Get("Authorization") != "" {
		return "", false
	}
	if v := viewer.From(req.Context()); v.SignedIn || v.Guest {
		return "", false
	}
	if _, err := req.Cookie(s.sessions.name); err == nil && flashWaiting(c) {
		return "", false
	}
	return string(i18n.LangOf(req.Context())) + " " + req.URL.RequestURI(), true
}

// serveShared answers a full-page GET from the shared store when it can,
// before compression (the store holds the compressed copy) and before the
// route's handler (so the page costs no storage reads). After a successful
// unsafe request it forgets the store.
func (s *Server) serveShared(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sharedServerKey, s)
		if key, ok := s.sharedKeyOf(c); ok && !HTMXFrom(c).Request {
			if p, ok := s.shared.get(key); ok {
				return writeShared(c, p)
			}
		}
		err := next(c)
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
		default:
			// The language switch changes no page anyone else sees.
			if err == nil && c.Response().Status < http.StatusBadRequest && !anonymousTokenFree[c.Request().URL.Path] {
				s.shared.forget()
			}
		}
		return err
	}
}

func writeShared(c echo.Context, p sharedPage) error {
	h := c.Response().Header()
	sharedCacheHeaders(h)
	h.Set("Content-Language", p.lang)
	h.Add("Vary", "Accept-Encoding")
	body := p.body
	if strings.Contains(c.Request().Header.Get("Accept-Encoding"), "gzip") {
		h.Set("Content-Encoding", "gzip")
		body = p.gz
	}
	return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, body)
}

// sharedCacheHeaders are a shared page's: any cache may keep it but must
// ask again each time, and it varies with what picks its language. A
// response that also sets a cookie (a session that was forgotten) is the
// visitor's own, and no shared cache may keep it.
func sharedCacheHeaders(h http.Header) {
	if h.Get("Set-Cookie") != "" {
		h.Set("Cache-Control", "private, no-cache")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	variesByLanguage(h)
}

// variesByLanguage says a response depends on what picks its language:
// the lang cookie (or a signed-in person's setting) and Accept-Language.
func variesByLanguage(h http.Header) { h.Add("Vary", "Cookie, Accept-Language") }

// Shared marks a public page's route as one whose visitors without a
// session see the same page: it is rendered without a session or CSRF
// token and, for full pages, kept for sharedPageTTL. Use it only on pages
// whose anonymous view has no per-visitor content and no form that needs
// the token.
func Shared(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s, ok := c.Get(sharedServerKey).(*Server); ok {
			if key, ok := s.sharedKeyOf(c); ok {
				c.Set(sharedKey, &sharedRequest{store: s.shared, key: key,
					keep: !HTMXFrom(c).Request, gen: s.shared.generation()})
			}
		}
		return next(c)
	}
}

// sharedFrom returns the request's shared-render mark, or nil.
func sharedFrom(c echo.Context) *sharedRequest {
	r, _ := c.Get(sharedKey).(*sharedRequest)
	return r
}

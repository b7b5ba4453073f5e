package web

import (
	"crypto/hkdf"
	"crypto/sha256"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/config"
)

// Sessions is the session cookie: gorilla/sessions, signed and encrypted
// with keys derived from SESSION_KEYS. The first key signs, every key
// verifies, so a key can be rotated out while old cookies still work. The
// identity module keeps its server-side session id in it.
type Sessions struct {
	store *sessions.CookieStore
	name  string
}

const sessionCookieName = "harmony_session"

// NewSessions builds the cookie store from the configured keys. Over https
// the cookie is Secure and named with the __Host- prefix, which browsers
// only accept from a secure origin for the whole host.
func NewSessions(cfg *config.Config) (*Sessions, error) {
	if len(cfg.SessionKeys) == 0 {
		return nil, errors.New("web: no session keys (config.EnsureDevSecrets provides them in development)")
	}
	var pairs [][]byte
	for _, key := range cfg.SessionKeys {
		hashKey, blockKey, err := deriveSessionKeys(key)
		if err != nil {
			return nil, err
		}
		pairs = append(pairs, hashKey, blockKey)
	}
	store := sessions.NewCookieStore(pairs...)
	store.Options = &sessions.Options{
		Path:     "/",
		HttpOnly: true,
		Secure:   cfg.Secure(),
		SameSite: http.SameSiteLaxMode,
	}
	store.MaxAge(int(cfg.SessionMaxAge / time.Second)) // the cookie and the signed timestamp
	name := sessionCookieName
	if cfg.Secure() {
		name = "__Host-" + name
	}
	return &Sessions{store: store, name: name}, nil
}

// deriveSessionKeys splits one configured secret into independent MAC and
// AES keys, so no key serves two purposes.
func deriveSessionKeys(secret []byte) (hashKey, blockKey []byte, err error) {
	if hashKey, err = hkdf.Key(sha256.New, secret, nil, "harmony session mac", 32); err != nil {
		return nil, nil, err
	}
	if blockKey, err = hkdf.Key(sha256.New, secret, nil, "harmony session aes", 32); err != nil {
		return nil, nil, err
	}
	return hashKey, blockKey, nil
}

const sessionsKey = "web.sessions"

var errNoSessions = errors.New("web: no session store on this request (not served by web.Server)")

// attachSessions makes the store available to Session; it reads no cookie
// until someone asks.
func (s *Server) attachSessions(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sessionsKey, s.sessions)
		return next(c)
	}
}

// Session returns the request's session, decoded once per request. A
// missing, expired or forged cookie yields a new, empty session.
func Session(c echo.Context) (*sessions.Session, error) {
	st, _ := c.Get(sessionsKey).(*Sessions)
	if st == nil {
		return nil, errNoSessions
	}
	sess, err := st.store.Get(c.Request(), st.name)
	if sess == nil {
		return nil, err
	}
	// A decode error still returns a usable new session: an unreadable
	// cookie is treated as no cookie.
	return sess, nil
}

// SaveSession writes the session cookie. Call it before the body is
// written; Render does not save sessions for you.
func SaveSession(c echo.Context, sess *sessions.Session) error {
	return sess.Save(c.Request(), c.Response())
}

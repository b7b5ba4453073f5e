package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/csrf"
	"github.com/harmony/harmony/internal/web/viewer"
)

// csrfSessionKey is where the session keeps its CSRF token.
const csrfSessionKey = "csrf"

// CSRFToken returns the session's CSRF token, creating it, and setting the
// session cookie, on first use. Render calls it, so pages always carry one.
func CSRFToken(c echo.Context) (string, error) {
	sess, err := Session(c)
	if err != nil {
		return "", err
	}
	if token, ok := sess.Values[csrfSessionKey].(string); ok && token != "" {
		return token, nil
	}
	token := csrf.NewToken()
	sess.Values[csrfSessionKey] = token
	if err := SaveSession(c, sess); err != nil {
		return "", fmt.Errorf("save session: %w", err)
	}
	return token, nil
}

// RotateCSRFToken gives sess a fresh CSRF token, so a token that leaked
// before sign-in or sign-out is worthless after it. The caller saves sess.
func RotateCSRFToken(sess *sessions.Session) {
	sess.Values[csrfSessionKey] = csrf.NewToken()
}

// anonymousTokenFree are the unsafe routes that need no token from a
// visitor who is not signed in, only a request from our own origin: the
// language switch, which shared pages (shared.go) carry without a token.
// A forged switch could change no more than the language a visitor's pages
// are shown in. A signed-in person's switch is saved to their profile, so
// it still needs the token.
var anonymousTokenFree = map[string]bool{"/lang": true}

// AnonymousTokenFree reports whether an unsafe request to path needs no
// CSRF token from a visitor who is not signed in (for route matrices).
func AnonymousTokenFree(path string) bool { return anonymousTokenFree[path] }

// requireCSRF guards every unsafe method: the request must come from our
// own origin (Sec-Fetch-Site/Origin, via net/http's CrossOriginProtection)
// and carry the session's token in X-CSRF-Token or the _csrf form field
// (but for anonymousTokenFree routes from someone not signed in).
func (s *Server) requireCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		ctx := req.Context()
		refuse := func(cause error) error {
			return Forbidden(i18n.T(ctx, "error.csrf"), cause)
		}
		if err := s.crossOrigin.Check(req); err != nil {
			return refuse(err)
		}
		if anonymousTokenFree[req.URL.Path] {
			if v := viewer.From(ctx); !v.SignedIn && !v.Guest {
				return next(c)
			}
		}
		sent := req.Header.Get(csrf.Header)
		if sent == "" {
			form, err := c.FormParams()
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return err
			}
			sent = form.Get(csrf.Field)
		}
		sess, err := Session(c)
		if err != nil {
			return err
		}
		want, _ := sess.Values[csrfSessionKey].(string)
		if !csrf.Valid(sent, want) {
			return refuse(errors.New("csrf token missing or wrong"))
		}
		return next(c)
	}
}

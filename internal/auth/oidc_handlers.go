package auth

import (
	"errors"
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/web"
	authview "github.com/harmony/harmony/views/auth"
)

// oidcRoutes serves sign-in through the configured OpenID provider. Both
// are GETs: the start is a plain link (a form posting to it would be
// stopped by CSP form-action on the cross-site redirect), and the provider
// returns with a top-level GET, which carries the SameSite=Lax cookie.
func (s *Service) oidcRoutes(e *echo.Echo) {
	e.GET("/auth/oidc/start", s.startOIDC)
	e.GET(oidcCallbackPath, s.oidcCallback)
}

// startOIDC sends the browser to the provider.
func (s *Service) startOIDC(c echo.Context) error {
	next := web.LocalPath(c.QueryParam("next"))
	target, err := s.beginOIDC(c, next)
	if err != nil {
		return s.oidcFailed(c, next, err)
	}
	return web.Redirect(c, target)
}

// oidcCallback is where the provider sends the browser back.
func (s *Service) oidcCallback(c echo.Context) error {
	v, next, err := s.finishOIDC(c)
	if err != nil {
		return s.oidcFailed(c, next, err)
	}
	return s.CompleteSignIn(c, v, next)
}

// oidcFailed shows the sign-in page again with what went wrong, so the
// person can retry or use an email code. Errors that are not a failed
// sign-in (storage, session) go to the error handler.
func (s *Service) oidcFailed(c echo.Context, next string, err error) error {
	ctx := c.Request().Context()
	status, msg, ok := web.Refused(ctx, err)
	if !ok {
		return err
	}
	f, _ := errors.AsType[*fault.Error](err)
	key, _ := f.Message()
	level := slog.LevelInfo
	switch key {
	case "oidc.error.rejected", "oidc.error.unavailable":
		// An answer that does not verify is a misconfiguration or a
		// forgery, and an unreachable provider needs the operator too.
		level = slog.LevelWarn
	}
	s.log.Log(ctx, level, "oidc: sign-in failed", "request_id", web.RequestID(c), "status", status, "err", err)
	return s.renderSignIn(c, status, authview.SignInProps{Next: next, Message: msg})
}

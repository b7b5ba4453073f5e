package auth

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
)

// RequireMember lets through anyone with an identity, guests included. An
// anonymous GET goes to the sign-in page and comes back after; htmx gets
// HX-Redirect; any other request is refused with 401.
func RequireMember(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if From(c) == nil {
			return ToSignIn(c)
		}
		return next(c)
	}
}

// RequireAccount is RequireMember without guests: they are sent to sign
// in, which turns the guest into an account.
func RequireAccount(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !From(c).HasAccount() {
			return ToSignIn(c)
		}
		return next(c)
	}
}

// RequireAdmin lets administrators through. Visitors and guests go to sign
// in; signed-in people who are not administrators get 403.
func RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := Account(c)
		if id == nil {
			return ToSignIn(c)
		}
		if !id.Admin {
			return web.Forbidden("", errors.New("auth: not an administrator"))
		}
		return next(c)
	}
}

// ToSignIn sends the request to the sign-in page with the way back (what
// RequireAccount does), for a handler that decides itself.
func ToSignIn(c echo.Context) error {
	req := c.Request()
	hx := web.HTMXFrom(c)
	back := req.URL.RequestURI()
	if hx.Request {
		// An htmx request asks for a fragment; come back to the page.
		back = "/"
		if u, err := url.Parse(hx.CurrentURL); err == nil && u.Path != "" {
			back = web.LocalPath(u.RequestURI())
		}
	}
	if req.Method == http.MethodGet || req.Method == http.MethodHead || hx.Request {
		return web.Redirect(c, SignInPath(back))
	}
	return web.NewError(http.StatusUnauthorized, i18n.T(req.Context(), "auth.error.signin_required"), errors.New("auth: not signed in"))
}

// SignInPath is the sign-in page's address that returns to next.
func SignInPath(next string) string {
	next = web.LocalPath(next)
	if next == "/" {
		return "/signin"
	}
	return "/signin?next=" + url.QueryEscape(next)
}

// RequireShown is scope.Require(load) for something readers see only
// while shown says so (a draft post, a hidden store item): to anyone but
// an admin any other is missing, so a reader cannot tell it from one
// that is not there.
func RequireShown[T any](scope web.Scope[T], load func(c echo.Context) (T, error), shown func(T) bool, missing error) echo.MiddlewareFunc {
	return scope.Require(func(c echo.Context) (T, error) {
		v, err := load(c)
		if err == nil && !shown(v) && !IsAdmin(c) {
			var none T
			return none, missing
		}
		return v, err
	})
}

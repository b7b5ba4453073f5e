package web

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// UnreadBadger is a module that counts the header's unread badge (the
// inbox): -1 hides the bell, for people with no inbox.
type UnreadBadger interface {
	UnreadBadge(c echo.Context) int
}

const badgerKey = "web.unreadBadger"

// AdminBadger is a module that counts what waits for the admins (the open
// reports): the header's admin link shows it to admins. It answers 0 for
// anyone else.
type AdminBadger interface {
	AdminBadge(c echo.Context) int
}

const adminBadgerKey = "web.adminBadger"

// AdminBadgeTopic is the change feed's topic of the admin link's count:
// the module that counts it publishes there when the count falls (a
// report closed by another admin), and the inbox's stream follows it for
// admins, so their pages fetch the bell, which brings the admin link. A
// rise needs none: a new report tells the admins in their inbox.
const AdminBadgeTopic = "admin|badge"

// AdminBadge is the count the header's admin link shows; 0 for none
// (the inbox's bell fetched on a change brings the admin link too).
func AdminBadge(c echo.Context) int { return adminBadge(c) }

// adminBadge is the count the header's admin link shows; 0 for none.
func adminBadge(c echo.Context) int {
	if b, ok := c.Get(adminBadgerKey).(AdminBadger); ok && b != nil {
		return b.AdminBadge(c)
	}
	return 0
}

// ModuleOf is the first of modules that is a T (an interface it
// implements, or its own type), and whether there is one: the home page,
// the badges and the banner each come from one, and a command that acts
// through a module finds it so (web tasks retry, through the admin's).
func ModuleOf[T any](modules []Module) (T, bool) {
	for _, m := range modules {
		if v, ok := m.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// firstModule is ModuleOf's module, the zero T for none.
func firstModule[T any](modules []Module) T {
	v, _ := ModuleOf[T](modules)
	return v
}

// offerPageParts lets Render ask for the badges and the banner, only for
// full pages.
func (s *Server) offerPageParts(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.badger != nil {
			c.Set(badgerKey, s.badger)
		}
		if s.adminBadger != nil {
			c.Set(adminBadgerKey, s.adminBadger)
		}
		if s.bannerer != nil {
			c.Set(bannerKey, s.bannerer)
		}
		return next(c)
	}
}

// unreadBadge is the count the header shows; -1 for none.
func unreadBadge(c echo.Context) int {
	if b, ok := c.Get(badgerKey).(UnreadBadger); ok && b != nil {
		return b.UnreadBadge(c)
	}
	return -1
}

// Bannerer is a module with a notice for the top of every full page (the
// development offer of demo content); nil from Banner shows none.
type Bannerer interface {
	Banner(c echo.Context) templ.Component
}

const bannerKey = "web.bannerer"

// banner is the page's banner, or nil.
func banner(c echo.Context) templ.Component {
	if b, ok := c.Get(bannerKey).(Bannerer); ok && b != nil {
		return b.Banner(c)
	}
	return nil
}

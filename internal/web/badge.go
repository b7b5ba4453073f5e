package web

import "github.com/labstack/echo/v4"

// UnreadBadger is a module that counts the header's unread badge (the
// inbox): -1 hides the bell, for people with no inbox.
type UnreadBadger interface {
	UnreadBadge(c echo.Context) int
}

const badgerKey = "web.unreadBadger"

func unreadBadger(modules []Module) UnreadBadger {
	for _, m := range modules {
		if b, ok := m.(UnreadBadger); ok {
			return b
		}
	}
	return nil
}

// offerBadge lets Render ask for the badge, only for full pages.
func (s *Server) offerBadge(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(badgerKey, s.badger)
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

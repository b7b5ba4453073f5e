package web

import "github.com/labstack/echo/v4"

// Scope is a typed value a route's loader middleware puts in the request
// (the group and the asker's membership, later an event, a topic or a
// room), so the route table shows what each route needs and its handlers
// read the value back, typed, instead of loading and checking it by hand.
type Scope[T any] struct{ key string }

// NewScope names a scope; the name must be unique among scopes.
func NewScope[T any](name string) Scope[T] { return Scope[T]{key: "scope." + name} }

// Require is middleware that runs load once per request and lets the
// request through only when load succeeds; its error (a 404, a 403) goes
// to the central error handler.
func (s Scope[T]) Require(load func(c echo.Context) (T, error)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			v, err := load(c)
			if err != nil {
				return err
			}
			c.Set(s.key, v)
			return next(c)
		}
	}
}

// From returns what Require loaded, or the zero T on a route without it
// (the route matrices catch such a route).
func (s Scope[T]) From(c echo.Context) T {
	v, _ := c.Get(s.key).(T)
	return v
}

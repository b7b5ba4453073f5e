package groups

import (
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/web"
)

// openedGroup is what Require loads for a route under /groups/:id.
type openedGroup struct {
	m Membership
	g GroupRow
}

var groupScope = web.NewScope[openedGroup]("groups")

// Require is the route middleware for /groups/:id/…: it reads the asker's
// GroupMembers row and the group once (Open) and lets the request through
// only with need, so routes.go shows each route's access level. Handlers
// read the result with Opened. Group-scoped routes of other modules (a
// group's events, its chat) use it too.
func (s *Service) Require(need Access) echo.MiddlewareFunc {
	return groupScope.Require(func(c echo.Context) (openedGroup, error) {
		m, g, err := s.Open(c.Request().Context(), c.Param("id"), auth.From(c), need)
		return openedGroup{m, g}, err
	})
}

// RequireInvitee is Require(AccessInvitee) for the invitation's own
// pages: a group that is gone is "this invitation is not for you", like
// one the asker was never invited to, so the link tells nothing.
func (s *Service) RequireInvitee() echo.MiddlewareFunc {
	return groupScope.Require(func(c echo.Context) (openedGroup, error) {
		m, g, err := s.Open(c.Request().Context(), c.Param("id"), auth.From(c), AccessInvitee)
		if errors.Is(err, ErrNoGroup) {
			err = ErrNotInvitee
		}
		return openedGroup{m, g}, err
	})
}

// Opened is the asker's membership and the group that Require loaded.
func Opened(c echo.Context) (Membership, GroupRow) {
	o := groupScope.From(c)
	return o.m, o.g
}

// RequireAppointment is the route middleware for an appointment's pages,
// after Require: it reads the appointment (:appt), or with at (query or
// form) one occurrence of its series, once; handlers read it with
// openedAppointment.
func (s *Service) RequireAppointment() echo.MiddlewareFunc {
	return appointmentScope.Require(func(c echo.Context) (AppointmentDetail, error) {
		m, _ := Opened(c)
		return s.appointmentOrOccurrence(c.Request().Context(), m, c.Param("appt"), c.FormValue("at"))
	})
}

var appointmentScope = web.NewScope[AppointmentDetail]("groups.appointment")

// openedAppointment is what RequireAppointment read.
func openedAppointment(c echo.Context) AppointmentDetail { return appointmentScope.From(c) }

package events

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/groups"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// "Add to my group's calendar": the person picks one of their groups and
// who in it picks the event up, and the event becomes an appointment in
// that group's calendar, linked back to the event. Adding it to the same
// group again opens the appointment made the first time.

// GroupCalendars is what adding an event to a group needs from the
// groups module.
type GroupCalendars interface {
	GroupChoices(ctx context.Context, id *auth.Identity) ([]groups.GroupChoice, error)
	AddLinked(ctx context.Context, groupID string, id *auth.Identity, in groups.LinkedInput, responsible string) (groups.Appointment, bool, error)
}

// UseGroups offers "Add to my group's calendar" through g. Call it while
// wiring; without it the page does not offer it.
func (s *Service) UseGroups(g GroupCalendars) { s.groups = g }

// linkedInput is e as an appointment.
func linkedInput(e EventRow) groups.LinkedInput {
	return groups.LinkedInput{
		Key: "event:" + e.RowKey, Title: e.Title, Start: e.Start, End: e.End, Location: e.Place,
		Source: groups.Source{Kind: "event", Title: e.Title, URL: eventURL(e.RowKey)},
	}
}

// addable is the request's event when it may be added to a calendar: a
// visible, not cancelled event, with the groups module wired.
func (s *Service) addable(c echo.Context) (EventRow, error) {
	e := eventOf(c)
	if s.groups == nil {
		return e, ErrNoEvent
	}
	if e.IsCancelled {
		return e, web.BadRequest(i18n.T(c.Request().Context(), "events.register.cancelled_event"), nil)
	}
	return e, nil
}

// addToGroupForm is GET /events/:id/add-to-group.
func (s *Service) addToGroupForm(c echo.Context) error {
	e, err := s.addable(c)
	if err != nil {
		return err
	}
	return s.renderToGroup(c, http.StatusOK, e, "")
}

func (s *Service) renderToGroup(c echo.Context, status int, e EventRow, problem string) error {
	ctx := c.Request().Context()
	choices, err := s.groups.GroupChoices(ctx, auth.From(c))
	if err != nil {
		return err
	}
	p := views.ToGroupProps{EventTitle: e.Title, EventURL: eventURL(e.RowKey), Action: eventURL(e.RowKey) + "/add-to-group", Problem: problem}
	for _, g := range choices {
		vg := views.GroupOption{Name: g.Name, Value: g.GroupID + "|"}
		for _, m := range g.Members {
			vg.Members = append(vg.Members, views.MemberOption{Name: m.Name, Value: g.GroupID + "|" + m.MemberKey})
		}
		p.Groups = append(p.Groups, vg)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "events.togroup.heading"), Section: "events", Content: views.ToGroup(p)})
}

// addToGroup is POST /events/:id/add-to-group, choice "{groupId}|{who}"
// (who "" for nobody in particular).
func (s *Service) addToGroup(c echo.Context) error {
	ctx := c.Request().Context()
	e, err := s.addable(c)
	if err != nil {
		return err
	}
	groupID, who, ok := strings.Cut(c.FormValue("choice"), "|")
	if !ok || groupID == "" {
		return s.renderToGroup(c, http.StatusUnprocessableEntity, e, "events.togroup.error.choice")
	}
	a, created, err := s.groups.AddLinked(ctx, groupID, auth.From(c), linkedInput(e), who)
	var fe groups.FieldErrors
	switch {
	case errors.Is(err, groups.ErrNoGroup), errors.As(err, &fe):
		return s.renderToGroup(c, http.StatusUnprocessableEntity, e, "events.togroup.error.choice")
	case err != nil:
		return err
	}
	flash := "events.flash.added_to_group"
	if !created {
		flash = "events.flash.already_in_group"
	}
	return web.FlashRedirect(c, flash, groups.AppointmentURL(a.GroupID, a.AppointmentID))
}

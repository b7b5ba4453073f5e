package events

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/taxonomy"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the events pages. Anyone reads the listing and a
// published event (visible); signing in registers; organizers (org: the
// role admins grant, and admins) create events, and run their own
// (orgEvent: edit, publish, cancel, check people in; admins run any);
// admins keep the categories. An event's routes load it once for the
// handler (visible for pages a reader may see, event for any state,
// managed for who runs it).
func (s *Service) Routes(e *echo.Echo) {
	acc := auth.RequireAccount
	org := []echo.MiddlewareFunc{acc, requireOrganizer}
	visible, event := s.visible(), s.anyEvent()
	orgEvent := append(org[:len(org):len(org)], s.managed())

	e.GET("/events", s.list, web.Shared)
	e.GET("/events/new", s.newEvent, org...)
	e.POST("/events", s.create, org...)
	e.GET(myEventsURL, s.mine, acc)
	e.GET(organizingURL, s.organizing, org...)
	e.POST("/events/mine/feed", s.replaceFeed, acc)
	e.GET("/events/calendar/:file", s.myCalendar) // token-gated feed

	// One event: its page, feed and picture, registration, and the
	// organizer's changes.
	e.GET("/events/:id", s.page, web.Shared, visible)
	e.GET("/events/:id/event.ics", s.ics, visible)
	e.GET("/media/events/:id/:file", s.serveImage, visible)
	e.POST("/events/:id/register", s.register, acc, event)
	e.POST("/events/:id/cancel", s.cancelRegistration, acc, event)
	e.POST("/events/:id/accept", s.accept, acc, event)
	e.GET("/events/:id/feedback", s.feedbackPage, acc, visible)
	e.POST("/events/:id/feedback", s.rate, acc, visible)
	report := moderation.Page{Section: "events", Queue: s.Reports, Of: s.eventReport}
	e.GET("/events/:id/report", report.Show, acc, visible)
	e.POST("/events/:id/report", report.File, acc, visible)
	e.GET("/events/:id/add-to-group", s.addToGroupForm, acc, visible)
	e.POST("/events/:id/add-to-group", s.addToGroup, acc, visible)
	e.POST("/events/:id/publish", s.publish(true), orgEvent...)
	e.POST("/events/:id/unpublish", s.publish(false), orgEvent...)
	e.GET("/events/:id/edit", s.editEvent, orgEvent...)
	e.POST("/events/:id/edit", s.updateEvent, orgEvent...)
	e.POST("/events/:id/cancel-event", s.cancelEvent, orgEvent...)
	// A co-organizer steps down (the service refuses anyone else).
	e.POST("/events/:id/step-down", s.stepDown, acc, visible)
	e.GET("/events/:id/update", s.updateForm, orgEvent...)
	e.GET("/events/:id/copy", s.copyEvent, orgEvent...)
	e.POST("/events/:id/updates", s.sendUpdate, orgEvent...)

	// Tickets, check-in and the attendee export (tickets_handlers.go).
	e.GET("/events/:id/ticket", s.ticket, acc, visible)
	e.GET("/events/:id/check-in", s.checkIn, orgEvent...)
	e.POST("/events/:id/check-in/:member", s.markAttended, orgEvent...)
	e.GET("/events/:id/attendees.csv", s.attendeesCSV, orgEvent...)

	// Requests to join an event that needs approval (approval.go).
	e.POST("/events/:id/requests/:member/approve", s.approveRequest, orgEvent...)
	e.POST("/events/:id/requests/:member/decline", s.declineRequest, orgEvent...)

	// The admins' categories (the taxonomy kit's page).
	taxonomy.Admin{List: s.catalog.Categories, URL: "/admin/event-categories", Keys: "events.categories", TestID: "admin-event-categories", Term: "category"}.Routes(e)
}

package account

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
)

// photoBodyLimit is the upload route's body limit: the photo plus room for
// the multipart framing and the CSRF field. Larger bodies are refused with
// 413 before they are read.
const photoBodyLimit = MaxPhotoBytes + 64<<10

// Routes registers the account pages and the photo URLs.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	e.GET("/account", h.showProfile, auth.RequireAccount)
	e.POST("/account/profile", h.saveProfile, auth.RequireAccount)
	e.POST("/account/photo", h.uploadPhoto, auth.RequireAccount)
	e.GET("/account/settings", h.showSettings, auth.RequireAccount)
	e.POST("/account/settings", h.saveSettings, auth.RequireAccount)
	e.POST("/account/timezone", h.adoptTimezone, auth.RequireAccount)
	e.GET("/account/preferences", h.showPreferences, auth.RequireAccount)
	e.POST("/account/preferences", h.savePreferences, auth.RequireAccount)
	e.GET("/account/sessions", h.showSessions, auth.RequireAccount)
	e.POST("/account/sessions/revoke-all", h.revokeAllSessions, auth.RequireAccount)
	e.POST("/account/sessions/:id/revoke", h.revokeSession, auth.RequireAccount)
	e.GET("/account/data", h.showData, auth.RequireAccount)
	e.POST("/account/data/download", h.downloadData, auth.RequireAccount)
	e.GET("/account/data/delete", h.showDelete, auth.RequireAccount)
	e.POST("/account/data/delete", h.deleteAccount, auth.RequireAccount)
	// Where a deleted account's browser lands, signed out.
	e.GET("/account/deleted", h.showDeleted)
	// A person's page decides itself who sees what (handlers_people.go).
	e.GET("/people/:member", h.showPerson)
	// Photos are public to anyone holding the URL: it is unguessable.
	e.GET(mediaPrefix+":member/:file", h.servePhoto)
}

// BodyLimits lets the photo upload take more than the site-wide BODY_LIMIT
// (see web.BodyLimiter).
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{"/account/photo": photoBodyLimit}
}

// handlers are the account pages' HTTP handlers: each parses the request,
// calls one Service method and renders.
type handlers struct {
	svc *Service
}

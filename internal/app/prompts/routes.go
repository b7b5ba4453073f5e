package prompts

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the catalog's pages. Anyone may browse the catalog and
// read public prompts; writing, "My prompts" and voting need an account;
// the tag catalog and the index rebuild are for administrators. What a
// visitor without a session sees of the catalog and of a prompt is the
// same for all of them, so those two pages are shared (web.Shared). Guards
// sit on each route rather than on a group, so an unknown /prompts/… path
// stays a plain 404.
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	e.GET("/prompts", h.catalog, web.Shared)
	e.GET("/prompts/mine", h.mine, auth.RequireAccount)
	e.GET(SavedURL, h.saved, auth.RequireAccount)
	e.GET("/prompts/new", h.newPrompt, auth.RequireAccount)
	e.POST("/prompts", h.create, auth.RequireAccount)
	e.GET("/prompts/:id", h.prompt, web.Shared)
	e.GET("/prompts/:id/edit", h.edit, auth.RequireAccount)
	e.POST("/prompts/:id", h.update, auth.RequireAccount)
	e.POST("/prompts/:id/delete", h.delete, auth.RequireAccount)
	e.POST("/prompts/:id/vote", h.vote, auth.RequireAccount)
	e.POST("/prompts/:id/save", h.save, auth.RequireAccount)
	report := moderation.Page{Section: "prompts", Queue: s.Reports, Of: h.promptReport}
	e.GET("/prompts/:id/report", report.Show, auth.RequireAccount)
	e.POST("/prompts/:id/report", report.File, auth.RequireAccount)
	e.POST("/prompts/:id/hide", h.setHidden, auth.RequireAdmin)

	// The tag catalog and the rebuild (handlers_admin.go).
	e.GET("/admin/tags", h.adminTags, auth.RequireAdmin)
	e.POST("/admin/tags", h.addTag, auth.RequireAdmin)
	e.POST("/admin/tags/:tag", h.updateTag, auth.RequireAdmin)
	e.POST("/admin/tags/:tag/move", h.moveTag, auth.RequireAdmin)
}

// handlers are the catalog's HTTP handlers: each parses the request,
// calls the Service and renders.
type handlers struct {
	svc *Service
}

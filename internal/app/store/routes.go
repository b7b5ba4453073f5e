package store

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/taxonomy"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the store's pages: browsing is everyone's (hidden
// items the admins'), "Tell me when it's back" needs an account, and
// keeping the store (its items and departments) is the admins'.
func (s *Service) Routes(e *echo.Echo) {
	admin, item := auth.RequireAdmin, s.requireItem()
	e.GET(homeURL, s.list, web.Shared)
	e.GET(s.pictures.Route(), s.pictures.Serve)
	e.GET(newURL, s.newItem, admin)
	e.POST(homeURL, s.create, admin)
	e.GET(hiddenURL, s.hidden, admin)
	e.GET("/store/:id", s.item, web.Shared, item)
	e.POST("/store/:id/alert", s.alert, auth.RequireAccount, item)
	e.GET("/store/:id/edit", s.editItem, admin, item)
	e.POST("/store/:id/edit", s.update, admin, item)
	e.POST("/store/:id/delete", s.remove, admin, s.requireStored())
	pics := s.picturesEditor()
	e.POST("/store/:id/pictures", pics.Add, admin, item)
	e.POST("/store/:id/pictures/:photo/delete", pics.Delete, admin, item)
	e.POST("/store/:id/pictures/:photo/move", pics.Move, admin, item)
	// The admins' departments (the taxonomy kit's page).
	taxonomy.Admin{List: s.Departments, URL: "/admin/store-departments", Keys: "store.departments", TestID: "admin-store-departments", Term: "department"}.Routes(e)
}

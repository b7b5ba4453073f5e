package people

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
)

// Routes registers the People pages: for accounts, but Discover tells a
// visitor what People is. A person's own page, /people/:member, is the
// account module's (it asks Extra for People's part of it).
func (s *Service) Routes(e *echo.Echo) {
	h := &handlers{svc: s}
	acc := auth.RequireAccount
	e.GET(DiscoverURL, h.discover)
	e.POST("/people/me", h.join, acc)
	e.POST("/people/me/place", h.place, acc)
	e.POST("/people/me/place/forget", h.forgetPlace, acc)
	// The viewer's People photos (photos.go), served to accounts while
	// their owner is in People.
	e.GET(photosURL, h.photosPage, acc)
	e.GET(questionsURL, h.questionsPage, acc)
	e.POST(questionsURL, h.saveQuestions, acc)
	photos := h.photos()
	e.POST(photosURL, photos.Add, acc)
	e.POST(photosURL+"/:photo/delete", photos.Delete, acc)
	e.POST(photosURL+"/:photo/move", photos.Move, acc)
	e.GET(mediaPrefix+":member/:file", h.servePhoto, acc)
	e.GET(LikesURL, h.tab(h.likes), acc)
	e.GET(MatchesURL, h.tab(h.matchesPage), acc)
	e.POST("/people/:member/like", h.like, acc)
	e.POST("/people/:member/unlike", h.unlike, acc)
	e.POST("/people/:member/unmatch", h.unmatch, acc)
	e.GET(SkippedURL, h.tab(h.skippedPage), acc)
	e.POST("/people/:member/skip", h.skip, acc)
	e.POST("/people/:member/unskip", h.unskip, acc)
	report := moderation.Page{Section: "people", Queue: s.Reports, Of: s.profileReport}
	e.GET("/people/:member/report", report.Show, acc)
	e.POST("/people/:member/report", report.File, acc)
}

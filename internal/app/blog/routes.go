package blog

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the blog's pages: reading is everyone's (drafts and
// posts scheduled for later are the admins'), writing the admins',
// commenting members'.
func (s *Service) Routes(e *echo.Echo) {
	admin, post := auth.RequireAdmin, s.requirePost()
	e.GET(homeURL, s.list, web.Shared)
	e.GET(tagsURL, s.tags, web.Shared)
	e.GET(feedURL, s.feed)
	e.POST("/blog/follow", s.follow, auth.RequireAccount)
	e.GET(s.pictures.Route(), s.pictures.Serve)
	e.GET(newURL, s.newPost, admin)
	e.POST(homeURL, s.create, admin)
	e.POST("/blog/preview", s.preview.Serve, admin)
	e.GET(unlistedURL, s.unlisted, admin)
	e.GET("/blog/:slug", s.post, web.Shared, post)
	e.GET("/blog/:slug/edit", s.editPost, admin, post)
	e.POST("/blog/:slug/edit", s.update, admin, post)
	e.POST("/blog/:slug/unpublish", s.unpublish, admin, post)
	e.POST("/blog/:slug/delete", s.remove, admin, s.requireStored())
	e.POST("/blog/:slug/pictures", s.addPicture, admin, post)
	e.POST("/blog/:slug/pictures/:file/delete", s.deletePicture, admin, post)

	// Comments (comments.go): members write them and reply to them,
	// their authors edit them, their authors and admins delete them,
	// others report them.
	acc := auth.RequireAccount
	e.POST("/blog/:slug/comments", s.addComment, acc, post)
	edit := s.commentEditing()
	e.GET("/blog/:slug/comments/:comment/edit", edit.Show, acc, post)
	e.POST("/blog/:slug/comments/:comment/edit", edit.Save, acc, post)
	e.POST("/blog/:slug/comments/:comment/delete", s.deleteComment, acc, post)
	reply := s.commentReplying()
	e.GET("/blog/:slug/comments/:comment/reply", reply.Show, acc, post)
	e.POST("/blog/:slug/comments/:comment/reply", reply.Save, acc, post)
	report := moderation.Page{Section: "blog", Queue: s.Reports, Of: s.commentReport}
	e.GET("/blog/:slug/comments/:comment/report", report.Show, acc, post)
	e.POST("/blog/:slug/comments/:comment/report", report.File, acc, post)
}

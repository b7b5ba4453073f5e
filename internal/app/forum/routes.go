package forum

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/web"
)

// Routes registers the forum's pages. Reading is open to everyone;
// writing needs an account. A topic's routes carry requireTopic, which
// reads the topic once for the handler (moderation reads it itself, at
// its ETag), and a post's routes requirePost after it.
func (s *Service) Routes(e *echo.Echo) {
	acc, topic, post := auth.RequireAccount, s.requireTopic(), s.requirePost()
	e.GET("/forum", s.home, web.Shared)
	e.GET("/forum/compose", s.compose, acc)
	e.POST("/forum/topics", s.createTopic, acc)
	e.POST("/forum/preview", s.previews.Serve, acc)
	e.POST("/forum/read-all", s.readAll, acc)
	e.GET("/forum/unread", s.unreadList, acc)
	e.GET("/forum/new", s.newList, acc)
	e.GET("/forum/bookmarks", s.bookmarks, acc)
	e.GET("/forum/search", s.search, web.Shared)
	e.GET("/forum/feed.xml", s.feed)
	e.GET("/forum/:section", s.section, web.Shared)
	e.POST("/forum/:section/read-all", s.readSection, acc)
	e.POST("/forum/:section/watch", s.watchSection, acc)
	e.GET("/forum/:section/stream", s.sectionStream, acc, live.Bound(s.streams, ErrTooManyStreams))
	e.GET("/forum/:section/feed.xml", s.feed)

	// A topic and its posts.
	e.GET("/forum/t/:id", s.topic, web.Shared, topic)
	e.POST("/forum/t/:id/replies", s.reply, acc, topic)
	e.GET("/forum/t/:id/reply", s.replyPage, acc, topic)
	e.POST("/forum/t/:id/dismiss", s.dismiss, acc, topic)
	e.POST("/forum/t/:id/watch", s.watch, acc, topic)
	e.POST("/forum/t/:id/poll", s.vote, acc, topic)
	e.POST("/forum/t/:id/poll/close", s.closePoll, acc, topic)
	e.GET("/forum/t/:id/stream", s.stream, acc, live.Bound(s.streams, ErrTooManyStreams), topic)
	e.GET("/forum/t/:id/posts/:num/edit", s.editPage, acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/edit", s.edit, acc, topic, post)
	e.GET("/forum/t/:id/posts/:num/history", s.history, topic, post)
	e.POST("/forum/t/:id/posts/:num/delete", s.remove, acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/like", s.toggle("like", s.Like), acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/unread", s.markUnread, acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/bookmark", s.toggle("bookmark", s.Bookmark), acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/remind", s.remind, acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/solve", s.toggle("solved", s.Solve), acc, topic, post)
	report := moderation.Page{Section: "forum", Queue: s.Reports, Of: s.postReport}
	e.GET("/forum/t/:id/posts/:num/report", report.Show, acc, topic, post)
	e.POST("/forum/t/:id/posts/:num/report", report.File, acc, topic, post)

	// Staff: a section's moderators and admins, checked by the service
	// (moderation.go).
	e.POST("/forum/t/:id/pin", s.pin, acc)
	e.POST("/forum/t/:id/lock", s.lock, acc)
	e.POST("/forum/t/:id/slow", s.slow, acc)
	e.POST("/forum/t/:id/move", s.move, acc)
	e.POST("/forum/t/:id/posts/:num/hide", s.toggle("hidden", s.Hide), acc, topic, post)

	// The admins' sections (admin.go).
	e.GET(adminURL, s.adminSections, auth.RequireAdmin)
	e.POST(adminURL, s.createSection, auth.RequireAdmin)
	e.POST(adminURL+"/:slug", s.updateSection, auth.RequireAdmin)
}

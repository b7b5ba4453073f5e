package chat

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/moderation"
)

// Routes registers the chat pages; everything needs an account, and a
// chat's own pages (reader) the right to read it, which requireChat
// works out once for the handler; a message's routes read it after
// (message). A person holds at most MaxStreams streams open at once
// (live.Bound).
func (s *Service) Routes(e *echo.Echo) {
	acc, reader := auth.RequireAccount, s.requireChat()
	e.GET("/chat", s.list)
	e.GET("/chat/news", s.news, acc, live.Bound(s.streams, ErrTooManyStreams))
	e.GET("/chat/default", s.defaultRoom, acc)
	e.POST("/chat/default", s.setDefaultRoom, acc)
	e.POST("/chat/private", s.startPrivate, acc)
	e.POST("/chat/presence", s.heartbeat, acc)
	e.POST("/chat/appear-offline", s.appearOffline, acc)
	e.POST("/chat/receipts", s.receipts, acc)
	e.POST("/chat/block", s.block, acc)
	e.POST("/chat/unblock", s.unblock, acc)

	// The room directory and joining (directory.go): a room one is not
	// in yet is open to join, so these take no reader.
	e.GET("/chat/rooms", s.directory, acc)
	e.GET("/chat/:id/join", s.joinPage, acc)
	e.POST("/chat/:id/join", s.join, acc)
	e.POST("/chat/:id/leave", s.leave, acc, reader)
	e.POST("/chat/:id/mute", s.mute, acc, reader)

	// Across one's chats: the search of them all (search.go), and one's
	// saved messages (saved.go), where taking one off or setting its
	// reminder touches only one's own row, so they take no reader.
	e.GET(SearchURL, s.searchAll, acc)
	e.GET(SavedURL, s.savedPage, acc)
	e.POST(SavedURL+"/remove", s.unsaveFromList, acc)
	e.POST(SavedURL+"/remind", s.remindSaved, acc)

	// One chat and its messages.
	e.GET("/chat/:id", s.page, acc, reader)
	e.GET("/chat/:id/stream", s.stream, acc, live.Bound(s.streams, ErrTooManyStreams), reader)
	e.GET("/chat/:id/images/:file", s.serveImage, acc, reader)
	e.GET("/chat/:id/form", s.replyForm, acc, reader)
	e.GET("/chat/:id/search", s.search, acc, reader)
	e.POST("/chat/:id/messages", s.send, acc, reader)
	e.POST("/chat/:id/typing", s.typing, acc, reader)
	e.POST("/chat/:id/messages/:seq/edit", s.edit, acc, reader, message)
	e.POST("/chat/:id/messages/:seq/delete", s.remove, acc, reader, message)
	e.POST("/chat/:id/messages/:seq/unread", s.markUnread, acc, reader, message)
	e.POST("/chat/:id/messages/:seq/pin", s.setPin(true), acc, reader, message)
	e.POST("/chat/:id/messages/:seq/unpin", s.setPin(false), acc, reader, message)
	e.POST("/chat/:id/messages/:seq/save", s.saveMessage(true), acc, reader, message)
	e.POST("/chat/:id/messages/:seq/unsave", s.saveMessage(false), acc, reader, message)
	e.POST("/chat/:id/messages/:seq/remind", s.remindMessage, acc, reader, message)
	e.GET("/chat/:id/messages/:seq/react", s.reactPicker, acc, reader, message)
	e.POST("/chat/:id/messages/:seq/react", s.react, acc, reader, message)
	report := moderation.Page{Section: "chat", Queue: s.Reports, Of: s.messageReport}
	e.GET("/chat/:id/messages/:seq/report", report.Show, acc, reader, message)
	e.POST("/chat/:id/messages/:seq/report", report.File, acc, reader, message)

	// The admins' rooms (rooms_admin.go).
	e.GET(adminRoomsURL, s.adminRooms, auth.RequireAdmin)
	e.POST(adminRoomsURL, s.createRoom, auth.RequireAdmin)
	e.POST(adminRoomsURL+"/:id", s.updateRoom, auth.RequireAdmin)
}

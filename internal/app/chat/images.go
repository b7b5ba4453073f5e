package chat

import (
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/web"
)

// Image messages: a picture, with an optional caption, kept in two sizes
// (the pictures kit) in the chat-images container under the chat's id.
// Pictures are served only to who may read the chat.

// ImagesContainer holds the chats' pictures.
const ImagesContainer = "chat-images"

// TypeImage is a picture message.
const TypeImage = "image"

const (
	largeChatImage = 1280
	smallChatImage = 480
	// imageBodyLimit lets the message form carry a picture.
	imageBodyLimit = media.DefaultMaxBytes + 1<<20
)

// captionRule is an image's caption: optional.
var captionRule = formrule.Text{Max: MaxBody, Multiline: true}

// imageURL is where a message's picture is served (small or large).
func imageURL(key string, small bool) string {
	if key == "" {
		return ""
	}
	chatID, file, _ := strings.Cut(pictures.Sized(key, small), "/")
	return "/chat/" + chatID + "/images/" + file
}

// serveImage is GET /chat/:id/images/:file (routes name it with the
// chat's id first): only for who may read the chat.
func (s *Service) serveImage(c echo.Context) error {
	ctx := c.Request().Context()
	acc := accessOf(c)
	blob, err := s.images.Get(ctx, acc.Chat.RowKey, c.Param("file"))
	if err != nil {
		return err
	}
	return web.ServePrivateImage(c, blob.Data)
}

package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Image messages: a picture, with an optional caption, through the
// shared media pipeline (which re-encodes it, so no EXIF survives, and
// refuses what is not a picture or too big) into two sizes in the
// chat-images container under the chat's id. Pictures are served only
// to who may read the chat.

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

// chatImageFile is the file part of a picture's URL.
var chatImageFile = regexp.MustCompile(`^[0-9a-f]{32}(_s)?\.jpg$`)

// processImage checks and re-encodes an uploaded picture (nothing is
// written); a refused file is the pipeline's error.
func processImage(ctx context.Context, data []byte) (media.Result, error) {
	return media.Process(ctx, bytes.NewReader(data), media.Options{Sizes: []int{largeChatImage, smallChatImage}})
}

// putImage stores a processed picture for chatID and returns its blob
// name.
func (s *Service) putImage(ctx context.Context, chatID string, img media.Result) (string, error) {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	key := chatID + "/" + hex.EncodeToString(b) + ".jpg"
	if _, err := s.images.Put(ctx, key, img.Variants[largeChatImage], "image/jpeg"); err != nil {
		return "", err
	}
	if _, err := s.images.Put(ctx, smallImage(key), img.Variants[smallChatImage], "image/jpeg"); err != nil {
		return "", err
	}
	return key, nil
}

// smallImage is the blob name of the small size of picture key.
func smallImage(key string) string { return strings.TrimSuffix(key, ".jpg") + "_s.jpg" }

// deletePicture deletes both sizes of picture key ("" for none), whose
// message is gone (deleted or expired). A blob that stays behind is
// logged: no message points to it, so it is never shown.
func (s *Service) deletePicture(ctx context.Context, key string) {
	if key == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, name := range []string{key, smallImage(key)} {
		if err := s.images.Delete(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) {
			s.logger.WarnContext(ctx, "chat: picture not deleted", "blob", name, "err", err)
		}
	}
}

// imageURL is where a message's picture is served (small or large).
func imageURL(key string, small bool) string {
	if key == "" {
		return ""
	}
	if small {
		key = smallImage(key)
	}
	chatID, file, _ := strings.Cut(key, "/")
	return "/chat/" + chatID + "/images/" + file
}

// serveImage is GET /chat/:id/images/:file (routes name it with the
// chat's id first): only for who may read the chat.
func (s *Service) serveImage(c echo.Context) error {
	ctx := c.Request().Context()
	acc := accessOf(c)
	file := c.Param("file")
	if !chatImageFile.MatchString(file) {
		return storage.ErrNotFound
	}
	blob, err := s.images.Get(ctx, acc.Chat.RowKey+"/"+file)
	if err != nil {
		return err
	}
	return web.ServePrivateImage(c, blob.Data)
}

package chat

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/chat"
)

// homeChats is how many chats the home page's card shows.
const homeChats = 4

// HomeCard is the home page's "Chats" for someone signed in to an
// account (web.HomeCarder): their most recent chats as the list shows
// them, with what they have not read. It costs the list's two queries,
// one of the reader's blocks, and a head read per chat, then
// authorization, an unread count and presence for the homeChats shown
// (chatItems).
func (s *Service) HomeCard(c echo.Context) (templ.Component, error) {
	id := auth.Account(c)
	if id == nil {
		return nil, nil
	}
	ctx := c.Request().Context()
	rooms, mine, rowOf, err := s.chatsOf(ctx, id.MemberKey, storage.Query{})
	if err != nil {
		return nil, err
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return nil, err
	}
	items, err := s.chatItems(ctx, id, rooms, mine, rowOf, blocked, homeChats)
	if err != nil {
		return nil, err
	}
	return views.HomeCard(items), nil
}

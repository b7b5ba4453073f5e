package chat

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Who is in a room. A public room can be read by anyone signed in and
// joined from the directory (/chat/rooms), or by posting in it; a
// private room is for its members, who join by its invite link (a
// secret in the link, which members share and an admin can replace).
// Joining and leaving is the person's UserChats row (Member): the fixed
// rooms count as joined until left, so everyone starts in them. The
// chat list and its live updates show the rooms a person is in.

// Room membership in UserChatRow.Member.
const (
	memberJoined = "joined"
	memberLeft   = "left"
)

// fixed reports whether chatID is one of the configured rooms.
func (s *Service) fixed(chatID string) bool {
	return slices.ContainsFunc(s.rooms, func(slug string) bool { return RoomID(slug) == chatID })
}

// inRoom reports whether someone whose UserChats row for room c is r
// (zero when they have none) is in it.
func (s *Service) inRoom(c ChatRow, r UserChatRow) bool {
	switch r.Member {
	case memberJoined:
		return true
	case memberLeft:
		return false
	}
	return !c.Private && s.fixed(c.RowKey)
}

// roomMember reads memberKey's row for room c and whether they are in it.
func (s *Service) roomMember(ctx context.Context, memberKey string, c ChatRow) (bool, error) {
	r, err := storage.Find[UserChatRow](ctx, s.userChats, memberKey, c.RowKey, nil)
	if err != nil {
		return false, err
	}
	return s.inRoom(c, r), nil
}

// setMember joins memberKey to room c, or takes them out.
func (s *Service) setMember(ctx context.Context, memberKey string, c ChatRow, join bool) error {
	state := map[bool]string{true: memberJoined, false: memberLeft}[join]
	key := memberKey + "|" + c.RowKey
	r, err := storage.Modify(ctx, s.userChats, memberKey, c.RowKey, func(r *UserChatRow, exists bool) error {
		if exists && r.Member == state {
			return storage.ErrNoChange
		}
		if !exists {
			r.Kind, r.JoinedAt = KindRoom, s.now().UTC()
		}
		r.Member = state
		return nil
	})
	if err == nil {
		s.remember(key, r)
	}
	return err
}

// newInvite is a fresh invite secret.
func newInvite() string { return rand.Text() }

// inviteURL is the link that lets someone join private room c.
func inviteURL(c ChatRow) string {
	return chatURL(c.RowKey) + "/join?key=" + url.QueryEscape(c.Invite)
}

// validInvite reports whether key opens private room c.
func validInvite(c ChatRow, key string) bool {
	return c.Invite != "" && subtle.ConstantTimeCompare([]byte(c.Invite), []byte(key)) == 1
}

// directory is GET /chat/rooms: the public rooms, and the private ones
// the reader is in, each with its description, whether they are in it,
// and a button to join or leave.
func (s *Service) directory(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	rooms, _, rows, err := s.chatsOf(ctx, id.MemberKey, storage.Query{RowKeyPrefix: "room-"})
	if err != nil {
		return err
	}
	var p views.DirectoryProps
	for _, r := range rooms {
		in := s.inRoom(r, rows[r.RowKey])
		if r.Private && !in {
			continue
		}
		p.Rooms = append(p.Rooms, views.DirectoryRoom{ID: r.RowKey, Name: r.Name, Description: r.Description, URL: chatURL(r.RowKey), In: in, Private: r.Private})
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "chat.directory.heading"), Section: "chat", Content: views.Directory(p)})
}

// joinable reads room chatID for someone joining it with key (private
// rooms need their invite); anything else is ErrNoChat.
func (s *Service) joinable(ctx context.Context, chatID, key string) (ChatRow, error) {
	if kind, ref := kindOf(chatID); kind != KindRoom || !formrule.IsSlug(ref, maxRoomSlug) {
		return ChatRow{}, ErrNoChat
	}
	r, err := s.chatRow(ctx, KindRoom, chatID)
	if err != nil {
		return ChatRow{}, err
	}
	if r.Private && !validInvite(r, key) {
		return ChatRow{}, ErrNoChat // a wrong or replaced link: as if not there
	}
	return r, nil
}

// joinPage is GET /chat/:id/join?key=: what an invite link opens, a room
// and a button to join it (already in: the room itself).
func (s *Service) joinPage(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	key := c.QueryParam("key")
	r, err := s.joinable(ctx, c.Param("id"), key)
	if err != nil {
		return err
	}
	if in, err := s.roomMember(ctx, id.MemberKey, r); err != nil || in {
		if err != nil {
			return err
		}
		return web.Redirect(c, chatURL(r.RowKey))
	}
	p := views.JoinProps{Name: r.Name, Description: r.Description, Action: chatURL(r.RowKey) + "/join", Key: key, Private: r.Private}
	return web.Render(c, http.StatusOK, web.Page{Title: "#" + r.Name, Section: "chat", Content: views.Join(p)})
}

// join is POST /chat/:id/join (key for a private room): the reader is in
// the room, and goes to it.
func (s *Service) join(c echo.Context) error {
	ctx := c.Request().Context()
	r, err := s.joinable(ctx, c.Param("id"), c.FormValue("key"))
	if err != nil {
		return err
	}
	if err := s.setMember(ctx, auth.From(c).MemberKey, r, true); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.directory.flash.joined", chatURL(r.RowKey))
}

// leave is POST /chat/:id/leave: the reader is out of the room (it
// leaves their list; a private room also shuts). Back to the directory.
func (s *Service) leave(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	acc := accessOf(c)
	if acc.Chat.Kind != KindRoom {
		return ErrNoChat
	}
	if err := s.setMember(ctx, id.MemberKey, acc.Chat, false); err != nil {
		return err
	}
	return web.FlashRedirect(c, "chat.directory.flash.left", "/chat/rooms")
}

package chat

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Rooms as admins manage them on /admin/chat-rooms: create one (a slug,
// a name and a description, public or private), rename it, make it
// private or public, replace a private room's invite link, or archive it
// (it leaves the list and its page; its messages stay). The fixed rooms are seeded at
// start and managed the same way.

const adminRoomsURL = "/admin/chat-rooms"

var (
	roomNameRule = formrule.Text{Max: 40, Required: true}
	roomDescRule = formrule.Text{Max: 200}
)

// RoomErrors maps a room form's field to the i18n key of its problem.
type RoomErrors = formrule.FieldErrors

// ErrRoomExists is a new room whose slug is taken (409).
var ErrRoomExists = fault.New(http.StatusConflict, "chat.rooms.error.exists", "chat: the room exists")

// checkRoom cleans a room's name and description, noting problems in
// errs.
func checkRoom(errs RoomErrors, name, desc string) (string, string) {
	return errs.Check("name", roomNameRule, name, "chat.rooms.error.name"),
		errs.Check("description", roomDescRule, desc, "chat.rooms.error.description")
}

// CreateRoom adds a room; a private one gets its invite link, and
// creator ("" for none) is in it, to share the link.
func (s *Service) CreateRoom(ctx context.Context, slug, name, desc string, private bool, creator string) error {
	errs := RoomErrors{}
	slug = errs.CheckSlug("slug", slug, maxRoomSlug, "chat.rooms.error.slug")
	if name, desc = checkRoom(errs, name, desc); len(errs) > 0 {
		return errs
	}
	pk, rk := chatKey(KindRoom, RoomID(slug))
	row := ChatRow{PartitionKey: pk, RowKey: rk, Kind: KindRoom, Name: name, Description: desc, Private: private, CreatedAt: s.now().UTC()}
	if private {
		row.Invite = newInvite()
	}
	_, err := storage.Insert(ctx, s.chats, row)
	if errors.Is(err, storage.ErrExists) {
		return ErrRoomExists
	}
	if err != nil || !private || creator == "" {
		return err
	}
	return s.setMember(ctx, creator, row, true)
}

// maxKeepDays bounds a room's own message lifetime.
const maxKeepDays = 3650

// RoomChange is what an admin sets on a room: its name and description,
// how many days it keeps messages ("" or "0": MESSAGES_TTL), whether
// it is archived or private, and (NewLink) a fresh invite link, which
// the old one stops opening.
type RoomChange struct {
	Name, Description, KeepDays string
	Archived, Private, NewLink  bool
}

// UpdateRoom changes a room.
func (s *Service) UpdateRoom(ctx context.Context, chatID string, in RoomChange) error {
	errs := RoomErrors{}
	name, desc := checkRoom(errs, in.Name, in.Description)
	days := 0
	if v := strings.TrimSpace(in.KeepDays); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxKeepDays {
			errs["keepDays"] = "chat.rooms.error.keep"
		}
		days = n
	}
	if len(errs) > 0 {
		return errs
	}
	if kind, _ := kindOf(chatID); kind != KindRoom {
		return ErrNoChat
	}
	pk, rk := chatKey(KindRoom, chatID)
	_, err := storage.Change(ctx, s.chats, pk, rk, ErrNoChat, func(c *ChatRow) error {
		c.Name, c.Description, c.Archived, c.KeepDays, c.Private = name, desc, in.Archived, days, in.Private
		if c.Private && (c.Invite == "" || in.NewLink) {
			c.Invite = newInvite()
		}
		return nil
	})
	return err
}

// allRooms are every room, archived ones too (the admin page).
func (s *Service) allRooms(ctx context.Context) ([]ChatRow, error) {
	return storage.All[ChatRow](ctx, s.chats, storage.Query{PartitionKey: "chat|" + KindRoom})
}

func (s *Service) adminRooms(c echo.Context) error {
	return s.renderRooms(c, http.StatusOK, nil, nil, nil)
}

// renderRooms shows the admins' page; add refills the add form after a
// refusal, and failed a refused change to a room (what was typed, and
// its errors).
func (s *Service) renderRooms(c echo.Context, status int, add map[string]string, addErrs RoomErrors, failed *views.RoomAdmin) error {
	ctx := c.Request().Context()
	rooms, err := s.allRooms(ctx)
	if err != nil {
		return err
	}
	p := views.RoomsAdminProps{Add: add, AddErrors: addErrs}
	for _, r := range rooms {
		ra := views.RoomAdmin{ID: r.RowKey, Name: r.Name, Description: r.Description, Archived: r.Archived, Private: r.Private,
			Keeps: r.KeepDays, UpdateURL: adminRoomsURL + "/" + url.PathEscape(r.RowKey),
			Form: views.RoomForm{Name: r.Name, Description: r.Description, KeepDays: strconv.Itoa(r.KeepDays), Archived: r.Archived, Private: r.Private}}
		if r.Private {
			ra.InviteURL = s.base + inviteURL(r)
		}
		if failed != nil && failed.ID == r.RowKey {
			ra.Form = failed.Form
		}
		p.Rooms = append(p.Rooms, ra)
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "chat.rooms.heading"), Section: "admin", Content: views.RoomsAdmin(p)})
}

// createRoom is POST /admin/chat-rooms (slug, name, description).
func (s *Service) createRoom(c echo.Context) error {
	add := map[string]string{"slug": c.FormValue("slug"), "name": c.FormValue("name"), "description": c.FormValue("description"), "private": c.FormValue("private")}
	err := s.CreateRoom(c.Request().Context(), add["slug"], add["name"], add["description"], add["private"] == "true", auth.From(c).MemberKey)
	return web.AnswerForm(c, err, "chat.rooms.flash.created", adminRoomsURL, func(status int, re RoomErrors) error {
		return s.renderRooms(c, status, add, re, nil)
	}, web.Refusal{Err: ErrRoomExists, Field: "slug"})
}

// updateRoom is POST /admin/chat-rooms/:id (name, description,
// keepDays, archived, private, newLink).
func (s *Service) updateRoom(c echo.Context) error {
	in := RoomChange{
		Name: c.FormValue("name"), Description: c.FormValue("description"), KeepDays: c.FormValue("keepDays"),
		Archived: c.FormValue("archived") == "true", Private: c.FormValue("private") == "true", NewLink: c.FormValue("newLink") == "true",
	}
	err := s.UpdateRoom(c.Request().Context(), c.Param("id"), in)
	return web.AnswerForm(c, err, "chat.rooms.flash.updated", adminRoomsURL, func(status int, re RoomErrors) error {
		failed := views.RoomAdmin{ID: c.Param("id"), Form: views.RoomForm{
			Name: in.Name, Description: in.Description, KeepDays: in.KeepDays, Archived: in.Archived, Private: in.Private, Errors: re,
		}}
		return s.renderRooms(c, status, nil, nil, &failed)
	})
}

package chat

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// Rooms (document 003): chats of kind room, their id "room-{slug}",
// seeded on first start from the configured list; any signed-in person
// reads and posts in them.

// maxRoomSlug bounds a room's slug (CHAT_ROOMS holds the same).
const maxRoomSlug = 32

// RoomID is a room's chat id.
func RoomID(slug string) string { return "room-" + slug }

// Seed adds the configured rooms that are missing (every start; a room
// there already is left as it is), and on a new store marks the members'
// footprints complete (memberdata.Footprints.Start; on a store of
// before, the job chat-footprints reads its chats for them).
func (s *Service) Seed(ctx context.Context) error {
	if err := s.log.marks.Start(ctx, s.noChats); err != nil {
		return err
	}
	for _, slug := range s.rooms {
		if !formrule.IsSlug(slug, maxRoomSlug) {
			continue
		}
		pk, rk := chatKey(KindRoom, RoomID(slug))
		_, err := storage.Insert(ctx, s.chats, ChatRow{PartitionKey: pk, RowKey: rk, Kind: KindRoom, Name: slug, CreatedAt: s.now().UTC()})
		if err != nil && !errors.Is(err, storage.ErrExists) {
			return err
		}
	}
	return nil
}

// chatsOf reads the rooms and memberKey's chat rows (q, whose partition
// it sets, narrows them: a prefix, a Select), and keys the rows by chat.
func (s *Service) chatsOf(ctx context.Context, memberKey string, q storage.Query) (rooms []ChatRow, mine []UserChatRow, rowOf map[string]UserChatRow, err error) {
	if rooms, err = s.Rooms(ctx); err != nil {
		return nil, nil, nil, err
	}
	q.PartitionKey = memberKey
	if mine, err = storage.All[UserChatRow](ctx, s.userChats, q); err != nil {
		return nil, nil, nil, err
	}
	rowOf = make(map[string]UserChatRow, len(mine))
	for _, m := range mine {
		rowOf[m.RowKey] = m
	}
	return rooms, mine, rowOf, nil
}

// Rooms are the rooms, fixed ones first in their configured order, then
// by name; archived ones are left out, private ones kept (callers show
// them to members only): one query.
func (s *Service) Rooms(ctx context.Context) ([]ChatRow, error) {
	rows, err := storage.All[ChatRow](ctx, s.chats, storage.Query{PartitionKey: "chat|" + KindRoom})
	rows = slices.DeleteFunc(rows, func(r ChatRow) bool { return r.Archived })
	rank := func(r ChatRow) int {
		if i := slices.Index(s.rooms, strings.TrimPrefix(r.RowKey, "room-")); i >= 0 {
			return i
		}
		return len(s.rooms)
	}
	slices.SortStableFunc(rows, func(a, b ChatRow) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		if a.Name < b.Name {
			return -1
		}
		return 0
	})
	return rows, err
}

// publicRooms are the rooms anyone may know of (Rooms without the
// private ones, whose names are for their members only): what a visitor
// is shown.
func (s *Service) publicRooms(ctx context.Context) ([]ChatRow, error) {
	rows, err := s.Rooms(ctx)
	return slices.DeleteFunc(rows, func(r ChatRow) bool { return r.Private }), err
}

// DefaultRoom is the room memberKey lands in: their choice while it is
// open to them, else the first public room, fixed ones first (document
// 003's default room).
func (s *Service) DefaultRoom(ctx context.Context, memberKey string) (string, error) {
	rooms, err := s.Rooms(ctx)
	if err != nil || len(rooms) == 0 {
		return "", err
	}
	if p, err := storage.Get[PresenceRow](ctx, s.presence, presencePart, memberKey); err == nil && p.DefaultRoom != "" {
		for _, r := range rooms {
			if r.RowKey != p.DefaultRoom {
				continue
			}
			if in, err := s.roomMember(ctx, memberKey, r); err != nil || !r.Private || in {
				return r.RowKey, err
			}
		}
	}
	for _, r := range rooms {
		if !r.Private {
			return r.RowKey, nil
		}
	}
	return "", nil
}

// SetDefaultRoom makes chatID memberKey's default room; it must be an
// open room.
func (s *Service) SetDefaultRoom(ctx context.Context, memberKey, chatID string) error {
	if kind, _ := kindOf(chatID); kind != KindRoom {
		return ErrNoChat
	}
	r, err := s.chatRow(ctx, KindRoom, chatID)
	if err != nil {
		return err
	}
	in, err := s.roomMember(ctx, memberKey, r)
	if err != nil {
		return err
	}
	if r.Private && !in {
		return ErrNoChat
	}
	e := storage.Entity{PartitionKey: presencePart, RowKey: memberKey, Props: map[string]any{"defaultRoom": chatID}}
	_, err = s.presence.Upsert(ctx, e, storage.Merge)
	return err
}

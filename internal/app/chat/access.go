package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Kinds of chat beyond rooms, and who may use them (Open):
//   - private ("dm-{hash}"): its two people; the id is a hash of their
//     two memberKeys in order, so opening it twice, or from both sides at
//     once, finds one chat;
//   - group ("group-{groupId}"): the group's active members, asked of the
//     groups module on every request;
//   - event ("event-{eventId}"): organizers and people going post, the
//     waitlist reads unless the organizer closed it, asked of the events
//     module on every request.
const (
	KindPrivate = "private"
	KindGroup   = "group"
	KindEvent   = "event"
)

// Groups is what group chats need from the groups module.
type Groups interface {
	GroupChat(ctx context.Context, groupID string, id *auth.Identity) (name string, err error)
}

// Events is what event chats need from the events module.
type Events interface {
	EventChat(ctx context.Context, eventID string, id *auth.Identity) (title string, canPost bool, err error)
}

// People finds a person's name for a private chat, and the account of
// someone who is not the one asking, as access checks need it (mayOpen).
type People interface {
	DisplayName(ctx context.Context, memberKey string) (string, error)
	Identity(ctx context.Context, memberKey string) (*auth.Identity, error)
}

// UseGroups, UseEvents and UsePeople turn on group, event and private
// chats. Call them while wiring.
func (s *Service) UseGroups(g Groups) { s.groups = g }
func (s *Service) UseEvents(e Events) { s.events = e }
func (s *Service) UsePeople(p People) { s.people = p }

// Sessions says whether an identity's session still stands (the auth
// service): an open stream asks with each heartbeat, so signing out,
// being signed out everywhere or disabled ends it (stream.go).
type Sessions = live.Sessions

// UseSessions sets what streams ask; without it they do not ask.
func (s *Service) UseSessions(x Sessions) { s.sessions = x }

// ErrReadOnly refuses a message from someone who may only read (403).
var ErrReadOnly = fault.New(http.StatusForbidden, "chat.error.read_only", "chat: read only")

// ErrSelf refuses a private chat with oneself (400).
var ErrSelf = fault.New(http.StatusBadRequest, "chat.error.self", "chat: a private chat with oneself")

// newPrivatePerDay bounds the private chats one person starts a day (as
// Discourse's max_personal_messages_per_day): each brings its first
// message to someone new, by notice and mail, so nobody can write to
// the whole community at once. Chats that exist cost nothing to reopen.
const newPrivatePerDay = 20

// ErrTooManyNew refuses a private chat past newPrivatePerDay (429).
var ErrTooManyNew = fault.New(http.StatusTooManyRequests, "chat.error.new_private", "chat: too many new private chats today")

// Access is a chat as its viewer may use it.
type Access struct {
	Chat ChatRow
	// Title names it for the viewer ("#general", the other person, the
	// group, the event).
	Title   string
	CanPost bool
	// Back is the page the chat belongs to (the group, the event), "" for
	// none.
	Back string
	// Other is a private chat's other person.
	Other string
	// InRoom says the viewer is in the room (rooms only).
	InRoom bool
}

// PrivateID is the private chat of a and b, whichever opens it.
func PrivateID(a, b string) string {
	if b < a {
		a, b = b, a
	}
	sum := sha256.Sum256([]byte(a + "|" + b))
	return "dm-" + hex.EncodeToString(sum[:16])
}

// kindOf is the kind a chat id names, "" for none.
func kindOf(chatID string) (kind, ref string) {
	for _, k := range []struct{ prefix, kind string }{{"room-", KindRoom}, {"dm-", KindPrivate}, {"group-", KindGroup}, {"event-", KindEvent}} {
		if rest, ok := strings.CutPrefix(chatID, k.prefix); ok && rest != "" && storage.ValidateKey(rest) == nil && !strings.ContainsAny(rest, "|") {
			return k.kind, rest
		}
	}
	return "", ""
}

// Open authorizes id for chatID; anything else is ErrNoChat (404), so a
// chat someone may not see is no different from one that is not there.
func (s *Service) Open(ctx context.Context, id *auth.Identity, chatID string) (Access, error) {
	if !id.HasAccount() {
		return Access{}, ErrNoChat
	}
	kind, ref := kindOf(chatID)
	switch kind {
	case KindRoom:
		if !formrule.IsSlug(ref, maxRoomSlug) {
			return Access{}, ErrNoChat
		}
		c, err := s.chatRow(ctx, kind, chatID)
		if err != nil {
			return Access{}, err
		}
		in, err := s.roomMember(ctx, id.MemberKey, c)
		if err != nil {
			return Access{}, err
		}
		if c.Private && !in {
			return Access{}, ErrNoChat
		}
		return Access{Chat: c, Title: "#" + c.Name, CanPost: true, InRoom: in}, nil
	case KindPrivate:
		c, err := s.chatRow(ctx, kind, chatID)
		if err != nil {
			return Access{}, err
		}
		other, name := c.MemberB, c.NameB
		switch id.MemberKey {
		case c.MemberA:
		case c.MemberB:
			other, name = c.MemberA, c.NameA
		default:
			return Access{}, ErrNoChat
		}
		if memberdata.IsForgotten(other) {
			// They deleted their account: the conversation stays to
			// read, and takes no more messages.
			return Access{Chat: c, Title: memberdata.Name(ctx, other, name)}, nil
		}
		return Access{Chat: c, Title: name, CanPost: true, Other: other}, nil
	case KindGroup:
		if s.groups == nil {
			return Access{}, ErrNoChat
		}
		name, err := s.groups.GroupChat(ctx, ref, id)
		if err != nil {
			return Access{}, ErrNoChat
		}
		c, err := s.ensure(ctx, kind, chatID, name, ref)
		return Access{Chat: c, Title: name, CanPost: true, Back: "/groups/" + ref}, err
	case KindEvent:
		if s.events == nil {
			return Access{}, ErrNoChat
		}
		title, canPost, err := s.events.EventChat(ctx, ref, id)
		if err != nil {
			return Access{}, ErrNoChat
		}
		c, err := s.ensure(ctx, kind, chatID, title, ref)
		return Access{Chat: c, Title: title, CanPost: canPost, Back: "/events/" + ref}, err
	}
	return Access{}, ErrNoChat
}

// mayOpen asks Open again whether memberKey may open ch now, for someone
// who is not the one asking: a person a message mentions, or the viewer
// of a stream opened a while ago (whose roles may have changed since).
// Any error but ErrNoChat is a failed read. Private chats keep their
// two people (no read); rooms are decided by the memberKey (the chat row
// and the person's UserChats row: 2 reads); groups and events by the
// account as it is now (People.Identity, 1 read, then Open's: the
// membership or registration, the group or event, and the chat row; the
// events module also counts a waitlisted person's place, a read and a
// query).
func (s *Service) mayOpen(ctx context.Context, memberKey string, ch ChatRow) error {
	if ch.Kind == KindPrivate {
		if memberKey == ch.MemberA || memberKey == ch.MemberB {
			return nil
		}
		return ErrNoChat
	}
	_, err := s.openAs(ctx, memberKey, ch.Kind, ch.RowKey)
	return err
}

// openAs is Open for memberKey, who is not the one asking, of chatID of
// kind: a group's or an event's as their account is now (mayOpen).
func (s *Service) openAs(ctx context.Context, memberKey, kind, chatID string) (Access, error) {
	id := &auth.Identity{MemberKey: memberKey}
	if kind == KindGroup || kind == KindEvent {
		if s.people == nil {
			return Access{}, ErrNoChat
		}
		var err error
		id, err = s.people.Identity(ctx, memberKey)
		if errors.Is(err, storage.ErrNotFound) {
			return Access{}, ErrNoChat
		}
		if err != nil {
			return Access{}, err
		}
	}
	return s.Open(ctx, id, chatID)
}

// chatRow reads a chat; missing or archived is ErrNoChat.
func (s *Service) chatRow(ctx context.Context, kind, chatID string) (ChatRow, error) {
	pk, rk := chatKey(kind, chatID)
	c, err := storage.Get[ChatRow](ctx, s.chats, pk, rk)
	if errors.Is(err, storage.ErrNotFound) || err == nil && c.Archived {
		return ChatRow{}, ErrNoChat
	}
	return c, err
}

// ensure reads a group's or event's chat, making it on first use, and
// keeps its name in step with what it belongs to.
func (s *Service) ensure(ctx context.Context, kind, chatID, name, ref string) (ChatRow, error) {
	pk, rk := chatKey(kind, chatID)
	return storage.Modify(ctx, s.chats, pk, rk, func(c *ChatRow, exists bool) error {
		if exists && c.Name == name {
			return storage.ErrNoChange
		}
		if !exists {
			c.Kind, c.Ref, c.CreatedAt = kind, ref, s.now().UTC()
		}
		c.Name = name
		return nil
	})
}

// StartPrivate opens the private chat of me and other, making it on
// first use, within newPrivatePerDay: both may start it at once and get
// one chat.
func (s *Service) StartPrivate(ctx context.Context, me *auth.Identity, other string) (string, error) {
	if s.people == nil || !me.HasAccount() || !auth.IsAuthMemberKey(other) {
		return "", ErrNoChat
	}
	if other == me.MemberKey {
		return "", ErrSelf
	}
	name, err := s.people.DisplayName(ctx, other)
	if err != nil {
		return "", ErrNoChat
	}
	if s.hasBlocked(ctx, me.MemberKey, other) {
		return "", ErrBlockedByYou
	}
	chatID := PrivateID(me.MemberKey, other)
	a, b, na, nb := me.MemberKey, other, me.DisplayName, name
	if b < a {
		a, b, na, nb = b, a, nb, na
	}
	pk, rk := chatKey(KindPrivate, chatID)
	switch _, err := storage.Get[ChatRow](ctx, s.chats, pk, rk); {
	case err == nil:
		return chatID, nil
	case !errors.Is(err, storage.ErrNotFound):
		return "", err
	}
	if err := s.newPrivate.Take(ctx, "new-private|"+me.MemberKey, s.now()); err != nil {
		return "", err
	}
	// Both people's footprints lead to the chat, whoever writes in it.
	for _, k := range []string{a, b} {
		if err := s.log.marks.Mark(ctx, k, chatID); err != nil {
			return "", err
		}
	}
	_, err = storage.Insert(ctx, s.chats, ChatRow{PartitionKey: pk, RowKey: rk, Kind: KindPrivate, MemberA: a, MemberB: b, NameA: na, NameB: nb, CreatedAt: s.now().UTC()})
	if err != nil && !errors.Is(err, storage.ErrExists) {
		return "", err
	}
	return chatID, nil
}

package chat

import (
	"fmt"
	"time"
)

// Tables of the chat module (docs/ARCHITECTURE.md, "Chat").
const (
	ChatsTable     = "Chats"
	MessagesTable  = "Messages"
	UserChatsTable = "UserChats"
)

// Kinds of chat.
const (
	KindRoom = "room"
)

// ChatRow is a chat: PK "chat|{kind}", RK its id.
type ChatRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Kind         string `table:"kind"`
	Name         string `table:"name"`
	Description  string `table:"description"`
	Archived     bool   `table:"archived"`
	// Ref is the group's or event's id (group and event chats).
	Ref string `table:"ref"`
	// KeepDays is a room's own message lifetime in days; 0 follows
	// MESSAGES_TTL.
	KeepDays int `table:"keepDays"`
	// Private makes a room its members' only, joined by its invite link
	// (Invite is the link's secret).
	Private bool   `table:"private"`
	Invite  string `table:"invite"`
	// MemberA and MemberB are a private chat's two people (A < B), with
	// their names when it began.
	MemberA   string    `table:"memberA"`
	MemberB   string    `table:"memberB"`
	NameA     string    `table:"nameA"`
	NameB     string    `table:"nameB"`
	CreatedAt time.Time `table:"createdAt"`
	// WroteA and WroteB say which of a private chat's two people has
	// written in it: only then does the other see their presence, so
	// starting a chat with someone shows nobody when they are online.
	WroteA bool `table:"wroteA"`
	WroteB bool `table:"wroteB"`
}

// wrote reports whether memberKey has written in private chat c.
func (c ChatRow) wrote(memberKey string) bool {
	return memberKey == c.MemberA && c.WroteA || memberKey == c.MemberB && c.WroteB
}

// chatKey is a chat's Chats key.
func chatKey(kind, id string) (pk, rk string) { return "chat|" + kind, id }

// HeadRow is a chat's head in its Messages partition (RowKey headKey):
// the last sequence number given, and the last message for the chat
// list. Every send writes it at its ETag in the send's transaction, so
// sequence numbers are dense and in commit order.
type HeadRow struct {
	PartitionKey string    `table:"PartitionKey"` // chatId
	RowKey       string    `table:"RowKey"`       // headKey
	ETag         string    `table:"ETag"`
	Seq          int64     `table:"seq"`
	LastAt       time.Time `table:"lastAt"`
	LastSender   string    `table:"lastSender"`
	LastPreview  string    `table:"lastPreview"`
	// LastSenderKey is whose the last message is, so that a list folds
	// the preview of someone its reader blocked ("" in heads written
	// before it was kept).
	LastSenderKey string `table:"lastSenderKey"`
	// LastMessage is the last message's sequence number (control entries
	// follow it): its edit or deletion changes the preview.
	LastMessage int64 `table:"lastMessage"`
	// LastExpiresAt is when the last message expires: the list shows no
	// preview of an expired message.
	LastExpiresAt *time.Time `table:"lastExpiresAt"`
	// Pinned are the chat's pinned messages, the latest pinned first:
	// their numbers, comma-separated (pins.go).
	Pinned string `table:"pinned"`
}

const headKey = "h"

// Message types.
const (
	TypeText   = "text"
	TypeSystem = "system"
)

// MessageRow is one message: RowKey messageKey(seq).
type MessageRow struct {
	PartitionKey string     `table:"PartitionKey"` // chatId
	RowKey       string     `table:"RowKey"`       // messageKey
	ETag         string     `table:"ETag"`
	Seq          int64      `table:"seq"`
	Type         string     `table:"type"`
	Sender       string     `table:"sender"` // memberKey; "" for system
	SenderName   string     `table:"senderName"`
	Body         string     `table:"body"` // Markdown subset, at most MaxBody
	SentAt       time.Time  `table:"sentAt"`
	EditedAt     *time.Time `table:"editedAt"`
	DeletedAt    *time.Time `table:"deletedAt"`
	// ExpiresAt is when the message stops being served (MESSAGES_TTL);
	// nil keeps it.
	ExpiresAt *time.Time `table:"expiresAt"`
	// Target is the message a control entry (edit, delete) changed.
	Target int64 `table:"target"`
	// ImageKey is an image message's picture in ImagesContainer.
	ImageKey string `table:"imageKey"`
	// Reactions are who answered the message with which emoji
	// (reactions.go), as JSON; "" for none.
	Reactions string `table:"reactions"`
	// ReplyTo is the message this one answers (replies.go); 0 for none.
	ReplyTo int64 `table:"replyTo"`
	// Pinned: the message is among its chat's pinned ones (pins.go).
	Pinned bool `table:"pinned"`
}

// messagePrefix starts every message's RowKey.
const messagePrefix = "m|"

// messageKey is a message's RowKey: "m|{seq, 12 digits}", so the log
// reads in order and a range of sequence numbers is a range of keys.
func messageKey(seq int64) string { return fmt.Sprintf("%s%012d", messagePrefix, seq) }

// UserChatRow is one of a person's chats (PK memberKey, RK chatId): how
// far they have read.
type UserChatRow struct {
	PartitionKey string    `table:"PartitionKey"` // memberKey
	RowKey       string    `table:"RowKey"`       // chatId
	ETag         string    `table:"ETag"`
	Kind         string    `table:"kind"`
	ReadSeq      int64     `table:"readSeq"`
	JoinedAt     time.Time `table:"joinedAt"`
	// Member is a room's membership: "joined", "left", or "" (the fixed
	// rooms count as joined; directory.go).
	Member string `table:"member"`
	// Muted: its messages send them no notice (mute.go), until
	// MutedUntil (nil: until they unmute it).
	Muted      bool       `table:"muted"`
	MutedUntil *time.Time `table:"mutedUntil"`
	// Saved are the messages they saved there (saved.go: a list column
	// of SavedMark), HasSaved set while there are any.
	Saved    string `table:"saved"`
	HasSaved bool   `table:"hasSaved"`
}

// MutedAt says the chat is muted at now: muted, and its time not up.
func (r UserChatRow) MutedAt(now time.Time) bool {
	return r.Muted && (r.MutedUntil == nil || now.Before(*r.MutedUntil))
}

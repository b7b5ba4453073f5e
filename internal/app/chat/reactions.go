package chat

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	views "github.com/harmony/harmony/views/chat"
)

// Reactions. Whoever may read a chat may answer a message with one of
// sixteen emoji, the common reactions of Slack, Zulip and Telegram, and take
// it back by choosing it again; the message shows each emoji chosen with
// how many chose it, the reader's own marked. A reaction changes its
// message as an edit does (Log.change): the row's Reactions and a control
// entry (TypeReact) in one transaction, so open pages update live, in
// order, and a reaction is never a message (no unread count, no notice).

// TypeReact is the control entry of a reaction given or taken back.
const TypeReact = "react"

// Reactions are the emoji a message may be answered with, in the order
// they show; reactionNames their i18n names ("chat.reaction.<name>").
var (
	Reactions     = []string{"👍", "❤️", "😂", "🎉", "😮", "😢", "👎", "🙏", "🔥", "👏", "😍", "🤔", "👀", "✅", "💯", "😡"}
	reactionNames = []string{"thumbs_up", "heart", "laugh", "party", "surprised", "sad", "thumbs_down", "thanks", "fire", "clap", "love", "thinking", "eyes", "done", "hundred", "angry"}
)

// maxReactors bounds the people one emoji of a message remembers, and
// maxReactions all of its reactions, which keeps the column within a
// table property's size (64 KiB) with the longest member keys (71
// bytes).
const (
	maxReactors  = 300
	maxReactions = 800
)

// Errors of reactions.
var (
	// ErrBadReaction is an emoji not among Reactions (400).
	ErrBadReaction = fault.New(http.StatusBadRequest, "chat.error.reaction", "chat: not a reaction")
	// ErrReactionsFull is one more reaction to an emoji that has
	// maxReactors (409).
	ErrReactionsFull = fault.New(http.StatusConflict, "chat.error.reactions_full", "chat: the reaction is full")
)

// reactionSet is a message's Reactions: emoji to the memberKeys that
// chose it, oldest first.
type reactionSet map[string][]string

func parseReactions(s string) reactionSet {
	set := reactionSet{}
	if s != "" {
		_ = json.Unmarshal([]byte(s), &set) // a damaged column shows none
	}
	return set
}

func (set reactionSet) String() string {
	if len(set) == 0 {
		return ""
	}
	b, _ := json.Marshal(map[string][]string(set))
	return string(b)
}

// total counts the reactions of every emoji.
func (set reactionSet) total() int {
	n := 0
	for _, who := range set {
		n += len(who)
	}
	return n
}

// toggle gives memberKey's emoji, or takes it back when given.
func (set reactionSet) toggle(emoji, memberKey string) error {
	who := set[emoji]
	if i := slices.Index(who, memberKey); i >= 0 {
		who = slices.Delete(who, i, i+1)
	} else if len(who) >= maxReactors || set.total() >= maxReactions {
		return ErrReactionsFull
	} else {
		who = append(who, memberKey)
	}
	if len(who) == 0 {
		delete(set, emoji)
	} else {
		set[emoji] = who
	}
	return nil
}

// React gives by's emoji to message seq of ch, or takes it back, and
// delivers the change live. Reactions have their own budget of sends
// (ErrTooFast), so answering a few messages leaves the reader's messages
// theirs to send.
func (s *Service) React(ctx context.Context, ch ChatRow, seq int64, by Person, emoji string) (MessageRow, error) {
	if !slices.Contains(Reactions, emoji) {
		return MessageRow{}, ErrBadReaction
	}
	// A message that takes no reaction is refused before the budget is
	// counted, so a refusal writes nothing.
	if m, err := s.log.Message(ctx, ch.RowKey, seq); err != nil {
		return MessageRow{}, err
	} else if !reactable(m) {
		return MessageRow{}, ErrNoMessage
	}
	if err := s.sends.Take(ctx, "react|"+by.MemberKey+"|"+ch.RowKey, s.now()); err != nil {
		return MessageRow{}, err
	}
	m, ctl, err := s.log.React(ctx, ch.RowKey, seq, by, emoji)
	if err == nil && ctl.Seq > 0 {
		s.hub.Sent(ctx, ctl)
	}
	return m, err
}

// React gives by's emoji to message seq of chatID or takes it back (see
// change for what it returns).
func (l *Log) React(ctx context.Context, chatID string, seq int64, by Person, emoji string) (msg, ctl MessageRow, err error) {
	_, msg, ctl, err = l.change(ctx, chatID, seq, TypeReact, by, func(m *MessageRow) error {
		if !reactable(*m) {
			return ErrNoMessage
		}
		set := parseReactions(m.Reactions)
		if err := set.toggle(emoji, by.MemberKey); err != nil {
			return err
		}
		m.Reactions = set.String()
		return nil
	})
	return msg, ctl, err
}

// reactable reports whether m takes reactions: a message someone sent,
// not deleted.
func reactable(m MessageRow) bool {
	return m.DeletedAt == nil && (m.Type == TypeText || m.Type == TypeImage)
}

// react is POST /chat/:id/messages/:seq/react (emoji): the reader's
// reaction given or taken back.
func (s *Service) react(c echo.Context) error {
	id := auth.From(c)
	acc := accessOf(c)
	m, err := s.React(c.Request().Context(), acc.Chat, seqOf(c), Person{MemberKey: id.MemberKey, Name: id.DisplayName}, c.FormValue("emoji"))
	if err != nil {
		return err
	}
	return s.changed(c, acc, m)
}

// reactionsOf are m's reactions as the reader sees them, in Reactions'
// order.
func reactionsOf(ctx context.Context, m MessageRow, viewer string) []views.Reaction {
	set := parseReactions(m.Reactions)
	var out []views.Reaction
	for i, emoji := range Reactions {
		who := set[emoji]
		if len(who) == 0 {
			continue
		}
		out = append(out, views.Reaction{
			Emoji: emoji, Count: len(who), Mine: slices.Contains(who, viewer),
			Label: i18n.N(ctx, "chat.reaction.count", len(who), "emoji", i18n.T(ctx, "chat.reaction."+reactionNames[i])),
		})
	}
	return out
}

// reactionChoices are the emoji a reader may choose, each with its name.
func reactionChoices(ctx context.Context) []views.Reaction {
	out := make([]views.Reaction, len(Reactions))
	for i, emoji := range Reactions {
		out[i] = views.Reaction{Emoji: emoji, Label: i18n.T(ctx, "chat.reaction."+reactionNames[i])}
	}
	return out
}

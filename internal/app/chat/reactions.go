package chat

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Reactions. Whoever may read a chat may answer a message with an emoji:
// one of sixteen, the common reactions of Slack, Zulip and Telegram, or
// one of the picker's groups behind "More emoji" (MoreReactions); and
// take it back by choosing it again; the message shows each emoji chosen with
// how many chose it, the reader's own marked. A reaction changes its
// message as an edit does (Log.change): the row's Reactions and a control
// entry (TypeReact) in one transaction, so open pages update live, in
// order, and a reaction is never a message (no unread count, no notice).

// TypeReact is the control entry of a reaction given or taken back.
const TypeReact = "react"

// Reactions are the emoji a message may be answered with, in the order
// they show under its fold.
var Reactions = []string{"👍", "❤️", "😂", "🎉", "😮", "😢", "👎", "🙏", "🔥", "👏", "😍", "🤔", "👀", "✅", "💯", "😡"}

// MoreReactions are the rest of the picker, in groups: what "More
// emoji" opens (reactPicker), as Zulip's and Slack's pickers do.
var MoreReactions = []ReactionGroup{
	{"faces", []string{"😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😊", "🙂", "🙃", "😉", "😌", "😎", "🤩", "🥳", "😏", "😴", "🤯", "😬", "🙄", "😳", "🥺", "😭", "😤"}},
	{"people", []string{"👋", "🤝", "🙌", "💪", "🤞", "✌️", "👌", "🤙", "👊", "✊", "🤗", "🤷", "🙋", "🤦", "💃", "🕺"}},
	{"nature", []string{"🌞", "🌈", "⭐", "🌟", "✨", "⚡", "❄️", "🌊", "🌸", "🌻", "🍀", "🐶", "🐱", "🦄", "🎶", "🎵"}},
	{"things", []string{"☕", "🍕", "🍰", "🎂", "🍻", "🥂", "🎁", "🎈", "🏆", "🥇", "⚽", "🎸", "📷", "📌", "💡", "⏰", "🚀", "🏠", "❓", "❗", "➕", "❌", "💤", "🆗"}},
}

// ReactionGroup is a group of the picker: its i18n key
// ("chat.reaction.group.<key>") and its emoji.
type ReactionGroup struct {
	Key   string
	Emoji []string
}

// allReactions are every emoji a message may be answered with, in the
// order a message shows them: the named ones, then the picker's.
var allReactions = func() []string {
	out := slices.Clone(Reactions)
	for _, g := range MoreReactions {
		out = append(out, g.Emoji...)
	}
	return out
}()

// reactionName is what a screen reader says of emoji, and its title:
// its name (emojiNames) in the reader's language.
func reactionName(ctx context.Context, emoji string) string {
	return i18n.T(ctx, "chat.reaction."+emojiNames[emoji])
}

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
	// ErrBadReaction is an emoji not among the reactions (400).
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

// drop takes every reaction of memberKey back.
func (set reactionSet) drop(memberKey string) {
	for emoji, who := range set {
		if who = slices.DeleteFunc(who, func(k string) bool { return k == memberKey }); len(who) == 0 {
			delete(set, emoji)
		} else {
			set[emoji] = who
		}
	}
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
	if !slices.Contains(allReactions, emoji) {
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
	return s.reshape(ctx, ch.RowKey, seq, by, toggled(emoji, by.MemberKey))
}

// reshape changes the reactions of message seq of chatID as f says
// (Log.reshape) and delivers the change live: the one way a reaction
// given or taken back (React) and one taken away with its account
// (forgetReactions) reach the open pages.
func (s *Service) reshape(ctx context.Context, chatID string, seq int64, by Person, f func(m MessageRow, set reactionSet) error) (MessageRow, error) {
	m, ctl, err := s.log.reshape(ctx, chatID, seq, by, f)
	if err == nil && ctl.Seq > 0 {
		s.hub.Sent(ctx, ctl)
	}
	return m, err
}

// React gives by's emoji to message seq of chatID or takes it back (see
// change for what it returns).
func (l *Log) React(ctx context.Context, chatID string, seq int64, by Person, emoji string) (msg, ctl MessageRow, err error) {
	return l.reshape(ctx, chatID, seq, by, toggled(emoji, by.MemberKey))
}

// reshape changes the reactions of message seq of chatID with f, which
// changes the set it is given, as a control entry (TypeReact) by by (see
// change for what it returns: no entry when the set is as it was).
func (l *Log) reshape(ctx context.Context, chatID string, seq int64, by Person, f func(m MessageRow, set reactionSet) error) (msg, ctl MessageRow, err error) {
	_, msg, ctl, err = l.change(ctx, chatID, seq, TypeReact, by, func(m *MessageRow) error { return reshaped(m, f) }, nil)
	return msg, ctl, err
}

// reshaped changes m's reactions with f; storage.ErrNoChange when they
// are as they were.
func reshaped(m *MessageRow, f func(m MessageRow, set reactionSet) error) error {
	set := parseReactions(m.Reactions)
	if err := f(*m, set); err != nil {
		return err
	}
	if set.String() == m.Reactions {
		return storage.ErrNoChange
	}
	m.Reactions = set.String()
	return nil
}

// toggled gives memberKey's emoji to a message that takes reactions, or
// takes it back.
func toggled(emoji, memberKey string) func(MessageRow, reactionSet) error {
	return func(m MessageRow, set reactionSet) error {
		if !reactable(m) {
			return ErrNoMessage
		}
		return set.toggle(emoji, memberKey)
	}
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

// reactionsOf are m's reactions as the reader sees them, in
// allReactions' order.
func reactionsOf(ctx context.Context, m MessageRow, viewer string) []views.Reaction {
	set := parseReactions(m.Reactions)
	var out []views.Reaction
	for _, emoji := range allReactions {
		who := set[emoji]
		if len(who) == 0 {
			continue
		}
		out = append(out, views.Reaction{
			Emoji: emoji, Count: len(who), Mine: slices.Contains(who, viewer),
			Label: i18n.N(ctx, "chat.reaction.count", len(who), "emoji", reactionName(ctx, emoji)),
		})
	}
	return out
}

// reactionChoices are emoji a reader may choose, each with its name.
func reactionChoices(ctx context.Context, emoji []string) []views.Reaction {
	out := make([]views.Reaction, len(emoji))
	for i, e := range emoji {
		out[i] = views.Reaction{Emoji: e, Label: reactionName(ctx, e)}
	}
	return out
}

// reactPicker is GET /chat/:id/messages/:seq/react[?q=]: every emoji a
// message may be answered with, in groups, or those a search finds
// (SearchReactions). htmx puts it in the place of the named ones under
// the message's fold, and a search typed there asks for the emoji alone
// (a partial with q, even empty), which take the place of the old ones
// while the box keeps the focus; without JavaScript it is a page of its
// own, searched by its form, whose choice comes back to the chat at the
// message. A search the form rules refuse (too long, control
// characters) says why, with a 400 and no emoji.
func (s *Service) reactPicker(c echo.Context) error {
	ctx, acc, seq := c.Request().Context(), accessOf(c), seqOf(c)
	m, err := s.log.Message(ctx, acc.Chat.RowKey, seq)
	if err != nil {
		return err
	}
	if !reactable(m) {
		return ErrNoMessage
	}
	anchor := "m-" + strconv.FormatInt(seq, 10)
	p := views.PickerProps{Action: chatURL(acc.Chat.RowKey) + "/messages/" + strconv.FormatInt(seq, 10) + "/react", Back: chatURL(acc.Chat.RowKey) + "#" + anchor, ID: anchor + "-emoji", MaxQuery: maxEmojiQuery}
	status := http.StatusOK
	rule := formrule.Text{Max: maxEmojiQuery}
	q, problem := rule.Check(c.QueryParam("q"))
	switch {
	case problem != formrule.OK:
		status, p.Query, p.Problem = http.StatusBadRequest, rule.Clean(q), i18n.T(ctx, problem.Key(), "max", maxEmojiQuery)
	case q != "":
		p.Query = q
		if found := SearchReactions(q); len(found) > 0 {
			p.Groups = []views.PickerGroup{{Heading: i18n.N(ctx, "chat.reaction.found", len(found), "q", q), Choices: reactionChoices(ctx, found)}}
		}
	default:
		p.Groups = append(p.Groups, views.PickerGroup{Heading: i18n.T(ctx, "chat.reaction.group.frequent"), Choices: reactionChoices(ctx, Reactions)})
		for _, g := range MoreReactions {
			p.Groups = append(p.Groups, views.PickerGroup{Heading: i18n.T(ctx, "chat.reaction.group."+g.Key), Choices: reactionChoices(ctx, g.Emoji)})
		}
	}
	switch hx := web.HTMXFrom(c); {
	case hx.Partial && c.QueryParams().Has("q"):
		return web.RenderFragment(c, status, views.PickerEmoji(p))
	case hx.Partial:
		return web.RenderFragment(c, status, views.Picker(p))
	}
	p.Plain = true
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "chat.reaction.add"), Section: "chat", Content: views.PickerPage(p)})
}

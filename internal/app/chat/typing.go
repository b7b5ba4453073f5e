package chat

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/live"
	views "github.com/harmony/harmony/views/chat"
)

// Typing. As Zulip, Slack and Telegram do, a chat shows who is writing
// a message: with JavaScript the message box posts POST /chat/:id/typing
// as it changes (htmx, at most every TypingEvery), which publishes a
// typing note on the chat's topic (the person, no text); the hub keeps,
// for each chat watched here, who typed when (typers), and each open
// stream of the chat shows the others "Anna is typing…" under the log
// (#chat-typing), which the page hides TypingFor after the last note
// (CSS), and which goes at once when that person's message arrives.
// Nothing is stored. Without JavaScript nothing is sent or shown.

// TypingEvery is how often one person's typing in one chat is told at
// most; TypingFor how long a note shows (the page's CSS hides it then).
const (
	TypingEvery = 3 * time.Second
	TypingFor   = 6 * time.Second
)

// typed is a typer as the hub heard of them.
type typed struct {
	name string
	at   time.Time
}

// typing is POST /chat/:id/typing (reader, who may post): 204. A note
// within TypingEvery of the person's last in the chat is dropped here,
// and so is one to a private chat's other person whom the writer
// blocked (they cannot send them anything either).
func (s *Service) typing(c echo.Context) error {
	acc := accessOf(c)
	if !acc.CanPost {
		return ErrReadOnly
	}
	id := auth.From(c)
	ctx := c.Request().Context()
	if s.typingPace.Allow(id.MemberKey+"|"+acc.Chat.RowKey, s.now()) && (acc.Other == "" || !s.hasBlocked(ctx, id.MemberKey, acc.Other)) {
		s.hub.Typing(ctx, acc.Chat.RowKey, Person{MemberKey: id.MemberKey, Name: id.DisplayName})
	}
	return c.NoContent(http.StatusNoContent)
}

// Typing tells chatID's watchers, here and through the feed, that p is
// writing a message.
func (h *Hub) Typing(ctx context.Context, chatID string, p Person) {
	payload, _ := json.Marshal(note{Typing: &p})
	h.live.Publish(ctx, feedTopic(chatID), payload)
}

// typingHeard keeps p as typing in chatID now, and signals its watchers.
func (h *Hub) typingHeard(chatID string, p Person) {
	w, subs := h.watchers(chatID)
	if w == nil || p.MemberKey == "" {
		return
	}
	w.mu.Lock()
	if w.typers == nil {
		w.typers = map[string]typed{}
	}
	w.typers[p.MemberKey] = typed{name: p.Name, at: h.now()}
	w.mu.Unlock()
	for _, s := range subs {
		live.Signal(s.Typing)
	}
}

// wrote drops the sender of m, a message sent, from the typers; it
// reports whether they were one.
func (w *watched) wrote(m MessageRow) bool {
	if _, ok := w.typers[m.Sender]; !ok || control(m) {
		return false
	}
	delete(w.typers, m.Sender)
	return true
}

// Typers are the names of who has been typing in chatID within
// TypingFor, but for the viewer and the people they blocked, by name.
func (h *Hub) Typers(chatID, viewer string, blocked map[string]BlockRow) []string {
	w, _ := h.watchers(chatID)
	if w == nil {
		return nil
	}
	now := h.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	var names []string
	for member, t := range w.typers {
		switch {
		case now.Sub(t.at) >= TypingFor:
			delete(w.typers, member)
		case member != viewer:
			if _, no := blocked[member]; no {
				continue
			}
			names = append(names, t.name)
		}
	}
	slices.SortFunc(names, strings.Compare)
	return names
}

// typingNow is the stream's line of who is typing, for the viewer.
func (s *Service) typingNow(chatID, viewer string, blocked map[string]BlockRow) views.TypingProps {
	return views.TypingProps{Names: s.hub.Typers(chatID, viewer, blocked), OOB: true}
}

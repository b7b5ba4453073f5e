package chat

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/live"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// The stream: GET /chat/:id/stream?after=SEQ is a Server-Sent Events
// stream of the chat's messages after SEQ (or after the Last-Event-ID a
// reconnecting client sends, which wins). Each message is one event, its
// id the message's sequence number and its data the message's HTML, which
// htmx's SSE extension appends to the list. So a reconnect resumes with
// exactly what was missed: the log is read from the last id the client
// got, none lost and none twice. A client further behind than the hub
// keeps (tailSize), or ahead of the log, gets a "reset" event and
// reloads the page. A comment every heartbeatEvery keeps proxies from
// dropping the stream; it ends when the client goes or the server
// shuts down, and when the viewer may no longer open the chat: a "left"
// entry ends it at once, and with each heartbeat access is asked again
// (mayOpen), for the ways of losing a chat that write no entry (leaving
// a private room, a room made private, an event unpublished or closed to
// the waitlist, an offer lapsed, a role taken away). That is one check
// per open stream per heartbeat: no read in a private chat, 2 in a room,
// about 4 in a group's or an event's chat. Each heartbeat also reads the
// viewer's session (signedOut), so signing out, being signed out
// everywhere or disabled ends a stream opened before, its page reloading
// to what the viewer may see now: one read more per stream per beat.

// heartbeatEvery is the comment heartbeat's period; markEvery how often
// a stream moves its reader's marker at most.
const (
	heartbeatEvery = 25 * time.Second
	markEvery      = 15 * time.Second
)

// stream is GET /chat/:id/stream.
func (s *Service) stream(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	acc := accessOf(c)
	ch := acc.Chat
	last, err := resumeFrom(c)
	if err != nil {
		return web.BadRequest(i18n.T(ctx, "chat.error.cursor"), err)
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	if err := s.knowMarker(ctx, id.MemberKey, ch); err != nil {
		return err
	}
	sub := s.hub.Subscribe(ch.RowKey)
	defer s.hub.Unsubscribe(sub)

	w := live.Start(c)

	// What the page shows around the log follows it: "seen by" under the
	// newest message, and a private chat's other person's presence.
	st := statusState{viewer: id.MemberKey, newest: last}
	sendStatus := func(presence bool) error {
		p, changed, err := s.status(ctx, acc, &st, presence)
		if err != nil || !changed {
			return err
		}
		if err := live.WriteEvent(ctx, w, "", views.Status(p)); err != nil {
			return err
		}
		w.Flush()
		return nil
	}
	send := func() (bool, error) {
		msgs, reset, err := s.hub.Since(ctx, ch.RowKey, last)
		if err != nil {
			return false, err
		}
		if reset {
			_, err := w.Write([]byte(live.Reset("reset")))
			w.Flush()
			return true, err
		}
		for _, m := range msgs {
			if m.Type == TypeLeft && m.Sender == id.MemberKey {
				// They left what the chat belongs to: the page reloads,
				// and the chat is no longer theirs.
				_, err := w.Write([]byte(live.Reset("left")))
				w.Flush()
				return true, err
			}
			item := m
			oob := false
			if control(m) {
				// A change: the message as it is now replaces the one shown.
				t, err := s.log.Message(ctx, ch.RowKey, m.Target)
				if err != nil && !errors.Is(err, ErrNoMessage) {
					return false, err
				}
				item, oob = t, err == nil
			}
			last = m.Seq
			if control(m) && !oob {
				// Its message is gone (expired): only the id moves on.
				if _, err := w.Write([]byte("id: " + strconv.FormatInt(m.Seq, 10) + "\n\n")); err != nil {
					return false, err
				}
				continue
			}
			if !control(m) {
				st.newest, st.sender = m.Seq, m.Sender
				st.heard = st.heard || m.Sender == acc.Other
			}
			var saved savedSet
			if oob {
				// A message changed: whether its reader saved it (a
				// point read; a new message is saved by nobody yet).
				if saved, err = s.savedIn(ctx, id.MemberKey, ch.RowKey); err != nil {
					return false, err
				}
			}
			v, err := s.withQuote(ctx, id, blocked, ch, s.item(ctx, id, blocked, acc, item, saved), item)
			if err != nil {
				return false, err
			}
			v.OOB = oob
			var requoted *views.Quote
			if m.Type == TypeEdit || m.Type == TypeDelete {
				// The replies quoting it on the page quote it as it is now.
				requoted = quote(ctx, id, blocked, ch, item.Seq, map[int64]MessageRow{item.Seq: item})
				requoted.OOB = true
			}
			var pinned *views.PinsProps
			if m.Type == TypePin || m.Type == TypeDelete {
				// The chat's pinned messages, as they are now.
				p, err := s.pinsNow(ctx, id, blocked, ch)
				if err != nil {
					return false, err
				}
				pinned = &p
			}
			if err := live.WriteEvent(ctx, w, strconv.FormatInt(m.Seq, 10), views.Streamed(v, requoted, pinned)); err != nil {
				return false, err
			}
		}
		if len(msgs) > 0 {
			w.Flush()
			return false, sendStatus(false)
		}
		return false, nil
	}
	// What the stream shows is read: the marker moves at most every
	// markEvery, and when the stream ends.
	marked, markedAt := last, time.Time{}
	mark := func(force bool) {
		if last == marked || !force && time.Since(markedAt) < markEvery {
			return
		}
		if err := s.markRead(context.WithoutCancel(ctx), id.MemberKey, ch, last); err != nil {
			s.logger.WarnContext(ctx, "chat: read marker not moved", "chat", ch.RowKey, "err", err)
			return
		}
		marked, markedAt = last, time.Now()
	}
	defer mark(true)
	if done, err := send(); done || err != nil {
		return nil
	}
	mark(false)
	// An open stream is a sign of life: marked now and with each
	// heartbeat (Seen writes at most once a minute).
	s.Seen(ctx, id.MemberKey)
	live.Follow{Every: s.beat, Done: sub.Done, Wake: sub.Wake, Read: sub.Read,
		Beat: func() error {
			if err := live.SignedOut(ctx, w, s.sessions, id); err != nil {
				return err
			}
			if err := s.mayOpen(ctx, id.MemberKey, ch); err != nil {
				if errors.Is(err, ErrNoChat) {
					// As for a "left" entry: the page reloads, to a 404.
					_ = live.Ping(w, live.Reset("left"))
				}
				// A failed check ends the stream too: the client
				// reconnects, and requireChat asks again.
				return live.ErrEnd
			}
			if err := live.Ping(w, ": ping\n\n"); err != nil {
				return err
			}
			s.Seen(ctx, id.MemberKey)
			return sendStatus(true)
		},
		OnRead: func() error { return sendStatus(false) },
		// Who is writing: the line under the log, as it is now.
		Typing: sub.Typing,
		OnTyping: func() error {
			if err := live.WriteEvent(ctx, w, "", views.Typing(s.typingNow(ch.RowKey, id.MemberKey, blocked))); err != nil {
				return err
			}
			w.Flush()
			return nil
		},
		OnWake: func() error {
			if done, err := send(); done || err != nil {
				return live.ErrEnd
			}
			mark(false)
			return nil
		},
	}.Run(ctx)
	return nil
}

// resumeFrom is the sequence number the stream starts after: the
// Last-Event-ID header when the client reconnects, else ?after.
func resumeFrom(c echo.Context) (int64, error) {
	v := c.Request().Header.Get("Last-Event-ID")
	if v == "" {
		v = c.QueryParam("after")
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err == nil && n < 0 {
		err = strconv.ErrRange
	}
	return n, err
}

// news is GET /chat/news: the chat list's stream. It watches every room
// the reader is in and every chat in their list they may still read
// (stillTheirs), and says "news" (a named event,
// at most once a second) when any of them moves; the list page then
// fetches itself again, which counts and authorizes anew. With each
// heartbeat it also reads the presence of the other people of the
// reader's private chats (up to presenceWatch of them, one read each)
// and says "news" when a dot changed; and it says "news" when one of
// the reader's own read markers moves, on another device or tab
// (Hub.ReadBy), so a chat read there is read here too.
func (s *Service) news(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	rooms, mine, rowOf, err := s.chatsOf(ctx, id.MemberKey, storage.Query{Select: []string{"RowKey", "kind", "member"}})
	if err != nil {
		return err
	}
	others := s.privateOthers(ctx, id.MemberKey, mine)
	shown := s.presences(ctx, others)
	var ids []string
	for _, r := range rooms {
		if s.inRoom(r, rowOf[r.RowKey]) {
			ids = append(ids, r.RowKey)
		}
	}
	theirs, err := s.stillTheirs(ctx, id, mine)
	if err != nil {
		return err
	}
	for _, chatID := range theirs {
		if !slices.Contains(ids, chatID) {
			ids = append(ids, chatID)
		}
	}
	sub := s.hub.Subscribe(ids...)
	defer s.hub.Unsubscribe(sub)
	// Their own markers, moved on another device or tab.
	reads := s.hub.Subscribe(readsID(id.MemberKey))
	defer s.hub.Unsubscribe(reads)
	w := live.Start(c)
	settled := func() error {
		// Let a burst settle: one refresh for it.
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, ch := range []chan struct{}{sub.Wake, reads.Read} {
			select {
			case <-ch:
			default:
			}
		}
		return live.Ping(w, "event: news\ndata: news\n\n")
	}
	live.Follow{Every: s.beat, Done: sub.Done, Wake: sub.Wake, OnWake: settled, Read: reads.Read, OnRead: settled,
		Beat: func() error {
			if err := live.SignedOut(ctx, w, s.sessions, id); err != nil {
				return err
			}
			msg := ": ping\n\n"
			if now := s.presences(ctx, others); !maps.Equal(now, shown) {
				// Someone's dot changed: the list fetches itself again.
				msg, shown = "event: news\ndata: presence\n\n", now
			}
			return live.Ping(w, msg)
		},
	}.Run(ctx)
	return nil
}

// stillTheirs are the chats of mine (rooms aside) that id may still
// read: a private chat always; a group's or an event's while they are in
// it (Open, headReads at a time). A chat they left stays in their list
// rows, and the list leaves it out, so the list's stream must not follow
// it either: its "news" would tell them when the group or the event they
// left is talking.
func (s *Service) stillTheirs(ctx context.Context, id *auth.Identity, mine []UserChatRow) ([]string, error) {
	kept, err := storage.Keep(ctx, mine, headReads, func(ctx context.Context, m UserChatRow) (bool, error) {
		switch m.Kind {
		case KindRoom:
			return false, nil
		case KindPrivate:
			return true, nil
		}
		_, err := s.Open(ctx, id, m.RowKey)
		if errors.Is(err, ErrNoChat) {
			return false, nil
		}
		return err == nil, err
	})
	out := make([]string, len(kept))
	for i, m := range kept {
		out[i] = m.RowKey
	}
	return out, err
}

// presenceWatch bounds the private chats whose presence the list's
// stream follows.
const presenceWatch = 50

// privateOthers are the other people of memberKey's private chats in
// mine who wrote there (up to presenceWatch), read once when the list's
// stream opens.
func (s *Service) privateOthers(ctx context.Context, memberKey string, mine []UserChatRow) []string {
	var out []string
	for _, m := range mine {
		if m.Kind != KindPrivate || len(out) == presenceWatch {
			continue
		}
		c, err := s.chatRow(ctx, KindPrivate, m.RowKey)
		if err != nil {
			continue
		}
		if other := map[bool]string{true: c.MemberB, false: c.MemberA}[c.MemberA == memberKey]; c.wrote(other) {
			out = append(out, other)
		}
	}
	return out
}

// presences are who of people is online now (a failed read counts as
// unchanged: the next heartbeat tries again).
func (s *Service) presences(ctx context.Context, people []string) map[string]bool {
	out := make(map[string]bool, len(people))
	for _, p := range people {
		on, err := s.Online(ctx, p)
		if err != nil {
			return nil
		}
		out[p] = on
	}
	return out
}

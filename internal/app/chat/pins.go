package chat

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	views "github.com/harmony/harmony/views/chat"
)

// Pinned messages, as Slack's and Telegram's: a message pinned shows
// under the chat's name, in "Pinned messages", for everyone who opens
// the chat, as a quote (sender and start, as it is now) that leads to
// it, and the message itself is marked. In a room only an admin pins;
// in a private, group or event chat anyone who may write there.
//   - The list rides on the chat's head row (HeadRow.Pinned), which the
//     page reads anyway; a pin or an unpin rewrites the message (marked)
//     and the head, and appends a control entry (TypePin), in one
//     transaction at the head's ETag (Log.change): the list and the
//     marks never disagree, and open pages follow live (the stream sends
//     the list again, out of band, after a pin or a deletion).
//   - Deleting a pinned message unpins it in the same transaction.
//   - At most maxPins: one more is refused (409), as the list stays
//     readable at the top of the chat; pinned messages no longer kept
//     (expired) leave the list then, to make room.

// TypePin is the control entry of a message pinned or unpinned.
const TypePin = "pin"

// maxPins bounds a chat's pinned messages.
const maxPins = 10

var (
	// ErrMayNotPin is a pin by someone who may not pin there (403).
	ErrMayNotPin = fault.New(http.StatusForbidden, "chat.error.pin", "chat: may not pin here")
	// ErrTooManyPins is one pin more than maxPins (409).
	ErrTooManyPins = fault.New(http.StatusConflict, "chat.error.pins", "chat: too many pinned messages", "max", maxPins)
)

// pinsOf are the numbers of h's pinned messages, the latest first.
func pinsOf(h HeadRow) []int64 {
	var out []int64
	for _, f := range strings.Split(h.Pinned, ",") {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// setPins writes pins on h.
func setPins(h *HeadRow, pins []int64) {
	f := make([]string, len(pins))
	for i, n := range pins {
		f[i] = strconv.FormatInt(n, 10)
	}
	h.Pinned = strings.Join(f, ",")
}

// unpinned takes seq out of a head's pinned messages (Log.change).
func unpinned(seq int64) func(h *HeadRow) error {
	return func(h *HeadRow) error {
		setPins(h, slices.DeleteFunc(pinsOf(*h), func(n int64) bool { return n == seq }))
		return nil
	}
}

// Pin pins (on) or unpins message seq of chatID, by by: a live text or
// picture message, not deleted (ErrNoMessage); pinning it again, or
// unpinning what is not pinned, changes nothing (ctl Seq 0).
func (l *Log) Pin(ctx context.Context, chatID string, seq int64, by Person, on bool) (msg, ctl MessageRow, err error) {
	head := unpinned(seq)
	if on {
		head = func(h *HeadRow) error {
			pins := pinsOf(*h)
			if len(pins) >= maxPins {
				// Pinned messages no longer kept (expired) make room:
				// the page shows them no more, and nobody can unpin them.
				kept, err := l.kept(ctx, chatID, pins)
				if err != nil {
					return err
				}
				if pins = kept; len(pins) >= maxPins {
					return ErrTooManyPins
				}
			}
			setPins(h, append([]int64{seq}, pins...))
			return nil
		}
	}
	_, msg, ctl, err = l.change(ctx, chatID, seq, TypePin, by, func(m *MessageRow) error {
		switch {
		case m.DeletedAt != nil || m.Type != TypeText && m.Type != TypeImage:
			return ErrNoMessage
		case m.Pinned == on:
			return storage.ErrNoChange
		}
		m.Pinned = on
		return nil
	}, head)
	return msg, ctl, err
}

// kept are those of seqs whose messages chatID still keeps, in order:
// a point read each (only when the pinned list is full).
func (l *Log) kept(ctx context.Context, chatID string, seqs []int64) ([]int64, error) {
	var out []int64
	for _, n := range seqs {
		_, err := l.Message(ctx, chatID, n)
		switch {
		case err == nil:
			out = append(out, n)
		case !errors.Is(err, ErrNoMessage):
			return nil, err
		}
	}
	return out, nil
}

// mayPin reports whether viewer may pin messages in the chat of acc.
func mayPin(viewer *auth.Identity, acc Access) bool {
	return viewer != nil && acc.CanPost && (acc.Chat.Kind != KindRoom || viewer.Admin)
}

// Pin pins (on) or unpins message seq of ch as by, whom the caller
// authorized (mayPin), and delivers the change live.
func (s *Service) Pin(ctx context.Context, ch ChatRow, seq int64, by Person, on bool) (MessageRow, error) {
	m, ctl, err := s.log.Pin(ctx, ch.RowKey, seq, by, on)
	if err == nil && ctl.Seq > 0 {
		s.hub.Sent(ctx, ctl)
	}
	return m, err
}

// pins is ch's "Pinned messages" as viewer sees it, from head, its
// messages taken from known: those no longer kept are left out.
func pins(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, ch ChatRow, head HeadRow, known map[int64]MessageRow) views.PinsProps {
	var p views.PinsProps
	for _, n := range pinsOf(head) {
		if _, ok := known[n]; ok {
			p.Pins = append(p.Pins, *quote(ctx, viewer, blocked, ch, n, known))
		}
	}
	return p
}

// pinsNow is ch's "Pinned messages" as they are now, for a stream: the
// head and the pinned messages read.
func (s *Service) pinsNow(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, ch ChatRow) (views.PinsProps, error) {
	h, err := s.log.Head(ctx, ch.RowKey)
	if err != nil {
		return views.PinsProps{}, err
	}
	known, err := s.known(ctx, ch.RowKey, nil, pinsOf(h))
	p := pins(ctx, viewer, blocked, ch, h, known)
	p.OOB = true
	return p, err
}

// setPin is POST /chat/:id/messages/:seq/pin and …/unpin: htmx gets the
// message, a plain form goes back to it.
func (s *Service) setPin(on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		acc, seq, id := accessOf(c), seqOf(c), auth.From(c)
		if !mayPin(id, acc) {
			return ErrMayNotPin
		}
		m, err := s.Pin(c.Request().Context(), acc.Chat, seq, Person{MemberKey: id.MemberKey, Name: id.DisplayName}, on)
		if err != nil {
			return err
		}
		return s.changed(c, acc, m)
	}
}

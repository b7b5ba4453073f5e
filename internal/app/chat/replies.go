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
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/chat"
)

// Replies, as Telegram's and Slack's, and Zulip's quote and reply: a
// message may answer an earlier one of its chat ("Reply" in its menu).
// The reply keeps only the number of the message it answers
// (MessageRow.ReplyTo); what it quotes is read from that message as it
// is when shown, so an edit shows in every quote of it, and a deletion
// takes its words out of them all at once, as it does from the log.
//   - A page reads the messages its replies answer that it does not show
//     itself: point reads, at most maxQuoteReads, in parallel.
//   - A stream reads the message a new reply answers (one point read, as
//     for a change), and after an edit or a deletion sends the quote as
//     it is now, out of band, to every quote of that message on the page.
//   - Without JavaScript "Reply" is a page with the form, the quote
//     above it.

// maxQuoteReads bounds the messages a page reads for its quotes (a
// page shows pageSize messages; a quote past the bound links to its
// message without its words).
const maxQuoteReads = 20

// ErrNoReply is a reply to a message that is not a live message of the
// chat: never one, deleted, no longer kept, or a line of the app's (422).
var ErrNoReply = fault.New(http.StatusUnprocessableEntity, "chat.error.reply", "chat: no such message to reply to")

// replyTarget checks a message's reply field: "" answers nothing (0);
// else the number of a live text or picture message of ch, not deleted
// (ErrNoReply).
func (s *Service) replyTarget(ctx context.Context, ch ChatRow, field string) (MessageRow, error) {
	field = strings.TrimSpace(field)
	if field == "" {
		return MessageRow{}, nil
	}
	seq, err := strconv.ParseInt(field, 10, 64)
	if err != nil || seq < 1 {
		return MessageRow{}, ErrNoReply
	}
	m, err := s.log.Message(ctx, ch.RowKey, seq)
	if errors.Is(err, ErrNoMessage) || err == nil && (m.DeletedAt != nil || m.Type != TypeText && m.Type != TypeImage) {
		return MessageRow{}, ErrNoReply
	}
	return m, err
}

// answered is what msgs reply to, by number (known).
func (s *Service) answered(ctx context.Context, chatID string, msgs []MessageRow) (map[int64]MessageRow, error) {
	return s.known(ctx, chatID, msgs, nil)
}

// known is msgs by number, with the messages they reply to and want
// that are not among them read (at most maxQuoteReads, in parallel). A
// message no longer kept is not in it.
func (s *Service) known(ctx context.Context, chatID string, msgs []MessageRow, want []int64) (map[int64]MessageRow, error) {
	got := make(map[int64]MessageRow, len(msgs))
	for _, m := range msgs {
		if !control(m) {
			got[m.Seq] = m
			if m.ReplyTo > 0 {
				want = append(want, m.ReplyTo)
			}
		}
	}
	var missing []int64
	for _, n := range want {
		if _, ok := got[n]; !ok && !slices.Contains(missing, n) && len(missing) < maxQuoteReads {
			missing = append(missing, n)
		}
	}
	read := make([]MessageRow, len(missing))
	err := storage.Each(ctx, len(missing), 8, func(ctx context.Context, i int) error {
		m, err := s.log.Message(ctx, chatID, missing[i])
		if errors.Is(err, ErrNoMessage) {
			return nil
		}
		read[i] = m
		return err
	})
	for _, m := range read {
		if m.Seq > 0 {
			got[m.Seq] = m
		}
	}
	return got, err
}

// quote is what a reply in ch shows viewer of message seq, which is
// known (the message, when answered found it) or not: its sender and
// start, or that it is gone. A message from someone viewer blocked
// shows no words.
func quote(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, ch ChatRow, seq int64, known map[int64]MessageRow) *views.Quote {
	q := &views.Quote{Of: seq, URL: messageURL(ch.RowKey, seq)}
	m, ok := known[seq]
	if !ok {
		q.Gone, q.Text = true, i18n.T(ctx, "chat.quote.gone")
		return q
	}
	q.Sender = memberdata.Name(ctx, m.Sender, m.SenderName)
	_, hidden := blocked[m.Sender]
	switch {
	case m.DeletedAt != nil:
		q.Sender, q.Gone, q.Text = "", true, i18n.T(ctx, "chat.quote.deleted")
	case hidden && (viewer == nil || m.Sender != viewer.MemberKey):
		q.Text = i18n.T(ctx, "chat.collapsed")
	case m.ImageKey != "":
		q.Text = strings.TrimSpace("📷 " + richtext.Plain(m.Body, 120))
		if m.Body == "" {
			q.Text = "📷 " + i18n.T(ctx, "chat.quote.picture")
		}
	default:
		q.Text = richtext.Plain(m.Body, 120)
	}
	return q
}

// messageURL opens chat chatID at message seq: the page from it on, at
// it (a quote's link, a search's, a report's).
func messageURL(chatID string, seq int64) string {
	return chatURL(chatID) + "?after=" + strconv.FormatInt(seq-1, 10) + "#m-" + strconv.FormatInt(seq, 10)
}

// withQuote is message v (m as viewer sees it) with its quote, if it
// replies: one point read.
func (s *Service) withQuote(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, ch ChatRow, v views.Message, m MessageRow) (views.Message, error) {
	if m.ReplyTo == 0 {
		return v, nil
	}
	known, err := s.answered(ctx, ch.RowKey, []MessageRow{m})
	v.Quote = quote(ctx, viewer, blocked, ch, m.ReplyTo, known)
	return v, err
}

// formProps is ch's message form, answering reply when it is not nil.
func formProps(ctx context.Context, viewer *auth.Identity, blocked map[string]BlockRow, ch ChatRow, reply *MessageRow) views.FormProps {
	u := chatURL(ch.RowKey)
	p := views.FormProps{Action: u + "/messages", TypingURL: u + "/typing", CancelURL: u + "#chat-form", FormURL: u + "/form"}
	if reply != nil && reply.Seq > 0 {
		p.Reply = quote(ctx, viewer, blocked, ch, reply.Seq, map[int64]MessageRow{reply.Seq: *reply})
	}
	return p
}

// replyForm is GET /chat/:id/form (?reply=N): the message form, answering
// message N. htmx swaps it for the page's form ("Reply" in a message's
// menu, and taking the reply back); without JavaScript it is a page.
func (s *Service) replyForm(c echo.Context) error {
	ctx := c.Request().Context()
	acc, id := accessOf(c), auth.From(c)
	if !acc.CanPost {
		return ErrReadOnly
	}
	blocked, err := s.Blocked(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	status := http.StatusOK
	m, err := s.replyTarget(ctx, acc.Chat, c.QueryParam("reply"))
	p := formProps(ctx, id, blocked, acc.Chat, &m)
	if code, msg, ok := web.Refused(ctx, err); ok {
		// Gone since the page showed it: the form without it, saying so.
		status, p.Error = code, msg
	} else if err != nil {
		return err
	}
	return web.Render(c, status, web.Page{Title: acc.Title, Section: "chat", Content: views.FormPage(p), Fragment: views.Form(p)})
}

package chat

import (
	"context"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
)

// Reports: a member reports a message to the admins' moderation queue
// (as Zulip's "report message"); the report quotes it, so the admins read
// what a private chat said without opening the chat. Taking it down
// deletes it, as an admin deletes a message.

// messageKind is a message's kind in reports; its key "{chatId}#{seq}".
const messageKind = "chat.message"

// ReportKinds are what the chat takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{messageKind} }

// TakeDown deletes the reported message, as the admin by.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, by moderation.Moderator, _ string) error {
	chatID, n, _ := strings.Cut(t.Key, "#")
	seq, err := strconv.ParseInt(n, 10, 64)
	kind, _ := kindOf(chatID)
	if err != nil || kind == "" {
		return ErrNoMessage
	}
	ch, err := s.chatRow(ctx, kind, chatID)
	if err != nil {
		return err
	}
	_, err = s.Delete(ctx, ch, seq, Person{MemberKey: by.MemberKey, Name: by.Name}, true)
	return err
}

// mayReport says whether the viewer id may report m: someone else's live
// message, a word or a picture.
func (s *Service) mayReport(id *auth.Identity, m MessageRow) bool {
	return s.Reports != nil && id != nil && id.HasAccount() && m.Sender != "" && m.Sender != id.MemberKey &&
		m.DeletedAt == nil && (m.Type == TypeText || m.Type == TypeImage)
}

// messageReport is the report of the request's message, and its page.
func (s *Service) messageReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	ctx := c.Request().Context()
	acc, seq, id := accessOf(c), seqOf(c), auth.From(c)
	m, err := s.log.Message(ctx, acc.Chat.RowKey, seq)
	if err != nil {
		return moderation.Report{}, moderation.Form{}, err
	}
	if !s.mayReport(id, m) {
		return moderation.Report{}, moderation.Form{}, ErrNoMessage
	}
	link := chatURL(acc.Chat.RowKey) + "#m-" + strconv.FormatInt(seq, 10)
	excerpt := richtext.Plain(m.Body, 500)
	if m.Type == TypeImage {
		excerpt = strings.TrimSpace("🖼 " + excerpt)
	}
	r := moderation.Report{
		Target:  moderation.Target{Kind: messageKind, Key: acc.Chat.RowKey + "#" + strconv.FormatInt(seq, 10)},
		Excerpt: excerpt, Author: m.Sender, AuthorName: m.SenderName, By: id.MemberKey, ByName: id.DisplayName,
	}
	// The admins cannot open a private chat: its report is all they see.
	if kind, _ := kindOf(acc.Chat.RowKey); kind != KindPrivate {
		r.Link = link
	}
	return r, moderation.Form{
		Heading: "chat.report.heading", Back: link, BackLabel: acc.Title,
		Action: chatURL(acc.Chat.RowKey) + "/messages/" + strconv.FormatInt(seq, 10) + "/report",
	}, nil
}

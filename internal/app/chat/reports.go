package chat

import (
	"context"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/media/pictures"
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
	return s.reportOf(m, Person{MemberKey: id.MemberKey, Name: id.DisplayName}), moderation.Form{
		Heading: "chat.report.heading", Back: messageURL(m.PartitionKey, m.Seq), BackLabel: acc.Title,
		Action: chatURL(m.PartitionKey) + "/messages/" + strconv.FormatInt(m.Seq, 10) + "/report",
	}, nil
}

// reportOf is by's report of message m, its reason not yet given.
func (s *Service) reportOf(m MessageRow, by Person) moderation.Report {
	excerpt := richtext.Plain(m.Body, 500)
	if m.Type == TypeImage {
		excerpt = strings.TrimSpace("🖼 " + excerpt)
	}
	r := moderation.Report{
		Target:  moderation.Target{Kind: messageKind, Key: m.PartitionKey + "#" + strconv.FormatInt(m.Seq, 10)},
		Excerpt: excerpt, Author: m.Sender, AuthorName: m.SenderName, By: by.MemberKey, ByName: by.Name,
	}
	// The admins cannot open a private chat: its report is all they see,
	// its picture included (kept with the report while it is open).
	if kind, _ := kindOf(m.PartitionKey); kind != KindPrivate {
		r.Link = messageURL(m.PartitionKey, m.Seq)
	} else if m.Type == TypeImage && m.ImageKey != "" {
		r.Picture = func(ctx context.Context) ([]byte, error) {
			blob, err := s.images.Container.Get(ctx, pictures.Small(m.ImageKey))
			return blob.Data, err
		}
	}
	return r
}

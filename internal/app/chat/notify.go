package chat

import (
	"context"
	"fmt"

	"github.com/harmony/harmony/internal/app/inbox"
)

// Notices: a private message to someone who is offline goes to their
// inbox (and by email as their settings allow), at most once per chat
// per hour: the notice's key names the chat, the person and the hour, so
// later messages in that hour add nothing.

// Notifier posts notices (the inbox module).
type Notifier = inbox.Poster

// UseNotifier has offline people told of private messages through n.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// tellOffline posts the notice of m in ch to its other person if they
// are offline.
func (s *Service) tellOffline(ctx context.Context, ch ChatRow, m MessageRow) {
	if s.notifier == nil || ch.Kind != KindPrivate {
		return
	}
	to := ch.MemberA
	if to == m.Sender {
		to = ch.MemberB
	}
	if on, err := s.Online(ctx, to); err != nil || on {
		return
	}
	err := s.notifier.Post(ctx, inbox.Notice{
		To:   []inbox.Recipient{{MemberKey: to}},
		Kind: "chat.notify.private",
		Args: map[string]string{"name": m.SenderName, "preview": preview(m.Body)},
		When: m.SentAt,
		Link: chatURL(ch.RowKey) + "#m-" + fmt.Sprint(m.Seq),
		Key:  fmt.Sprintf("chat.private|%s|%s|%s", ch.RowKey, to, m.SentAt.UTC().Format("2006010215")),
		From: m.Sender,
	})
	if err != nil {
		s.logger.WarnContext(ctx, "chat: notice not posted", "chat", ch.RowKey, "err", err)
	}
}

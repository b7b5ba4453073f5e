package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
)

// Notices: a private message to someone who is offline goes to their
// inbox (and by email as their settings allow), at most once per chat
// per hour: the notice's key names the chat, the person and the hour, so
// later messages in that hour add nothing.

// Notifier posts notices, and follows a message's edit or deletion in
// the notices that quote it (the inbox module).
type Notifier interface {
	inbox.Poster
	Requote(ctx context.Context, memberKey, ref string, at time.Time, quote string) error
}

// UseNotifier has offline people told of private messages through n.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// tellOffline posts the notice of m in ch to its other person if they
// are offline and have not muted the chat.
func (s *Service) tellOffline(ctx context.Context, ch ChatRow, m MessageRow) {
	if s.notifier == nil || ch.Kind != KindPrivate {
		return
	}
	to := ch.MemberA
	if to == m.Sender {
		to = ch.MemberB
	}
	if on, err := s.Online(ctx, to); err != nil || on || s.mutes(ctx, to, ch.RowKey) {
		return
	}
	err := s.notifier.Post(ctx, inbox.Notice{
		To:         []inbox.Recipient{{MemberKey: to}},
		Kind:       "chat.notify.private",
		Args:       map[string]string{"name": m.SenderName, "preview": preview(m.Body)},
		When:       m.SentAt,
		Link:       chatURL(ch.RowKey) + "#m-" + fmt.Sprint(m.Seq),
		Key:        fmt.Sprintf("chat.private|%s|%s|%s", ch.RowKey, to, m.SentAt.UTC().Format("2006010215")),
		From:       m.Sender,
		Ref:        quoteRef(ch, m),
		QuoteUntil: expiry(m),
	})
	if err != nil {
		s.logger.WarnContext(ctx, "chat: notice not posted", "chat", ch.RowKey, "err", err)
	}
}

// quoteRef names m in ch for the notices that quote it (inbox.Notice.Ref).
func quoteRef(ch ChatRow, m MessageRow) string { return fmt.Sprintf("%s|%d", ch.RowKey, m.Seq) }

// requote follows an edit (quote, the new preview) or a deletion (quote
// "") of was, a message of ch, in the notices that quote it: the other
// person's in a private chat, and those of the people it mentions
// elsewhere (tellOffline, tellMentioned). It is best-effort, like the
// notices: a failure is logged.
func (s *Service) requote(ctx context.Context, ch ChatRow, was MessageRow, quote string) {
	if s.notifier == nil || was.Type != TypeText {
		return
	}
	var to []string
	if ch.Kind == KindPrivate {
		to = []string{ch.MemberA}
		if was.Sender == ch.MemberA {
			to[0] = ch.MemberB
		}
	} else {
		people, err := s.mentioned(ctx, ch, was.Sender, was.Body)
		if err != nil {
			s.logger.WarnContext(ctx, "chat: mentions not read", "chat", ch.RowKey, "err", err)
			return
		}
		for _, p := range people {
			to = append(to, p.MemberKey)
		}
	}
	for _, who := range to {
		if err := s.notifier.Requote(ctx, who, quoteRef(ch, was), was.SentAt, quote); err != nil {
			s.logger.WarnContext(ctx, "chat: notice not requoted", "chat", ch.RowKey, "err", err)
		}
	}
}

// Quote is what a notice quoting ref (quoteRef) quotes at its delivery
// (inbox.Quotes): the message's start as it is now, ok false once it is
// deleted or expired.
func (s *Service) Quote(ctx context.Context, ref string) (quote string, ok bool, err error) {
	chatID, num, _ := strings.Cut(ref, "|")
	seq, perr := strconv.ParseInt(num, 10, 64)
	if perr != nil {
		return "", false, nil
	}
	m, err := s.log.Message(ctx, chatID, seq)
	if errors.Is(err, ErrNoMessage) || err == nil && m.DeletedAt != nil {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return preview(m.Body), true, nil
}

// expiry is when m expires (zero: never), so the notices quoting it stop
// quoting it then.
func expiry(m MessageRow) time.Time {
	if m.ExpiresAt == nil {
		return time.Time{}
	}
	return *m.ExpiresAt
}

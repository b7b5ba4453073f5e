// Package mail sends Harmony's outgoing email: sign-in codes today,
// notifications later. A Sender delivers one Message; the SMTP sender talks
// to a real server (SMTP_URL), and the development mailbox logs each message
// and keeps the latest ones in memory for the dev-only mailbox page.
package mail

import (
	"context"
	"errors"
	"log/slog"

	"github.com/harmony/harmony/internal/config"
)

// Message is one email. Text is required; HTML, when set, is sent as the
// alternative part that mail clients prefer.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
	// Key, when set, makes a queued send idempotent: the same key sends
	// once (Queued).
	Key string `json:",omitempty"`
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// ErrBadMessage marks a message that cannot be sent as it is: a bad
// recipient, a line break in a header, an empty body.
var ErrBadMessage = errors.New("mail: bad message")

// devMailboxSize is how many messages the development mailbox keeps.
const devMailboxSize = 50

// FromConfig picks the sender the configuration asks for: SMTP when SMTP_URL
// is set, the in-memory development mailbox in development without it, and
// nil in production without it, where nothing can be mailed (callers then
// offer no email features rather than print secrets to a log).
func FromConfig(cfg *config.Config, log *slog.Logger) (Sender, error) {
	if cfg.SMTPURL != "" {
		return NewSMTP(cfg.SMTPURL, "no-reply@"+cfg.BaseURL.Hostname())
	}
	if cfg.IsProduction() {
		return nil, nil
	}
	return NewDevMailbox(log, devMailboxSize), nil
}

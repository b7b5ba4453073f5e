package mail

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DevMailbox is the development sender when no SMTP server is configured:
// it logs each message (so a sign-in code is in the terminal) and keeps the
// latest ones in memory for the dev-only mailbox page. It is never used in
// production.
type DevMailbox struct {
	log  *slog.Logger
	size int
	now  func() time.Time

	mu   sync.Mutex
	mail []Delivered // newest last
}

// Delivered is a message the development mailbox received.
type Delivered struct {
	Message
	At time.Time
}

// NewDevMailbox keeps the last size messages.
func NewDevMailbox(log *slog.Logger, size int) *DevMailbox {
	return &DevMailbox{log: log, size: max(size, 1), now: time.Now}
}

// Send checks m as the SMTP sender would, then logs and keeps it.
func (d *DevMailbox) Send(ctx context.Context, m Message) error {
	if _, err := compose("dev@localhost", m, d.now()); err != nil {
		return err
	}
	d.log.InfoContext(ctx, "development mail (no SMTP_URL set; see /dev/mailbox)",
		"to", m.To, "subject", m.Subject, "text", m.Text)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mail = append(d.mail, Delivered{Message: m, At: d.now()})
	if len(d.mail) > d.size {
		d.mail = append([]Delivered(nil), d.mail[len(d.mail)-d.size:]...)
	}
	return nil
}

// Recent returns the kept messages, newest first.
func (d *DevMailbox) Recent() []Delivered {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Delivered, len(d.mail))
	for i, m := range d.mail {
		out[len(d.mail)-1-i] = m
	}
	return out
}

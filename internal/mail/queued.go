package mail

import (
	"context"
	"errors"

	"github.com/harmony/harmony/internal/tasks"
)

// Queued sends mail through the task queue: Send checks the message and
// stores it as a task, and the queue's drain hands it to the real sender,
// retrying with backoff while the server is away. A request never waits
// on an SMTP server, and a message outlives a restart.
type Queued struct {
	next Sender
	kind tasks.Kind[Message]
}

// QueueKind is the task kind of outgoing mail.
const QueueKind = "mail"

// NewQueued registers the mail task kind on q, delivered by next.
func NewQueued(q *tasks.Queue, next Sender) (*Queued, error) {
	kind, err := tasks.Register(q, QueueKind, func(ctx context.Context, m Message) error {
		err := next.Send(ctx, m)
		if errors.Is(err, ErrBadMessage) {
			return tasks.Permanent(err)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Queued{next: next, kind: kind}, nil
}

// Send queues m, keyed by m.Key when it has one (a second Send with the
// same key within tasks.KeyTTL sends nothing more). A message no server
// would take is refused here, at once.
func (q *Queued) Send(ctx context.Context, m Message) error {
	if err := Check(m); err != nil {
		return err
	}
	return q.kind.Enqueue(ctx, m.Key, m)
}

// Unwrap is the sender that delivers.
func (q *Queued) Unwrap() Sender { return q.next }

// Delivering is the sender under any queue: the one that talks to a
// server or keeps the development mailbox.
func Delivering(s Sender) Sender {
	for {
		u, ok := s.(interface{ Unwrap() Sender })
		if !ok {
			return s
		}
		s = u.Unwrap()
	}
}

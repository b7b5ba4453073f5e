package mail

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/web/webtest"
)

// flaky fails its first sends, as a server that is briefly away.
type flaky struct {
	fails int
	inbox *DevMailbox
}

func (f *flaky) Send(ctx context.Context, m Message) error {
	if f.fails > 0 {
		f.fails--
		return errors.New("dial tcp: connection refused")
	}
	return f.inbox.Send(ctx, m)
}

// Mail goes through the queue: Send returns once the message is stored,
// the drain delivers it, a server that is away is retried, and a message
// no server would take is refused at once with nothing queued.
func TestQueuedMailIsDeliveredByTheDrain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, tasks.Table)
	clock := webtest.NewClock(time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := tasks.New(store, log, tasks.Options{Now: clock.Now})
	server := &flaky{fails: 1, inbox: NewDevMailbox(log, 10)}
	queued, err := NewQueued(q, server)
	if err != nil {
		t.Fatal(err)
	}
	msg := Message{To: "anna@example.org", Subject: "Приглашение", Text: "Ссылка", Key: "invite|g1|anna"}
	if err := queued.Send(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if err := queued.Send(ctx, msg); err != nil { // the same key: once
		t.Fatal(err)
	}
	if n := len(server.inbox.Recent()); n != 0 {
		t.Fatalf("%d messages delivered on the request path", n)
	}
	if rep, err := q.RunDue(ctx); err != nil || rep.Retried != 1 {
		t.Fatalf("first drain with the server away: %+v %v", rep, err)
	}
	clock.Advance(2 * time.Minute)
	if rep, err := q.RunDue(ctx); err != nil || rep.Done != 1 {
		t.Fatalf("retry: %+v %v", rep, err)
	}
	if got := server.inbox.Recent(); len(got) != 1 || got[0].Subject != "Приглашение" {
		t.Fatalf("delivered %+v", got)
	}

	if err := queued.Send(ctx, Message{To: "anna@example.org\r\nBcc: x@example.org", Subject: "x", Text: "x"}); !errors.Is(err, ErrBadMessage) {
		t.Errorf("header injection: %v", err)
	}
	n := 0
	store.Table(tasks.Table).QueryAll(ctx, storage.Query{Scan: true}, func(storage.Entity) error { n++; return nil })
	if n != 1 { // the idempotency key of the delivered message
		t.Errorf("%d rows in the queue, want only the key", n)
	}
}

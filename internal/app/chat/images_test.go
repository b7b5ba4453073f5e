package chat

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// noLog refuses every transaction on the messages table: the log cannot
// take a message.
type noLog struct{ storage.Backend }

var errNoLog = errors.New("the log is unavailable")

func (b noLog) Transact(ctx context.Context, table string, ops []storage.TxOp) error {
	if table == MessagesTable {
		return errNoLog
	}
	return b.Backend.Transact(ctx, table, ops)
}

// TestAPictureWithoutItsMessageIsDeleted: when the message cannot be
// written, the picture stored for it is deleted again, since no message
// would ever show it.
func TestAPictureWithoutItsMessageIsDeleted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.OpenWrapped(t, func(b storage.Backend) storage.Backend { return noLog{b} })
	now := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	a := New(store, nil, func() time.Time { return now }, Options{})
	if err := store.Provision(ctx, a.Tables(), a.Containers()); err != nil {
		t.Fatal(err)
	}
	ch := ChatRow{PartitionKey: "chat|" + KindRoom, RowKey: RoomID("general"), Kind: KindRoom, Name: "general"}
	_, err := a.post(ctx, ch, "#general", Person{MemberKey: "auth:ann", Name: "Ann"}, "a caption", mediatest.EncodedPNG(t, 800, 600), 0)
	if !errors.Is(err, errNoLog) {
		t.Fatalf("post: %v, want the log's refusal", err)
	}
	left, err := a.images.Container.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("pictures left with no message: %v", left)
	}
}

package chat

import (
	"context"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

// TestMarkerMovedBackElsewhere: an instance's copy of a read marker is
// trusted to skip a move for markerTrust only; after "unread from here"
// on another instance sets the row back, the next move here past that
// window reads the row again and lands, so no unread count sticks.
func TestMarkerMovedBackElsewhere(t *testing.T) {
	t.Parallel()
	store := storetest.Open(t)
	now := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	a := New(store, nil, clock, Options{})
	if err := store.Provision(context.Background(), a.Tables(), nil); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ch := ChatRow{PartitionKey: "chat|room", RowKey: RoomID("general"), Kind: KindRoom}
	const who = "auth:ann"
	if err := a.markRead(ctx, who, ch, 5); err != nil {
		t.Fatal(err)
	}
	// Another instance: "unread from here" at message 3.
	if _, err := storage.Modify(ctx, a.userChats, who, ch.RowKey, func(r *UserChatRow, _ bool) error {
		r.ReadSeq = 2
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	readSeq := func() int64 {
		r, err := storage.Get[UserChatRow](ctx, a.userChats, who, ch.RowKey)
		if err != nil {
			t.Fatal(err)
		}
		return r.ReadSeq
	}
	now = now.Add(markerTrust + time.Second)
	if err := a.markRead(ctx, who, ch, 4); err != nil {
		t.Fatal(err)
	}
	if got := readSeq(); got != 4 {
		t.Fatalf("after the trust window the marker is %d, want 4", got)
	}
}

package tasks

import (
	"context"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
	"github.com/harmony/harmony/internal/web/webtest"
)

type mention struct{ Who string }

// A deleted member's reminders, notices and idempotency keys go from the
// queue; what names others stays, and so do the kinds the caller keeps
// (its own task) and a task being run.
func TestForgetMemberDropsTheQueuesRowsNamingThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := storetest.Open(t, Table)
	clock := webtest.NewClock(start)
	q := newQueue(t, store, clock, "a")
	m := memberdata.Member{Key: "auth:01GONE", UserKey: "ab12", Email: "gone@example.org"}
	remind := mustRegister(t, q, "remind", func(context.Context, mention) error { return nil })
	self := mustRegister(t, q, "self", func(context.Context, mention) error { return nil })
	later := clock.Now().Add(24 * time.Hour)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(remind.EnqueueAt(ctx, later, "remind|auth:01GONE|1", mention{"someone"})) // key names them
	must(remind.EnqueueAt(ctx, later, "", mention{"gone@example.org"}))            // payload does
	must(remind.EnqueueAt(ctx, later, "remind|auth:01STAY|1", mention{"auth:01STAY"}))
	must(self.EnqueueAt(ctx, later, "", mention{"auth:01GONE"}))
	must(remind.Enqueue(ctx, "done|auth:01GONE", mention{"x"}))
	if _, err := q.RunDue(ctx); err != nil { // leaves the done task's key
		t.Fatal(err)
	}

	must(q.ForgetMember(ctx, m, "self"))
	var left []string
	err := store.Table(Table).QueryAll(ctx, storage.Query{PartitionKey: partition}, func(e storage.Entity) error {
		kind, _ := e.Props["kind"].(string)
		left = append(left, e.RowKey[:2]+kind)
		return nil
	})
	must(err)
	// The other's key and task, and the caller's own task.
	if len(left) != 3 || rows(t, store, keyPrefix) != 1 || rows(t, store, taskPrefix) != 2 {
		t.Errorf("left %v", left)
	}
	// A second run changes nothing.
	must(q.ForgetMember(ctx, m, "self"))
	if n := rows(t, store, ""); n != 3 {
		t.Errorf("%d rows after a second forget, want 3", n)
	}
}

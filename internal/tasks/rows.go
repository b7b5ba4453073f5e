package tasks

import (
	"fmt"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// The Tasks table is one partition, "q", whose row keys sort the queue:
//
//	t|{ft(due)}|{taskId}   a waiting or claimed task, oldest due first
//	d|{ft(deadAt)}|{taskId} a task that failed for good
//	k|{key}                an idempotency key, pointing at its task
//
// One partition keeps each claim and each enqueue-with-key a single atomic
// batch. Its throughput (thousands of writes a second on Azure) is far
// above Harmony's mail and reminder rate; sharding the partition is the
// next step if it is not.
const (
	partition  = "q"
	taskPrefix = "t|"
	deadPrefix = "d|"
	keyPrefix  = "k|"
)

// TaskRow is one task.
type TaskRow struct {
	ID        string
	ETag      string
	Kind      string
	Key       string
	Payload   []byte
	Attempts  int
	Due       time.Time // next run; for a claimed task, when its lease lapses
	CreatedAt time.Time
	Holder    string
	LastError string
	Dead      bool
}

// rowKey is the task's key for its state: t| while it waits, d| once dead.
func (t TaskRow) rowKey() string {
	prefix := taskPrefix
	if t.Dead {
		prefix = deadPrefix
	}
	return prefix + storage.ForwardTicks(t.Due) + "|" + t.ID
}

func (t TaskRow) entity() (storage.Entity, error) {
	return storage.Entity{
		PartitionKey: partition,
		RowKey:       t.rowKey(),
		Props: map[string]any{
			"kind":      t.Kind,
			"key":       t.Key,
			"payload":   t.Payload,
			"attempts":  int32(t.Attempts),
			"createdAt": t.CreatedAt,
			"holder":    t.Holder,
			"lastError": t.LastError,
		},
	}, nil
}

func taskFromEntity(e storage.Entity) (TaskRow, error) {
	rest, dead := strings.CutPrefix(e.RowKey, deadPrefix)
	if !dead {
		var ok bool
		if rest, ok = strings.CutPrefix(e.RowKey, taskPrefix); !ok {
			return TaskRow{}, fmt.Errorf("tasks: row key %q is not a task's", e.RowKey)
		}
	}
	ticks, id, ok := strings.Cut(rest, "|")
	if !ok || len(ticks) != 19 || id == "" {
		return TaskRow{}, fmt.Errorf("tasks: row key %q is not a task's", e.RowKey)
	}
	var n int64
	if _, err := fmt.Sscanf(ticks, "%d", &n); err != nil {
		return TaskRow{}, fmt.Errorf("tasks: row key %q: %w", e.RowKey, err)
	}
	t := TaskRow{ID: id, ETag: e.ETag, Dead: dead, Due: storage.TimeFromTicks(n)}
	t.Kind, _ = e.Props["kind"].(string)
	t.Key, _ = e.Props["key"].(string)
	t.Payload, _ = e.Props["payload"].([]byte)
	t.Holder, _ = e.Props["holder"].(string)
	t.LastError, _ = e.Props["lastError"].(string)
	t.CreatedAt, _ = e.Props["createdAt"].(time.Time)
	switch a := e.Props["attempts"].(type) {
	case int32:
		t.Attempts = int(a)
	case int64:
		t.Attempts = int(a)
	}
	return t, nil
}

// KeyRow records an idempotency key. It is kept for KeyTTL after its
// task was enqueued and after it was due, whichever is later: a task
// queued months ahead (a reminder) keeps its key until it has run.
type KeyRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	TaskID       string    `table:"taskId"`
	CreatedAt    time.Time `table:"createdAt"`
	// Due is the task's due time when it was enqueued (zero in keys
	// written before it was recorded: they go KeyTTL after CreatedAt).
	Due time.Time `table:"due"`
}

// keyRowKey is an idempotency key's row key.
func keyRowKey(key string) string { return keyPrefix + storage.EscapeKey(key) }

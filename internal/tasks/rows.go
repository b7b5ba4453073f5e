package tasks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/storage"
)

// The Tasks table is one partition, "q", whose row keys sort the queue:
//
//	t|{ft(due)}|{taskId}    a waiting or claimed task, oldest due first
//	d|{rt(deadAt)}|{taskId} a task that failed for good, newest first
//	k|{key}                 an idempotency key, pointing at its task
//
// Dead rows written before they sorted newest first have forward ticks
// (d|{ft(deadAt)}|…, below 10^18 where reverse ticks are above it, so
// they sort first); Purge moves them to their reverse key.
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
	// legacyDeadBelow: a dead row's ticks below it are forward ticks (a
	// forward tick count passes 10^18 in the year 3169; a reverse one falls
	// below it in 6830).
	legacyDeadBelow = 1_000_000_000_000_000_000
	// legacyDeadPrefix starts every dead row of the forward-ticks keys.
	legacyDeadPrefix = deadPrefix + "0"
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
	// readAs is the key the row was read under, when that is not rowKey
	// (a dead row of the forward-ticks keys); "" otherwise.
	readAs string
}

// rowKey is the task's key for its state: t| while it waits, d| once dead.
func (t TaskRow) rowKey() string {
	if t.Dead {
		return deadPrefix + storage.ReverseTicks(t.Due) + "|" + t.ID
	}
	return taskPrefix + storage.ForwardTicks(t.Due) + "|" + t.ID
}

// storedKey is the key the row is stored under.
func (t TaskRow) storedKey() string {
	if t.readAs != "" {
		return t.readAs
	}
	return t.rowKey()
}

// Running says the task is being run now: claimed, its lease not lapsed.
func (t TaskRow) Running(now time.Time) bool {
	return !t.Dead && t.Holder != "" && t.Due.After(now)
}

// Ref names a dead task in the admin page's addresses and in "web tasks
// retry": its row key with "-" for "|", so it is read with one point
// read. ParseRef takes it back.
func (t TaskRow) Ref() string { return strings.ReplaceAll(t.storedKey(), "|", "-") }

// refLen is the length of a Ref: "d-", 19 digits, "-", a 26-letter ULID.
const refLen = 2 + 19 + 1 + 26

// parseRef is the dead row key ref names, or ErrNoTask for anything that
// is not a dead task's ref.
func parseRef(ref string) (string, error) {
	if len(ref) != refLen || ref[:2] != "d-" || ref[21] != '-' {
		return "", ErrNoTask
	}
	for _, c := range ref[2:21] {
		if c < '0' || c > '9' {
			return "", ErrNoTask
		}
	}
	if _, err := ulid.ParseStrict(ref[22:]); err != nil {
		return "", ErrNoTask
	}
	return deadPrefix + ref[2:21] + "|" + ref[22:], nil
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
	n, err := strconv.ParseInt(ticks, 10, 64)
	if err != nil {
		return TaskRow{}, fmt.Errorf("tasks: row key %q: %w", e.RowKey, err)
	}
	t := TaskRow{ID: id, ETag: e.ETag, Dead: dead, Due: storage.TimeFromTicks(n)}
	if dead && n >= legacyDeadBelow {
		if t.Due, err = storage.TimeFromReverseTicks(ticks); err != nil {
			return TaskRow{}, err
		}
	}
	if t.rowKey() != e.RowKey {
		t.readAs = e.RowKey
	}
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

package tasks

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// ForgetMember deletes the queue's rows that name m (their memberKey,
// userKey or email, in a key or a payload), for an account being deleted:
// idempotency keys, tasks waiting (a reminder to them, a notice from
// them) and dead ones. A task being run (claimed, its lease not lapsed)
// is left to its run, which deletes its row when done, and so are the
// tasks of the kinds in except (the one that calls this). It reads the
// queue's one partition whole: a deletion is rare, and the partition
// holds only what is waiting and the keys of the last KeyTTL. A rerun
// finishes a run cut short.
func (q *Queue) ForgetMember(ctx context.Context, m memberdata.Member, except ...string) error {
	var needles []string
	for _, s := range []string{m.Key, m.UserKey, m.Email} {
		if s != "" {
			needles = append(needles, s, storage.EscapeKey(s))
		}
	}
	if len(needles) == 0 {
		return nil
	}
	names := func(s string) bool {
		for _, n := range needles {
			if strings.Contains(s, n) {
				return true
			}
		}
		return false
	}
	now := q.opts.Now().UTC()
	type row struct{ rk, etag string }
	var doomed []row
	err := q.table.QueryAll(ctx, storage.Query{PartitionKey: partition}, func(e storage.Entity) error {
		if strings.HasPrefix(e.RowKey, taskPrefix) {
			t, err := taskFromEntity(e)
			if err != nil {
				return err
			}
			if t.Holder != "" && t.Due.After(now) || slices.Contains(except, t.Kind) {
				return nil // being run, or the caller
			}
		}
		hit := names(e.RowKey)
		for _, v := range e.Props {
			switch v := v.(type) {
			case string:
				hit = hit || names(v)
			case []byte:
				hit = hit || names(string(v))
			}
		}
		if hit {
			doomed = append(doomed, row{e.RowKey, e.ETag})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range doomed {
		// At its ETag: a task claimed since it was read runs after all.
		err := q.table.Delete(ctx, partition, r.rk, r.etag)
		if err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrPrecondition) {
			return err
		}
	}
	return nil
}

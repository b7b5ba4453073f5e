package store

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// "Tell me when it's back": someone asks on a sold-out item's page
// (StoreAlerts, the item's partition, a row each), and the update that
// brings it back posts one notice to them all through the inbox (which
// emails those who want the store's news by email) and deletes their
// rows, a transaction per hundred.

// ErrAvailable refuses an alert on an item one can buy now (409).
var ErrAvailable = fault.New(http.StatusConflict, "store.error.available", "store: the item is available")

// Watch asks (on) or stops asking (off) to be told when id is back.
func (s *Service) Watch(ctx context.Context, id, memberKey string, on bool) (ItemRow, error) {
	it, err := s.Item(ctx, id)
	if err != nil {
		return it, err
	}
	if !on {
		return it, storage.Forget(ctx, s.alerts, id, memberKey)
	}
	if it.available() {
		return it, ErrAvailable
	}
	_, err = storage.Upsert(ctx, s.alerts, AlertRow{PartitionKey: id, RowKey: memberKey, At: s.now().UTC()})
	return it, err
}

// Watching reports whether memberKey asked to hear when id is back.
func (s *Service) Watching(ctx context.Context, id, memberKey string) (bool, error) {
	return storage.Exists(ctx, s.alerts, id, memberKey)
}

// tellItIsBack tells those who asked that it is back, and forgets their
// asking. Before the notice it queues what finishes it (backTask), so a
// notice or a forgetting that fails, or a crash between them, is
// finished a minute later; the failure is logged. A failure to read
// who asked, or to queue, leaves the rows: web reindex store tells
// them.
func (s *Service) tellItIsBack(ctx context.Context, it ItemRow) {
	if s.notifier == nil {
		return
	}
	waiting, err := storage.All[AlertRow](ctx, s.alerts, storage.Query{PartitionKey: it.RowKey})
	if err != nil || len(waiting) == 0 {
		if err != nil {
			s.log.WarnContext(ctx, "store: alerts not read", "item", it.RowKey, "err", err)
		}
		return
	}
	t := backTask{ID: it.RowKey, Key: "store-back|" + it.RowKey + "|" + it.ETag, Asked: s.now().UTC()}
	for _, a := range waiting {
		t.To = append(t.To, a.RowKey)
	}
	s.queueBack(ctx, t)
	if err := s.tellBack(ctx, it, t.Key, waiting); err != nil {
		s.log.WarnContext(ctx, "store: back-in-stock notice not posted", "item", it.RowKey, "err", err)
	}
}

// backTask finishes telling the people To that item ID is back: the
// notice at Key (which posts nothing when it went out) to those of them
// still asking, then the forgetting of their asking, unless they asked
// again after Asked.
type backTask struct {
	ID    string
	Key   string
	To    []string
	Asked time.Time
}

// tellLater is when a restock's queued backTask runs, in case the
// restock's own try did not finish.
const tellLater = time.Minute

// queueBack queues t, keyed by its notice (the task's key and the
// notice's share the queue's keys, so they differ). A failure is logged
// (web reindex store tells whoever still waits).
func (s *Service) queueBack(ctx context.Context, t backTask) {
	if s.backs == nil {
		return
	}
	if err := s.backs.EnqueueAt(ctx, s.now().Add(tellLater), "store.back|"+t.Key, t); err != nil {
		s.log.WarnContext(ctx, "store: back-in-stock notice not queued", "item", t.ID, "err", err)
	}
}

// backQueued runs a backTask. An item gone is its burial's (which
// forgets every alert); an item sold out again keeps those asking, to
// be told at its next return (its notice may have gone out, and then
// they hear twice, never not at all).
func (s *Service) backQueued(ctx context.Context, t backTask) error {
	it, err := s.Item(ctx, t.ID)
	switch {
	case errors.Is(err, ErrNoItem):
		return nil
	case err != nil:
		return err
	case !it.available() || s.notifier == nil:
		return nil
	}
	asked := make(map[string]bool, len(t.To))
	for _, to := range t.To {
		asked[to] = true
	}
	waiting, err := storage.All[AlertRow](ctx, s.alerts, storage.Query{PartitionKey: t.ID})
	if err != nil {
		return err
	}
	told := slices.DeleteFunc(waiting, func(a AlertRow) bool { return !asked[a.RowKey] || a.At.After(t.Asked) })
	if len(told) == 0 {
		return nil
	}
	return s.tellBack(ctx, it, t.Key, told)
}

// tellBack posts the notice that it is back, at key, to those of told
// and forgets their asking.
func (s *Service) tellBack(ctx context.Context, it ItemRow, key string, told []AlertRow) error {
	n := inbox.Notice{Kind: "store.notify.back", Args: map[string]string{"title": it.Title}, Link: itemURL(it.RowKey), When: s.now(), Key: key}
	for _, a := range told {
		n.To = append(n.To, inbox.Recipient{MemberKey: a.RowKey})
	}
	if err := s.notifier.Post(ctx, n); err != nil {
		return err
	}
	return s.deleteAlerts(ctx, it.RowKey, told)
}

// deleteAlerts deletes rows of id's partition, a transaction per
// hundred.
func (s *Service) deleteAlerts(ctx context.Context, id string, rows []AlertRow) error {
	for batch := range slices.Chunk(rows, storage.MaxTxOps) {
		var tx storage.Tx
		for _, a := range batch {
			tx.Delete(id, a.RowKey, storage.AnyETag)
		}
		if err := tx.Commit(ctx, s.alerts); err != nil {
			return err
		}
	}
	return nil
}

// tellTheMissed tells the people waiting for an item one can buy, and
// forgets the alerts of items gone: what a restock or a deletion that
// stopped half way left. It returns how many items' people it told.
func (s *Service) tellTheMissed(ctx context.Context) (int, error) {
	var ids []string
	err := s.alerts.QueryAll(ctx, storage.Query{Scan: true, Select: []string{"PartitionKey"}}, func(e storage.Entity) error {
		if len(ids) == 0 || ids[len(ids)-1] != e.PartitionKey {
			ids = append(ids, e.PartitionKey)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	told := 0
	for _, id := range ids {
		it, err := s.Item(ctx, id)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			if err := storage.DeletePartition(ctx, s.alerts, id); err != nil {
				return told, err
			}
		case err != nil:
			return told, err
		case it.available():
			s.tellItIsBack(ctx, it)
			told++
		}
	}
	return told, nil
}

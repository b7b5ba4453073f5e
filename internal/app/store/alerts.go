package store

import (
	"context"
	"errors"
	"net/http"

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
// asking. A failure is logged: the rows stay, and the next return tells
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
	n := inbox.Notice{Kind: "store.notify.back", Args: map[string]string{"title": it.Title}, Link: itemURL(it.RowKey), When: s.now(), Key: "store-back|" + it.RowKey + "|" + it.ETag}
	for _, a := range waiting {
		n.To = append(n.To, inbox.Recipient{MemberKey: a.RowKey})
	}
	if err := s.notifier.Post(ctx, n); err != nil {
		s.log.WarnContext(ctx, "store: back-in-stock notice not posted", "item", it.RowKey, "err", err)
		return
	}
	s.deleteAlerts(ctx, it.RowKey, waiting)
}

// dropAlerts forgets every alert of a deleted item.
func (s *Service) dropAlerts(ctx context.Context, id string) {
	waiting, err := storage.All[AlertRow](ctx, s.alerts, storage.Query{PartitionKey: id})
	if err != nil {
		s.log.WarnContext(ctx, "store: alerts not read", "item", id, "err", err)
		return
	}
	s.deleteAlerts(ctx, id, waiting)
}

// deleteAlerts deletes rows of id's partition, a transaction per
// hundred; a failure is logged (a row left tells its person again at the
// next return, or stays with a deleted item, unread).
func (s *Service) deleteAlerts(ctx context.Context, id string, rows []AlertRow) {
	for start := 0; start < len(rows); start += 100 {
		var tx storage.Tx
		for _, a := range rows[start:min(start+100, len(rows))] {
			tx.Delete(id, a.RowKey, storage.AnyETag)
		}
		if err := tx.Commit(ctx, s.alerts); err != nil {
			s.log.WarnContext(ctx, "store: alerts not deleted", "item", id, "err", err)
		}
	}
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
			s.dropAlerts(ctx, id)
		case err != nil:
			return told, err
		case it.available():
			s.tellItIsBack(ctx, it)
			told++
		}
	}
	return told, nil
}

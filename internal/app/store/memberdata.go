package store

import (
	"context"
	"errors"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account: the store keeps of a member only their "Tell me
// when it's back" alerts (StoreAlerts, RK their memberKey), which go.
// Items are the admins' and name nobody; nobody buys here (the buy link
// leads to the official store), so there are no carts or orders to keep.

// alertsOf is the query of memberKey's alerts, on every item: a scan.
func alertsOf(memberKey string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "RowKey", Op: storage.Eq, Value: memberKey}}}
}

// exportedAlert is an alert as the member's archive holds it.
type exportedAlert struct {
	Item  string    `json:"item_id"`
	Title string    `json:"item_title,omitempty"`
	Asked time.Time `json:"asked"`
}

// ExportMember writes the items m asked to hear of into store/alerts.json.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	alerts, err := storage.All[AlertRow](ctx, s.alerts, alertsOf(m.Key))
	if err != nil {
		return err
	}
	out := make([]exportedAlert, 0, len(alerts))
	for _, a := range alerts {
		it, err := s.Item(ctx, a.PartitionKey)
		if err != nil && !errors.Is(err, ErrNoItem) {
			return err
		}
		out = append(out, exportedAlert{Item: a.PartitionKey, Title: it.Title, Asked: a.At})
	}
	return to.JSON("store/alerts.json", out)
}

// ForgetMember deletes m's alerts, one at a time: a run cut short leaves
// the rest to the next.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	return s.alerts.QueryAll(ctx, alertsOf(m.Key), func(e storage.Entity) error {
		return storage.Forget(ctx, s.alerts, e.PartitionKey, e.RowKey)
	})
}

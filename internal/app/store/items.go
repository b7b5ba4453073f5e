package store

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/tasks"
)

// FieldErrors are a refused item form's errors by field.
type FieldErrors = formrule.FieldErrors

// Limits of an item.
const (
	MaxPriceCents = 100_000_000
	MaxStock      = 1_000_000
)

// Form rules of an item's fields.
var (
	titleRule       = formrule.Text{Max: 120, Required: true}
	descriptionRule = formrule.Text{Max: 5000, Multiline: true}
	buyURLRule      = formrule.Text{Max: 500}
)

// ErrNoItem is an item that is not there (or not for this reader).
var ErrNoItem = fault.NotFound("store: no such item", storage.ErrNotFound)

// Input is the item form as typed.
type Input struct {
	Title       string `form:"title"`
	Description string `form:"description"`
	Category    string `form:"category"`
	Price       string `form:"price"`
	Currency    string `form:"currency"`
	// Stock is how many are left; "" is not counted (made to order).
	Stock       string `form:"stock"`
	BuyURL      string `form:"buyUrl"`
	Shown       bool   `form:"shown"`
	RemoveImage bool   `form:"removeImage"`
	// Image is an uploaded picture (nil: keep the one there is).
	Image []byte
}

// item is a checked form.
type item struct {
	Card
	description, buyURL string
	image               *media.Result
}

// check reads the form; a refused picture is a field error like the
// others.
func (s *Service) check(ctx context.Context, in Input) (item, error) {
	errs := FieldErrors{}
	var it item
	it.Title = errs.Check("title", titleRule, in.Title, "store.error.title")
	it.description = errs.Check("description", descriptionRule, in.Description, "store.error.description")
	// Any department made: the form offers the active ones and the
	// item's own, which it keeps though retired (as events do).
	_, known, err := s.Departments.Find(ctx, in.Category)
	if err != nil {
		return item{}, err
	}
	if it.Category = in.Category; !known {
		errs["category"] = "store.error.category"
	}
	var priceOK, currencyOK bool
	it.PriceCents, it.Currency, priceOK, currencyOK = formrule.Money(in.Price, in.Currency, MaxPriceCents)
	if !priceOK || strings.TrimSpace(in.Price) == "" {
		errs["price"] = "store.error.price"
	}
	if !currencyOK {
		errs["currency"] = "store.error.currency"
	}
	if v := strings.TrimSpace(in.Stock); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxStock {
			errs["stock"] = "store.error.stock"
		}
		it.Stock, it.Tracked = n, true
	}
	it.buyURL = errs.Check("buyUrl", buyURLRule, in.BuyURL, "store.error.buy_url")
	if it.buyURL != "" {
		u, err := url.Parse(it.buyURL)
		if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || u.User != nil {
			errs["buyUrl"] = "store.error.buy_url"
		}
	}
	it.Shown = in.Shown
	if it.image, err = s.pictures.FormPicture(ctx, in.Image, "image", &errs); err != nil {
		return item{}, err
	}
	if len(errs) > 0 {
		return item{}, errs
	}
	return it, nil
}

// apply puts the checked form into row, keeping what the form does not
// say (its picture, when it was made).
func (it item) apply(row *ItemRow, now time.Time) {
	image, created := row.ImageKey, row.CreatedAt
	row.Card = it.Card
	row.ImageKey, row.CreatedAt = image, created
	row.Description, row.BuyURL, row.UpdatedAt = it.description, it.buyURL, now
}

// Create adds an item. A bad form or picture writes nothing.
func (s *Service) Create(ctx context.Context, in Input) (ItemRow, error) {
	it, err := s.check(ctx, in)
	if err != nil {
		return ItemRow{}, err
	}
	now := s.now().UTC()
	row := ItemRow{PartitionKey: itemsPart, RowKey: ulid.Make().String()}
	row.CreatedAt = now
	it.apply(&row, now)
	if it.image != nil {
		if row.ImageKey, err = s.pictures.Put(ctx, row.RowKey, *it.image); err != nil {
			return ItemRow{}, err
		}
	}
	if err := s.cards.Intend(&row); err != nil {
		return ItemRow{}, err
	}
	if row.ETag, err = storage.Insert(ctx, s.items, row); err != nil {
		s.pictures.Delete(ctx, row.ImageKey)
		return ItemRow{}, err
	}
	if err := s.cards.Sync(ctx, nil, &row); err != nil {
		return row, s.behind(ctx, errors.Join(projection.ErrBehind, err), row.RowKey)
	}
	return row, nil
}

// Update changes an item. One that comes back (shown and in stock after
// being sold out or hidden) tells those who asked to hear of it.
func (s *Service) Update(ctx context.Context, id string, in Input) (ItemRow, error) {
	it, err := s.check(ctx, in)
	if err != nil {
		return ItemRow{}, err
	}
	if !storage.IsID(id) {
		return ItemRow{}, ErrNoItem
	}
	newKey, oldKey := "", ""
	if it.image != nil {
		if newKey, err = s.pictures.Put(ctx, id, *it.image); err != nil {
			return ItemRow{}, err
		}
	}
	var wasAvailable bool
	row, err := s.cards.Change(ctx, itemsPart, id, ErrNoItem, func(row *ItemRow) error {
		if row.Deleted {
			return ErrNoItem
		}
		wasAvailable, oldKey = row.available(), ""
		it.apply(row, s.now().UTC())
		switch {
		case newKey != "":
			oldKey, row.ImageKey = row.ImageKey, newKey
		case in.RemoveImage:
			oldKey, row.ImageKey = row.ImageKey, ""
		}
		return nil
	})
	if err := s.behind(ctx, err, id); err != nil {
		s.pictures.Delete(ctx, newKey)
		return row, err
	}
	s.pictures.Delete(ctx, oldKey)
	if !wasAvailable && row.available() {
		s.tellItIsBack(ctx, row)
	}
	return row, nil
}

// available reports whether someone can buy it: shown, and not sold out.
func (it ItemRow) available() bool { return it.Shown && !it.SoldOut() }

// behind is err as a write of item id answers it (projection.Stood):
// one whose item stands but whose cards did not follow is logged (web
// reindex store finishes them), since the admin's change is saved.
func (s *Service) behind(ctx context.Context, err error, id string) error {
	return projection.Stood(ctx, s.log, err, "store: cards not written", "item", id)
}

// Item reads one item (one being deleted is not there).
func (s *Service) Item(ctx context.Context, id string) (ItemRow, error) {
	it, err := s.stored(ctx, id)
	if err == nil && it.Deleted {
		return ItemRow{}, ErrNoItem
	}
	return it, err
}

// stored reads item id's row as it stands, one being deleted too.
func (s *Service) stored(ctx context.Context, id string) (ItemRow, error) {
	if !storage.IsID(id) {
		return ItemRow{}, ErrNoItem
	}
	return storage.Find[ItemRow](ctx, s.items, itemsPart, id, ErrNoItem)
}

// Delete removes item id for good. A burial is queued first (due in
// buryLater), so a delete cut short at any later step finishes by
// itself. Then the item is marked deleted, the canonical write: from
// then on it is gone for everyone and its cards go. Then what it leaves
// goes, and its row last (bury). Deleting the item again, or web
// reindex store, finishes one whose burial was not queued; until then
// its leftovers are logged and the delete stands.
func (s *Service) Delete(ctx context.Context, id string) error {
	if !storage.IsID(id) {
		return ErrNoItem
	}
	s.queueBurial(ctx, id)
	row, err := s.cards.Change(ctx, itemsPart, id, ErrNoItem, func(it *ItemRow) error {
		if it.Deleted {
			return storage.ErrNoChange
		}
		it.Deleted, it.UpdatedAt = true, s.now().UTC()
		return nil
	})
	if err := s.behind(ctx, err, id); err != nil {
		return err
	}
	if err := s.bury(ctx, row); err != nil {
		s.log.WarnContext(ctx, "store: a deleted item's pictures stay", "item", id, "err", err)
	}
	return nil
}

// buryLater is when a deleted item's queued burial runs, in case the
// delete's own did not finish (Delete); it also sweeps what raced the
// delete (a picture uploaded or an alert asked for as the item went).
const buryLater = time.Minute

// burial is the task that finishes deleting item ID.
type burial struct{ ID string }

// UseTasks registers on q the burial that finishes an item's deletion,
// and the task that finishes a restock's notice (backTask). Call it
// while wiring; without it the delete's or restock's own try, deleting
// again and the rebuild finish them.
func (s *Service) UseTasks(q *tasks.Queue) error {
	return errors.Join(
		tasks.Into(q, &s.burials, "store.bury", s.buryQueued),
		tasks.Into(q, &s.backs, "store.back", s.backQueued),
	)
}

// queueBurial queues the burial of item id, about to be marked
// deleted: keyed by the try, since a burial that found its item not
// marked (its mark failed) is done, and the next try needs its own. A
// failure is logged (deleting the item again, or web reindex store,
// finishes it).
func (s *Service) queueBurial(ctx context.Context, id string) {
	s.burials.Later(ctx, s.now().Add(buryLater), id, burial{ID: id}, s.log, "store: a deleted item's burial not queued", "item", id)
}

// buryQueued runs a burial: an item marked deleted is buried, and what
// hangs on a gone item's id goes. An item not marked is one whose mark
// failed: nothing goes.
func (s *Service) buryQueued(ctx context.Context, b burial) error {
	it, err := s.stored(ctx, b.ID)
	switch {
	case errors.Is(err, ErrNoItem):
		return s.forget(ctx, b.ID)
	case err == nil && it.Deleted:
		return s.bury(ctx, it)
	}
	return err
}

// bury removes what item it, marked deleted, leaves, then its row: each
// step may run again, and the row, which names the rest, goes last.
func (s *Service) bury(ctx context.Context, it ItemRow) error {
	if err := s.forget(ctx, it.RowKey); err != nil {
		return err
	}
	return s.behind(ctx, s.cards.Delete(ctx, it), it.RowKey)
}

// forget removes what item id leaves when it goes: every picture in its
// folder (its own, the more ones with their rows, any an upload cut
// short left) and its alerts. A failure stops it, so bury keeps the
// item's row (which the rebuild finds) and a queued burial fails and
// is tried again: no alert stays behind an item gone.
func (s *Service) forget(ctx context.Context, id string) error {
	if err := s.more.DeleteAll(ctx, id); err != nil {
		return err
	}
	return storage.DeletePartition(ctx, s.alerts, id)
}

// Page is one page of cards.
type Page = storage.Rows[CardRow]

// List reads a page of the items shown (of a category, when category is
// not ""), newest first: one query of one partition.
func (s *Service) List(ctx context.Context, category string, limit int, next *storage.Continuation) (Page, error) {
	pk := allPart
	if category != "" {
		pk = catPrefix + category
	}
	return storage.TakeRows[CardRow](ctx, s.index, storage.Query{PartitionKey: pk, Limit: limit, Continuation: next}, limit)
}

// Hidden are the items not shown, newest first, at most limit (admins).
func (s *Service) Hidden(ctx context.Context, limit int) ([]CardRow, error) {
	rows, _, err := storage.Take[CardRow](ctx, s.index, storage.Query{PartitionKey: hiddenPart, Limit: limit}, limit)
	return rows, err
}

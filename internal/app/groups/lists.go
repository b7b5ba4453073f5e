package groups

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// A group's shared lists (the shopping, things to do before a trip), as
// Cozi and TimeTree keep them: every member reads them, adds to them and
// ticks items off.
//
// GroupLists holds a group's lists in its partition (RowKey `l|{listId}`)
// beside a head row (`n`) that counts them; GroupListItems holds a list's
// items in the list's partition (RowKey `i|{seq}`, seq the head's counter,
// so keys are in the order added) beside its own head (`n`: how many
// items, how many not ticked, the last seq). Every write that adds or
// takes away rows writes its partition's head in the same transaction at
// the head's ETag, so the bounds hold across instances and the counts
// never drift.
const (
	listsTable     = "GroupLists"
	listItemsTable = "GroupListItems"
)

// Bounds of the lists.
const (
	MaxLists        = 50
	MaxListItems    = 500
	MaxListName     = 60
	MaxListItemText = 200
	// buryListAfter is when a deleted list's queued burial runs, in case
	// the delete's own did not finish (DeleteList).
	buryListAfter = time.Minute
)

// headKey is the RowKey of a partition's head row, in both tables.
const headKey = "n"

// Key prefixes of the rows a head counts.
const (
	listKeyPrefix = "l|"
	itemKeyPrefix = "i|"
)

// listKey is the GroupLists key of a list.
func listKey(groupID, listID string) (pk, rk string) { return groupID, listKeyPrefix + listID }

// itemKey is the GroupListItems key of a list's item, by its number.
func itemKey(listID, itemID string) (pk, rk string) { return listID, itemKeyPrefix + itemID }

// itemID is the number of the seq'th item as its key and URL carry it:
// zero-padded, so keys sort in the order added.
func itemID(seq int64) string { return storage.Pad(seq, 10) }

// validItemID reports whether s is an item number as itemID writes it.
func validItemID(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// headRow is a partition's head: how many rows it holds (Count), and for
// a list's items how many are not ticked (Open) and the last number given
// (Seq).
type headRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Count        int    `table:"count"`
	Open         int    `table:"open"`
	Seq          int64  `table:"seq"`
}

// ListRow is one list of a group.
type ListRow struct {
	PartitionKey string    `table:"PartitionKey"` // groupId
	RowKey       string    `table:"RowKey"`       // l|{listId}
	ETag         string    `table:"ETag"`
	ListID       string    `table:"listId"`
	Name         string    `table:"name"`
	CreatedAt    time.Time `table:"createdAt"`
	UpdatedAt    time.Time `table:"updatedAt"`
	// CreatedBy is the memberKey of who started it: they and the owners
	// delete it.
	CreatedBy string `table:"createdBy"`
	// Deleting marks a list on its way out: hidden from everyone, its
	// items going, the row last (buryList).
	Deleting bool `table:"deleting"`
}

// ListItemRow is one item of a list.
type ListItemRow struct {
	PartitionKey string    `table:"PartitionKey"` // listId
	RowKey       string    `table:"RowKey"`       // i|{seq}
	ETag         string    `table:"ETag"`
	Text         string    `table:"text"`
	AddedAt      time.Time `table:"addedAt"`
	AddedBy      string    `table:"addedBy"`
	Ticked       bool      `table:"ticked"`
	// TickedAt, TickedBy (a memberKey) and TickedByName (their name
	// then) say who ticked it off; kept while it stays ticked.
	TickedAt     *time.Time `table:"tickedAt"`
	TickedBy     string     `table:"tickedBy"`
	TickedByName string     `table:"tickedByName"`
	UpdatedAt    time.Time  `table:"updatedAt"`
}

// ID is the item's number (its URL's).
func (r ListItemRow) ID() string { return r.RowKey[len(itemKeyPrefix):] }

// Errors of the lists.
var (
	// ErrNoList is a list that does not exist in the group, or is being
	// deleted.
	ErrNoList = fault.NotFound("groups: no such list", storage.ErrNotFound)
	// ErrNoListItem is an item that is not on the list.
	ErrNoListItem = fault.NotFound("groups: no such list item", storage.ErrNotFound)
	// ErrTooManyLists refuses a group's list past MaxLists.
	ErrTooManyLists = fault.New(http.StatusUnprocessableEntity, "groups.lists.error.too_many_lists", "groups: too many lists")
	// ErrListFull refuses an item past MaxListItems.
	ErrListFull = fault.New(http.StatusUnprocessableEntity, "groups.lists.error.full", "groups: the list is full")
	// ErrNotListCreator refuses deleting a list to someone who neither
	// started it nor owns the group.
	ErrNotListCreator = fault.New(http.StatusForbidden, "groups.lists.error.not_creator", "groups: only who started the list or an owner deletes it")
)

// The rules of what people type.
var (
	listNameRule = formrule.Text{Max: MaxListName, Required: true}
	itemTextRule = formrule.Text{Max: MaxListItemText, Required: true}
)

// The form fields and their own wording.
const (
	ListNameField = "name"
	ItemTextField = "text"
)

// checkListName and checkItemText clean what was typed, or refuse it as
// formrule.FieldErrors (nothing is written then).
func checkListName(name string) (string, error) {
	errs := formrule.FieldErrors{}
	name = errs.Check(ListNameField, listNameRule, name, "groups.lists.error.name")
	return name, refused(errs)
}

func checkItemText(text string) (string, error) {
	errs := formrule.FieldErrors{}
	text = errs.Check(ItemTextField, itemTextRule, text, "groups.lists.error.text")
	return text, refused(errs)
}

// refused is errs as an error, nil when it holds none.
func refused(errs formrule.FieldErrors) error {
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// counted runs change on partition pk of t with its head row in an
// optimistic loop: change reads what it needs, edits the head and adds its
// operations to tx, and the head goes in the same transaction at the ETag
// it was read at (inserted when the partition has none yet). change may
// run more than once; storage.ErrNoChange from it writes nothing.
func counted(ctx context.Context, t *storage.Table, pk string, change func(ctx context.Context, head *headRow, tx *storage.Tx) error) error {
	return storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		head, err := storage.Get[headRow](ctx, t, pk, headKey)
		exists := err == nil
		if errors.Is(err, storage.ErrNotFound) {
			head, err = headRow{PartitionKey: pk, RowKey: headKey}, nil
		}
		if err != nil {
			return err
		}
		var tx storage.Tx
		if err := change(ctx, &head, &tx); errors.Is(err, storage.ErrNoChange) {
			return nil
		} else if err != nil {
			return err
		}
		if exists {
			tx.Replace(head, head.ETag)
		} else {
			tx.Insert(head)
		}
		return tx.Commit(ctx, t)
	})
}

// ListSummary is a list as the group's Lists tab shows it.
type ListSummary struct {
	ListRow
	Items, Open int
}

// Lists are group m's lists, oldest first, with their counts: one query
// of the group's partition and a point read of each list's head.
func (s *Service) Lists(ctx context.Context, m Membership) ([]ListSummary, error) {
	rows, err := storage.All[ListRow](ctx, s.lists, storage.Query{PartitionKey: m.GroupID, RowKeyPrefix: listKeyPrefix})
	if err != nil {
		return nil, err
	}
	rows = slices.DeleteFunc(rows, func(r ListRow) bool { return r.Deleting })
	slices.SortStableFunc(rows, func(a, b ListRow) int { return a.CreatedAt.Compare(b.CreatedAt) })
	out := make([]ListSummary, len(rows))
	err = storage.Each(ctx, len(rows), metaReads, func(ctx context.Context, i int) error {
		out[i].ListRow = rows[i]
		head, err := storage.Get[headRow](ctx, s.listItems, rows[i].ListID, headKey)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		out[i].Items, out[i].Open = head.Count, head.Open
		return err
	})
	return out, err
}

// List reads list listID of group m, which must not be on its way out.
func (s *Service) List(ctx context.Context, m Membership, listID string) (ListRow, error) {
	if !storage.IsID(listID) {
		return ListRow{}, ErrNoList
	}
	pk, rk := listKey(m.GroupID, listID)
	row, err := storage.Find[ListRow](ctx, s.lists, pk, rk, ErrNoList)
	if err == nil && row.Deleting {
		return ListRow{}, ErrNoList
	}
	return row, err
}

// CreateList starts a list named name in group m, as id: the list row and
// the group's count in one transaction, refused past MaxLists.
func (s *Service) CreateList(ctx context.Context, m Membership, id *auth.Identity, name string) (ListRow, error) {
	name, err := checkListName(name)
	if err != nil {
		return ListRow{}, err
	}
	now := s.now().UTC()
	listID := newGroupID()
	pk, rk := listKey(m.GroupID, listID)
	row := ListRow{PartitionKey: pk, RowKey: rk, ListID: listID, Name: name, CreatedAt: now, UpdatedAt: now, CreatedBy: id.MemberKey}
	err = counted(ctx, s.lists, m.GroupID, func(_ context.Context, head *headRow, tx *storage.Tx) error {
		if head.Count >= MaxLists {
			return ErrTooManyLists
		}
		head.Count++
		tx.Insert(row)
		return nil
	})
	if err == nil {
		s.live.feed.Publish(ctx, listsTopic(m.GroupID), nil)
	}
	return row, err
}

// RenameList renames list l.
func (s *Service) RenameList(ctx context.Context, l ListRow, name string) (ListRow, error) {
	name, err := checkListName(name)
	if err != nil {
		return ListRow{}, err
	}
	row, err := storage.Change(ctx, s.lists, l.PartitionKey, l.RowKey, ErrNoList, func(r *ListRow) error {
		switch {
		case r.Deleting:
			return ErrNoList
		case r.Name == name:
			return storage.ErrNoChange
		}
		r.Name, r.UpdatedAt = name, s.now().UTC()
		return nil
	})
	if err == nil {
		s.listChanged(ctx, row)
	}
	return row, err
}

// MayDeleteList reports whether m may delete l: who started it, or an
// owner.
func MayDeleteList(m Membership, l ListRow) bool {
	return m.Owner() || (l.CreatedBy != "" && l.CreatedBy == memberKeyOf(m.Row))
}

// listBurial is the task that finishes deleting a list.
type listBurial struct{ GroupID, ListID string }

// DeleteList deletes list l of group m, its items with it. A burial is
// queued first (due in buryListAfter), so a delete cut short at any later
// step finishes by itself; then the list is marked, which hides it from
// everyone at once; then its items go, and its row last (buryList).
func (s *Service) DeleteList(ctx context.Context, m Membership, l ListRow) error {
	if !MayDeleteList(m, l) {
		return ErrNotListCreator
	}
	s.queueListBurial(ctx, m.GroupID, l.ListID)
	row, err := storage.Change(ctx, s.lists, l.PartitionKey, l.RowKey, ErrNoList, func(r *ListRow) error {
		if r.Deleting {
			return storage.ErrNoChange
		}
		r.Deleting, r.UpdatedAt = true, s.now().UTC()
		return nil
	})
	if err != nil {
		return err
	}
	s.listChanged(ctx, row)
	if err := s.buryList(ctx, row); err != nil {
		s.log.WarnContext(ctx, "groups: a deleted list's items stay until its burial", "list", l.ListID, "err", err)
	}
	return nil
}

// queueListBurial queues the burial of a list about to be marked, keyed
// by the try (a burial that finds its list not marked is done, and the
// next try needs its own). A failure is logged: deleting again finishes it.
func (s *Service) queueListBurial(ctx context.Context, groupID, listID string) {
	s.listBurials.Later(ctx, s.now().Add(buryListAfter), listID, listBurial{GroupID: groupID, ListID: listID}, s.log, "groups: a deleted list's burial not queued", "list", listID)
}

// buryQueuedList runs a burial: a marked list is buried; one whose row is
// gone has what an add racing the delete left swept; one not marked
// (its mark failed) is left as it is.
func (s *Service) buryQueuedList(ctx context.Context, b listBurial) error {
	pk, rk := listKey(b.GroupID, b.ListID)
	row, err := storage.Get[ListRow](ctx, s.lists, pk, rk)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return storage.DeletePartition(ctx, s.listItems, b.ListID)
	case err != nil:
		return err
	case row.Deleting:
		return s.buryList(ctx, row)
	}
	return nil
}

// buryList removes a marked list's items, then its row with the group's
// count in one transaction: each step may run again, and the row, which
// names the items, goes last.
func (s *Service) buryList(ctx context.Context, l ListRow) error {
	if err := storage.DeletePartition(ctx, s.listItems, l.ListID); err != nil {
		return err
	}
	return counted(ctx, s.lists, l.PartitionKey, func(ctx context.Context, head *headRow, tx *storage.Tx) error {
		row, err := storage.Get[ListRow](ctx, s.lists, l.PartitionKey, l.RowKey)
		if errors.Is(err, storage.ErrNotFound) {
			return storage.ErrNoChange
		} else if err != nil {
			return err
		}
		head.Count = max(0, head.Count-1)
		tx.Delete(row.PartitionKey, row.RowKey, row.ETag)
		return nil
	})
}

// purgeLists deletes every list of a purged group, each list's items
// first (the list rows are what find them on a rerun).
func (s *Service) purgeLists(ctx context.Context, groupID string) error {
	rows, err := storage.All[ListRow](ctx, s.lists, storage.Query{PartitionKey: groupID, RowKeyPrefix: listKeyPrefix})
	if err != nil {
		return err
	}
	for _, l := range rows {
		if err := storage.DeletePartition(ctx, s.listItems, l.ListID); err != nil {
			return err
		}
	}
	return storage.DeletePartition(ctx, s.lists, groupID)
}

// ListItems are list l's items: those not ticked in the order added,
// then the ticked ones, the newest ticked first (one query).
func (s *Service) ListItems(ctx context.Context, l ListRow) (open, ticked []ListItemRow, err error) {
	rows, err := storage.All[ListItemRow](ctx, s.listItems, storage.Query{PartitionKey: l.ListID, RowKeyPrefix: itemKeyPrefix})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		if r.Ticked {
			ticked = append(ticked, r)
		} else {
			open = append(open, r)
		}
	}
	slices.SortStableFunc(ticked, func(a, b ListItemRow) int {
		if c := b.TickedAt.Compare(*a.TickedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.RowKey, a.RowKey)
	})
	return open, ticked, nil
}

// ListItem reads item itemID of list l.
func (s *Service) ListItem(ctx context.Context, l ListRow, itemID string) (ListItemRow, error) {
	if !validItemID(itemID) {
		return ListItemRow{}, ErrNoListItem
	}
	pk, rk := itemKey(l.ListID, itemID)
	return storage.Find[ListItemRow](ctx, s.listItems, pk, rk, ErrNoListItem)
}

// AddListItem adds text to the end of list l, as id: the item and the
// list's head in one transaction, refused past MaxListItems.
func (s *Service) AddListItem(ctx context.Context, l ListRow, id *auth.Identity, text string) (ListItemRow, error) {
	text, err := checkItemText(text)
	if err != nil {
		return ListItemRow{}, err
	}
	var row ListItemRow
	err = counted(ctx, s.listItems, l.ListID, func(_ context.Context, head *headRow, tx *storage.Tx) error {
		if head.Count >= MaxListItems {
			return ErrListFull
		}
		head.Count++
		head.Open++
		head.Seq++
		now := s.now().UTC()
		pk, rk := itemKey(l.ListID, itemID(head.Seq))
		row = ListItemRow{PartitionKey: pk, RowKey: rk, Text: text, AddedAt: now, AddedBy: id.MemberKey, UpdatedAt: now}
		tx.Insert(row)
		return nil
	})
	if err == nil {
		s.listChanged(ctx, l)
	}
	return row, err
}

// changeItem changes item itemID of list l with change, which edits the
// row and the head's counts, and writes both in one transaction. It
// returns the item as it then stands (as it was when change returned
// storage.ErrNoChange).
func (s *Service) changeItem(ctx context.Context, l ListRow, itemID string, change func(item *ListItemRow, head *headRow) error) (ListItemRow, error) {
	if !validItemID(itemID) {
		return ListItemRow{}, ErrNoListItem
	}
	var out ListItemRow
	changed := false
	err := counted(ctx, s.listItems, l.ListID, func(ctx context.Context, head *headRow, tx *storage.Tx) error {
		changed = false
		pk, rk := itemKey(l.ListID, itemID)
		item, err := storage.Find[ListItemRow](ctx, s.listItems, pk, rk, ErrNoListItem)
		if err != nil {
			return err
		}
		out = item
		etag := item.ETag
		if err := change(&item, head); err != nil {
			return err
		}
		item.UpdatedAt = s.now().UTC()
		out = item
		tx.Replace(item, etag)
		changed = true
		return nil
	})
	if err == nil && changed {
		s.listChanged(ctx, l)
	}
	return out, err
}

// TickListItem ticks item itemID of list l off as id (done), or puts it
// back (not done). Ticking what is ticked already changes nothing, so two
// people ticking at once agree.
func (s *Service) TickListItem(ctx context.Context, l ListRow, id *auth.Identity, itemID string, done bool) (ListItemRow, error) {
	return s.changeItem(ctx, l, itemID, func(item *ListItemRow, head *headRow) error {
		if item.Ticked == done {
			return storage.ErrNoChange
		}
		item.Ticked = done
		if done {
			item.TickedAt, item.TickedBy, item.TickedByName = timePtr(s.now().UTC()), id.MemberKey, id.DisplayName
			head.Open = max(0, head.Open-1)
		} else {
			item.TickedAt, item.TickedBy, item.TickedByName = nil, "", ""
			head.Open++
		}
		return nil
	})
}

// RenameListItem changes the text of item itemID of list l.
func (s *Service) RenameListItem(ctx context.Context, l ListRow, itemID, text string) (ListItemRow, error) {
	text, err := checkItemText(text)
	if err != nil {
		return ListItemRow{}, err
	}
	return s.changeItem(ctx, l, itemID, func(item *ListItemRow, _ *headRow) error {
		if item.Text == text {
			return storage.ErrNoChange
		}
		item.Text = text
		return nil
	})
}

// DeleteListItem takes item itemID off list l. An item gone already is
// ErrNoListItem.
func (s *Service) DeleteListItem(ctx context.Context, l ListRow, itemID string) error {
	if !validItemID(itemID) {
		return ErrNoListItem
	}
	err := counted(ctx, s.listItems, l.ListID, func(ctx context.Context, head *headRow, tx *storage.Tx) error {
		pk, rk := itemKey(l.ListID, itemID)
		item, err := storage.Find[ListItemRow](ctx, s.listItems, pk, rk, ErrNoListItem)
		if err != nil {
			return err
		}
		uncount(head, item)
		tx.Delete(pk, rk, item.ETag)
		return nil
	})
	if err == nil {
		s.listChanged(ctx, l)
	}
	return err
}

// uncount takes item out of head's counts.
func uncount(head *headRow, item ListItemRow) {
	head.Count = max(0, head.Count-1)
	if !item.Ticked {
		head.Open = max(0, head.Open-1)
	}
}

// ClearTicked takes every ticked item off list l, and returns how many
// went: a transaction of at most 99 items and the head at a time, each
// item at the ETag it was read ticked at, so one put back meanwhile stays.
func (s *Service) ClearTicked(ctx context.Context, l ListRow) (int, error) {
	cleared := 0
	for {
		n := 0
		err := counted(ctx, s.listItems, l.ListID, func(ctx context.Context, head *headRow, tx *storage.Tx) error {
			n = 0
			_, ticked, err := s.ListItems(ctx, l)
			if err != nil {
				return err
			}
			if len(ticked) == 0 {
				return storage.ErrNoChange
			}
			ticked = ticked[:min(len(ticked), storage.MaxTxOps-1)]
			for _, item := range ticked {
				uncount(head, item)
				tx.Delete(item.PartitionKey, item.RowKey, item.ETag)
			}
			n = len(ticked)
			return nil
		})
		if err != nil || n == 0 {
			if cleared > 0 {
				s.listChanged(ctx, l)
			}
			return cleared, err
		}
		cleared += n
	}
}

package storage

import (
	"context"
	"encoding/json"
	"slices"
)

// A list column is a short list a row keeps in one property as JSON:
// a reader's bookmarks and mutes in the forum, the messages a person
// saved in a chat. It is read and written with the row, at its ETag
// (Modify), and bounded by its module, as a property holds 64 KiB.

// ListOf reads a list column; "" and a value it cannot read are none.
func ListOf[T any](text string) []T {
	var out []T
	if text == "" || json.Unmarshal([]byte(text), &out) != nil {
		return nil // a half-read list is none too
	}
	return out
}

// ListText is list as a list column keeps it: JSON, "" for none.
func ListText[T any](list []T) (string, error) {
	if len(list) == 0 {
		return "", nil
	}
	b, err := json.Marshal(list)
	return string(b), err
}

// Toggled is list with an item in it (on) or out of it, i being where
// the item is now (-1: not in it); add makes the new one, appended. As
// asked already is ErrNoChange, and one more than max is full.
func Toggled[T any](list []T, i int, on bool, max int, full error, add func() T) ([]T, error) {
	switch {
	case on == (i >= 0):
		return nil, ErrNoChange
	case !on:
		return slices.Delete(list, i, i+1), nil
	case len(list) >= max:
		return nil, full
	}
	return append(list, add()), nil
}

// ModifyListItem changes, at the row's ETag (Modify), the item of a list
// column that match picks: col is the column in the row, and missing
// the error when no item (or no row) matches. change may say
// ErrNoChange.
func ModifyListItem[R, T any](ctx context.Context, t *Table, pk, rk string, col func(r *R) *string, match func(T) bool, missing error, change func(item *T) error) (R, error) {
	return Modify(ctx, t, pk, rk, func(r *R, _ bool) error {
		list := ListOf[T](*col(r))
		i := slices.IndexFunc(list, match)
		if i < 0 {
			return missing
		}
		if err := change(&list[i]); err != nil {
			return err
		}
		var err error
		*col(r), err = ListText(list)
		return err
	})
}

// Listed is an item of a list column with the key of the row it is in.
type Listed[T any] struct {
	RowKey string
	Item   T
}

// AllListed are the items of a list column (property name) of partition
// pk's rows that have flag set: one query, reading that column alone.
// col says a row's key and its column.
func AllListed[R, T any](ctx context.Context, t *Table, pk, flag, name string, col func(r R) (rowKey, list string)) ([]Listed[T], error) {
	rows, err := All[R](ctx, t, Query{PartitionKey: pk, Filters: []Filter{{Name: flag, Op: Eq, Value: true}}, Select: []string{name}})
	if err != nil {
		return nil, err
	}
	var out []Listed[T]
	for _, r := range rows {
		rk, list := col(r)
		for _, item := range ListOf[T](list) {
			out = append(out, Listed[T]{RowKey: rk, Item: item})
		}
	}
	return out, nil
}

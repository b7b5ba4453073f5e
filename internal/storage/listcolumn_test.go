package storage_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// TestListColumn: a list column reads back what was written, reads
// nothing from "" or a value it cannot read, and writes "" for none;
// Toggled adds and removes once, says ErrNoChange when the list is as
// asked, and refuses one more than max.
func TestListColumn(t *testing.T) {
	t.Parallel()
	text, err := storage.ListText([]string{"a", "b"})
	if err != nil || text != `["a","b"]` {
		t.Fatalf("ListText: %q %v", text, err)
	}
	if got := storage.ListOf[string](text); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ListOf: %v", got)
	}
	for _, bad := range []string{"", "{", `{"a":1}`, `[1,2]`} {
		if got := storage.ListOf[string](bad); len(got) != 0 {
			t.Errorf("ListOf(%q): %v", bad, got)
		}
	}
	if text, err := storage.ListText([]string(nil)); text != "" || err != nil {
		t.Errorf("ListText(nil): %q %v", text, err)
	}

	full := errors.New("full")
	add := func(v string) func() string { return func() string { return v } }
	list := []string{"a", "b"}
	if _, err := storage.Toggled(list, 0, true, 3, full, add("a")); !errors.Is(err, storage.ErrNoChange) {
		t.Errorf("adding what is there: %v", err)
	}
	if _, err := storage.Toggled(list, -1, false, 3, full, add("c")); !errors.Is(err, storage.ErrNoChange) {
		t.Errorf("removing what is not there: %v", err)
	}
	if got, err := storage.Toggled(slices.Clone(list), -1, true, 3, full, add("c")); err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("adding: %v %v", got, err)
	}
	if _, err := storage.Toggled([]string{"a", "b", "c"}, -1, true, 3, full, add("d")); !errors.Is(err, full) {
		t.Errorf("one more than max: %v", err)
	}
	if got, err := storage.Toggled(slices.Clone(list), 0, false, 3, full, add("a")); err != nil || !slices.Equal(got, []string{"b"}) {
		t.Errorf("removing: %v %v", got, err)
	}
}

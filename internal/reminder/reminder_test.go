package reminder_test

import (
	"errors"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/reminder"
	"github.com/harmony/harmony/internal/storage"
)

// TestTime: each choice falls where its words say, in the person's
// zone: two hours on, 09:00 tomorrow, 09:00 next Monday (a week on from
// a Monday); "none" is no time; anything else is refused.
func TestTime(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	// Sunday 2030-05-19 23:30 in Tokyo is still Sunday 14:30 UTC.
	sunday := time.Date(2030, 5, 19, 14, 30, 0, 0, time.UTC)
	monday := time.Date(2030, 5, 20, 1, 0, 0, 0, time.UTC) // 10:00 Monday in Tokyo
	for _, c := range []struct {
		choice string
		now    time.Time
		want   time.Time
	}{
		{"2h", sunday, sunday.Add(2 * time.Hour)},
		{"tomorrow", sunday, time.Date(2030, 5, 20, 9, 0, 0, 0, tokyo)},
		{"week", sunday, time.Date(2030, 5, 20, 9, 0, 0, 0, tokyo)},
		{"week", monday, time.Date(2030, 5, 27, 9, 0, 0, 0, tokyo)},
		{"none", sunday, time.Time{}},
	} {
		got, err := reminder.Time(c.choice, c.now, tokyo)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%s from %s: %s %v, want %s", c.choice, c.now.In(tokyo), got.In(tokyo), err, c.want)
		}
	}
	for _, bad := range []string{"", "someday", "2H"} {
		if _, err := reminder.Time(bad, sunday, tokyo); !errors.Is(err, reminder.ErrBadChoice) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestSetAndDone: Set puts a time on (in UTC), moves it, takes it off,
// and says ErrNoChange when it is so already; Done takes off only the
// reminder asked for at that time.
func TestSetAndDone(t *testing.T) {
	t.Parallel()
	tokyo := time.FixedZone("JST", 9*3600)
	when := time.Date(2030, 5, 20, 9, 0, 0, 0, tokyo)
	var at *time.Time
	if err := reminder.Set(&at, when); err != nil || at == nil || !at.Equal(when) || at.Location() != time.UTC {
		t.Fatalf("set: %v %v", at, err)
	}
	if err := reminder.Set(&at, when.UTC()); !errors.Is(err, storage.ErrNoChange) {
		t.Errorf("set again: %v", err)
	}
	if err := reminder.Done(&at, when.Add(time.Hour)); !errors.Is(err, storage.ErrNoChange) || at == nil {
		t.Errorf("done for another time: %v %v", at, err)
	}
	if !reminder.Asks(at, when) || reminder.Asks(nil, when) {
		t.Error("Asks")
	}
	if err := reminder.Done(&at, when); err != nil || at != nil {
		t.Errorf("done: %v %v", at, err)
	}
	if err := reminder.Set(&at, time.Time{}); !errors.Is(err, storage.ErrNoChange) {
		t.Errorf("off when off: %v", err)
	}
	reminder.Set(&at, when)
	if err := reminder.Set(&at, time.Time{}); err != nil || at != nil {
		t.Errorf("off: %v %v", at, err)
	}
}

package events

import (
	"testing"
	"time"
)

// TestCopyStart: a copy starts a week after its original, on the same
// weekday at the same wall-clock time (across a change of summer time
// too), or a week from today at that time when that is past.
func TestCopyStart(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	now := time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC) // a Friday
	for _, c := range []struct {
		name        string
		start, want time.Time
	}{
		{"a week on", time.Date(2030, 6, 4, 19, 0, 0, 0, berlin), time.Date(2030, 6, 11, 19, 0, 0, 0, berlin)},
		{"into summer time", time.Date(2031, 3, 27, 19, 0, 0, 0, berlin), time.Date(2031, 4, 3, 19, 0, 0, 0, berlin)},
		{"past: a week from today", time.Date(2030, 5, 1, 19, 0, 0, 0, berlin), time.Date(2030, 5, 24, 19, 0, 0, 0, berlin)},
		{"a week on is today, earlier", time.Date(2030, 5, 10, 8, 0, 0, 0, time.UTC), time.Date(2030, 5, 24, 8, 0, 0, 0, time.UTC)},
	} {
		if got := copyStart(c.start, now); !got.Equal(c.want) || got.Format("15:04") != c.want.Format("15:04") {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

package reminder_test

import (
	"errors"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/reminder"
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

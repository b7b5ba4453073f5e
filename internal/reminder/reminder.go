// Package reminder is when a person asks to be reminded of something
// they keep, as Discourse's "remind me" of a bookmark and Slack's
// "Remind me about this" of a saved message: in two hours, tomorrow
// morning or next Monday morning, in their own zone. The forum's
// bookmarks and the chat's saved messages offer it (the form:
// components.RemindForm); each keeps the time on what is kept (Set)
// and queues a task due then (tasks.Kind.Reschedule) that posts to the
// person's inbox if the time still asks for it (Asks), then clears it
// (Done).
package reminder

import (
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// MorningHour is the hour of a morning reminder, in the person's zone.
const MorningHour = 9

// Choices are a reminder's choices, as the form offers them and sends
// them ("none" takes the reminder off).
var Choices = []string{"2h", "tomorrow", "week", "none"}

// ErrBadChoice is a reminder none of Choices (400).
var ErrBadChoice = fault.New(http.StatusBadRequest, "reminder.error.choice", "reminder: no such choice")

// Time is when choice falls after now in zone; zero for "none", and
// ErrBadChoice for a choice there is not.
func Time(choice string, now time.Time, zone *time.Location) (time.Time, error) {
	local := now.In(zone)
	morning := func(days int) time.Time {
		return time.Date(local.Year(), local.Month(), local.Day()+days, MorningHour, 0, 0, 0, zone)
	}
	switch choice {
	case "2h":
		return now.Add(2 * time.Hour), nil
	case "tomorrow":
		return morning(1), nil
	case "week":
		return morning(int(7 - (local.Weekday()+6)%7)), nil // next Monday
	case "none":
		return time.Time{}, nil
	}
	return time.Time{}, ErrBadChoice
}

// Set sets the reminder *at of something kept to when (zero: takes it
// off): storage.ErrNoChange when it is so already.
func Set(at **time.Time, when time.Time) error {
	switch {
	case when.IsZero() && *at == nil, !when.IsZero() && *at != nil && (*at).Equal(when):
		return storage.ErrNoChange
	case when.IsZero():
		*at = nil
	default:
		when = when.UTC()
		*at = &when
	}
	return nil
}

// Asks reports whether a reminder at is the one queued for due: a
// reminder changed or taken off since leaves its task nothing to do.
func Asks(at *time.Time, due time.Time) bool { return at != nil && at.Equal(due) }

// Done takes off the reminder *at once sent for due: storage.ErrNoChange
// when it no longer asks for it.
func Done(at **time.Time, due time.Time) error {
	if !Asks(*at, due) {
		return storage.ErrNoChange
	}
	*at = nil
	return nil
}

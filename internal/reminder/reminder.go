// Package reminder is when a person asks to be reminded of something
// they keep, as Discourse's "remind me" of a bookmark and Slack's
// "Remind me about this" of a saved message: in two hours, tomorrow
// morning or next Monday morning, in their own zone. The forum's
// bookmarks and the chat's saved messages offer it (the form:
// components.RemindForm); each keeps the time on what is kept and
// queues a task due then that posts to the person's inbox.
package reminder

import (
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/fault"
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

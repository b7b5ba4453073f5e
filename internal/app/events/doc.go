// Package events owns events with registration, capacity and waitlists
// (document 000's Events, EventAttendees and UserEvents; issue 12). This
// first part is the seat accounting: every registration, cancellation
// and capacity change commits in one transaction of the event's
// EventAttendees partition at its seat counter's ETag, so seats are
// counted exactly under any concurrency and a freed seat goes to the
// head of the waitlist in the same commit.
//
// # Deleting an account
//
// ForgetMember (memberdata.go) finds a member's rows by what names them:
// EventAttendees scanned for `memberKey` (registrations, cancelled ones
// too, waitlist places, offers, tickets) and for `authorKey` (updates),
// and Events read whole for the events they make or co-organize (and
// for a listing record still naming their "Events you run" rows). Each
// registration is cancelled through Seats.Cancel (its seats go to the
// waitlist, or are offered, and whoever moves is told, as on any
// cancellation), the counts and cards are brought in step and every
// registration of the event followed into "My events", and only then
// are the cancelled registration and its ticket deleted (Seats.Forget),
// so a run cut short finds the registration again. An upcoming event
// they made passes to its first co-organizer, or with none is cancelled
// (its people told first, at the notice's key); a past or cancelled one
// stays with organizerKey memberdata.Forgotten, which has no "Events
// you run" rows. Updates they sent stay, by Forgotten with no name
// ("Deleted member" on the page). Their feed's rows, UserEvents
// partition and EventQuota row go. The export writes
// events/registrations.json, events/organizing.json and
// events/updates.json.
package events

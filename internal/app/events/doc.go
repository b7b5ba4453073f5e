// Package events owns events with registration, capacity and waitlists
// (document 000's Events, EventAttendees and UserEvents; issue 12). This
// first part is the seat accounting: every registration, cancellation
// and capacity change commits in one transaction of the event's
// EventAttendees partition at its seat counter's ETag, so seats are
// counted exactly under any concurrency and a freed seat goes to the
// head of the waitlist in the same commit.
package events

package events

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/richtext"
)

// Reports: a member reports an event (a scam, spam, an event against the
// rules) from its page, as Meetup's "Report event", to the admins'
// moderation queue. The report quotes the event as it was (its title,
// time, place and description); taking it down unpublishes it and bars
// its organizers from publishing it again, so it leaves the listings
// and its page is theirs and the admins' alone, saying why. An admin
// who publishes it reinstates it. Registrations stay, as when an
// organizer unpublishes.

// eventKind is an event's kind in reports; its key the eventId.
const eventKind = "events.event"

// ReportKinds are what the events module takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{eventKind} }

// TakeDown takes the reported event down (Catalog.TakeDown) and tells
// whoever is registered that it is gone.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, _ moderation.Moderator, _ string) error {
	e, err := s.catalog.TakeDown(ctx, t.Key)
	if err != nil {
		return err
	}
	who, err := s.registered(ctx, e)
	if err != nil {
		s.log.WarnContext(ctx, "events: a take-down not announced", "event", e.RowKey, "err", err)
	}
	s.tell(ctx, e, "events.notify.taken_down", "", who...)
	return nil
}

// reportURL is where an event is reported.
func reportURL(eventID string) string { return eventURL(eventID) + "/report" }

// mayReport says whether id may report e: someone signed in who does not
// run it, of an event shown to all.
func (s *Service) mayReport(id *auth.Identity, e EventRow) bool {
	return s.Reports != nil && id.HasAccount() && !e.runBy(id.MemberKey) && e.IsPublished
}

// eventReport is the report of the route's event, and its page.
func (s *Service) eventReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	ctx, id, e := c.Request().Context(), auth.From(c), eventOf(c)
	if !s.mayReport(id, e) {
		return moderation.Report{}, moderation.Form{}, ErrNoEvent
	}
	name := ""
	if s.people != nil {
		if p, err := s.people.Profile(ctx, e.OrganizerKey); err == nil {
			name = p.DisplayName
		}
	}
	r := moderation.Report{
		Target: moderation.Target{Kind: eventKind, Key: e.RowKey}, Link: eventURL(e.RowKey),
		Excerpt: eventText(ctx, e), Author: e.OrganizerKey, AuthorName: name, By: id.MemberKey, ByName: id.DisplayName,
	}
	return r, moderation.Form{Heading: "events.report.heading", BackLabel: e.Title, Action: reportURL(e.RowKey)}, nil
}

// eventText is an event as words: its title, when and where (in its
// own zone), and the start of its description.
func eventText(ctx context.Context, e EventRow) string {
	local := auth.Zone(e.Timezone)
	parts := []string{e.Title, i18n.Span(ctx, e.Start.In(local), e.End.In(local))}
	if e.Place != "" {
		parts = append(parts, e.Place)
	}
	text := strings.Join(parts, " · ")
	if d := richtext.Plain(e.Description, 400); d != "" {
		text += "\n" + d
	}
	return text
}

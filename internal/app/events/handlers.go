package events

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/ical"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// listPage is how many events a listing page shows.
const listPage = 20

// BodyLimits let the event form carry a picture.
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{"/events": imageBodyLimit, "/events/:id/edit": imageBodyLimit}
}

// Containers are the blob containers the module needs.
func (s *Service) Containers() []string { return []string{ImagesContainer} }

// serveImage is GET /media/events/:id/:file (visible): an event's
// picture, to those who may see the event. An unpublished event's is
// kept out of shared caches, so it is not served on after a reader loses
// sight of it.
func (s *Service) serveImage(c echo.Context) error {
	e := eventOf(c)
	blob, err := s.catalog.ImageBlob(c.Request().Context(), e.RowKey, c.Param("file"))
	if err != nil {
		return err
	}
	if !e.IsPublished {
		return web.ServePrivateImage(c, blob.Data)
	}
	return web.ServeImage(c, blob.Data)
}

// organizer reports whether id may create and manage events: the role
// admins grant on the users page, and admins themselves.
func organizer(id *auth.Identity) bool { return id.HasAccount() && id.Organizer }

// manages reports whether id runs e: the organizer who made it, one it
// names as a co-organizer (cohosts.go), or an admin. Another organizer
// reads e as anyone does: its attendees, their emails and its check-in
// are for the people who run it.
func manages(id *auth.Identity, e EventRow) bool {
	return organizer(id) && (id.Admin || e.runBy(id.MemberKey))
}

// ErrNotOrganizer refuses organizer pages to others (403).
var ErrNotOrganizer = errors.New("events: organizers only")

// ErrNotYourEvent refuses an organizer another's event (403).
var ErrNotYourEvent = errors.New("events: another organizer's event")

// requireOrganizer lets organizers through and refuses others with 403:
// routes.go names which routes are theirs.
func requireOrganizer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !organizer(auth.From(c)) {
			return web.Forbidden(i18n.T(c.Request().Context(), "events.error.organizers"), ErrNotOrganizer)
		}
		return next(c)
	}
}

func eventURL(id string) string { return "/events/" + url.PathEscape(id) }

// myEventsURL is the events a person registered for.
const myEventsURL = "/events/mine"

// listQuery names a listing for its cursors.
func listQuery(past bool, category string) string {
	return fmt.Sprintf("events/list|%t|%s", past, category)
}

// listURL is the listing of upcoming or past events of a category ("":
// all).
func listURL(past bool, category string) string {
	q := url.Values{}
	if past {
		q.Set("when", "past")
	}
	if category != "" {
		q.Set("category", category)
	}
	if len(q) == 0 {
		return "/events"
	}
	return "/events?" + q.Encode()
}

// list is GET /events[?when=past][&category=…][&cursor=…], and the month
// view with view=month.
func (s *Service) list(c echo.Context) error {
	ctx := c.Request().Context()
	past, category := c.QueryParam("when") == "past", c.QueryParam("category")
	if category != "" {
		if _, ok, err := s.catalog.Categories.Find(ctx, category); err != nil {
			return err
		} else if !ok {
			return web.BadRequest(i18n.T(ctx, "events.error.category"), nil)
		}
	}
	if c.QueryParam("view") == "month" {
		return s.month(c, category)
	}
	pager := web.Pager{Cursors: s.cursors, Query: listQuery(past, category), URL: listURL(past, category)}
	start, err := pager.Start(c)
	if err != nil {
		return err
	}
	page, err := s.catalog.List(ctx, past, category, listPage, start)
	if err != nil {
		return err
	}
	zone := auth.From(c).Location()
	labels, err := s.categoryLabels(ctx)
	if err != nil {
		return err
	}
	p := views.ListProps{Past: past, Cards: cards(ctx, page.Rows, zone, labels), Zone: i18n.ZoneName(ctx, zone.String(), s.now()), NextURL: pager.NextURL(page.Next)}
	return s.renderList(c, p, category, past)
}

// cards are listing rows as the listings show them, in zone.
func cards(ctx context.Context, rows []ListingRow, zone *time.Location, labels map[string]string) []views.Card {
	out := make([]views.Card, 0, len(rows))
	for _, r := range rows {
		start := r.Start.In(zone)
		card := views.Card{
			Href: eventURL(r.EventID), Title: r.Title, When: i18n.DateTime(ctx, start),
			Datetime: r.Start.UTC().Format(time.RFC3339), Place: r.Place, Price: price(ctx, r.PriceCents, r.Currency),
			Category: labels[r.Category], Capacity: r.Capacity, Cancelled: r.IsCancelled, Draft: r.Draft, Secret: r.Secret,
			Month: i18n.MonthAbbr(ctx, start), Day: strconv.Itoa(start.Day()), ImageURL: imageURL(r.ImageKey, true),
		}
		card.Seats, card.Scarce = seatsBadge(ctx, r.Capacity, r.Going, r.Waiting)
		out = append(out, card)
	}
	return out
}

// organizingURL is the organizer's page of the events they run.
const organizingURL = "/events/organizing"

// organizing is GET /events/organizing (organizers): the events the
// viewer runs (made or co-organizes), drafts and secret ones too, newest
// start first, a page at a time.
func (s *Service) organizing(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	query := "events/organizing|" + id.MemberKey
	cursor, err := web.ReadCursor(c, s.cursors, query)
	if err != nil {
		return err
	}
	var next *storage.Continuation
	if cursor != nil {
		next = cursor.Next
	}
	page, err := s.catalog.Organizing(ctx, id.MemberKey, listPage, next)
	if err != nil {
		return err
	}
	labels, err := s.categoryLabels(ctx)
	if err != nil {
		return err
	}
	token := ""
	if page.Next != nil {
		token = s.cursors.Encode(query, storage.Cursor{Next: page.Next})
	}
	p := views.OrganizingProps{Cards: cards(ctx, page.Rows, id.Location(), labels), NextURL: web.NextURL(organizingURL, token)}
	return web.Render(c, http.StatusOK, web.Page{
		Title: i18n.T(ctx, "events.organizing.heading"), Section: "events",
		Content: views.Organizing(p), Fragment: views.Cards(p.Cards, p.NextURL),
	})
}

// renderList renders the listing or the month view (p.Month) with the
// tabs and category chips that move between them.
func (s *Service) renderList(c echo.Context, p views.ListProps, category string, past bool) error {
	ctx := c.Request().Context()
	month := p.Month != nil
	here := func(cat string) string { return listURL(past, cat) }
	if month {
		m := c.QueryParam("month")
		here = func(cat string) string {
			return "/events?" + url.Values{"view": {"month"}, "month": nonEmpty(m), "category": nonEmpty(cat)}.Encode()
		}
	}
	p.When = []views.Chip{
		{Label: i18n.T(ctx, "events.list.upcoming"), Href: listURL(false, category), Current: !past && !month},
		{Label: i18n.T(ctx, "events.list.past"), Href: listURL(true, category), Current: past && !month},
		{Label: i18n.T(ctx, "events.list.month"), Href: "/events?" + url.Values{"view": {"month"}, "category": nonEmpty(category)}.Encode(), Current: month},
	}
	cats, err := s.catalog.Categories.Active(ctx)
	if err != nil {
		return err
	}
	p.Categories = append(p.Categories, views.Chip{Label: i18n.T(ctx, "events.category.all"), Href: here(""), Current: category == ""})
	for _, cat := range cats {
		p.Categories = append(p.Categories, views.Chip{Label: cat.Label(ctx), Href: here(cat.Slug), Current: cat.Slug == category})
	}
	if organizer(auth.From(c)) {
		p.NewURL, p.OrganizingURL = "/events/new", organizingURL
	}
	return web.Render(c, http.StatusOK, web.Page{
		Title: i18n.T(ctx, "events.list.heading"), Section: "events",
		Content: views.List(p), Fragment: views.Cards(p.Cards, p.NextURL),
	})
}

// nonEmpty is v as a query value, none when "".
func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// seatsBadge is a card's seats badge: "12 seats left", "Only 2 left"
// (scarce: a tenth or fewer, or three), "Full · 4 waiting"; "" without a
// limit.
func seatsBadge(ctx context.Context, capacity, going, waiting int) (string, bool) {
	left := capacity - going
	switch {
	case capacity == 0:
		return "", false
	case waiting > 0:
		return i18n.N(ctx, "events.seats.full_waiting", waiting), true
	case left <= 0:
		return i18n.T(ctx, "events.seats.full"), true
	case left <= 3 || left*10 <= capacity:
		return i18n.N(ctx, "events.seats.only_left", left), true
	}
	return i18n.N(ctx, "events.seats.left", left), false
}

// categoryLabels names every category, retired ones too, in ctx's
// language.
func (s *Service) categoryLabels(ctx context.Context) (map[string]string, error) {
	all, err := s.catalog.Categories.All(ctx)
	out := make(map[string]string, len(all))
	for _, c := range all {
		out[c.Slug] = c.Label(ctx)
	}
	return out, err
}

// price is a price as people read it: "Free", "€12.50", "12,50 €".
func price(ctx context.Context, cents int64, currency string) string {
	if cents == 0 {
		return i18n.T(ctx, "events.free")
	}
	return i18n.Money(ctx, cents, currency)
}

// eventScope carries the route's event (:id), read once by visible or
// anyEvent in the route table, to its handler (eventOf).
var eventScope = web.NewScope[EventRow]("events.event")

// eventOf is the event the route's loader read.
func eventOf(c echo.Context) EventRow { return eventScope.From(c) }

// visible reads the route's event as its viewer may see it: a published
// one for anyone (a secret one by its link), an unpublished one for the
// people who run it only; others get ErrNoEvent (404).
func (s *Service) visible() echo.MiddlewareFunc {
	return eventScope.Require(func(c echo.Context) (EventRow, error) {
		e, err := s.catalog.Event(c.Request().Context(), c.Param("id"))
		if err == nil && !e.IsPublished && !manages(auth.From(c), e) {
			err = ErrNoEvent
		}
		return e, err
	})
}

// managed reads the route's event for the people who run it (manages):
// another organizer gets 403 for a published event, and the 404 anyone
// gets for an unpublished one.
func (s *Service) managed() echo.MiddlewareFunc {
	return eventScope.Require(func(c echo.Context) (EventRow, error) {
		ctx := c.Request().Context()
		e, err := s.catalog.Event(ctx, c.Param("id"))
		switch {
		case err != nil || manages(auth.From(c), e):
			return e, err
		case !e.IsPublished:
			return e, ErrNoEvent
		}
		return e, web.Forbidden(i18n.T(ctx, "events.error.not_yours"), ErrNotYourEvent)
	})
}

// anyEvent reads the route's event, published or not: for a person's own
// registration, which outlives unpublishing (organizers' routes use
// managed).
func (s *Service) anyEvent() echo.MiddlewareFunc {
	return eventScope.Require(func(c echo.Context) (EventRow, error) {
		return s.catalog.Event(c.Request().Context(), c.Param("id"))
	})
}

// page is GET /events/:id (visibleEvent).
func (s *Service) page(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	e := eventOf(c)
	counts, err := s.Judge(ctx, e)
	if err != nil {
		return err
	}
	labels, err := s.categoryLabels(ctx)
	if err != nil {
		return err
	}
	zone, local := id.Location(), auth.Zone(e.Timezone)
	over := ended(e, s.now())
	p := views.PageProps{
		ID: e.RowKey, URL: eventURL(e.RowKey), Title: e.Title,
		When:     i18n.Span(ctx, e.Start.In(local), e.End.In(local)),
		Datetime: e.Start.UTC().Format(time.RFC3339), Zone: i18n.ZoneName(ctx, local.String(), e.Start), Place: e.Place,
		Price: price(ctx, e.PriceCents, e.Currency), Category: labels[e.Category],
		Cancelled: e.IsCancelled, Published: e.IsPublished, TakenDown: e.TakenDown, Going: counts.Going, Waiting: counts.Waiting,
		Capacity: e.Capacity, MaxGuests: e.MaxGuests, Organizer: manages(id, e), OfferHours: e.OfferHours,
		ImageURL: imageURL(e.ImageKey, false), CanAddToGroup: s.groups != nil && id.HasAccount() && !e.IsCancelled && !over,
		Approval: e.RequireApproval, Questions: registerQuestions(ctx, e, nil, nil), Ended: over,
	}
	p.MapURL, p.PlaceURL = placeLinks(e.Place)
	p.CoHost = id != nil && slices.Contains(e.coHostKeys(), id.MemberKey)
	if p.Hosts, err = s.hosts(ctx, e); err != nil {
		return err
	}
	if manages(id, e) {
		p.Pending, p.RequestsURL = counts.Pending, checkInURL(e.RowKey, "")+requestsAnchor
	}
	// Who runs it publishes it, unless the moderators took it down: then
	// only an admin does.
	p.CanPublish = !e.IsPublished && (!e.TakenDown || id != nil && id.Admin)
	// The event's own time first, as on its posters; the viewer's too
	// when they read times in another zone.
	if zone.String() != local.String() && e.Start.In(zone).Format(time.DateTime) != e.Start.In(local).Format(time.DateTime) {
		p.YourTime = i18n.Span(ctx, e.Start.In(zone), e.End.In(zone))
	}
	if e.Description != "" {
		p.Description = templ.Raw(richtext.Render(e.Description))
	}
	if id == nil {
		p.SignInURL = auth.SignInPath(eventURL(e.RowKey))
	} else {
		if s.mayReport(id, e) {
			p.ReportURL = reportURL(e.RowKey)
		}
		r, err := s.catalog.seats.Status(ctx, e.RowKey, id.MemberKey)
		if err != nil {
			return err
		}
		p.State, p.Position = r.Status, r.Position
		if r.Status == StatusGoing && rateRefusal(e, id.MemberKey, s.now()) == nil {
			p.Feedback = &views.FeedbackForm{Action: feedbackURL(e.RowKey), Rating: ratingValue(r.Rating), Words: r.Feedback}
		}
		if p.Ended && manages(id, e) && !e.IsCancelled {
			ratings, err := s.Ratings(ctx, e)
			if err != nil {
				return err
			}
			p.Ratings = &ratings
		}
		if r.Status == StatusCancelled {
			p.State, p.Was = "", "cancelled"
			switch {
			case r.OfferLapsed:
				p.Was = "lapsed"
			case r.Declined:
				p.Was = "declined"
			}
		}
		if r.Status == StatusOffered {
			p.OfferUntil = i18n.DateTime(ctx, r.OfferUntil.In(zone))
		}
		// Confirmed-only details are for people going.
		if r.Status == StatusGoing || manages(id, e) {
			p.Confirmed = e.ConfirmedOnly
		}
		// The event's chat: people going and who runs it, the waitlist
		// unless it is closed to them (EventChat decides on the chat's
		// side too).
		waiting := r.Status == StatusWaitlist || r.Status == StatusOffered
		if r.Status == StatusGoing || manages(id, e) || waiting && !e.ChatClosedToWaitlist {
			p.ChatURL = "/chat/event-" + e.RowKey
		}
		if id.HasAccount() {
			if p.Guests, p.GuestsMore, err = s.guests(ctx, e); err != nil {
				return err
			}
		}
		// Updates are for the guests they were sent to, and for who
		// runs the event, who also sends them.
		if r.Status == StatusGoing || waiting || manages(id, e) {
			rows, err := s.Updates(ctx, e.RowKey)
			if err != nil {
				return err
			}
			p.Updates = updateItems(c, rows, waiting && !manages(id, e))
		}
		if manages(id, e) && e.IsPublished {
			p.UpdateURL = eventURL(e.RowKey) + "/update"
		}
	}
	if !e.IsCancelled && !p.Ended {
		entry := s.addToCalendar(e, p.Confirmed != "")
		p.GoogleURL, p.OutlookURL = ical.GoogleLink(entry), ical.OutlookLink(entry)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: e.Title, Section: "events", Content: views.Page(p)})
}

// register is POST /events/:id/register.
func (s *Service) register(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	if !e.IsPublished {
		return ErrNoEvent
	}
	if e.IsCancelled {
		return web.BadRequest(i18n.T(ctx, "events.register.cancelled_event"), nil)
	}
	party := 1
	if v := c.FormValue("party"); v != "" {
		var err error
		if party, err = strconv.Atoi(v); err != nil || party < 1 || party > e.MaxGuests+1 {
			return web.BadRequest(i18n.T(ctx, "events.error.party"), err)
		}
	}
	form, err := c.FormParams()
	if err != nil {
		return web.BadRequest(i18n.T(ctx, "error.400.body"), err)
	}
	answers, typed, errs := parseAnswers(e, func(field string) []string { return form[field] })
	if errs != nil {
		// The form again, on a page of its own, with what was typed and
		// what is wrong: nothing was written.
		p := views.RegisterProps{Title: e.Title, URL: eventURL(e.RowKey), MaxGuests: e.MaxGuests, Party: party, Approval: e.RequireApproval, Questions: registerQuestions(ctx, e, typed, errs)}
		return web.Render(c, http.StatusUnprocessableEntity, web.Page{Title: e.Title, Section: "events", Content: views.RegisterPage(p)})
	}
	r, err := s.Register(ctx, e, auth.From(c), party, answers)
	if err != nil {
		return err
	}
	flash := "events.flash.going"
	switch r.Status {
	case StatusWaitlist:
		flash = "events.flash.waitlist"
	case StatusPending:
		flash = "events.flash.requested"
	}
	return web.FlashRedirect(c, flash, eventURL(e.RowKey))
}

// cancelRegistration is POST /events/:id/cancel, after confirmation.
func (s *Service) cancelRegistration(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	if !web.Confirmed(c) {
		// Asked of someone registered alone.
		r, err := s.catalog.seats.Status(ctx, e.RowKey, auth.From(c).MemberKey)
		if errors.Is(err, storage.ErrNotFound) || err == nil && r.Status == StatusCancelled {
			return ErrNotRegistered
		}
		if err != nil {
			return err
		}
		return web.AskConfirm(c, views.EventConfirm(ctx, "", "cancel"))
	}
	if err := s.CancelRegistration(ctx, e, auth.From(c)); err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.cancelled", eventURL(e.RowKey))
}

// accept is POST /events/:id/accept: the viewer takes the seat offered
// to them; a lapsed offer is a 409 with its message.
func (s *Service) accept(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	if err := s.Accept(ctx, e, auth.From(c)); err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.accepted", eventURL(e.RowKey))
}

// mine is GET /events/mine: what the person is going to or waiting for.
func (s *Service) mine(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	mine, err := s.catalog.MyEvents(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	upcoming, past := splitByEnd(mine, s.now())
	token, err := s.FeedToken(ctx, id.MemberKey)
	if err != nil {
		return err
	}
	feed := ""
	if token != "" {
		feed = s.feedURL(token)
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "events.mine.heading"), Section: "events",
		Content: views.Mine(myRows(ctx, id, upcoming, s.now()), myRows(ctx, id, past, s.now()), feed)})
}

// splitByEnd parts registrations (by start) into those whose event has
// not ended at now, soonest first, and the past ones, latest first.
func splitByEnd(mine []MyEvent, now time.Time) (upcoming, past []MyEvent) {
	for _, m := range mine {
		if m.Event.End.After(now) {
			upcoming = append(upcoming, m)
		} else {
			past = append(past, m)
		}
	}
	slices.Reverse(past)
	return upcoming, past
}

// myRows are id's registrations as their lists show them at now: once
// an event has ended, a guest who went is asked to rate it (or shown
// their rating) where they may (rateRefusal).
func myRows(ctx context.Context, id *auth.Identity, mine []MyEvent, now time.Time) []views.MyRow {
	zone := id.Location()
	rows := make([]views.MyRow, 0, len(mine))
	for _, m := range mine {
		r := views.MyRow{
			Href: eventURL(m.Event.RowKey), Title: m.Event.Title, State: myState(ctx, m, zone, ended(m.Event, now)), Status: m.Status,
			When: i18n.DateTime(ctx, m.Event.Start.In(zone)), Datetime: m.Event.Start.UTC().Format(time.RFC3339),
			Cancelled: m.Event.IsCancelled,
		}
		if m.Status == StatusGoing && rateRefusal(m.Event, id.MemberKey, now) == nil {
			r.Rating, r.RateURL = m.Rating, feedbackURL(m.Event.RowKey)
		}
		rows = append(rows, r)
	}
	return rows
}

// myState is where a registration stands, in a line of "My events":
// none for a cancelled event (its badge says it), and, once the event
// has ended, whether the person was on the guest list.
func myState(ctx context.Context, m MyEvent, zone *time.Location, past bool) string {
	switch {
	case m.Event.IsCancelled:
		return ""
	case past && m.Status == StatusGoing:
		return i18n.T(ctx, "events.state.went")
	case past:
		return i18n.T(ctx, "events.mine.no_seat")
	case m.Status == StatusWaitlist:
		return i18n.T(ctx, "events.mine.waitlist", "position", m.Position)
	case m.Status == StatusOffered:
		return i18n.T(ctx, "events.mine.offered", "until", i18n.DateTime(ctx, m.OfferUntil.In(zone)))
	case m.Status == StatusPending:
		return i18n.T(ctx, "events.mine.pending")
	}
	return i18n.T(ctx, "events.state.going")
}

// homeEvents is how many of a person's next events their home page shows.
const homeEvents = 3

// HomeCard is the home page's "Your next events" for someone signed in
// to an account (web.HomeCarder): the registrations whose events have not
// ended, soonest first, or a way to find some.
func (s *Service) HomeCard(c echo.Context) (templ.Component, error) {
	id := auth.Account(c)
	if id == nil {
		return nil, nil
	}
	ctx := c.Request().Context()
	mine, err := s.catalog.MyEvents(ctx, id.MemberKey)
	if err != nil {
		return nil, err
	}
	upcoming, _ := splitByEnd(mine, s.now())
	more := len(upcoming) > homeEvents
	return views.HomeCard(myRows(ctx, id, upcoming[:min(len(upcoming), homeEvents)], s.now()), more), nil
}

// newEvent is GET /events/new (organizers).
func (s *Service) newEvent(c echo.Context) error {
	return s.renderForm(c, http.StatusOK, "/events", EventInput{Category: Categories[0], ShowGuests: true}, nil)
}

func (s *Service) renderForm(c echo.Context, status int, action string, in EventInput, errs FieldErrors) error {
	ctx := c.Request().Context()
	heading, imageKey, back, lead, zone := "events.new", "", "", "", auth.From(c).Location().String()
	switch {
	case action != "/events":
		heading, imageKey = "events.edit", eventOf(c).ImageKey
	case storage.IsID(in.CopyOf):
		heading, back, lead = "events.copy.heading", eventURL(in.CopyOf), i18n.T(ctx, "events.copy.lead")
	}
	if _, ok := i18n.LoadZone(in.Timezone); ok && in.Timezone != "" {
		zone = in.Timezone // a copy's times, in its original's zone
	}
	p := views.FormProps{
		Heading: heading, Action: action, Zone: i18n.ZoneName(ctx, zone, s.now()), Secret: in.Secret, ChatClosed: in.ChatClosed, ShowGuests: in.ShowGuests, Errors: errs,
		MaxCoHosts: MaxCoHosts, MaxChoices: MaxChoices, Approval: in.Approval, Back: back, Lead: lead,
		ImageURL: imageURL(imageKey, true),
		Values: map[string]string{
			"title": in.Title, "start": in.Start, "end": in.End, "place": in.Place, "confirmedOnly": in.ConfirmedOnly,
			"capacity": in.Capacity, "maxGuests": in.MaxGuests, "price": in.Price, "currency": in.Currency, "description": in.Description,
			"coHosts": in.CoHosts, "timezone": in.Timezone, "copyOf": in.CopyOf,
		},
	}
	for i, f := range in.questionFields() {
		n := strconv.Itoa(i + 1)
		p.Values["question"+n], p.Values["choices"+n] = *f.Text, *f.Choices
		if *f.Optional {
			p.Values["optional"+n] = "on"
		}
		if *f.Several {
			p.Values["several"+n] = "on"
		}
		if *f.Tick {
			p.Values["tick"+n] = "on"
		}
	}
	for _, h := range OfferHoldChoices {
		label := i18n.T(ctx, "events.offer.none")
		if h > 0 {
			label = i18n.N(ctx, "events.offer.hold", h)
		}
		p.OfferHolds = append(p.OfferHolds, views.Chip{Label: label, Href: strconv.Itoa(h), Current: strconv.Itoa(h) == in.OfferHours || h == 0 && in.OfferHours == ""})
	}
	for _, h := range OfferStopChoices {
		p.OfferStops = append(p.OfferStops, views.Chip{Label: i18n.N(ctx, "events.offer.stop", h), Href: strconv.Itoa(h), Current: strconv.Itoa(h) == in.OfferStopHours || h == 24 && in.OfferStopHours == ""})
	}
	all, err := s.catalog.Categories.All(ctx)
	if err != nil {
		return err
	}
	// The form offers the active categories, and the event's own if it
	// was retired since.
	for _, cat := range all {
		if cat.Active || cat.Slug == in.Category {
			p.Categories = append(p.Categories, views.Chip{Label: cat.Label(ctx), Href: cat.Slug, Current: cat.Slug == in.Category})
		}
	}
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, heading), Section: "events", Content: views.Form(p)})
}

// create is POST /events (organizers): a new, unpublished event.
func (s *Service) create(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	in, fe := eventInput(c)
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, "/events", in, fe)
	}
	e, err := s.createEvent(ctx, id.MemberKey, in, id.Location())
	return web.AnswerForm(c, err, "events.flash.created", eventURL(e.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, "/events", in, fe)
	})
}

// eventInput reads the event form and its picture, if one was chosen: a
// picture refused while reading (too large) is a field error.
func eventInput(c echo.Context) (EventInput, FieldErrors) {
	return web.BindWithUpload(c, "image", media.DefaultMaxBytes, func(in *EventInput) *[]byte { return &in.Image })
}

// editEvent is GET /events/:id/edit (organizers): its times in the
// event's own zone, which the form carries back, so an organizer in
// another zone (a co-organizer abroad) neither moves the event nor
// changes its zone by saving it.
func (s *Service) editEvent(c echo.Context) error {
	e := eventOf(c)
	zone := auth.From(c).Location()
	if _, ok := i18n.LoadZone(e.Timezone); ok && e.Timezone != "" && e.Timezone != "Local" {
		zone = auth.Zone(e.Timezone)
	}
	in := e.input(zone)
	in.Timezone = zone.String()
	return s.renderForm(c, http.StatusOK, eventURL(e.RowKey)+"/edit", in, nil)
}

// input is e's form as it stands, its times in zone.
func (e EventRow) input(zone *time.Location) EventInput {
	in := EventInput{
		Title: e.Title, Description: e.Description, Category: e.Category,
		Start: e.Start.In(zone).Format("2006-01-02T15:04"), End: e.End.In(zone).Format("2006-01-02T15:04"),
		Place: e.Place, ConfirmedOnly: e.ConfirmedOnly, Capacity: strconv.Itoa(e.Capacity), MaxGuests: strconv.Itoa(e.MaxGuests),
		OfferHours: strconv.Itoa(e.OfferHours),
		Currency:   e.Currency, Secret: e.IsSecret, ChatClosed: e.ChatClosedToWaitlist, ShowGuests: e.ShowGuests, CoHosts: e.CoHostEmails,
		Approval: e.RequireApproval,
	}
	in.questionsInput(e.questions())
	if e.OfferStopHours > 0 { // none without offer mode: the form's default then
		in.OfferStopHours = strconv.Itoa(e.OfferStopHours)
	}
	if e.PriceCents > 0 {
		in.Price = fmt.Sprintf("%d.%02d", e.PriceCents/100, e.PriceCents%100)
	}
	return in
}

// updateEvent is POST /events/:id/edit (organizers): a capacity below the
// seats taken is a field error, like any other, and nothing changes.
func (s *Service) updateEvent(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	in, fe := eventInput(c)
	if fe != nil {
		return s.renderForm(c, http.StatusUnprocessableEntity, eventURL(c.Param("id"))+"/edit", in, fe)
	}
	e, err := s.UpdateEvent(ctx, c.Param("id"), in, id.Location())
	return web.AnswerForm(c, err, "events.flash.saved", eventURL(e.RowKey), func(status int, fe FieldErrors) error {
		return s.renderForm(c, status, eventURL(c.Param("id"))+"/edit", in, fe)
	}, web.Refusal{Err: ErrCapacityBelowGoing, Field: "capacity"}, web.Refusal{Err: ErrRequestsPending, Field: "approval"})
}

// cancelEvent is POST /events/:id/cancel-event (organizers), after
// confirmation.
func (s *Service) cancelEvent(c echo.Context) error {
	ctx := c.Request().Context()
	if ended(eventOf(c), s.now()) {
		return ErrEndedCancel
	}
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.EventConfirm(ctx, "", "cancel_event"))
	}
	e, err := s.CancelEvent(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, "events.flash.event_cancelled", eventURL(e.RowKey))
}

// stepDown is POST /events/:id/step-down: a co-organizer stops running
// the event (asked first without JavaScript). A published event's page
// is where they were; a draft closes to them, so they land on their
// events.
func (s *Service) stepDown(c echo.Context) error {
	ctx := c.Request().Context()
	if !web.Confirmed(c) {
		return web.AskConfirm(c, views.EventConfirm(ctx, "", "step_down"))
	}
	e, err := s.StepDown(ctx, c.Param("id"), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	target := myEventsURL
	if e.IsPublished {
		target = eventURL(e.RowKey)
	}
	return web.FlashRedirect(c, "events.flash.stepped_down", target)
}

// publish is POST /events/:id/publish and …/unpublish (managed): an
// unpublished event leaves the listing and opens for who runs it only.
func (s *Service) publish(published bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		var e EventRow
		var err error
		if published && eventOf(c).TakenDown && auth.From(c).Admin {
			e, err = s.Reinstate(ctx, c.Param("id")) // an admin undoes the take-down
		} else {
			e, err = s.Publish(ctx, c.Param("id"), published)
		}
		if err != nil {
			return err
		}
		flash := "events.flash.published"
		if !published {
			flash = "events.flash.unpublished"
		}
		return web.FlashRedirect(c, flash, eventURL(e.RowKey))
	}
}

package events

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/events"
)

// checkInURL is the organizer's check-in page; with a ticket code it
// opens on that person (what the ticket's QR code links to).
func checkInURL(eventID, code string) string {
	u := eventURL(eventID) + "/check-in"
	if code != "" {
		u += "?ticket=" + url.QueryEscape(code)
	}
	return u
}

// ticket is GET /events/:id/ticket: the viewer's ticket, while they are
// going.
func (s *Service) ticket(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	e := eventOf(c)
	a, err := s.catalog.seats.Attendee(ctx, e.RowKey, id.MemberKey)
	if err == nil && (a.Status != StatusGoing || a.Ticket == "") {
		err = ErrNoTicket
	}
	if err != nil {
		return err
	}
	qr, err := components.EncodeQR(s.baseURL + checkInURL(e.RowKey, a.Ticket))
	if err != nil {
		return err
	}
	zone := id.Location()
	return web.Render(c, http.StatusOK, web.Page{
		Title: i18n.T(ctx, "events.ticket.heading") + " · " + e.Title, Section: "events",
		Content: views.Ticket(views.TicketProps{
			EventTitle: e.Title, EventURL: eventURL(e.RowKey), When: i18n.Span(ctx, e.Start.In(zone), e.End.In(zone)),
			Datetime: e.Start.UTC().Format(time.RFC3339), Zone: i18n.ZoneName(ctx, zone.String(), e.Start), Place: e.Place, Confirmed: e.ConfirmedOnly,
			Name: a.Name, Party: a.Party, Code: a.Ticket, QR: qr, Attended: a.Attended,
		}),
	})
}

// attendeeItem is one going person on the check-in page.
func attendeeItem(ctx context.Context, eventID, back string, a AttendeeRow) views.Attendee {
	return views.Attendee{
		Name: a.Name, Email: a.Email, Party: a.Party, Ticket: a.Ticket, Attended: a.Attended,
		ActionURL: eventURL(eventID) + "/check-in/" + url.PathEscape(a.MemberKey), Back: back,
		Answers: answerViews(ctx, a),
	}
}

// maxQuery bounds the check-in search.
const maxQuery = 100

// checkIn is GET /events/:id/check-in[?q=…][&ticket=…] (organizers):
// everyone going, by name, filtered by the search; a scanned ticket
// opens on its person. One query of the event's partition.
func (s *Service) checkIn(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	q := strings.TrimSpace(c.QueryParam("q"))
	if len([]rune(q)) > maxQuery {
		return web.BadRequest(i18n.T(ctx, "events.error.query"), nil)
	}
	all, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return err
	}
	back := c.Request().URL.RequestURI()
	p := views.CheckInProps{EventTitle: e.Title, EventURL: eventURL(e.RowKey), Query: q, CSVURL: eventURL(e.RowKey) + "/attendees.csv",
		Requests: requestItems(ctx, e.RowKey, all, auth.From(c).Location())}
	going := slices.DeleteFunc(all, func(a AttendeeRow) bool { return a.Status != StatusGoing })
	slices.SortFunc(going, func(a, b AttendeeRow) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	needle := strings.ToLower(q)
	for _, a := range going {
		p.Going++
		if a.Attended {
			p.CheckedIn++
		}
		if needle == "" || strings.Contains(strings.ToLower(a.Name), needle) || strings.Contains(strings.ToLower(a.Email), needle) || strings.Contains(strings.ToLower(a.Ticket), needle) {
			p.Rows = append(p.Rows, attendeeItem(ctx, e.RowKey, back, a))
		}
	}
	if code := c.QueryParam("ticket"); code != "" {
		a, err := s.catalog.seats.Ticket(ctx, e.RowKey, code)
		switch {
		case errors.Is(err, ErrNoTicket) || err == nil && a.Status != StatusGoing:
			p.Problem = "events.checkin.not_going"
		case err != nil:
			return err
		default:
			found := attendeeItem(ctx, e.RowKey, back, a)
			p.Found = &found
		}
	}
	return web.Render(c, http.StatusOK, web.Page{Title: i18n.T(ctx, "events.checkin.heading") + " · " + e.Title, Section: "events", Content: views.CheckIn(p)})
}

// markAttended is POST /events/:id/check-in/:member (organizers),
// attended=true|false: htmx gets the person's row, a plain form goes
// back to the list it came from.
func (s *Service) markAttended(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	attended, err := strconv.ParseBool(c.FormValue("attended"))
	if err != nil {
		return web.BadRequest(i18n.T(ctx, "events.error.attended"), err)
	}
	a, err := s.catalog.seats.CheckIn(ctx, e.RowKey, c.Param("member"), attended)
	if err != nil {
		return err
	}
	back := c.FormValue("next")
	if !strings.HasPrefix(back, checkInURL(e.RowKey, "")) {
		back = checkInURL(e.RowKey, "")
	}
	if web.HTMXFrom(c).Partial {
		return web.RenderFragment(c, http.StatusOK, views.AttendeeItem(attendeeItem(ctx, e.RowKey, back, a)))
	}
	flash := "events.flash.checked_in"
	if !attended {
		flash = "events.flash.check_in_undone"
	}
	return web.FlashRedirect(c, flash, back)
}

// attendeesCSV is GET /events/:id/attendees.csv (organizers): everyone
// registered, going first, then the waitlist in order, then those asking
// to join (with no ticket while they wait), then those who cancelled or
// were declined.
func (s *Service) attendeesCSV(c echo.Context) error {
	ctx := c.Request().Context()
	e := eventOf(c)
	all, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return err
	}
	rank := map[string]int{StatusGoing: 0, StatusWaitlist: 1, StatusPending: 2, StatusCancelled: 3}
	slices.SortStableFunc(all, func(a, b AttendeeRow) int {
		if d := rank[a.Status] - rank[b.Status]; d != 0 {
			return d
		}
		if a.Status == StatusWaitlist {
			return int(a.Seq - b.Seq)
		}
		return a.RegisteredAt.Compare(b.RegisteredAt)
	})
	// A column for each of the event's questions: the answer to it as
	// asked then (QA.Question), "" from someone who registered before.
	head := []string{"name", "email", "status", "party", "ticket", "registered_at", "attended", "checked_in_at"}
	questions := e.questionTexts()
	rows := [][]string{append(head, questions...)}
	for _, a := range all {
		checked := ""
		if a.CheckedInAt != nil {
			checked = a.CheckedInAt.UTC().Format(time.RFC3339)
		}
		ticket := a.Ticket
		if a.Status == StatusPending {
			ticket = "" // no ticket until approved
		}
		status := a.Status
		if a.Declined && a.Status == StatusCancelled {
			status = "declined"
		}
		row := []string{a.Name, a.Email, status, strconv.Itoa(a.Party), ticket,
			a.RegisteredAt.UTC().Format(time.RFC3339), strconv.FormatBool(a.Attended), checked}
		qa := answersOf(a)
		for _, q := range questions {
			i := slices.IndexFunc(qa, func(x QA) bool { return x.Question == q })
			if i < 0 {
				row = append(row, "")
			} else {
				row = append(row, csvAnswer(qa[i]))
			}
		}
		rows = append(rows, row)
	}
	return web.CSV(c, "attendees-"+e.RowKey+".csv", rows)
}

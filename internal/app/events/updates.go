package events

import (
	"context"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/quota"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/events"
)

// Updates, as Luma's "blasts" and Meetup's "message attendees": the
// people who run an event write its guests a few lines (Markdown), to
// everyone going and, if they choose, the waitlist too. Each guest gets
// it in their inbox, and by mail as their settings say; the event's page
// keeps the newest updatesShown for its guests and organizers, newest
// first. An update is a row of the event's EventAttendees partition
// ("u|{reverse ticks}|{id}"), beside the registrations it was sent to.
// An event sends at most updatesPerDay a day, so its guests' inboxes and
// mail stay theirs.

const (
	updatesPerDay = 3
	updatesShown  = 5
	updatePrefix  = "u|"
)

var updateRule = formrule.Text{Max: 2000, Required: true, Multiline: true}

// ErrTooManyUpdates refuses an update past the event's daily number
// (429); nothing is sent.
var ErrTooManyUpdates = fault.New(http.StatusTooManyRequests, "events.update.error.too_many", "events: too many updates today")

// UpdateRow is an update sent to an event's guests.
type UpdateRow struct {
	PartitionKey string    `table:"PartitionKey"` // the event's id
	RowKey       string    `table:"RowKey"`       // updatePrefix, reverse ticks, "|", id
	ETag         string    `table:"ETag"`
	Body         string    `table:"body"` // Markdown
	AuthorKey    string    `table:"authorKey"`
	AuthorName   string    `table:"authorName"`
	SentAt       time.Time `table:"sentAt"`
	// Waitlist says the waitlist was told too; Told is how many people.
	Waitlist bool `table:"waitlist"`
	Told     int  `table:"told"`
}

// SendUpdate sends body from by to e's guests (going; with waitlist, the
// people waiting and offered a seat too), by aside, and keeps it on the
// event. A bad body is FieldErrors, and one past the day's number
// ErrTooManyUpdates: both send and write nothing.
func (s *Service) SendUpdate(ctx context.Context, e EventRow, by *auth.Identity, body string, waitlist bool) (UpdateRow, error) {
	errs := FieldErrors{}
	body = errs.Check("body", updateRule, body, "events.update.error.body")
	if len(errs) > 0 {
		return UpdateRow{}, errs
	}
	if err := s.updates.Take(ctx, "update|"+e.RowKey, s.now()); err != nil {
		return UpdateRow{}, err
	}
	rows, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return UpdateRow{}, err
	}
	to := updateRecipients(rows, by.MemberKey, waitlist)
	now := s.now().UTC()
	id := ulid.Make().String()
	u := UpdateRow{
		PartitionKey: e.RowKey, RowKey: updatePrefix + storage.ReverseTicks(now) + "|" + id,
		Body: body, AuthorKey: by.MemberKey, AuthorName: by.DisplayName, SentAt: now, Waitlist: waitlist, Told: len(to),
	}
	if err := s.catalog.seats.marks.Mark(ctx, by.MemberKey, e.RowKey); err != nil {
		return UpdateRow{}, err
	}
	if _, err := storage.Insert(ctx, s.catalog.seats.table, u); err != nil {
		return UpdateRow{}, err
	}
	if s.notifier != nil && len(to) > 0 {
		err := s.notifier.Post(ctx, inbox.Notice{
			To:   to,
			Kind: "events.notify.update",
			Args: map[string]string{"title": e.Title, "name": by.DisplayName, "preview": richtext.Plain(body, 140)},
			When: now,
			Link: eventURL(e.RowKey) + "#updates",
			Key:  "events.update|" + e.RowKey + "|" + id,
			From: by.MemberKey,
		})
		if err != nil {
			s.log.WarnContext(ctx, "events: update not sent", "event", e.RowKey, "err", err)
		}
	}
	return u, nil
}

// updateRecipients are who an update from sender reaches among an
// event's registrations: the people going, with waitlist those waiting
// and offered a seat too; not the sender, nor guests without an account.
func updateRecipients(rows []AttendeeRow, sender string, waitlist bool) []inbox.Recipient {
	var to []inbox.Recipient
	for _, r := range rows {
		told := r.Status == StatusGoing || waitlist && (r.Status == StatusWaitlist || r.Status == StatusOffered)
		if told && !auth.IsGuestKey(r.MemberKey) && r.MemberKey != sender {
			to = append(to, inbox.Recipient{MemberKey: r.MemberKey})
		}
	}
	return to
}

// Updates are e's newest updates, newest first: one query.
func (s *Service) Updates(ctx context.Context, eventID string) ([]UpdateRow, error) {
	rows, _, err := storage.Take[UpdateRow](ctx, s.catalog.seats.table, storage.Query{PartitionKey: eventID, RowKeyPrefix: updatePrefix}, updatesShown)
	return rows, err
}

// updateItems are updates as the event's page shows them to its viewer:
// someone waiting sees only those sent to the waitlist too, as an update
// for the people going may say what only they should know.
func updateItems(c echo.Context, rows []UpdateRow, waiting bool) []views.Update {
	ctx := c.Request().Context()
	zone := auth.From(c).Location()
	var out []views.Update
	for _, u := range rows {
		if waiting && !u.Waitlist {
			continue
		}
		out = append(out, views.Update{
			Author: memberdata.Name(ctx, u.AuthorKey, u.AuthorName), When: i18n.DateTime(ctx, u.SentAt.In(zone)), Datetime: u.SentAt.UTC().Format(time.RFC3339),
			Body: templ.Raw(richtext.Render(u.Body)), Told: u.Told, Waitlist: u.Waitlist,
		})
	}
	return out
}

// updateForm is GET /events/:id/update: the form that sends one.
func (s *Service) updateForm(c echo.Context) error {
	return s.renderUpdateForm(c, http.StatusOK, eventOf(c), views.UpdateFormProps{})
}

func (s *Service) renderUpdateForm(c echo.Context, status int, e EventRow, p views.UpdateFormProps) error {
	ctx := c.Request().Context()
	rows, err := s.catalog.seats.Attendees(ctx, e.RowKey)
	if err != nil {
		return err
	}
	me := auth.From(c).MemberKey
	going := len(updateRecipients(rows, me, false))
	p.EventTitle, p.EventURL, p.Action = e.Title, eventURL(e.RowKey), eventURL(e.RowKey)+"/updates"
	p.Going, p.Waiting = going, len(updateRecipients(rows, me, true))-going
	return web.Render(c, status, web.Page{Title: i18n.T(ctx, "events.update.heading"), Section: "events", Content: views.UpdateForm(p)})
}

// sendUpdate is POST /events/:id/updates (body, waitlist=true).
func (s *Service) sendUpdate(c echo.Context) error {
	e := eventOf(c)
	p := views.UpdateFormProps{Body: c.FormValue("body"), Waitlist: c.FormValue("waitlist") == "true"}
	_, err := s.SendUpdate(c.Request().Context(), e, auth.From(c), p.Body, p.Waitlist)
	return web.AnswerForm(c, err, "events.flash.update_sent", eventURL(e.RowKey)+"#updates", func(status int, fe FieldErrors) error {
		p.Errors = fe
		return s.renderUpdateForm(c, status, e, p)
	}, web.Refusal{Err: ErrTooManyUpdates, Field: "body"})
}

// updatesLimit is the event's daily number of updates.
func updatesLimit(store *storage.Store) quota.Limit {
	return quota.Limit{Table: store.Table(QuotaTable), Max: updatesPerDay, Window: 24 * time.Hour, Err: ErrTooManyUpdates}
}

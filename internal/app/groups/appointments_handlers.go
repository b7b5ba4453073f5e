package groups

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/comments"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/groups"
)

// dashboardAppointments is how many upcoming appointments each group
// card on the dashboard shows.
const dashboardAppointments = 3

func appointmentURL(groupID, appointmentID string) string {
	return groupURL(groupID) + "/appointments/" + url.PathEscape(appointmentID)
}

// occurrenceURL is one occurrence of a series: its page, ?at= its start.
func occurrenceURL(groupID, appointmentID string, at time.Time) string {
	return appointmentURL(groupID, appointmentID) + "?at=" + appointmentTimeKey(at)
}

// rowURL is the page of what an index row shows: an appointment, or one
// occurrence of a series.
func rowURL(groupID string, row AppointmentIndexRow) string {
	if !row.Occurrence.IsZero() {
		return occurrenceURL(groupID, row.AppointmentID, row.Occurrence)
	}
	return appointmentURL(groupID, row.AppointmentID)
}

// whenText formats a start and end in zone, in the reader's language:
// "Mon 2 Jun 2030, 10:00–11:00", "пн, 2 июн. 2030, 10:00–11:00".
func whenText(ctx context.Context, start, end time.Time, allDay bool, zone *time.Location) string {
	if allDay { // dates, not instants: "Mon 2 Jun 2030, all day"
		last := end.UTC().AddDate(0, 0, -1)
		text := i18n.Day(ctx, start.UTC()) + " " + strconv.Itoa(start.UTC().Year())
		if last.After(start.UTC()) {
			text = i18n.Day(ctx, start.UTC()) + " – " + i18n.Day(ctx, last) + " " + strconv.Itoa(last.Year())
		}
		return text + ", " + i18n.T(ctx, "groups.appointments.all_day_lower")
	}
	s, e := start.In(zone), end.In(zone)
	zoneName := ""
	if zone == time.UTC {
		zoneName = " UTC"
	}
	return i18n.Span(ctx, s, e) + zoneName
}

// appointmentItem shows an index row of g, its participants in their
// colours (pal, g's).
func appointmentItem(ctx context.Context, row AppointmentIndexRow, g GroupRow, pal palette, zone *time.Location) views.AppointmentItem {
	groupID := g.GroupID
	return views.AppointmentItem{
		Colors: pal.who(row),
		ID:     row.AppointmentID, Title: row.Title, Location: row.Location,
		When:     whenText(ctx, row.StartTime, row.EndTime, row.AllDay, zone),
		Datetime: row.StartTime.UTC().Format(time.RFC3339),
		Href:     rowURL(groupID, row),
		Canceled: row.Status == AppointmentCanceled, HasScan: row.HasScan,
		Repeats: row.Repeat != "",
	}
}

// toAgenda is GET /groups/:id/appointments, the agenda's old address:
// it moved to the group's page.
func (h *handlers) toAgenda(c echo.Context) error {
	_, g := Opened(c)
	u := groupURL(g.GroupID)
	if q := c.QueryString(); q != "" {
		u += "?" + q
	}
	return c.Redirect(http.StatusMovedPermanently, u)
}

// upcoming is GET /groups/:id[?from=…]: the group's home, its agenda
// of what comes next, a page at a time from ?from= (an
// appointmentTimeKey; now by default). The page fetching itself on a
// change (live) reads on through the page that begins at ?until=, the
// last one it loaded.
func (h *handlers) upcoming(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	from, until := h.svc.now(), time.Time{}
	for name, at := range map[string]*time.Time{"from": &from, untilParam: &until} {
		v := c.QueryParam(name)
		if v == "" {
			continue
		}
		// The calendar's years (calendarAt): the agenda reads 90 days on,
		// within what storage holds.
		t, ok := parseAt(v)
		if !ok || t.Year() < 1970 || t.Year() > 9998 {
			return web.BadRequest(i18n.T(ctx, "groups.agenda.error.from"), nil)
		}
		*at = t
	}
	page, err := h.svc.AgendaThrough(ctx, m, from, until)
	if err != nil {
		return err
	}
	zone := h.svc.Zone(ctx, id)
	items := make([]views.AppointmentItem, 0, len(page.Rows))
	pal := paletteOf(g)
	for _, r := range page.Rows {
		items = append(items, appointmentItem(ctx, r, g, pal, zone))
	}
	u := groupURL(g.GroupID)
	next := ""
	if !page.Next.IsZero() {
		next = u + "?from=" + appointmentTimeKey(page.Next)
	}
	p := views.AppointmentsProps{
		GroupName: g.GroupName, GroupURL: u, Zone: zoneNote(ctx, g, zone, h.svc.now()),
		Items: items, NextURL: next, First: c.QueryParam("from") == "", PageURL: pageURL(c),
	}
	// "Load more" takes the next page, and that it is shown.
	return web.RenderLive(c, http.StatusOK, web.Page{Title: g.GroupName, Section: "groups", Content: views.Appointments(p),
		Fragment: views.AgendaMore(items, next, c.QueryParam("from"))})
}

// CalendarURL is m's own .ics feed URL for group g: it names the member
// by their sealed reference and carries their feed secret
// (memberFeedToken), so it stops working when they leave or are removed.
func (s *Service) CalendarURL(g GroupRow, m Membership) string {
	q := url.Values{
		"member": {s.memberRef(g.GroupID, m.Row.RowKey)},
		"token":  {memberFeedToken(g.CalendarToken, m.Row.RowKey)},
	}
	return s.baseURL + groupURL(g.GroupID) + "/calendar.ics?" + q.Encode()
}

// appointmentForm builds the form's props from the members and the
// chosen participants.
func (h *handlers) appointmentForm(ctx context.Context, g GroupRow, zone *time.Location, in AppointmentInput) (views.AppointmentFormProps, error) {
	members, err := h.svc.ActiveMembers(ctx, g.GroupID)
	if err != nil {
		return views.AppointmentFormProps{}, err
	}
	chosen := map[string]bool{}
	for _, k := range in.Participants {
		chosen[k] = true
	}
	p := views.AppointmentFormProps{
		GroupName: g.GroupName, GroupURL: groupURL(g.GroupID), Zone: i18n.ZoneName(ctx, zone.String(), h.svc.now()),
		Title: in.Title, Start: in.Start, End: in.End, Location: in.Location, Notes: in.Notes,
		NoResponsible: in.Responsible == "", Revision: in.Revision, AllDay: in.AllDay,
		Repeat: repeatFields(ctx, in.Repeat, in.Start, zone), Scope: in.Scope, At: in.At, Remind: in.Remind,
	}
	for _, row := range members {
		key := memberKeyOf(row)
		name := row.DisplayName
		if name == "" {
			name = i18n.T(ctx, "groups.roster.invitee")
		}
		p.Members = append(p.Members, views.MemberChoice{Key: key, Name: name, Checked: chosen[key] || key == in.Responsible, Responsible: key == in.Responsible})
	}
	return p, nil
}

// repeatFields are the form's repeat choices, as typed or stored.
func repeatFields(ctx context.Context, in RepeatInput, start string, zone *time.Location) views.RepeatFields {
	f := views.RepeatFields{Freq: in.Freq, Interval: in.Interval, Weekdays: map[string]bool{}, Monthly: in.Monthly, Ends: in.Ends, Until: in.Until, Count: in.Count}
	// The monthly choices name the start's own day, when the form has one.
	if len(start) >= len(time.DateOnly) {
		if day, err := time.ParseInLocation(time.DateOnly, start[:len(time.DateOnly)], zone); err == nil {
			f.ByDate, f.ByWeekday = monthlyDays(ctx, day)
		}
	}
	if f.Interval == "" {
		f.Interval = "1"
	}
	if f.Ends == "" {
		f.Ends = "never"
	}
	if f.Monthly == "" {
		f.Monthly = MonthlyByDate
	}
	for _, d := range in.Weekdays {
		f.Weekdays[d] = true
	}
	for i, code := range weekdayCodes {
		f.Days = append(f.Days, [2]string{code, i18n.Weekday(ctx, time.Weekday((i+1)%7))})
	}
	return f
}

func renderAppointmentForm(c echo.Context, status int, p views.AppointmentFormProps) error {
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), p.Heading), Section: "groups", Content: views.AppointmentForm(p)})
}

// proposedStart is where a new appointment's form starts: the day and
// hour clicked in a calendar (?date=YYYY-MM-DD&time=HH:MM, 09:00 when
// only the day), else the next full hour. A bad value is ignored: the
// form is only a proposal.
func proposedStart(c echo.Context, now time.Time, zone *time.Location) time.Time {
	if date := c.QueryParam("date"); date != "" {
		clock := c.QueryParam("time")
		if clock == "" {
			clock = "09:00"
		}
		if t, err := time.ParseInLocation(FormTimeLayout, date+"T"+clock, zone); err == nil {
			return t
		}
	}
	return time.Date(now.Year(), now.Month(), now.Day(), now.Hour()+1, 0, 0, 0, zone)
}

// newAppointment is GET /groups/:id/appointments/new[?date=…&time=…].
func (h *handlers) newAppointment(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	_, g := Opened(c)
	zone := h.svc.Zone(ctx, id)
	start := proposedStart(c, h.svc.now().In(zone), zone)
	in := AppointmentInput{Start: start.Format(FormTimeLayout), End: start.Add(time.Hour).Format(FormTimeLayout)}
	p, err := h.appointmentForm(ctx, g, zone, in)
	if err != nil {
		return err
	}
	p.Heading, p.Action = "groups.appointments.new", groupURL(g.GroupID)+"/appointments"
	return renderAppointmentForm(c, http.StatusOK, p)
}

// createAppointment is POST /groups/:id/appointments.
func (h *handlers) createAppointment(c echo.Context) error {
	_, g := Opened(c)
	return h.submitAppointment(c, "groups.appointments.new", groupURL(g.GroupID)+"/appointments", "groups.appointments.flash.created",
		func(ctx context.Context, m Membership, id *auth.Identity, in AppointmentInput, zone *time.Location) (string, error) {
			doc, err := h.svc.CreateAppointment(ctx, m, id, in, zone)
			return doc.AppointmentID, err
		})
}

// submitAppointment runs an appointment form, new or edit: save writes
// it and the appointment's page follows, or its field errors show the
// form again with 422 (and nothing was written).
func (h *handlers) submitAppointment(c echo.Context, heading, action, flashKey string,
	save func(ctx context.Context, m Membership, id *auth.Identity, in AppointmentInput, zone *time.Location) (string, error)) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	zone := h.svc.Zone(ctx, id)
	var in AppointmentInput
	if err := web.BindForm(c, &in); err != nil {
		return err
	}
	apptID, err := save(ctx, m, id, in, zone)
	var fe FieldErrors
	if errors.As(err, &fe) {
		p, perr := h.appointmentForm(ctx, g, zone, in)
		if perr != nil {
			return perr
		}
		p.Heading, p.Action, p.Errors = heading, action, fe
		return renderAppointmentForm(c, http.StatusUnprocessableEntity, p)
	}
	if errors.Is(err, ErrStaleEdit) {
		// Keep what they typed, say what happened, and take the current
		// version: saving again is a deliberate overwrite.
		current, cerr := h.svc.Appointment(ctx, m, c.Param("appt"))
		if cerr != nil {
			return cerr
		}
		in.Revision = Revision(current.Doc)
		p, perr := h.appointmentForm(ctx, g, zone, in)
		if perr != nil {
			return perr
		}
		p.Heading, p.Action, p.Conflict = heading, action, true
		return renderAppointmentForm(c, http.StatusConflict, p)
	}
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, flashKey, appointmentURL(g.GroupID, apptID))
}

// appointment is GET /groups/:id/appointments/:appt.
func (h *handlers) appointment(c echo.Context) error {
	m, g := Opened(c)
	return h.renderAppointment(c, http.StatusOK, m, g, auth.From(c), openedAppointment(c), pageForms{})
}

// pageForms refill the appointment page's forms after a refusal.
type pageForms struct {
	ScanError    string
	Comment      string
	CommentError string // i18n key
}

func (h *handlers) renderAppointment(c echo.Context, status int, m Membership, g GroupRow, id *auth.Identity, d AppointmentDetail, forms pageForms) error {
	ctx := c.Request().Context()
	zone := h.svc.Zone(ctx, id)
	if c.QueryParam(web.CursorParam) != "" && web.HTMXFrom(c).Partial {
		// "Earlier comments" fetched by htmx: only they, in place of the
		// link; the rest of the page is not read.
		comments, earlier, _, err := h.thread(c, m, g, id, d, zone)
		if err != nil {
			return err
		}
		return web.RenderFragment(c, status, views.CommentRows(comments, earlier, true))
	}
	u := appointmentURL(g.GroupID, d.Doc.AppointmentID)
	pal := paletteOf(g)
	item := appointmentItem(ctx, d.Index, g, pal, zone)
	item.Title, item.Location = d.Doc.Title, d.Doc.Location
	item.When = whenText(ctx, d.Doc.Start, d.Doc.End, d.Doc.AllDay, zone)
	item.Canceled = d.Doc.Status == AppointmentCanceled
	p := views.AppointmentProps{
		GroupName: g.GroupName, GroupURL: groupURL(g.GroupID), URL: u,
		Item: item, Notes: d.Doc.Notes, CanDelete: CanDelete(m, id, d.Index), ScanError: forms.ScanError,
		Comment: forms.Comment, CommentError: forms.CommentError,
		EditURL: u + "/edit", PageURL: u,
	}
	// A source link is a local path: another module's page.
	if src := d.Doc.Source; src != nil && strings.HasPrefix(src.URL, "/") && !strings.HasPrefix(src.URL, "//") {
		p.SourceTitle, p.SourceURL = src.Title, src.URL
	}
	if d.Doc.Repeat != "" {
		p.Repeat = describeRepeat(ctx, d.Doc.Repeat, d.Doc.Start.In(seriesZone(d.Index)))
		p.SeriesURL = u
	}
	if !d.At.IsZero() {
		p.At = appointmentTimeKey(d.At)
		p.EditURL += "?at=" + p.At
		p.PageURL = occurrenceURL(g.GroupID, d.Doc.AppointmentID, d.At)
	}
	if d.Doc.SeriesID != "" {
		p.SeriesURL = appointmentURL(g.GroupID, d.Doc.SeriesID)
	}
	names, err := h.svc.ActiveMembers(ctx, g.GroupID)
	if err != nil {
		return err
	}
	byKey := map[string]string{}
	for _, row := range names {
		byKey[memberKeyOf(row)] = row.DisplayName
	}
	for _, part := range d.Participants {
		name, ok := byKey[part.MemberKey]
		if !ok {
			continue // no longer an active member
		}
		p.Participants = append(p.Participants, views.ParticipantItem{Name: name, Responsible: part.Role == RoleResponsible, Color: pal.of(part.MemberKey)})
		if part.MemberKey == id.MemberKey && !id.Guest {
			p.MyReminder = &views.MyReminder{
				Choice: part.Remind, URL: u + "/remind", At: p.At,
				Default: int(leadOf(d.Doc, ParticipantRow{Role: part.Role}).Minutes()),
			}
		}
	}
	if !web.LiveRefresh(c) { // the page fetching itself takes its facts only
		if p.Comments, p.EarlierURL, p.LatestURL, err = h.thread(c, m, g, id, d, zone); err != nil {
			return err
		}
	}
	if d.Index.HasScan {
		p.ScanURL = u + "/scan?v=" + url.QueryEscape(d.Index.ScanCapturedAt.UTC().Format("20060102150405"))
		if h.svc.CanExtract() {
			p.ReadScanURL = u + "/scan/read"
		}
	}
	return web.RenderLive(c, status, web.Page{Title: d.Doc.Title, Section: "groups", Content: views.AppointmentPage(p)})
}

// thread is the page of the appointment's comments the request's
// cursor names (web.Pager), the newest without it, oldest first, with
// the links to the page before it and, on an earlier page, back to the
// latest.
func (h *handlers) thread(c echo.Context, m Membership, g GroupRow, id *auth.Identity, d AppointmentDetail, zone *time.Location) (items []views.CommentItem, earlierURL, latestURL string, err error) {
	ctx := c.Request().Context()
	u := appointmentURL(g.GroupID, d.Doc.AppointmentID)
	here := c.Request().URL.Query()
	here.Del(web.CursorParam)
	if len(here) > 0 {
		u += "?" + here.Encode()
	}
	pager := web.Pager{Cursors: h.svc.cursors, Query: "groups/comments|" + commentPart(g.GroupID, d.Doc.AppointmentID), URL: u}
	start, err := pager.Start(c)
	if err != nil {
		return nil, "", "", err
	}
	page, err := h.svc.Comments(ctx, g.GroupID, d.Doc.AppointmentID, start)
	if err != nil {
		return nil, "", "", err
	}
	pal := paletteOf(g)
	for _, cm := range slices.Backward(page.Rows) {
		items = append(items, commentItem(ctx, m, g.GroupID, pal, id, zone, d.Doc.AppointmentID, cm))
	}
	if start != nil {
		latestURL = u + "#comments"
	}
	return items, pager.NextURL(page.Next), latestURL, nil
}

// commentItem is comment cm of an appointment of group groupID (its
// colours pal) as id, of m, sees it in zone: its author edits it, its
// author and owners delete it.
func commentItem(ctx context.Context, m Membership, groupID string, pal palette, id *auth.Identity, zone *time.Location, appointmentID string, cm CommentRow) views.CommentItem {
	item := views.CommentItem{
		ID: cm.ID(), Author: cm.Author(ctx), Body: templ.Raw(richtext.Render(cm.Body)),
		When: i18n.DateTime(ctx, cm.CreatedAt.In(zone)), Datetime: cm.CreatedAt.UTC().Format(time.RFC3339),
		Color: pal.of(cm.AuthorKey), Edited: cm.EditedAt != nil,
	}
	u := commentURL(groupID, appointmentID, cm.RowKey)
	if cm.AuthorKey == id.MemberKey {
		item.EditURL = u + "/edit"
	}
	if cm.AuthorKey == id.MemberKey || m.Owner() {
		item.DeleteURL = u + "/delete"
	}
	return item
}

// commentURL is the address of comment rk of an appointment.
func commentURL(groupID, appointmentID, rk string) string {
	return appointmentURL(groupID, appointmentID) + "/comments/" + comments.PathKey(rk)
}

// commentEditing is a comment's edit (GET and POST
// …/comments/:comment/edit), its author's, on an appointment the member
// sees.
func (h *handlers) commentEditing() comments.Editing {
	on := comments.On{
		Thread: h.svc.comments, Section: "groups",
		Of: func(c echo.Context) (comments.Target, error) {
			m, g := Opened(c)
			d, err := h.svc.Appointment(c.Request().Context(), m, c.Param("appt"))
			if err != nil {
				return comments.Target{}, err
			}
			return comments.Target{
				Thread: commentPart(g.GroupID, d.Doc.AppointmentID), RowKey: comments.KeyFromPath(c.Param("comment")),
				Title: d.Doc.Title, URL: appointmentURL(g.GroupID, d.Doc.AppointmentID),
			}, nil
		},
		Item: func(c echo.Context, r CommentRow) templ.Component {
			ctx, id := c.Request().Context(), auth.From(c)
			m, g := Opened(c)
			return views.CommentRow(commentItem(ctx, m, g.GroupID, paletteOf(g), id, h.svc.Zone(ctx, id), c.Param("appt"), r))
		},
	}
	return comments.Editing{On: on, Wrap: func(r CommentRow, form templ.Component) templ.Component { return views.CommentEditItem(r.ID(), form) }}
}

// formTime is a UTC instant as the form's datetime-local value in zone.
func formTime(t time.Time, zone *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(zone).Format(FormTimeLayout)
}

// editInput is the stored appointment as the form shows it. The
// responsible comes from the participant rows, as on the detail page:
// they follow a guest who signs in, the blob's copy does not.
func editInput(d AppointmentDetail, zone *time.Location) AppointmentInput {
	in := AppointmentInput{
		Title: d.Doc.Title, Start: formTime(d.Doc.Start, zone), End: formTime(d.Doc.End, zone),
		Location: d.Doc.Location, Notes: d.Doc.Notes, Revision: Revision(d.Doc), AllDay: d.Doc.AllDay,
		Repeat: repeatInputOf(d.Doc.Repeat, d.Doc.Start.In(seriesZone(d.Index))),
		Remind: strconv.Itoa(d.Doc.Remind),
	}
	if !d.At.IsZero() {
		in.At, in.Scope = appointmentTimeKey(d.At), ScopeThis
	}
	if d.Doc.AllDay { // dates; the form's last day is included
		in.Start, in.End = formTime(d.Doc.Start, time.UTC), formTime(d.Doc.End.AddDate(0, 0, -1), time.UTC)
	}
	for _, p := range d.Participants {
		in.Participants = append(in.Participants, p.MemberKey)
		if p.Role == RoleResponsible {
			in.Responsible = p.MemberKey
		}
	}
	return in
}

// editAppointment is GET /groups/:id/appointments/:appt/edit.
func (h *handlers) editAppointment(c echo.Context) error {
	ctx := c.Request().Context()
	id, d := auth.From(c), openedAppointment(c)
	_, g := Opened(c)
	zone := h.svc.Zone(ctx, id)
	p, err := h.appointmentForm(ctx, g, zone, editInput(d, zone))
	if err != nil {
		return err
	}
	p.Heading, p.Action = "groups.appointments.edit", appointmentURL(g.GroupID, d.Doc.AppointmentID)+"/edit"
	return renderAppointmentForm(c, http.StatusOK, p)
}

// updateAppointment is POST /groups/:id/appointments/:appt/edit.
func (h *handlers) updateAppointment(c echo.Context) error {
	_, g := Opened(c)
	apptID := c.Param("appt")
	return h.submitAppointment(c, "groups.appointments.edit", appointmentURL(g.GroupID, apptID)+"/edit", "groups.appointments.flash.saved",
		func(ctx context.Context, m Membership, id *auth.Identity, in AppointmentInput, zone *time.Location) (string, error) {
			// An edit of one occurrence, or of the following ones, is a
			// new appointment: its page follows.
			doc, err := h.svc.UpdateAppointment(ctx, m, id, apptID, in, zone)
			return doc.AppointmentID, err
		})
}

// cancelAppointment is POST /groups/:id/appointments/:appt/cancel: the
// appointment, or (at) one occurrence of a series.
func (h *handlers) cancelAppointment(c echo.Context) error {
	_, g := Opened(c)
	occurrence := func(ctx context.Context, m Membership, id *auth.Identity, appt, _, at string) error {
		return h.svc.CancelOccurrence(ctx, m, id, appt, at)
	}
	return h.endAppointment(c, "cancel", h.svc.CancelAppointment, occurrence,
		"groups.appointments.flash.canceled", appointmentURL(g.GroupID, c.Param("appt")))
}

// deleteAppointment is POST /groups/:id/appointments/:appt/delete (its
// creator or an owner): the appointment, or (at, scope) occurrences of a
// series.
func (h *handlers) deleteAppointment(c echo.Context) error {
	_, g := Opened(c)
	return h.endAppointment(c, "delete", h.svc.DeleteAppointment, h.svc.DeleteOccurrences,
		"groups.appointments.flash.deleted", groupURL(g.GroupID))
}

// endAppointment is cancel and delete: after confirmation (action), the
// whole appointment, or the occurrences at and scope name; then flash and
// go to next.
func (h *handlers) endAppointment(c echo.Context, action string,
	whole func(ctx context.Context, m Membership, id *auth.Identity, appt string) error,
	occurrences func(ctx context.Context, m Membership, id *auth.Identity, appt, scope, at string) error,
	flash, next string,
) error {
	ctx := c.Request().Context()
	id, appt := auth.From(c), c.Param("appt")
	m, _ := Opened(c)
	if !web.Confirmed(c) {
		return h.askAppointment(c, m, action)
	}
	var err error
	if at, scope := c.FormValue("at"), c.FormValue("scope"); at != "" && scope != ScopeAll {
		err = occurrences(ctx, m, id, appt, scope, at)
	} else {
		err = whole(ctx, m, id, appt)
	}
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, flash, next)
}

// askAppointment asks before cancelling or deleting an appointment, or
// an occurrence of a series (at), that exists.
func (h *handlers) askAppointment(c echo.Context, m Membership, action string) error {
	ctx := c.Request().Context()
	d, err := h.svc.appointmentOrOccurrence(ctx, m, c.Param("appt"), c.FormValue("at"))
	if err != nil {
		return err
	}
	ask := views.AppointmentConfirm(ctx, "", action, d.Doc.Title)
	if !d.At.IsZero() {
		ask = views.OccurrenceConfirm(ctx, "", action, d.Doc.Title, appointmentTimeKey(d.At))
	}
	return web.AskConfirm(c, ask)
}

// setMyReminder is POST /groups/:id/appointments/:appt/remind: a
// participant chooses their own reminder.
func (h *handlers) setMyReminder(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	err := h.svc.SetMyReminder(ctx, m, auth.From(c), c.Param("appt"), c.FormValue("remind"))
	back := appointmentURL(g.GroupID, c.Param("appt"))
	if at := c.FormValue("at"); at != "" {
		if t, ok := parseAt(at); ok {
			back = occurrenceURL(g.GroupID, c.Param("appt"), t)
		}
	}
	return web.AnswerAction(c, err, "groups.reminder.error", "groups.reminder.flash.saved", back)
}

// addComment is POST /groups/:id/appointments/:appt/comments. A bad
// comment shows the page again with it (422) and writes nothing.
func (h *handlers) addComment(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	body := c.FormValue("comment")
	_, err := h.svc.AddComment(ctx, m, id, c.Param("appt"), body)
	return web.AnswerForm(c, err, "groups.comments.flash.added", appointmentURL(g.GroupID, c.Param("appt"))+"#comments", func(status int, fe FieldErrors) error {
		d, err := h.svc.Appointment(ctx, m, c.Param("appt"))
		if err != nil {
			return err
		}
		return h.renderAppointment(c, status, m, g, id, d, pageForms{Comment: body, CommentError: fe["comment"]})
	}, web.Refusal{Err: ErrTooManyComments, Field: "comment"})
}

// deleteComment is POST …/comments/:comment/delete (its author, or an
// owner), after confirmation.
func (h *handlers) deleteComment(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	if !web.Confirmed(c) {
		if err := h.svc.MayDeleteComment(ctx, m, auth.From(c), c.Param("appt"), c.Param("comment")); err != nil {
			return err
		}
		return web.AskConfirm(c, views.CommentDeleteConfirm(ctx, ""))
	}
	if err := h.svc.DeleteComment(ctx, m, auth.From(c), c.Param("appt"), c.Param("comment")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.comments.flash.deleted", appointmentURL(g.GroupID, c.Param("appt"))+"#comments")
}

// restoreAppointment is POST /groups/:id/appointments/:appt/restore: a
// cancelled appointment takes place after all.
func (h *handlers) restoreAppointment(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	if err := h.svc.RestoreAppointment(ctx, m, auth.From(c), c.Param("appt")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.appointments.flash.restored", appointmentURL(g.GroupID, c.Param("appt")))
}

// scan is GET /groups/:id/appointments/:appt/scan: the private scan,
// through the app only, never cached by shared caches.
func (h *handlers) scan(c echo.Context) error {
	ctx := c.Request().Context()
	m, _ := Opened(c)
	data, err := h.svc.Scan(ctx, m, c.Param("appt"))
	if err != nil {
		return err
	}
	hdr := c.Response().Header()
	hdr.Set("Cache-Control", "private, no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Disposition", "inline")
	return c.Blob(http.StatusOK, "image/jpeg", data)
}

// uploadScan is POST /groups/:id/appointments/:appt/scan (multipart
// field "scan").
func (h *handlers) uploadScan(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	apptID := c.Param("appt")
	data, err := h.svc.uploads.Read(c, "scan", MaxScanBytes)
	if err == nil {
		err = h.svc.UploadScan(ctx, m, apptID, data)
	}
	if err == nil {
		return web.FlashRedirect(c, "groups.scan.flash.saved", appointmentURL(g.GroupID, apptID))
	}
	status, message, ok := web.UploadRefusal(err)
	if !ok {
		return err
	}
	d, err := h.svc.Appointment(ctx, m, apptID)
	if err != nil {
		return err
	}
	return h.renderAppointment(c, status, m, g, id, d, pageForms{ScanError: i18n.T(ctx, message, "mb", MaxScanBytes>>20)})
}

// readScan is POST /groups/:id/appointments/:appt/scan/read: the edit
// form pre-filled from the scan, not saved until the person saves it.
func (h *handlers) readScan(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	d, draft, err := h.svc.ReadScan(ctx, m, id, c.Param("appt"))
	if err != nil {
		return err
	}
	zone := h.svc.Zone(ctx, id)
	in := editInput(d, zone)
	if draft.Title != "" {
		in.Title = draft.Title
	}
	if !draft.Start.IsZero() {
		in.Start = draft.Start.Format(FormTimeLayout)
	}
	if !draft.End.IsZero() {
		in.End = draft.End.Format(FormTimeLayout)
	}
	if draft.Location != "" {
		in.Location = draft.Location
	}
	if draft.Notes != "" {
		in.Notes = draft.Notes
	}
	p, err := h.appointmentForm(ctx, g, zone, in)
	if err != nil {
		return err
	}
	p.Heading, p.Action, p.Drafted = "groups.appointments.edit", appointmentURL(g.GroupID, d.Doc.AppointmentID)+"/edit", true
	return renderAppointmentForm(c, http.StatusOK, p)
}

// regenerateCalendarToken is POST /groups/:id/calendar/token (owners).
func (h *handlers) regenerateCalendarToken(c echo.Context) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	if _, err := h.svc.RegenerateCalendarToken(ctx, m); err != nil {
		return err
	}
	flash := "groups.calendar.flash.regenerated"
	if g.CalendarToken == "" {
		flash = "groups.calendar.flash.enabled" // turned on: nobody had an address yet
	}
	return web.FlashRedirect(c, flash, groupURL(g.GroupID)+"/settings#calendar-feed")
}

// calendarFeed is GET /groups/:id/calendar.ics?member=…&token=…, one
// member's feed: no session; the member's token is the key and their
// membership is checked. Anything wrong is the same 404.
func (h *handlers) calendarFeed(c echo.Context) error {
	body, err := h.svc.CalendarFeed(c.Request().Context(), c.Param("id"), c.QueryParam("member"), c.QueryParam("token"))
	if err != nil {
		return err
	}
	return web.ServeCalendarFeed(c, body)
}

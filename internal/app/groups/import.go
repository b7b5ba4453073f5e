package groups

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	ics "github.com/arran4/golang-ical"
	"github.com/teambition/rrule-go"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// Import adds a calendar file's events (a Google or Apple export, any
// RFC 5545 .ics) to a group: the file is read and shown as a preview,
// kept meanwhile as a blob of the group's, then imported. An event whose
// UID was imported before updates that appointment instead of adding it
// again. Times keep their zone (TZID), all-day events stay dates, and
// repeating ones keep their RRULE and EXDATEs. What cannot be imported
// (no start, too long, a rule we do not expand) is listed with why.

// Import limits: the file's size, the events one file brings, the dates
// one series skips (its index row keeps them in one property, under
// Azure's 64 KiB), and how deep components nest (a VEVENT's VALARM is
// two; the parser recurses once a level, so a file of nested BEGIN
// lines would cost a goroutine's stack).
const (
	MaxImportBytes   = 1 << 20
	maxImportEvents  = 500
	maxImportExDates = 1000
	maxImportNesting = 8
)

// Errors of an import.
var (
	// ErrNotCalendar is a file that is not an iCalendar file (400).
	ErrNotCalendar = fault.New(http.StatusBadRequest, "groups.import.error.parse", "groups: not a calendar file")
	// ErrNoImport is an import that expired or never was (404).
	ErrNoImport = fault.New(http.StatusNotFound, "groups.import.error.gone", "groups: no such import")
)

// ImportItem is one event of a file, ready to import or not.
type ImportItem struct {
	UID string
	Doc Appointment
	// Existing is the appointment an earlier import of UID made; "" for
	// a new one.
	Existing string
	// Problem is why it cannot be imported (an i18n key); "" when it can.
	Problem string
}

// ImportPreview is what a file would do.
type ImportPreview struct {
	Token string
	Items []ImportItem
}

// previewKept is how long a previewed file waits for its import; a task
// then deletes it.
const previewKept = time.Hour

// previewsPerHour bounds the files one person previews in an hour: each
// is kept for previewKept.
const previewsPerHour = 20

// ErrTooManyPreviews refuses a preview past previewsPerHour (429).
var ErrTooManyPreviews = fault.New(http.StatusTooManyRequests, "groups.import.error.too_many", "groups: too many calendar files previewed")

// importBlobName is where a previewed file waits for its import.
func importBlobName(groupID, token string) string {
	return groupBlobPrefix(groupID) + "imports/" + token + ".ics"
}

// PreviewImport reads data as a calendar and keeps it for ImportFile for
// previewKept, at most previewsPerHour files a person: one blob write, a
// task to forget it, and one query per index partition for UIDs imported
// before.
func (s *Service) PreviewImport(ctx context.Context, m Membership, data []byte) (ImportPreview, error) {
	// The quota is taken once the file parses, before its events are
	// read: that is the costly part (each rule is expanded to see that it
	// ever occurs). A file that is no calendar costs nothing.
	items, err := s.readCalendar(ctx, m, data, func() error {
		return s.previewsPerPerson.Take(ctx, "preview|"+m.Row.RowKey, s.now())
	})
	if err != nil {
		return ImportPreview{}, err
	}
	b := make([]byte, 16)
	rand.Read(b) // never fails
	token := hex.EncodeToString(b)
	name := importBlobName(m.GroupID, token)
	if _, err := s.blobs.Put(ctx, name, data, "text/calendar"); err != nil {
		return ImportPreview{}, err
	}
	if s.previews != nil {
		if err := s.previews.EnqueueAt(ctx, s.now().Add(previewKept), "import|"+token, name); err != nil {
			s.forgetPreview(ctx, name) //nolint:errcheck // a file nobody can be sure to forget is not kept
			return ImportPreview{}, err
		}
	}
	return ImportPreview{Token: token, Items: items}, nil
}

// forgetPreview deletes a previewed file nobody imported (a task, due
// previewKept after the preview); an imported one is gone already.
func (s *Service) forgetPreview(ctx context.Context, name string) error {
	err := s.blobs.Delete(ctx, name)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	return err
}

// ImportFile imports the previewed file token as id: adds or updates
// each importable event, then forgets the file. It returns how many were
// added and updated.
func (s *Service) ImportFile(ctx context.Context, m Membership, id *auth.Identity, token string) (added, updated int, err error) {
	if len(token) != 32 || strings.Trim(token, "0123456789abcdef") != "" {
		return 0, 0, ErrNoImport
	}
	name := importBlobName(m.GroupID, token)
	blob, err := s.blobs.Get(ctx, name)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, 0, ErrNoImport
	}
	if err != nil {
		return 0, 0, err
	}
	items, err := s.readCalendar(ctx, m, blob.Data, nil)
	if err != nil {
		return 0, 0, err
	}
	now := s.now().UTC()
	// One summary refresh and one signal to the calendar's pages for the
	// whole file, at the end (even one that stopped half way).
	defer s.refreshUpcoming(ctx, m.GroupID)
	defer func() {
		if added+updated > 0 {
			_ = s.calendarWrote(ctx, m.GroupID, nil)
		}
	}()
	ctx = context.WithValue(ctx, batchKey{}, true)
	for _, it := range items {
		if it.Problem != "" {
			continue
		}
		doc := it.Doc
		doc.GroupID = m.GroupID
		if it.Existing != "" {
			_, err := s.update(ctx, m.GroupID, &AppointmentDetail{Doc: Appointment{AppointmentID: it.Existing}}, false, func(d *AppointmentDetail) ([]string, error) {
				next := doc // the file's, with what it does not carry kept
				next.AppointmentID, next.CreatedBy, next.CreatedAt, next.Sequence = d.Doc.AppointmentID, d.Doc.CreatedBy, d.Doc.CreatedAt, d.Doc.Sequence
				next.Who, next.WhoVersion, next.Responsible, next.Remind = d.Doc.Who, d.Doc.WhoVersion, d.Doc.Responsible, d.Doc.Remind
				next.UpdatedBy, next.UpdatedAt = id.MemberKey, now
				d.Doc = next
				return nil, nil
			})
			if err == nil {
				updated++
				continue
			}
			if !errors.Is(err, ErrNoAppointment) {
				return added, updated, err
			}
		}
		doc.AppointmentID = newAppointmentID()
		doc.CreatedBy, doc.UpdatedBy, doc.CreatedAt, doc.UpdatedAt = id.MemberKey, id.MemberKey, now, now
		if err := s.commitWith(ctx, &doc, nil, nil, id.MemberKey); err != nil {
			return added, updated, err
		}
		added++
	}
	if err := s.blobs.Delete(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) {
		s.log.WarnContext(ctx, "groups: imported file not deleted", "blob", name, "err", err)
	}
	if added > 0 {
		s.counts.Add(ctx, NewAppointments)
	}
	return added, updated, nil
}

// readCalendar parses data and turns its events into appointments of
// m's group, marking those imported before. parsed, when set, runs once
// data parses as a calendar with events, before they are read (which is
// the costly part): a quota.
func (s *Service) readCalendar(ctx context.Context, m Membership, data []byte, parsed func() error) ([]ImportItem, error) {
	if nesting(data) > maxImportNesting {
		return nil, ErrNotCalendar
	}
	cal, err := ics.ParseCalendar(bytes.NewReader(data))
	if err != nil || len(cal.Events()) == 0 {
		return nil, ErrNotCalendar
	}
	if parsed != nil {
		if err := parsed(); err != nil {
			return nil, err
		}
	}
	known, err := s.importedUIDs(ctx, m.GroupID)
	if err != nil {
		return nil, err
	}
	var items []ImportItem
	for _, e := range cal.Events() {
		if len(items) == maxImportEvents {
			break
		}
		if e.GetProperty(ics.ComponentProperty("RECURRENCE-ID")) != nil {
			continue // a changed occurrence: its series carries the rule
		}
		it := eventItem(e)
		it.Existing = known[it.UID]
		items = append(items, it)
	}
	return items, nil
}

// nesting is how deep data's components nest, from its BEGIN and END
// lines, read before the parser does.
func nesting(data []byte) int {
	depth, deepest := 0, 0
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) >= 6 && bytes.EqualFold(line[:6], []byte("BEGIN:")):
			depth++
			deepest = max(deepest, depth)
		case len(line) >= 4 && bytes.EqualFold(line[:4], []byte("END:")):
			depth--
		}
	}
	return deepest
}

// importedUIDs maps the UIDs imported into the group to their
// appointments: one query of each index partition.
func (s *Service) importedUIDs(ctx context.Context, groupID string) (map[string]string, error) {
	out := map[string]string{}
	for _, pk := range []string{groupID, seriesPartition(groupID)} {
		rows, err := storage.All[AppointmentIndexRow](ctx, s.appointments, storage.Query{
			PartitionKey: pk,
			Filters:      []storage.Filter{notDeleted, {Name: "importUid", Op: storage.Gt, Value: ""}},
		})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.ImportUID] = r.AppointmentID
		}
	}
	return out, nil
}

// eventItem turns one VEVENT into an appointment, or says why not.
func eventItem(e *ics.VEvent) ImportItem {
	prop := func(name ics.ComponentProperty) string {
		if p := e.GetProperty(name); p != nil {
			return unescapeICS(p.Value)
		}
		return ""
	}
	it := ImportItem{UID: prop(ics.ComponentPropertyUniqueId)}
	doc := Appointment{Status: AppointmentActive, ImportUID: it.UID}
	// Another app's text is made to fit the forms' rules, not refused:
	// it reaches others' calendars, inboxes and mail subjects.
	doc.Title = appointmentTitleRule.Clean(prop(ics.ComponentPropertySummary))
	if doc.Title == "" {
		doc.Title = "—"
	}
	doc.Location = appointmentLocationRule.Clean(prop(ics.ComponentPropertyLocation))
	doc.Notes = appointmentNotesRule.Clean(prop(ics.ComponentPropertyDescription))
	if strings.EqualFold(prop(ics.ComponentPropertyStatus), "CANCELLED") {
		doc.Status = AppointmentCanceled
	}
	start, allDay, zone, ok := readICSTime(e.GetProperty(ics.ComponentPropertyDtStart))
	if !ok || it.UID == "" {
		it.Doc, it.Problem = doc, "groups.import.problem.start"
		return it
	}
	if formrule.CheckDate(start) != formrule.OK {
		it.Doc, it.Problem = doc, "groups.import.problem.date"
		return it
	}
	end, _, _, ok := readICSTime(e.GetProperty(ics.ComponentPropertyDtEnd))
	if !ok {
		switch d, err := parseICSDuration(prop(ics.ComponentPropertyDuration)); {
		case err == nil:
			end = start.Add(d)
		case allDay:
			end = start.AddDate(0, 0, 1)
		default:
			end = start.Add(time.Hour)
		}
	}
	doc.Start, doc.End, doc.AllDay, doc.Timezone = start.UTC(), end.UTC(), allDay, zone.String()
	switch {
	case !end.After(start):
		it.Problem = "groups.import.problem.end"
	case end.Sub(start) > MaxAppointmentDays*24*time.Hour+time.Hour:
		it.Problem = "groups.import.problem.long"
	}
	if rule := prop(ics.ComponentPropertyRrule); rule != "" && it.Problem == "" {
		opt, err := rrule.StrToROptionInLocation(rule, zone)
		if err != nil || !supportedRule(opt) || !everOccurs(opt.RRuleString(), start.In(zone)) {
			it.Problem = "groups.import.problem.rule"
		} else {
			doc.Repeat = opt.RRuleString()
			for _, p := range e.GetProperties(ics.ComponentPropertyExdate) {
				for _, v := range strings.Split(p.Value, ",") {
					one := *p
					one.Value = v
					if t, _, _, ok := readICSTime(&one); ok && len(doc.ExDates) < maxImportExDates {
						doc.ExDates = append(doc.ExDates, t.UTC())
					}
				}
			}
		}
	}
	it.Doc = doc
	return it
}

// supportedRule reports whether an imported rule is one a calendar of
// family appointments needs and the series code can expand cheaply: at
// most one occurrence a day per weekday, month day or month listed, within
// the form's own bounds of interval and count. Rules that add occurrences
// within a day (BYHOUR, BYMINUTE, BYSECOND) or pick them by position,
// year day, week number or Easter are refused: one of them could make a
// month of millions of occurrences.
func supportedRule(opt *rrule.ROption) bool {
	switch {
	case opt.Freq > rrule.DAILY || opt.Freq < rrule.YEARLY:
		return false
	case opt.Interval > maxRepeatInterval || opt.Count > maxRepeatCount:
		return false
	case len(opt.Byhour)+len(opt.Byminute)+len(opt.Bysecond)+len(opt.Bysetpos)+len(opt.Byyearday)+len(opt.Byweekno)+len(opt.Byeaster) > 0:
		return false
	}
	return opt.Until.IsZero() || formrule.CheckDate(opt.Until) == formrule.OK
}

// readICSTime reads a DATE or DATE-TIME property: UTC ("…Z"), in its TZID,
// or floating (taken as UTC); a DATE is all-day (midnight UTC).
func readICSTime(p *ics.IANAProperty) (t time.Time, allDay bool, zone *time.Location, ok bool) {
	if p == nil {
		return time.Time{}, false, nil, false
	}
	v := strings.TrimSpace(p.Value)
	zone = time.UTC
	if tz := p.ICalParameters["TZID"]; len(tz) == 1 {
		if loc, err := time.LoadLocation(strings.Trim(tz[0], `"`)); err == nil {
			zone = loc
		}
	}
	if vt := p.ICalParameters["VALUE"]; len(vt) == 1 && strings.EqualFold(vt[0], "DATE") || len(v) == 8 {
		d, err := time.ParseInLocation("20060102", v, time.UTC)
		return d, true, time.UTC, err == nil
	}
	if strings.HasSuffix(v, "Z") {
		d, err := time.Parse("20060102T150405Z", v)
		return d, false, zone, err == nil
	}
	d, err := time.ParseInLocation("20060102T150405", v, zone)
	return d, false, zone, err == nil
}

// parseICSDuration reads an RFC 5545 DURATION (P1D, PT1H30M, P1W).
func parseICSDuration(v string) (time.Duration, error) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "+")
	if !strings.HasPrefix(v, "P") {
		return 0, fmt.Errorf("groups: duration %q", v)
	}
	var d time.Duration
	inTime, n := false, 0
	for _, r := range v[1:] {
		switch {
		case r >= '0' && r <= '9':
			n = n*10 + int(r-'0')
		case r == 'T':
			inTime = true
		case r == 'W':
			d += time.Duration(n) * 7 * 24 * time.Hour
			n = 0
		case r == 'D':
			d += time.Duration(n) * 24 * time.Hour
			n = 0
		case r == 'H' && inTime:
			d += time.Duration(n) * time.Hour
			n = 0
		case r == 'M' && inTime:
			d += time.Duration(n) * time.Minute
			n = 0
		case r == 'S' && inTime:
			d += time.Duration(n) * time.Second
			n = 0
		default:
			return 0, fmt.Errorf("groups: duration %q", v)
		}
	}
	return d, nil
}

// unescapeICS undoes TEXT escaping (RFC 5545 3.3.11).
var unescapeICS = strings.NewReplacer(`\n`, "\n", `\N`, "\n", `\,`, ",", `\;`, ";", `\\`, `\`).Replace

package groups

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/harmony/harmony/internal/storage"
)

// Feed window: a calendar app shows the recent past and the future.
const (
	feedPast  = 60 * 24 * time.Hour
	feedLimit = 250
)

// newCalendarToken is 128 random bits in hex.
func newCalendarToken() string {
	b := make([]byte, 16)
	rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// RegenerateCalendarToken gives the group a new feed secret, for an
// owner: the old feed URL stops working at once.
func (s *Service) RegenerateCalendarToken(ctx context.Context, m Membership) (GroupRow, error) {
	token := newCalendarToken()
	return s.updateGroup(ctx, m, func(g *GroupRow) { g.CalendarToken = token })
}

// CalendarFeed is the group's .ics feed for a holder of its token: no
// session, no membership; a wrong token, a group without a feed, or a
// deleted group is ErrNoGroup. It costs the group's point read, one
// range query of the index and a bounded parallel read of the blobs.
func (s *Service) CalendarFeed(ctx context.Context, groupID, token string) ([]byte, error) {
	if !validGroupID(groupID) || len(token) != 32 {
		return nil, ErrNoGroup
	}
	g, err := s.group(ctx, groupID)
	if err != nil {
		return nil, err
	}
	if g.CalendarToken == "" || subtle.ConstantTimeCompare([]byte(g.CalendarToken), []byte(token)) != 1 {
		return nil, ErrNoGroup
	}
	page, err := s.appointments.Query(ctx, storage.Query{
		PartitionKey: groupID,
		RowKeyFrom:   appointmentTimeKey(s.now().Add(-feedPast)),
		Filters:      []storage.Filter{notDeleted},
		Limit:        feedLimit,
	})
	if err != nil {
		return nil, err
	}
	docs := make([]*Appointment, len(page.Entities))
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(metaReads)
	for i, e := range page.Entities {
		var row AppointmentIndexRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return nil, err
		}
		eg.Go(func() error {
			doc, err := s.appointmentDoc(gctx, groupID, row.AppointmentID)
			if errors.Is(err, ErrNoAppointment) {
				return nil
			}
			if err != nil {
				return err
			}
			docs[i] = &doc // each goroutine owns its element
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return WriteICS(g, docs, s.now(), s.baseURL), nil
}

// WriteICS renders appointments as an RFC 5545 calendar: CRLF lines
// folded at 75 octets, text escaped, times in UTC. nil entries are
// skipped.
func WriteICS(g GroupRow, docs []*Appointment, now time.Time, baseURL string) []byte {
	var b bytes.Buffer
	w := func(name, value string) { writeICSLine(&b, name+":"+value) }
	host := strings.TrimPrefix(strings.TrimPrefix(baseURL, "https://"), "http://")
	if host == "" {
		host = "harmony"
	}
	stamp := now.UTC().Format(icsTime)
	w("BEGIN", "VCALENDAR")
	w("VERSION", "2.0")
	w("PRODID", "-//Harmony//Groups//EN")
	w("CALSCALE", "GREGORIAN")
	w("METHOD", "PUBLISH")
	w("X-WR-CALNAME", icsText(g.GroupName))
	for _, d := range docs {
		if d == nil {
			continue
		}
		w("BEGIN", "VEVENT")
		w("UID", d.AppointmentID+"@"+host)
		w("DTSTAMP", stamp)
		w("DTSTART", d.Start.UTC().Format(icsTime))
		w("DTEND", d.End.UTC().Format(icsTime))
		w("SUMMARY", icsText(d.Title))
		if d.Location != "" {
			w("LOCATION", icsText(d.Location))
		}
		if d.Notes != "" {
			w("DESCRIPTION", icsText(d.Notes))
		}
		w("LAST-MODIFIED", d.UpdatedAt.UTC().Format(icsTime))
		if d.Status == AppointmentCanceled {
			w("STATUS", "CANCELLED")
		} else {
			w("STATUS", "CONFIRMED")
		}
		w("END", "VEVENT")
	}
	w("END", "VCALENDAR")
	return b.Bytes()
}

const icsTime = "20060102T150405Z"

// icsText escapes a TEXT value (RFC 5545 3.3.11).
var icsText = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace

// writeICSLine writes one content line, folded so no line is longer than
// 75 octets (a CRLF and a space start each continuation), never inside
// a UTF-8 sequence.
func writeICSLine(b *bytes.Buffer, line string) {
	limit := 75
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b.WriteString(line[:cut])
		b.WriteString("\r\n ")
		line = line[cut:]
		limit = 74 // the leading space counts
	}
	b.WriteString(line)
	b.WriteString("\r\n")
}

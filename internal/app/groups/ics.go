package groups

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/ical"
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
// owner: every member's feed URL stops working at once, since each is
// derived from it (memberFeedToken).
func (s *Service) RegenerateCalendarToken(ctx context.Context, m Membership) (GroupRow, error) {
	token := newCalendarToken()
	return s.updateGroup(ctx, m, func(g *GroupRow) { g.CalendarToken = token })
}

// memberFeedToken is one member's feed secret: an HMAC-SHA256 of their
// GroupMembers row key under the group's CalendarToken, in hex. Each
// member's URL is their own, so removing them stops only theirs, and no
// table holds the secrets.
func memberFeedToken(calendarToken, rowKey string) string {
	mac := hmac.New(sha256.New, []byte(calendarToken))
	mac.Write([]byte(rowKey))
	return hex.EncodeToString(mac.Sum(nil))
}

// memberFeedTokenLen is the length of a memberFeedToken.
const memberFeedTokenLen = 2 * sha256.Size

// CalendarFeed is the group's .ics feed for the holder of a member's feed
// URL (memberRef and memberFeedToken): no session, but the member's
// GroupMembers row is read on each request, as on every group route, so
// a member who leaves or is removed loses the feed at once. A wrong or
// foreign reference, a wrong token, a member who is not active, a group
// without a feed, a disabled account, or a deleted group is ErrNoGroup.
// It costs the group's point read, the member's, their profile's, one
// range query of the index, the series query and a bounded parallel read
// of the blobs.
func (s *Service) CalendarFeed(ctx context.Context, groupID, ref, token string) ([]byte, error) {
	if !storage.IsID(groupID) || len(token) != memberFeedTokenLen {
		return nil, ErrNoGroup
	}
	rowKey, err := s.memberKeyOfRef(groupID, ref)
	if err != nil {
		return nil, ErrNoGroup
	}
	g, err := s.group(ctx, groupID)
	if err != nil {
		return nil, err
	}
	if g.CalendarToken == "" || !hmac.Equal([]byte(memberFeedToken(g.CalendarToken, rowKey)), []byte(token)) {
		return nil, ErrNoGroup
	}
	member, err := s.memberRow(ctx, groupID, rowKey)
	if errors.Is(err, ErrNoMember) || (err == nil && member.Status != StatusActive) {
		return nil, ErrNoGroup
	}
	if err != nil {
		return nil, err
	}
	// A disabled account's feed stops with its sessions (a guest has no
	// account to disable).
	if s.profiles != nil && auth.IsAuthMemberKey(member.MemberKey) {
		p, err := s.profiles.Profile(ctx, member.MemberKey)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
		if err == nil && !p.Enabled {
			return nil, ErrNoGroup
		}
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
	rows := make([]AppointmentIndexRow, len(page.Entities))
	for i, e := range page.Entities {
		if err := storage.Unmarshal(e, &rows[i]); err != nil {
			return nil, err
		}
	}
	docs := make([]*Appointment, len(rows))
	err = storage.Each(ctx, len(rows), metaReads, func(ctx context.Context, i int) error {
		doc, err := s.appointmentDoc(ctx, groupID, rows[i].AppointmentID)
		if errors.Is(err, ErrNoAppointment) {
			return nil
		}
		docs[i] = &doc
		return err
	})
	if err != nil {
		return nil, err
	}
	// The series running in the window, with their rules: one query, and
	// a blob read each.
	series, err := s.seriesRunning(ctx, groupID, s.now().Add(-feedPast), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		return nil, err
	}
	for _, row := range series[:min(len(series), feedLimit)] {
		doc, err := s.appointmentDoc(ctx, groupID, row.AppointmentID)
		if errors.Is(err, ErrNoAppointment) {
			continue
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &doc)
	}
	return WriteICS(g, docs, s.now(), s.baseURL), nil
}

// WriteICS renders appointments as an RFC 5545 calendar: CRLF lines
// folded at 75 octets, text escaped, times in UTC. nil entries are
// skipped.
func WriteICS(g GroupRow, docs []*Appointment, now time.Time, baseURL string) []byte {
	var b bytes.Buffer
	w := func(name, value string) { ical.Line(&b, name+":"+value) }
	host := ical.UIDHost(baseURL)
	stamp := now.UTC().Format(ical.UTC)
	w("BEGIN", "VCALENDAR")
	w("VERSION", "2.0")
	w("PRODID", "-//Harmony//Groups//EN")
	w("CALSCALE", "GREGORIAN")
	w("METHOD", "PUBLISH")
	w("X-WR-CALNAME", ical.Text(g.GroupName))
	zones := map[string]*time.Location{}
	for _, d := range docs {
		if d != nil && (d.Repeat != "" || d.SeriesID != "") && !d.AllDay {
			if loc, err := time.LoadLocation(d.Timezone); err == nil && loc != time.UTC {
				zones[loc.String()] = loc
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(zones)) {
		writeVTimezone(&b, zones[name], now)
	}
	for _, d := range docs {
		if d == nil {
			continue
		}
		// A series' times are wall clock in its zone (TZID), so a
		// weekly 17:00 stays at 17:00 across a DST change; an override
		// names the occurrence it replaces the same way.
		at := func(name string, t time.Time) {
			switch loc := zones[d.Timezone]; {
			case d.AllDay:
				w(name+";VALUE=DATE", t.UTC().Format("20060102"))
			case loc != nil:
				w(name+";TZID="+loc.String(), t.In(loc).Format("20060102T150405"))
			default:
				w(name, t.UTC().Format(ical.UTC))
			}
		}
		uid := d.AppointmentID
		if d.SeriesID != "" {
			uid = d.SeriesID
		}
		w("BEGIN", "VEVENT")
		w("UID", uid+"@"+host)
		w("DTSTAMP", stamp)
		if d.RecurrenceID != nil {
			at("RECURRENCE-ID", *d.RecurrenceID)
		}
		at("DTSTART", d.Start)
		at("DTEND", d.End)
		if d.Repeat != "" {
			w("RRULE", d.Repeat)
			for _, x := range d.ExDates {
				at("EXDATE", x)
			}
		}
		w("SEQUENCE", strconv.Itoa(d.Sequence))
		w("SUMMARY", ical.Text(d.Title))
		if d.Location != "" {
			w("LOCATION", ical.Text(d.Location))
		}
		if d.Notes != "" {
			w("DESCRIPTION", ical.Text(d.Notes))
		}
		w("LAST-MODIFIED", d.UpdatedAt.UTC().Format(ical.UTC))
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

// writeVTimezone describes loc for the feed's TZIDs (RFC 5545 3.6.5):
// its standard and daylight offsets this year, and the yearly rule of
// each change ("the last Sunday of March"), read from Go's zone data.
func writeVTimezone(b *bytes.Buffer, loc *time.Location, now time.Time) {
	w := func(name, value string) { ical.Line(b, name+":"+value) }
	offset := func(secs int) string {
		sign := "+"
		if secs < 0 {
			sign, secs = "-", -secs
		}
		return fmt.Sprintf("%s%02d%02d", sign, secs/3600, secs/60%60)
	}
	year := now.In(loc).Year()
	w("BEGIN", "VTIMEZONE")
	w("TZID", loc.String())
	changes := zoneChanges(loc, year)
	if len(changes) == 0 {
		name, off := time.Date(year, 1, 1, 0, 0, 0, 0, loc).Zone()
		w("BEGIN", "STANDARD")
		w("DTSTART", "19700101T000000")
		w("TZOFFSETFROM", offset(off))
		w("TZOFFSETTO", offset(off))
		w("TZNAME", name)
		w("END", "STANDARD")
	}
	for _, c := range changes {
		kind := "STANDARD"
		if c.to > c.from {
			kind = "DAYLIGHT"
		}
		local := c.at.In(time.FixedZone("", c.from))
		nth := (local.Day()-1)/7 + 1
		if local.AddDate(0, 0, 7).Month() != local.Month() {
			nth = -1
		}
		w("BEGIN", kind)
		w("DTSTART", "1970"+local.Format("0102T150405"))
		w("RRULE", fmt.Sprintf("FREQ=YEARLY;BYMONTH=%d;BYDAY=%d%s", int(local.Month()), nth, codeOf(local.Weekday())))
		w("TZOFFSETFROM", offset(c.from))
		w("TZOFFSETTO", offset(c.to))
		name, _ := c.at.In(loc).Zone()
		w("TZNAME", name)
		w("END", kind)
	}
	w("END", "VTIMEZONE")
}

// zoneChange is a change of a zone's UTC offset.
type zoneChange struct {
	at       time.Time
	from, to int
}

// zoneChanges finds the offset changes of loc in year: day by day, then
// to the second.
func zoneChanges(loc *time.Location, year int) []zoneChange {
	var out []zoneChange
	t := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
	_, prev := t.In(loc).Zone()
	for d := 0; d < 366; d++ {
		next := t.Add(24 * time.Hour)
		if _, off := next.In(loc).Zone(); off != prev {
			lo, hi := t, next
			for hi.Sub(lo) > time.Second {
				mid := lo.Add(hi.Sub(lo) / 2)
				if _, o := mid.In(loc).Zone(); o == prev {
					lo = mid
				} else {
					hi = mid
				}
			}
			out = append(out, zoneChange{at: hi, from: prev, to: off})
			prev = off
		}
		t = next
	}
	return out
}

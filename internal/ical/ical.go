// Package ical writes RFC 5545 calendar text: content lines folded at 75
// octets (never inside a UTF-8 sequence), TEXT values escaped, UTC
// times. The groups feed and the events' .ics use it, and the events'
// pages its links that add an event to Google Calendar or Outlook.
package ical

import (
	"bytes"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// UTC is the layout of a UTC DATE-TIME value.
const UTC = "20060102T150405Z"

// Time is t as a UTC DATE-TIME value.
func Time(t time.Time) string { return t.UTC().Format(UTC) }

// Text escapes a TEXT value (RFC 5545 3.3.11).
var Text = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace

// Line writes one content line, folded so no line is longer than 75
// octets (a CRLF and a space start each continuation), never inside a
// UTF-8 sequence.
func Line(b *bytes.Buffer, line string) {
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

// Prop writes "NAME:value" as a folded line.
func Prop(b *bytes.Buffer, name, value string) { Line(b, name+":"+value) }

// UIDHost is the host part of the UIDs an app at baseURL gives its
// events ("harmony" when it has none): the configured address, never a
// request's Host header, so a UID stays the same however the calendar
// was fetched.
func UIDHost(baseURL string) string {
	host := strings.TrimPrefix(strings.TrimPrefix(baseURL, "https://"), "http://")
	if host = strings.TrimSuffix(host, "/"); host == "" {
		return "harmony"
	}
	return host
}

// Entry is one event as a calendar service's "add an event" address
// carries it: what the person's own calendar then holds.
type Entry struct {
	Title, Place, Details string
	Start, End            time.Time
}

// GoogleLink is the address at which Google Calendar offers to add e.
func GoogleLink(e Entry) string {
	q := url.Values{"action": {"TEMPLATE"}, "text": {e.Title}, "dates": {Time(e.Start) + "/" + Time(e.End)}}
	addNonEmpty(q, "location", e.Place)
	addNonEmpty(q, "details", e.Details)
	return "https://calendar.google.com/calendar/render?" + q.Encode()
}

// OutlookLink is the address at which Outlook on the web offers to add
// e.
func OutlookLink(e Entry) string {
	q := url.Values{
		"path": {"/calendar/action/compose"}, "rru": {"addevent"}, "subject": {e.Title},
		"startdt": {e.Start.UTC().Format(time.RFC3339)}, "enddt": {e.End.UTC().Format(time.RFC3339)},
	}
	addNonEmpty(q, "location", e.Place)
	addNonEmpty(q, "body", e.Details)
	return "https://outlook.live.com/calendar/0/action/compose?" + q.Encode()
}

func addNonEmpty(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

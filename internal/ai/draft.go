package ai

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The longest text a Draft field keeps, in characters.
const (
	MaxTitle    = 200
	MaxLocation = 300
	MaxNotes    = 2000
)

// answer is the JSON object the prompt asks for. Fields are raw so that a
// number or null where a string belongs is ignored, not fatal.
type answer struct {
	Title    json.RawMessage `json:"title"`
	Start    json.RawMessage `json:"start"`
	End      json.RawMessage `json:"end"`
	Location json.RawMessage `json:"location"`
	Notes    json.RawMessage `json:"notes"`
}

// parseDraft reads the model's answer defensively: it tolerates a code
// fence or prose around the object, drops fields of the wrong type, clamps
// lengths and strips control characters. An answer that is not a JSON
// object, or holds nothing usable, is ErrUnreadable.
func parseDraft(content string) (Draft, error) {
	body := strings.TrimSpace(content)
	if i, j := strings.IndexByte(body, '{'), strings.LastIndexByte(body, '}'); i >= 0 && j > i {
		body = body[i : j+1]
	}
	var a answer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		return Draft{}, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	d := Draft{
		Title:    clean(str(a.Title), MaxTitle, false),
		Location: clean(str(a.Location), MaxLocation, false),
		Notes:    clean(str(a.Notes), MaxNotes, true),
		Start:    parseTime(str(a.Start)),
		End:      parseTime(str(a.End)),
	}
	if !d.End.IsZero() && !d.End.After(d.Start) {
		d.End = time.Time{}
	}
	if d.Title == "" && d.Location == "" && d.Notes == "" && d.Start.IsZero() {
		return Draft{}, ErrUnreadable
	}
	return d, nil
}

// str is a JSON string's value, or "" for anything else.
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// clean trims s, turns control characters into spaces (keeping newlines
// when multiline) and cuts it to max characters.
func clean(s string, max int, multiline bool) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' && multiline:
			return r
		case r == '\r':
			return -1
		case unicode.IsControl(r):
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(string([]rune(s)[:max]))
	}
	return s
}

// timeLayouts are the ISO 8601 forms models answer with, most precise first.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	time.DateOnly,
}

// parseTime reads an ISO 8601 time and keeps its wall clock (see
// Draft.Start); anything else, or a year out of a sane range, is zero.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		if t.Year() < 1900 || t.Year() > 2200 {
			return time.Time{}
		}
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
	}
	return time.Time{}
}

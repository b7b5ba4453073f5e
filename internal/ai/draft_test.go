package ai

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDraft(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2030, 5, 20, h, m, 0, 0, time.UTC) }
	tests := []struct {
		name    string
		content string
		want    Draft
		err     error
	}{
		{
			name:    "fenced, with an offset kept as wall clock",
			content: "Here it is:\n```json\n{\"title\":\"Vet\",\"start\":\"2030-05-20T09:15:00+02:00\",\"end\":\"2030-05-20T10:00:00+02:00\"}\n```",
			want:    Draft{Title: "Vet", Start: at(9, 15), End: at(10, 0)},
		},
		{
			name:    "wrong types are dropped, not fatal",
			content: `{"title": 42, "location": ["a"], "notes": "Room 3", "start": "2030-05-20"}`,
			want:    Draft{Notes: "Room 3", Start: at(0, 0)},
		},
		{
			name:    "an end before the start is dropped",
			content: `{"title":"School play","start":"2030-05-20 18:00","end":"2030-05-20 17:00"}`,
			want:    Draft{Title: "School play", Start: at(18, 0)},
		},
		{
			name:    "unparseable and absurd times are zero",
			content: `{"title":"X","start":"next Tuesday","end":"0001-01-01T00:00"}`,
			want:    Draft{Title: "X"},
		},
		{
			name:    "control characters and markup stay text",
			content: `{"title":"  <b>Bold</b>\u0007 visit\r\n","notes":"line 1\nline 2\u0000"}`,
			want:    Draft{Title: "<b>Bold</b>  visit", Notes: "line 1\nline 2"},
		},
		{name: "truncated", content: `{"title":"Dentist","start":"2030-`, err: ErrUnreadable},
		{name: "not an object", content: `["Dentist"]`, err: ErrUnreadable},
		{name: "nothing usable", content: `{"title":" ","start":"","end":"2030-05-20T10:00"}`, err: ErrUnreadable},
		{name: "empty", content: "", err: ErrUnreadable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDraft(tt.content)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("draft %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseDraftClampsLengths(t *testing.T) {
	long := strings.Repeat("ж", MaxNotes+50)
	d, err := parseDraft(`{"title":"` + long + `","location":"` + long + `","notes":"` + long + `"}`)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]struct {
		s   string
		max int
	}{"title": {d.Title, MaxTitle}, "location": {d.Location, MaxLocation}, "notes": {d.Notes, MaxNotes}} {
		if n := len([]rune(f.s)); n != f.max {
			t.Errorf("%s: %d characters, want %d", name, n, f.max)
		}
	}
}

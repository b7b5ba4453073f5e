package groups

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// Messages of the shared text rules (internal/formrule), as the pages
// show them in English.
const (
	bidiMessage     = "Remove the invisible text-direction characters"
	controlMessage  = "Remove the invisible control characters"
	encodingMessage = "not valid UTF-8 characters"
	dateMessage     = "Enter a date between the years 1900 and 2200."
)

func (a *groupsApp) allGroups(t *testing.T) []GroupRow {
	t.Helper()
	rows, err := storage.All[GroupRow](ctx, a.svc.groups, storage.Query{PartitionKey: groupsPartition})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestGroupNameRefusesBidiControls(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	spoof := "Family \u202egnp.exe"
	res := post(t, ann.c, "/groups", url.Values{"name": {spoof}})
	doc := res.Doc(t)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(doc.Find(testID("field-error")).Text(), bidiMessage) {
		t.Fatalf("create with a bidi override: %d %q", res.StatusCode, doc.Find(testID("field-error")).Text())
	}
	if n := len(a.allGroups(t)); n != 0 {
		t.Fatalf("a refused name created %d groups", n)
	}

	// Renaming is refused the same way and leaves the name alone.
	id := createGroup(t, ann, "Smiths")
	res = post(t, ann.c, "/groups/"+id+"/rename", url.Values{"name": {"Smiths\u2066"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Doc(t).Find(testID("field-error")).Text(), bidiMessage) {
		t.Fatalf("rename with an isolate: %d", res.StatusCode)
	}
	if g := a.allGroups(t); len(g) != 1 || g[0].GroupName != "Smiths" {
		t.Fatalf("groups after a refused rename: %+v", g)
	}
}

func TestGuestNameRefusesBidiControls(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	sid := openJoin(t, olga, groupID)
	visitor := a.Client()
	res := post(t, visitor, "/join/"+groupID+"/"+sid, url.Values{"name": {"Olga\u202e (owner)"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Doc(t).Find(testID("field-error")).Text(), bidiMessage) {
		t.Fatalf("join with a bidi override: %d %q", res.StatusCode, res.Doc(t).Find(testID("field-error")).Text())
	}
	if a.Who(visitor) != "" {
		t.Fatal("a refused join signed the visitor in")
	}
	members, err := storage.All[MemberRow](ctx, a.svc.members, storage.Query{PartitionKey: groupID})
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 1 {
		t.Fatalf("a refused join wrote a member: %d rows", len(members))
	}
}

func TestAppointmentRefusesBidiTitleAndDatesOutOfRange(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	cases := []struct {
		name, field, message string
		form                 url.Values
	}{
		{"bidi title", "title", bidiMessage, url.Values{"title": {"Dentist \u202e"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}},
		{"bidi location", "location", bidiMessage, url.Values{"title": {"X"}, "location": {"\u2067Room"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}},
		{"control in notes", "notes", controlMessage, url.Values{"title": {"X"}, "notes": {"bring\x1b[2J"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}},
		{"start in 1500", "start", dateMessage, url.Values{"title": {"X"}, "start": {"1500-06-01T10:00"}, "end": {"2030-06-01T11:00"}}},
		{"start and end in 1500", "start", dateMessage, url.Values{"title": {"X"}, "start": {"1500-06-01T10:00"}, "end": {"1500-06-01T11:00"}}},
		{"end in 2300", "end", dateMessage, url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2300-06-01T11:00"}}},
	}
	for _, tc := range cases {
		res := post(t, ann.c, "/groups/"+id+"/appointments", tc.form)
		doc := res.Doc(t)
		msg := doc.Find("#appt-" + tc.field + "-error").Text()
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: %d, %s error %q", tc.name, res.StatusCode, tc.field, msg)
		}
	}
	if n := len(a.indexRows(t, id)); n != 0 {
		t.Fatalf("refused appointments wrote %d index rows", n)
	}

	// An edit is held to the same rules.
	apptID := createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	res := post(t, ann.c, "/groups/"+id+"/appointments/"+apptID+"/edit", url.Values{"title": {"Dentist"}, "start": {"2300-06-01T10:00"}, "end": {"2300-06-01T11:00"}})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Doc(t).Find("#appt-start-error").Text(), dateMessage) {
		t.Fatalf("edit into 2300: %d", res.StatusCode)
	}
	if rows := a.indexRows(t, id); len(rows) != 1 || rows[0].StartTime.Year() != 2030 {
		t.Fatalf("index after a refused edit: %+v", rows)
	}
}

func TestJoinLinkNoteRefusesWhatMustNotBeStored(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	groupID := createGroup(t, olga, "Picnickers")
	cases := []struct {
		name, note, message string
	}{
		{"invalid UTF-8", "Picnic \xff\xfe", encodingMessage},
		{"NUL", "Picnic\x00", controlMessage},
		{"escape", "Picnic \x1b[31mred", controlMessage},
		{"bell", "Picnic\a", controlMessage},
		{"backspace", "Picnic\b\b", controlMessage},
		{"bidi override", "Picnic \u202e", bidiMessage},
		{"one megabyte", strings.Repeat("n", 1<<20), "Keep the note to 200 characters."},
	}
	for _, tc := range cases {
		res := post(t, olga.c, "/groups/"+groupID+"/join-sessions", url.Values{"meta": {tc.note}})
		doc := res.Doc(t)
		msg := doc.Find("#join-meta-error").Text()
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, tc.message) {
			t.Errorf("%s: %d, error %q", tc.name, res.StatusCode, msg)
		}
		if doc.Find(testID("open-join-form")).Length() != 1 {
			t.Errorf("%s: the form is not shown again", tc.name)
		}
	}
	sessions, err := storage.All[JoinSessionRow](ctx, a.svc.joinSessions, storage.Query{PartitionKey: groupID})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 0 {
		t.Fatalf("refused notes opened %d join links", len(sessions))
	}

	// A note at the limit is kept whole.
	note := strings.Repeat("я", MaxJoinMeta)
	res := post(t, olga.c, "/groups/"+groupID+"/join-sessions", url.Values{"meta": {note}})
	m := sessionPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("note at the limit: %d", res.StatusCode)
	}
	if js, err := a.svc.joinSession(ctx, groupID, m[2]); err != nil || js.Meta != note {
		t.Fatalf("stored note %d characters, %v", len([]rune(js.Meta)), err)
	}
}

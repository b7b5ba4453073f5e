package groups

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	ics "github.com/arran4/golang-ical"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/web/webtest"
)

// uploadICS posts data as the import form's file.
func uploadICS(t *testing.T, p person, groupID string, data []byte) *webtest.Response {
	t.Helper()
	return p.c.PostFile("/groups/"+groupID+"/import", p.c.WithCSRF("/", nil), "file", "calendar.ics", data)
}

// TestImportGoogleAndAppleExports: a Google and an Apple export preview
// what they hold, import with their zones, dates, rules and exceptions,
// and a second import of the same file updates instead of adding.
func TestImportGoogleAndAppleExports(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	google, _ := os.ReadFile("testdata/google.ics")
	apple, _ := os.ReadFile("testdata/apple.ics")

	res := uploadICS(t, ann, id, google)
	doc := res.Doc(t)
	ops := res.StorageOps(t)
	// The preview keeps the file, counts it against ann's previews and
	// queues the task that forgets it: nothing of the group's.
	if res.StatusCode != http.StatusOK || ops["writes"]+ops["txs"] != 2 || ops["blob_writes"] != 1 {
		t.Fatalf("preview: %d, %s", res.StatusCode, res.Header.Get("X-Storage-Ops"))
	}
	var statuses []string
	for i := range doc.Find(testID("import-row")).Nodes {
		statuses = append(statuses, doc.Find(testID("import-row")).Eq(i).AttrOr("data-status", ""))
	}
	if got := fmt.Sprint(statuses); got != "[new new new skip]" {
		t.Fatalf("preview statuses %s", got)
	}
	confirm := doc.Find(`[data-testid="import-confirm-form"]`).AttrOr("action", "")
	if res := post(t, ann.c, confirm, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d", res.StatusCode)
	}
	if res := post(t, ann.c, confirm, nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("the same import twice: %d", res.StatusCode)
	}
	berlin := mustZone(t, "Europe/Berlin")
	june, err := a.svc.Between(ctx, m, time.Date(2030, 6, 1, 0, 0, 0, 0, berlin), time.Date(2030, 7, 1, 0, 0, 0, 0, berlin))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range june {
		s := r.StartTime.In(berlin).Format("02 15:04 ") + r.Title
		if r.AllDay {
			s = r.StartTime.UTC().Format("02 ") + "all day " + r.Title
		}
		if r.Status == AppointmentCanceled {
			s += " (cancelled)"
		}
		got = append(got, s)
	}
	want := "[04 17:00 Football practice 11 17:00 Football practice 12 all day Lily's birthday 20 10:00 Dentist (cancelled) 25 17:00 Football practice]"
	if fmt.Sprint(got) != want {
		t.Fatalf("June after the Google import:\n%v\nwant\n%s", got, want)
	}
	d, _ := a.svc.Appointment(ctx, m, june[0].AppointmentID)
	if d.Doc.Location != "Riverside Park, Field 2" || d.Doc.Notes != "Bring the blue kit, and water." {
		t.Fatalf("escaped text: %q %q", d.Doc.Location, d.Doc.Notes)
	}

	// The same file again, the practice renamed: three updates, no more
	// appointments.
	again := bytes.Replace(google, []byte("SUMMARY:Football practice"), []byte("SUMMARY:Football training"), 1)
	doc = uploadICS(t, ann, id, again).Doc(t)
	if n := doc.Find(`[data-testid="import-row"][data-status="update"]`).Length(); n != 3 {
		t.Fatalf("%d updates on the second import, want 3", n)
	}
	if res := post(t, ann.c, doc.Find(`[data-testid="import-confirm-form"]`).AttrOr("action", ""), nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("second import: %d %.400s", res.StatusCode, res.Body)
	}
	june2, _ := a.svc.Between(ctx, m, time.Date(2030, 6, 1, 0, 0, 0, 0, berlin), time.Date(2030, 7, 1, 0, 0, 0, 0, berlin))
	if len(june2) != len(june) || june2[0].Title != "Football training" {
		t.Fatalf("after the second import: %d rows, first %q", len(june2), june2[0].Title)
	}

	// Apple: a visit over three days in London, and an all-day monthly
	// first Saturday.
	doc = uploadICS(t, ann, id, apple).Doc(t)
	post(t, ann.c, doc.Find(`[data-testid="import-confirm-form"]`).AttrOr("action", ""), nil)
	month := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-06").Doc(t)
	for date, title := range map[string]string{"2030-06-13": "Grandma and Grandpa arrive", "2030-06-14": "Grandma and Grandpa arrive", "2030-06-15": "Grandma and Grandpa arrive", "2030-06-01": "Car boot sale"} {
		if !strings.Contains(month.Find(`[data-date="`+date+`"]`).Text(), title) {
			t.Errorf("%s does not show %q", date, title)
		}
	}
}

// TestImportedTextFitsTheRules: what another app wrote is made to fit
// the forms' rules, not kept as it came: a line break or a tab in a title
// becomes a space, bidi overrides and control characters go; and a
// series keeps at most maxImportExDates skipped dates.
func TestImportedTextFitsTheRules(t *testing.T) {
	t.Parallel()
	var exdates strings.Builder
	for i := range maxImportExDates + 50 {
		fmt.Fprintf(&exdates, "EXDATE:%s\r\n", time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format("20060102T150405Z"))
	}
	file := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:odd@example\r\nDTSTART:20300101T090000Z\r\nDTEND:20300101T100000Z\r\n" +
		"SUMMARY:Swim\\nlesson\t\u202etxt.exe\u0007\r\nLOCATION:Pool\\n2\r\nRRULE:FREQ=DAILY\r\n" + exdates.String() + "END:VEVENT\r\nEND:VCALENDAR\r\n"
	items := eventItems(t, []byte(file))
	if len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
	doc := items[0].Doc
	if doc.Title != "Swim lesson txt.exe" || doc.Location != "Pool 2" {
		t.Errorf("title %q, location %q", doc.Title, doc.Location)
	}
	if _, p := appointmentTitleRule.Check(doc.Title); p != formrule.OK {
		t.Errorf("the title still breaks the rule: %v", p)
	}
	if len(doc.ExDates) != maxImportExDates {
		t.Errorf("%d skipped dates kept", len(doc.ExDates))
	}
}

// eventItems reads file's events as an import does.
func eventItems(t *testing.T, file []byte) []ImportItem {
	t.Helper()
	cal, err := ics.ParseCalendar(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var out []ImportItem
	for _, e := range cal.Events() {
		out = append(out, eventItem(e))
	}
	return out
}

// TestImportRefusesBadFiles: no file, a file that is not a calendar, and
// one over the limit are refused with a message and keep nothing.
func TestImportRefusesBadFiles(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	for _, tc := range []struct {
		name   string
		data   []byte
		status int
	}{
		{"no file", nil, http.StatusBadRequest},
		{"not a calendar", []byte("hello, this is not a calendar"), http.StatusBadRequest},
		{"a calendar without events", []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"), http.StatusBadRequest},
		{"too large", bytes.Repeat([]byte("x"), MaxImportBytes+1), http.StatusRequestEntityTooLarge},
		// Components nested past any calendar's: the parser would recurse
		// once a level.
		{"nested 5,000 deep", []byte("BEGIN:VCALENDAR\r\n" + strings.Repeat("BEGIN:VALARM\r\n", 5000)), http.StatusBadRequest},
	} {
		res := uploadICS(t, ann, id, tc.data)
		ops := res.StorageOps(t)
		if res.StatusCode != tc.status || res.Doc(t).Find(`[data-testid="import-form"] .field-error`).Length() != 1 || ops["writes"]+ops["blob_writes"] != 0 {
			t.Errorf("%s: %d, %s", tc.name, res.StatusCode, res.Header.Get("X-Storage-Ops"))
		}
	}
	if res := post(t, ann.c, "/groups/"+id+"/import/"+strings.Repeat("ab", 16), nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown import: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/import/..%2F..%2Fx", nil); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a bad token: %d", res.StatusCode)
	}
}

// TestImportRefusesCostlyRules: rules that add occurrences within a day
// or pick them by position, rules that name no date at all (the library
// would look for one until the year 9999 on every read), and starts
// outside 1900–2200, are shown as skipped with their reason; the rules a
// calendar app exports (weekly on days, monthly on a weekday or a date,
// yearly on a leap day) come in.
func TestImportRefusesCostlyRules(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	event := func(uid, start, rule string) string {
		s := "BEGIN:VEVENT\r\nUID:" + uid + "\r\nDTSTART:" + start + "\r\nDTEND:" + start[:9] + "235959Z\r\nSUMMARY:" + uid + "\r\n"
		if rule != "" {
			s += "RRULE:" + rule + "\r\n"
		}
		return s + "END:VEVENT\r\n"
	}
	cal := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" +
		event("every-second", "20300101T000000Z", "FREQ=DAILY;BYHOUR=0,1,2;BYMINUTE=0,30;BYSECOND=0,1") +
		event("by-position", "20300101T100000Z", "FREQ=MONTHLY;BYDAY=MO,TU;BYSETPOS=-1") +
		event("huge-count", "20300101T100000Z", "FREQ=DAILY;COUNT=100000") +
		event("huge-interval", "20300101T100000Z", "FREQ=WEEKLY;INTERVAL=500") +
		event("ancient", "18000101T100000Z", "FREQ=DAILY") +
		event("weekdays", "20300107T170000Z", "FREQ=WEEKLY;BYDAY=MO,WE") +
		event("second-tuesday", "20300108T170000Z", "FREQ=MONTHLY;BYDAY=2TU") +
		event("fifteenth", "20300115T170000Z", "FREQ=MONTHLY;BYMONTHDAY=15") +
		event("thirtieth-of-february", "20300101T100000Z", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30") +
		event("first-monday-the-15th", "20300101T100000Z", "FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=15") +
		event("march-steps-past-february", "20300301T100000Z", "FREQ=MONTHLY;INTERVAL=12;BYMONTH=2") +
		event("leap-day", "20320229T100000Z", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29") +
		"END:VCALENDAR\r\n"
	doc := uploadICS(t, ann, id, []byte(cal)).Doc(t)
	var got []string
	doc.Find(testID("import-row")).Each(func(_ int, r *goquery.Selection) {
		got = append(got, r.AttrOr("data-status", ""))
	})
	if fmt.Sprint(got) != "[skip skip skip skip skip new new new skip skip skip new]" {
		t.Fatalf("import statuses %v", got)
	}
	if !strings.Contains(doc.Text(), "its start is before 1900 or after 2200") {
		t.Error("the reason for the ancient start is not shown")
	}
}

// TestOccurrenceCenturiesOn: naming an occurrence of a series 280 years
// after its start finds it without walking every day since (the rule
// starts from the period before it), and a time the rule does not give
// is not one; the answers match the rule walked from its start.
func TestOccurrenceCenturiesOn(t *testing.T) {
	t.Parallel()
	start := time.Date(1900, 1, 1, 9, 0, 0, 0, time.UTC) // a Monday
	for _, rule := range []string{"FREQ=DAILY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "FREQ=MONTHLY;INTERVAL=3;BYDAY=2TU", "FREQ=YEARLY"} {
		row := AppointmentIndexRow{StartTime: start, EndTime: start.Add(time.Hour), Timezone: "UTC", Repeat: rule}
		r, err := ruleOf(rule, start)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Date(2180, 1, 1, 0, 0, 0, 0, time.UTC)
		walked := r.Between(from, from.AddDate(0, 3, 0), true)
		if len(walked) == 0 {
			t.Fatalf("%s: no occurrence in the quarter", rule)
		}
		for _, at := range walked {
			if !isOccurrence(row, at) {
				t.Errorf("%s: %s is not found", rule, at)
			}
			if isOccurrence(row, at.Add(30*time.Minute)) {
				t.Errorf("%s: %s is taken for an occurrence", rule, at.Add(30*time.Minute))
			}
		}
	}
}

// BenchmarkOccurrenceCenturiesOn names an occurrence 280 years after a
// daily series began.
func BenchmarkOccurrenceCenturiesOn(b *testing.B) {
	row := AppointmentIndexRow{StartTime: time.Date(1900, 1, 1, 9, 0, 0, 0, time.UTC), EndTime: time.Date(1900, 1, 1, 10, 0, 0, 0, time.UTC), Timezone: "UTC", Repeat: "FREQ=DAILY"}
	at := time.Date(2180, 12, 31, 9, 0, 0, 0, time.UTC)
	for b.Loop() {
		isOccurrence(row, at)
	}
}

// TestPreviewsAreForgotten: a previewed file nobody imports is deleted an
// hour later, and its import is then the "expired" 404; one person
// previews at most 20 files an hour (429, keeping nothing).
func TestPreviewsAreForgotten(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	google, _ := os.ReadFile("testdata/google.ics")
	files := func() int {
		infos, err := a.svc.blobs.List(ctx, groupBlobPrefix(id)+"imports/")
		if err != nil {
			t.Fatal(err)
		}
		return len(infos)
	}
	action := uploadICS(t, ann, id, google).Doc(t).Find(testID("import-confirm-form")).AttrOr("action", "")
	if files() != 1 || !strings.Contains(action, "/import/") {
		t.Fatalf("after a preview: %d files, form %q", files(), action)
	}
	a.Clock.Advance(previewKept - time.Minute)
	a.Tasks.RunDue(ctx)
	if files() != 1 {
		t.Fatal("the file went before its hour")
	}
	a.Clock.Advance(2 * time.Minute)
	a.Tasks.RunDue(ctx)
	if files() != 0 {
		t.Fatal("the file is kept after its hour")
	}
	if res := post(t, ann.c, action, nil); res.StatusCode != http.StatusNotFound || !strings.Contains(res.Body, "expired") {
		t.Fatalf("importing a forgotten file: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Hour)
	for i := range previewsPerHour {
		if i >= 10 {
			a.Clock.Advance(30 * time.Second) // one client's pace of uploads (web.UploadPace)
		}
		if res := uploadICS(t, ann, id, google); res.StatusCode != http.StatusOK {
			t.Fatalf("preview %d: %d", i, res.StatusCode)
		}
	}
	a.Clock.Advance(30 * time.Second)
	res := uploadICS(t, ann, id, google)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "too many calendar files") || res.Writes(t) != 0 || files() != previewsPerHour {
		t.Fatalf("one preview too many: %d, %s, %d files", res.StatusCode, res.Header.Get("X-Storage-Ops"), files())
	}
}

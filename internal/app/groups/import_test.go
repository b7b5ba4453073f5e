package groups

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

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
	if res.StatusCode != http.StatusOK || ops["writes"]+ops["txs"] != 0 || ops["blob_writes"] != 1 {
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

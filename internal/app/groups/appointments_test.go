package groups

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/ai"
	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/ical"
	"github.com/harmony/harmony/internal/media/mediatest"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web/webtest"
)

// matrixAppointment gives a matrix cell's group an appointment created by
// its owner, with a scan, and turns the .ics feed on.
func matrixAppointment(t *testing.T, a *groupsApp, groupID string, owner *auth.Identity) (appointmentID, feedQuery string) {
	t.Helper()
	m, _, err := a.svc.Open(ctx, groupID, owner, AccessOwner)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := a.svc.CreateAppointment(ctx, m, owner, AppointmentInput{Title: "Matrix visit", Start: "2030-06-01T10:00", End: "2030-06-01T11:00"}, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.svc.UploadScan(ctx, m, doc.AppointmentID, mediatest.EncodedPNG(t, 40, 30)); err != nil {
		t.Fatal(err)
	}
	g, err := a.svc.RegenerateCalendarToken(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(a.svc.CalendarURL(g, m))
	if err != nil {
		t.Fatal(err)
	}
	return doc.AppointmentID, u.RawQuery
}

var appointmentPath = regexp.MustCompile(`^/groups/[0-9A-Z]{26}/appointments/([0-9A-Z]{26})$`)

// createAppointment posts the form and returns the new appointment's id.
func createAppointment(t *testing.T, p person, groupID string, form url.Values) string {
	t.Helper()
	res := post(t, p.c, "/groups/"+groupID+"/appointments", form)
	m := appointmentPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create appointment: %d %s %s", res.StatusCode, res.Header.Get("Location"), res.Body)
	}
	return m[1]
}

// joinedPair is ann's group with bob as an active member.
func joinedPair(t *testing.T, a *groupsApp) (ann, bob person, groupID string) {
	t.Helper()
	ann = a.signIn(t, "ann@example.com")
	groupID = createGroup(t, ann, "Smiths")
	invite(t, ann, groupID, "bob@example.com")
	bob = a.signIn(t, "bob@example.com")
	if res := post(t, bob.c, "/groups/"+groupID+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("accept: %d", res.StatusCode)
	}
	return ann, bob, groupID
}

func (a *groupsApp) indexRows(t *testing.T, groupID string) []AppointmentIndexRow {
	t.Helper()
	var out []AppointmentIndexRow
	err := a.svc.appointments.QueryAll(ctx, storage.Query{PartitionKey: groupID}, func(e storage.Entity) error {
		var r AppointmentIndexRow
		if err := storage.Unmarshal(e, &r); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppointmentCreateValidatesAndStoresUTC(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	// Ann enters times in Moscow time (UTC+3).
	if errs, err := a.Accounts.UpdateProfile(ctx, ann.id.MemberKey, account.ProfileInput{DisplayName: "Ann", Timezone: "Europe/Moscow"}); err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}

	bad := []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no title", url.Values{"title": {" "}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}, "title"},
		{"long title", url.Values{"title": {strings.Repeat("a", 121)}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}, "title"},
		{"end before start", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T09:00"}}, "end"},
		{"end equals start", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T10:00"}}, "end"},
		{"bad start", url.Values{"title": {"X"}, "start": {"tomorrow"}, "end": {"2030-06-01T10:00"}}, "start"},
		{"long location", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "location": {strings.Repeat("l", 201)}}, "location"},
		{"long notes", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "notes": {strings.Repeat("n", 2001)}}, "notes"},
		{"stranger responsible", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "responsible": {"auth:stranger"}}, "responsible"},
		{"stranger participant", url.Values{"title": {"X"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "participant": {"auth:stranger"}}, "participants"},
	}
	for _, tc := range bad {
		res := post(t, ann.c, "/groups/"+id+"/appointments", tc.form)
		if res.StatusCode != http.StatusUnprocessableEntity || res.Doc(t).Find(testID("field-error")).Length() == 0 {
			t.Errorf("%s: %d", tc.name, res.StatusCode)
		}
	}
	if n := len(a.indexRows(t, id)); n != 0 {
		t.Fatalf("bad input wrote %d index rows", n)
	}

	appt := createAppointment(t, ann, id, url.Values{
		"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:30"},
		"location": {"Main St, 1"}, "notes": {"Bring the card;\nask about braces"},
		"participant": {ann.id.MemberKey, bob.id.MemberKey}, "responsible": {bob.id.MemberKey},
	})
	rows := a.indexRows(t, id)
	if len(rows) != 1 {
		t.Fatalf("%d index rows", len(rows))
	}
	r := rows[0]
	wantStart := time.Date(2030, 6, 1, 7, 0, 0, 0, time.UTC)
	if r.RowKey != "20300601070000Z|"+appt || !r.StartTime.Equal(wantStart) || r.Status != AppointmentActive || r.IsDeleted || r.HasScan || r.CreatedBy != ann.id.MemberKey {
		t.Fatalf("index row %+v", r)
	}
	doc, err := a.svc.appointmentDoc(ctx, id, appt)
	if err != nil || doc.Title != "Dentist" || !doc.End.Equal(wantStart.Add(90*time.Minute)) || doc.Responsible != bob.id.MemberKey ||
		doc.CreatedBy != ann.id.MemberKey || doc.Timezone != "Europe/Moscow" {
		t.Fatalf("blob %+v %v", doc, err)
	}
	parts, err := a.svc.participants.Query(ctx, storage.Query{PartitionKey: participantsPartition(id, appt), RowKeyPrefix: "m:"})
	if err != nil || len(parts.Entities) != 2 {
		t.Fatalf("participants %v %v", parts.Entities, err)
	}
	responsible := 0
	for _, e := range parts.Entities {
		if e.Props["role"] == RoleResponsible {
			responsible++
			if e.RowKey != "m:"+storage.EscapeKey(bob.id.MemberKey) {
				t.Fatalf("responsible row %s", e.RowKey)
			}
		}
	}
	if responsible != 1 {
		t.Fatalf("%d responsible", responsible)
	}

	// Bob sees it, in UTC (no zone on his profile), with himself responsible.
	page := bob.c.Get("/groups/" + id + "/appointments/" + appt)
	doc2 := page.Doc(t)
	if page.StatusCode != http.StatusOK || doc2.Find(testID("appointment-title")).Text() != "Dentist" ||
		!strings.Contains(doc2.Find(testID("appointment-when")).Text(), "07:00") ||
		doc2.Find(`[data-testid="participant"][data-responsible="true"]`).Length() != 1 {
		t.Fatalf("detail as bob: %d", page.StatusCode)
	}
	if !strings.Contains(ann.c.Get("/groups/"+id+"/appointments/"+appt).Doc(t).Find(testID("appointment-when")).Text(), "10:00") {
		t.Fatal("ann does not see her own zone")
	}
	// Carol, not a member, gets a 404.
	carol := a.signIn(t, "carol@example.com")
	if res := carol.c.Get("/groups/" + id + "/appointments/" + appt); res.StatusCode != http.StatusNotFound {
		t.Fatalf("non-member: %d", res.StatusCode)
	}
}

func TestAppointmentEditMovesRowCancelAndDelete(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	appt := createAppointment(t, ann, id, url.Values{"title": {"Swim"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}, "responsible": {bob.id.MemberKey}})

	// Bob (a member) moves it a day later: the index row's key moves.
	res := post(t, bob.c, "/groups/"+id+"/appointments/"+appt+"/edit", url.Values{"title": {"Swim lesson"}, "start": {"2030-06-02T10:00"}, "end": {"2030-06-02T11:00"}, "responsible": {""}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", res.StatusCode, res.Body)
	}
	rows := a.indexRows(t, id)
	if len(rows) != 1 || rows[0].RowKey != "20300602100000Z|"+appt || rows[0].Title != "Swim lesson" {
		t.Fatalf("after the move: %+v", rows)
	}
	doc, _ := a.svc.appointmentDoc(ctx, id, appt)
	if doc.UpdatedBy != bob.id.MemberKey || doc.Responsible != "" {
		t.Fatalf("blob after edit %+v", doc)
	}
	if parts, _ := a.svc.participants.Query(ctx, storage.Query{PartitionKey: participantsPartition(id, appt), RowKeyPrefix: "m:"}); len(parts.Entities) != 0 {
		t.Fatalf("participants left: %d", len(parts.Entities))
	}
	if res := post(t, bob.c, "/groups/"+id+"/appointments/"+appt+"/edit", url.Values{"title": {""}, "start": {"2030-06-03T10:00"}, "end": {"2030-06-03T11:00"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad edit: %d", res.StatusCode)
	}
	if rows := a.indexRows(t, id); rows[0].RowKey != "20300602100000Z|"+appt {
		t.Fatal("a refused edit moved the row")
	}

	// A half-finished move (a stale row at the old start, the blob ahead)
	// still opens, and the next save removes the stale row.
	stale := rows[0]
	stale.RowKey = "20300601100000Z|" + appt
	if _, err := storage.Upsert(ctx, a.svc.appointments, stale); err != nil {
		t.Fatal(err)
	}
	if err := a.svc.appointments.Delete(ctx, id, rows[0].RowKey, storage.AnyETag); err != nil {
		t.Fatal(err)
	}
	if res := bob.c.Get("/groups/" + id + "/appointments/" + appt); res.StatusCode != http.StatusOK {
		t.Fatalf("detail with the row behind the blob: %d", res.StatusCode)
	}

	if res := post(t, bob.c, "/groups/"+id+"/appointments/"+appt+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	rows = a.indexRows(t, id)
	if len(rows) != 1 || rows[0].Status != AppointmentCanceled || rows[0].RowKey != "20300602100000Z|"+appt {
		t.Fatalf("after cancel: %+v", rows)
	}
	if bob.c.Get("/groups/"+id+"/appointments/"+appt).Doc(t).Find(testID("appointment-canceled")).Length() != 1 {
		t.Fatal("canceled badge missing")
	}

	// Bob neither created it nor owns the group.
	if res := post(t, bob.c, "/groups/"+id+"/appointments/"+appt+"/delete", confirmed); res.StatusCode != http.StatusForbidden {
		t.Fatalf("member deleting another's appointment: %d", res.StatusCode)
	}
	// Bob may delete his own.
	own := createAppointment(t, bob, id, url.Values{"title": {"Bob's"}, "start": {"2030-06-05T10:00"}, "end": {"2030-06-05T11:00"}})
	if res := post(t, bob.c, "/groups/"+id+"/appointments/"+own+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("creator deleting: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/appointments/"+appt+"/delete", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("owner deleting: %d", res.StatusCode)
	}
	for _, r := range a.indexRows(t, id) {
		if !r.IsDeleted || r.DeletedAt == nil || r.PurgeAfterAt == nil || !r.PurgeAfterAt.Equal(r.DeletedAt.Add(PurgeAfter)) {
			t.Fatalf("deleted row %+v", r)
		}
	}
	if res := ann.c.Get("/groups/" + id + "/appointments/" + appt); res.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted appointment page: %d", res.StatusCode)
	}
	if n := ann.c.Get("/groups/" + id).Doc(t).Find(testID("appointment-row")).Length(); n != 0 {
		t.Fatalf("%d deleted appointments listed", n)
	}
	// The blob alone is not an appointment.
	ghost := newAppointmentID()
	a.svc.blobs.Put(ctx, appointmentBlobName(id, ghost), []byte(fmt.Sprintf(`{"appointmentId":%q,"groupId":%q}`, ghost, id)), "application/json")
	if res := ann.c.Get("/groups/" + id + "/appointments/" + ghost); res.StatusCode != http.StatusNotFound {
		t.Fatalf("blob without index row: %d", res.StatusCode)
	}
}

func TestUpcomingPagesMonthAndDashboard(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	m, _, _ := a.svc.Open(ctx, id, ann.id, AccessMember)
	// One in the past, 30 ahead (a page is 25), one next month.
	start := accounttestStart().Add(-48 * time.Hour)
	for i := range 31 {
		s := start.Add(time.Duration(i) * 24 * time.Hour)
		if _, err := a.svc.CreateAppointment(ctx, m, ann.id, AppointmentInput{Title: fmt.Sprintf("A%02d", i), Start: s.Format(FormTimeLayout), End: s.Add(time.Hour).Format(FormTimeLayout)}, time.UTC); err != nil {
			t.Fatal(err)
		}
	}
	res := ann.c.Get("/groups/" + id)
	doc := res.Doc(t)
	seen := doc.Find(testID("appointment-row")).Length()
	if doc.Find(testID("appointment-row")).First().Find("a").Text() != "A02" {
		t.Fatalf("first upcoming %q", doc.Find(testID("appointment-row")).First().Find("a").Text())
	}
	more, ok := doc.Find(testID("load-more")).Attr("href")
	if !ok || doc.Find(`[hx-trigger="intersect once"]`).Length() != 1 {
		t.Fatal("no load-more sentinel and link")
	}
	for more != "" {
		p := ann.c.Get(more)
		if p.StatusCode != http.StatusOK {
			t.Fatalf("load more: %d", p.StatusCode)
		}
		d := p.Doc(t)
		seen += d.Find(testID("appointment-row")).Length()
		more, _ = d.Find(testID("load-more")).Attr("href")
	}
	if seen != 29 {
		t.Fatalf("paged through %d upcoming, want 29", seen)
	}
	// A ?from= that is no time, or one past the calendar's years (which
	// storage would refuse), is a 400 that says so, with or without htmx.
	for _, bad := range []string{"nonsense", "2030", "99991231235959Z", "00010101000000Z", "16001231235959Z"} {
		for _, hx := range [][]string{nil, {"HX-Request", "true", "HX-Request-Type", "partial"}} {
			res := ann.c.Get("/groups/"+id+"?from="+bad, hx...)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, "not a point in time") {
				t.Errorf("from=%s (htmx %v): %d %.200s", bad, hx != nil, res.StatusCode, res.Body)
			}
		}
	}

	month := ann.c.Get("/groups/" + id + "/appointments/month?m=2030-05")
	mdoc := month.Doc(t)
	// May 15..31 = 17 appointments (the test clock starts on 17 May).
	if month.StatusCode != http.StatusOK || mdoc.Find(`[data-in-month="true"] [data-testid="month-appointment"]`).Length() != 17 || mdoc.Find(`th[scope="col"]`).Length() != 7 {
		t.Fatalf("month: %d, %d appointments", month.StatusCode, mdoc.Find(testID("month-appointment")).Length())
	}
	if href, _ := mdoc.Find(testID("calendar-next")).Attr("href"); !strings.HasSuffix(href, "m=2030-06") {
		t.Fatalf("next month link %q", href)
	}
	if res := ann.c.Get("/groups/" + id + "/appointments/month?m=nonsense"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad month: %d", res.StatusCode)
	}

	dash := ann.c.Get("/").Doc(t)
	if n := dash.Find(testID("upcoming-appointment")).Length(); n != 3 {
		t.Fatalf("%d upcoming on the dashboard, want 3", n)
	}
}

func accounttestStart() time.Time { return time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC) }

func TestCalendarFeed(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	appt := createAppointment(t, ann, id, url.Values{
		"title": {"Piano, grade 2; exam"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"},
		"location": {`Hall \ B`}, "notes": {strings.Repeat("Long notes with ünïcödé ", 10) + "\nline two"},
	})
	canceled := createAppointment(t, ann, id, url.Values{"title": {"Canceled"}, "start": {"2030-06-02T10:00"}, "end": {"2030-06-02T11:00"}})
	post(t, ann.c, "/groups/"+id+"/appointments/"+canceled+"/cancel", confirmed)

	bobRef := url.QueryEscape(a.svc.memberRef(id, bob.id.UserKey))
	if res := a.Client().Get("/groups/" + id + "/calendar.ics?member=" + bobRef + "&token=" + memberFeedToken("", bob.id.UserKey)); res.StatusCode != http.StatusNotFound {
		t.Fatalf("no feed yet: %d", res.StatusCode)
	}
	if res := post(t, bob.c, "/groups/"+id+"/calendar/token", nil); res.StatusCode != http.StatusForbidden {
		t.Fatalf("member regenerating: %d", res.StatusCode)
	}
	if res := post(t, ann.c, "/groups/"+id+"/calendar/token", nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("turn the feed on: %d", res.StatusCode)
	}
	feedURL, _ := bob.c.Get("/groups/" + id + "/settings").Doc(t).Find(testID("calendar-url")).Attr("value")
	u, err := url.Parse(feedURL)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("feed url %q", feedURL)
	}
	anon := a.Client()
	res := anon.Get(u.RequestURI())
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") {
		t.Fatalf("feed: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	body := res.Body
	if !strings.HasSuffix(body, "\r\n") || strings.Contains(strings.ReplaceAll(body, "\r\n", ""), "\n") {
		t.Fatal("lines do not all end in CRLF")
	}
	for _, line := range strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n") {
		if len(line) > 75 {
			t.Fatalf("line of %d octets: %q", len(line), line)
		}
	}
	unfolded := strings.ReplaceAll(body, "\r\n ", "")
	for _, want := range []string{
		"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n",
		"UID:" + appt + "@localhost:8080\r\n",
		"DTSTAMP:20300517T093000Z\r\n",
		"DTSTART:20300601T100000Z\r\nDTEND:20300601T110000Z\r\n",
		`SUMMARY:Piano\, grade 2\; exam` + "\r\n",
		`LOCATION:Hall \\ B` + "\r\n",
		`\nline two` + "\r\n",
		"SUMMARY:Canceled\r\n",
		"STATUS:CANCELLED\r\n",
		"END:VCALENDAR\r\n",
	} {
		if !strings.Contains(unfolded, want) {
			t.Errorf("feed lacks %q:\n%s", want, unfolded)
		}
	}
	if res := anon.Get("/groups/" + id + "/calendar.ics?member=" + bobRef + "&token=" + strings.Repeat("a", 64)); res.StatusCode != http.StatusNotFound {
		t.Fatalf("wrong token: %d", res.StatusCode)
	}
	// Regenerating stops the old URL.
	post(t, ann.c, "/groups/"+id+"/calendar/token", nil)
	if res := anon.Get(u.RequestURI()); res.StatusCode != http.StatusNotFound {
		t.Fatalf("old token after regenerating: %d", res.StatusCode)
	}
	fresh := memberFeedPath(t, bob, id)
	if res := anon.Get(fresh); res.StatusCode != http.StatusOK {
		t.Fatalf("new token: %d", res.StatusCode)
	}
	// A deleted group has no feed.
	post(t, ann.c, "/groups/"+id+"/delete", confirmed)
	if res := anon.Get(fresh); res.StatusCode != http.StatusNotFound {
		t.Fatalf("deleted group's feed: %d", res.StatusCode)
	}
}

func TestICSFoldsLongLinesOnRuneBoundaries(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ical.Line(&b, "DESCRIPTION:"+strings.Repeat("я", 100))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\r\n"), "\r\n")
	for i, l := range lines {
		if len(l) > 75 || (i > 0 && !strings.HasPrefix(l, " ")) || !utf8Valid(l) {
			t.Fatalf("line %d %q", i, l)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// uploadScan posts a file as the scan.
func uploadScan(t *testing.T, c *webtest.Client, path string, data []byte) *webtest.Response {
	t.Helper()
	return c.PostFile(path, c.WithCSRF("/", nil), "scan", "card.png", data)
}

// fakeExtractor reads every scan the same, or fails with err; calls
// counts the reads.
type fakeExtractor struct {
	userKey string
	calls   int
	err     error
}

func (f *fakeExtractor) ExtractAppointment(_ context.Context, userKey string, jpeg []byte) (Draft, error) {
	if len(jpeg) == 0 {
		return Draft{}, errors.New("no image")
	}
	f.calls++
	if f.err != nil {
		return Draft{}, f.err
	}
	f.userKey = userKey
	return Draft{Title: "Read from scan", Start: time.Date(2030, 7, 1, 9, 0, 0, 0, time.UTC), Location: "Clinic"}, nil
}

// doctorsAppointment is an appointment ann makes in the group, and its
// page's path.
func doctorsAppointment(t *testing.T, ann person, groupID string) (appt, base string) {
	t.Helper()
	appt = createAppointment(t, ann, groupID, url.Values{"title": {"Doctor"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	return appt, "/groups/" + groupID + "/appointments/" + appt
}

func TestScanIsPrivateAndReadable(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	appt, base := doctorsAppointment(t, ann, id)

	if res := uploadScan(t, bob.c, base+"/scan", []byte("not an image")); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("not an image: %d", res.StatusCode)
	}
	if res := uploadScan(t, bob.c, base+"/scan", mediatest.JPEGWithEXIF(t, 2400, 1200, 1)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.StatusCode, res.Body)
	}
	rows := a.indexRows(t, id)
	if !rows[0].HasScan || rows[0].ScanCapturedAt == nil {
		t.Fatalf("index after scan %+v", rows[0])
	}
	page := ann.c.Get(base).Doc(t)
	src, _ := page.Find(testID("scan-image")).Attr("src")
	if !strings.HasPrefix(src, base+"/scan") {
		t.Fatalf("scan src %q", src)
	}
	if strings.Contains(ann.c.Get(base).Body, "familyscheduler") {
		t.Fatal("the page names the blob")
	}
	if page.Find(testID("read-scan")).Length() != 0 {
		t.Fatal("Read the scan offered with no extractor")
	}
	res := ann.c.Get(src)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/jpeg" ||
		!strings.Contains(res.Header.Get("Cache-Control"), "private") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("scan: %d %v", res.StatusCode, res.Header)
	}
	if !bytes.HasPrefix([]byte(res.Body), []byte{0xFF, 0xD8}) {
		t.Fatal("the scan is not a JPEG")
	}
	carol := a.signIn(t, "carol@example.com")
	if res := carol.c.Get(src); res.StatusCode != http.StatusNotFound {
		t.Fatalf("non-member on the scan: %d", res.StatusCode)
	}
	if res := a.Client().Get(src); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous on the scan: %d", res.StatusCode)
	}
	// Removal takes effect on the next request.
	post(t, ann.c, "/groups/"+id+"/members/"+a.svc.memberRef(id, auth.UserKey("bob@example.com"))+"/remove", confirmed)
	if res := bob.c.Get(src); res.StatusCode != http.StatusNotFound {
		t.Fatalf("removed member on the scan: %d", res.StatusCode)
	}

	// With an Extractor, "Read the scan" pre-fills the form, unsaved.
	x := &fakeExtractor{}
	a.svc.UseExtractor(x)
	if ann.c.Get(base).Doc(t).Find(testID("read-scan")).Length() != 1 {
		t.Fatal("no Read the scan button")
	}
	res = post(t, ann.c, base+"/scan/read", nil)
	form := res.Doc(t)
	if res.StatusCode != http.StatusOK || form.Find(`input[name="title"]`).AttrOr("value", "") != "Read from scan" ||
		form.Find(`input[name="start"]`).AttrOr("value", "") != "2030-07-01T09:00" || form.Find(`input[name="end"]`).AttrOr("value", "") != "2030-06-01T11:00" ||
		x.userKey != ann.id.UserKey {
		t.Fatalf("read the scan: %d", res.StatusCode)
	}
	if doc, _ := a.svc.appointmentDoc(ctx, id, appt); doc.Title != "Doctor" {
		t.Fatal("reading the scan saved the draft")
	}
}

// TestReadingScansIsLimited: reading a scan (a paid AI call) is held to
// scanReadsPerPerson a day per person and scanReadsPerGroup per group; a
// read past either is a 429 that says so and calls nothing. The AI
// service's failures get their own messages, not a 500.
func TestReadingScansIsLimited(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	_, base := doctorsAppointment(t, ann, id)
	if res := uploadScan(t, ann.c, base+"/scan", mediatest.JPEGWithEXIF(t, 800, 600, 1)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("upload: %d", res.StatusCode)
	}
	x := &fakeExtractor{}
	a.svc.UseExtractor(x)
	for i := range scanReadsPerPerson {
		if res := post(t, ann.c, base+"/scan/read", nil); res.StatusCode != http.StatusOK {
			t.Fatalf("read %d: %d", i+1, res.StatusCode)
		}
	}
	res := post(t, ann.c, base+"/scan/read", nil)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(res.Body, "scans") || x.calls != scanReadsPerPerson {
		t.Fatalf("a read past the person's limit: %d, %d calls", res.StatusCode, x.calls)
	}
	// Bob still may, until the group's day is used up.
	if res := post(t, bob.c, base+"/scan/read", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("bob's read: %d", res.StatusCode)
	}
	for range scanReadsPerGroup - scanReadsPerPerson - 1 {
		if err := a.svc.scansPerGroup.Take(ctx, "g|"+id, a.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if res := post(t, bob.c, base+"/scan/read", nil); res.StatusCode != http.StatusTooManyRequests || x.calls != scanReadsPerPerson+1 {
		t.Fatalf("a read past the group's limit: %d, %d calls", res.StatusCode, x.calls)
	}
	// The next day the limits start again; the AI's failures say what
	// happened.
	a.Clock.Advance(24 * time.Hour)
	for _, tc := range []struct {
		err    error
		status int
		says   string
	}{
		{fmt.Errorf("%w: timeout", ai.ErrUnavailable), http.StatusServiceUnavailable, "did not answer"},
		{ai.ErrUnreadable, http.StatusUnprocessableEntity, "could be read from this scan"},
	} {
		x.err = tc.err
		if res := post(t, bob.c, base+"/scan/read", nil); res.StatusCode != tc.status || !strings.Contains(res.Body, tc.says) {
			t.Errorf("%v: %d", tc.err, res.StatusCode)
		}
	}
}

// Guests' reads count against the group's creator as well: an owner who
// fills groups with guests by link gets scanReadsPerGroup reads a day
// across all of them, not that many per group.
func TestGuestsScansCountAgainstTheCreator(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	olga := a.signIn(t, "olga@example.com")
	x := &fakeExtractor{}
	a.svc.UseExtractor(x)
	reads := 0
	for g := range 2 {
		id := createGroup(t, olga, fmt.Sprint("Scanners ", g))
		_, base := doctorsAppointment(t, olga, id)
		if res := uploadScan(t, olga.c, base+"/scan", mediatest.JPEGWithEXIF(t, 800, 600, 1)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload: %d", res.StatusCode)
		}
		sid := openJoin(t, olga, id)
		for i := 0; i < scanReadsPerGroup/scanReadsPerPerson; i++ {
			guest := a.joinAsGuest(t, id, sid, fmt.Sprint("Guest ", g, i))
			for range scanReadsPerPerson {
				res := post(t, guest.c, base+"/scan/read", nil)
				if res.StatusCode == http.StatusOK {
					reads++
				} else if res.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("a guest's read: %d", res.StatusCode)
				}
			}
		}
	}
	if reads != scanReadsPerGroup || x.calls != scanReadsPerGroup {
		t.Fatalf("guests of one creator's two groups read %d scans (%d AI calls), want %d", reads, x.calls, scanReadsPerGroup)
	}
}

// The groups of creators who deleted their accounts share no creator's
// bound: each keeps its own scanReadsPerGroup reads a day for its
// guests, where all of them would otherwise share the bound of
// memberdata.Forgotten, their creator now.
func TestGuestsScansOfDeletedCreatorsGroupsAreBoundPerGroup(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	x := &fakeExtractor{}
	a.svc.UseExtractor(x)
	reads := 0
	for g := range 2 {
		email := fmt.Sprint("creator", g, "@example.com")
		creator := a.signIn(t, email)
		id := createGroup(t, creator, fmt.Sprint("Scanners ", g))
		invite(t, creator, id, fmt.Sprint("heir", g, "@example.com"))
		heir := a.signIn(t, fmt.Sprint("heir", g, "@example.com"))
		if res := post(t, heir.c, "/groups/"+id+"/invite/accept", nil); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("accept: %d", res.StatusCode)
		}
		_, base := doctorsAppointment(t, creator, id)
		if res := uploadScan(t, creator.c, base+"/scan", mediatest.JPEGWithEXIF(t, 800, 600, 1)); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload: %d", res.StatusCode)
		}
		sid := openJoin(t, creator, id)
		if err := a.svc.ForgetMember(ctx, memberdatatest.Member(creator.id.MemberKey, email)); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < scanReadsPerGroup/scanReadsPerPerson; i++ {
			guest := a.joinAsGuest(t, id, sid, fmt.Sprint("Guest ", g, i))
			for range scanReadsPerPerson {
				res := post(t, guest.c, base+"/scan/read", nil)
				if res.StatusCode == http.StatusOK {
					reads++
				} else if res.StatusCode != http.StatusTooManyRequests {
					t.Fatalf("a guest's read: %d", res.StatusCode)
				}
			}
		}
	}
	if reads != 2*scanReadsPerGroup || x.calls != 2*scanReadsPerGroup {
		t.Fatalf("guests of two deleted creators' groups read %d scans (%d AI calls), want %d", reads, x.calls, 2*scanReadsPerGroup)
	}
}

// A scan that decoding would make too large (16-bit colour: 335 KB on
// disk, 320 MB decoded) is refused from its header, and nothing is stored.
func TestScanTooBigToDecodeIsRefused(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, _, id := joinedPair(t, a)
	appt := createAppointment(t, ann, id, url.Values{"title": {"Doctor"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	base := "/groups/" + id + "/appointments/" + appt

	res := uploadScan(t, ann.c, base+"/scan", mediatest.DeepPNG(t, 6320, 6320))
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("16-bit 6320×6320 scan: %d", res.StatusCode)
	}
	if msg := res.Doc(t).Find(testID("field-error")).Text(); !strings.Contains(msg, "too much memory") {
		t.Fatalf("message %q", msg)
	}
	if rows := a.indexRows(t, id); rows[0].HasScan {
		t.Fatal("the refused scan was stored")
	}
	if res := ann.c.Get(base + "/scan"); res.StatusCode != http.StatusNotFound {
		t.Fatalf("scan after a refused upload: %d", res.StatusCode)
	}
}

// The dashboard shows times in the viewer's zone, which the session
// carries from the profile: a Berlin user sees the dentist at 10:00, not
// at 08:00 UTC, and a change of zone applies to the open session at once.
func TestDashboardTimesInTheViewersZone(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	if errs, err := a.Accounts.UpdateProfile(ctx, ann.id.MemberKey, account.ProfileInput{DisplayName: "Ann", Timezone: "Europe/Berlin"}); err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	when := ann.c.Get("/").Doc(t).Find(testID("upcoming-appointment")).Text()
	if !strings.Contains(when, "10:00") || strings.Contains(when, "08:00") {
		t.Fatalf("Berlin dashboard says %q", when)
	}
	if errs, err := a.Accounts.UpdateProfile(ctx, ann.id.MemberKey, account.ProfileInput{DisplayName: "Ann", Timezone: "Europe/Moscow"}); err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if when := ann.c.Get("/").Doc(t).Find(testID("upcoming-appointment")).Text(); !strings.Contains(when, "11:00") {
		t.Fatalf("after moving to Moscow the dashboard says %q", when)
	}
}

// A cancelled appointment is not "coming up" on the dashboard; the
// group's own list still shows it, marked.
func TestDashboardLeavesOutCancelledAppointments(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	dentist := createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	createAppointment(t, ann, id, url.Values{"title": {"Football"}, "start": {"2030-06-02T10:00"}, "end": {"2030-06-02T11:00"}})
	if res := post(t, ann.c, "/groups/"+id+"/appointments/"+dentist+"/cancel", confirmed); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("cancel: %d", res.StatusCode)
	}
	dash := ann.c.Get("/").Doc(t).Find(testID("upcoming-appointment")).Text()
	if strings.Contains(dash, "Dentist") || !strings.Contains(dash, "Football") {
		t.Errorf("dashboard shows %q", dash)
	}
	list := ann.c.Get("/groups/" + id).Doc(t).Text()
	if !strings.Contains(list, "Dentist") {
		t.Error("the group's list lost the cancelled appointment")
	}
}

// An empty title and a long one get different messages.
func TestAppointmentTitleMessages(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann := a.signIn(t, "ann@example.com")
	id := createGroup(t, ann, "Smiths")
	for _, tc := range []struct{ title, want string }{
		{"", "Give the appointment a title."},
		{strings.Repeat("x", MaxTitleLength+1), "at most 120 characters"},
	} {
		res := post(t, ann.c, "/groups/"+id+"/appointments", url.Values{"title": {tc.title}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("title %q: %d", tc.title, res.StatusCode)
		}
		if got := res.Doc(t).Find(`[data-field="appt-title"]`).Text(); !strings.Contains(got, tc.want) {
			t.Errorf("title of %d characters: %q, want %q", len(tc.title), got, tc.want)
		}
	}
}

// Two people edit the same appointment: the second save, made on the old
// version, is refused with 409 and their input kept; the first save
// stands; saving again then replaces it deliberately.
func TestConcurrentEditsDoNotOverwriteUnseen(t *testing.T) {
	t.Parallel()
	a := newGroupsApp(t)
	ann, bob, id := joinedPair(t, a)
	appt := createAppointment(t, ann, id, url.Values{"title": {"Dentist"}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}})
	edit := "/groups/" + id + "/appointments/" + appt + "/edit"
	form := func(c person) url.Values {
		doc := c.c.Get(edit).Doc(t)
		rev, _ := doc.Find(`input[name="revision"]`).Attr("value")
		if rev == "" {
			t.Fatal("the edit form carries no revision")
		}
		return url.Values{"revision": {rev}, "start": {"2030-06-01T10:00"}, "end": {"2030-06-01T11:00"}}
	}
	annForm, bobForm := form(ann), form(bob)
	a.Clock.Advance(time.Second)
	annForm.Set("title", "Dentist (Ann)")
	if res := post(t, ann.c, edit, annForm); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("ann's save: %d", res.StatusCode)
	}
	a.Clock.Advance(time.Second)
	bobForm.Set("title", "Dentist (Bob)")
	res := post(t, bob.c, edit, bobForm)
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("bob's stale save: %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if doc.Find(testID("appointment-conflict")).Length() != 1 {
		t.Error("no conflict message")
	}
	if v, _ := doc.Find(`input[name="title"]`).Attr("value"); v != "Dentist (Bob)" {
		t.Errorf("bob's input was not kept: %q", v)
	}
	if got := ann.c.Get("/groups/" + id + "/appointments/" + appt).Doc(t).Find(testID("appointment-title")).Text(); got != "Dentist (Ann)" {
		t.Errorf("after the refused save the title is %q", got)
	}
	// The refused form carries the current version: saving it again wins.
	rev, _ := doc.Find(`input[name="revision"]`).Attr("value")
	bobForm.Set("revision", rev)
	if res := post(t, bob.c, edit, bobForm); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob's deliberate save: %d", res.StatusCode)
	}
	if got := ann.c.Get("/groups/" + id + "/appointments/" + appt).Doc(t).Find(testID("appointment-title")).Text(); got != "Dentist (Bob)" {
		t.Errorf("after the deliberate save the title is %q", got)
	}
}

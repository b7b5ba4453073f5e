package events_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/harmony/harmony/internal/media/mediatest"
)

// formValues are what a browser would send from form as the page filled
// it: its inputs (ticked boxes only), selects and text areas.
func formValues(form *goquery.Selection) url.Values {
	v := url.Values{}
	form.Find("input[name]").Each(func(_ int, in *goquery.Selection) {
		typ := in.AttrOr("type", "text")
		if typ == "file" || (typ == "checkbox" || typ == "radio") && in.AttrOr("checked", "-") == "-" {
			return
		}
		v.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
	})
	form.Find("select[name]").Each(func(_ int, s *goquery.Selection) {
		v.Set(s.AttrOr("name", ""), s.Find("option[selected]").AttrOr("value", s.Find("option").First().AttrOr("value", "")))
	})
	form.Find("textarea[name]").Each(func(_ int, s *goquery.Selection) { v.Set(s.AttrOr("name", ""), s.Text()) })
	return v
}

// TestCopyEvent: "Copy" on an event opens the new-event form filled from
// it, writing nothing: its texts, place, seats, category and approval,
// in its own zone, the same weekday and time a week on; not its picture
// or co-organizers. Submitted (by an admin in another zone), it makes a
// draft with those, in the original's zone and with no registrations;
// the original is as it was. Who does not run the event cannot copy it,
// and a made-up zone is refused, writing nothing.
func TestCopyEvent(t *testing.T) {
	t.Parallel()
	a := newApp(t, "ADMIN_EMAILS", "org@example.com,boss@example.com")
	cast := a.People("org@example.com", "boss@example.com", "ann@example.com")
	org, boss, ann := cast[0], cast[1], cast[2]
	if res := post(org, "/account/timezone", url.Values{"timezone": {"Europe/Berlin"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("org's zone: %d", res.StatusCode)
	}
	form := url.Values{"title": {"Harbour walk"}, "category": {"yachting"}, "start": {"2030-06-04T19:00"}, "end": {"2030-06-04T21:30"},
		"capacity": {"12"}, "place": {"Pier 3"}, "description": {"Bring a *jacket*."}, "approval": {"on"}, "coHosts": {"boss@example.com"}}
	res := org.PostFile("/events", org.WithCSRF("/", form), "image", "poster.png", mediatest.EncodedPNG(t, 800, 600))
	page := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || post(org, page+"/publish", nil).StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	post(ann, page+"/register", nil)

	if href := org.Get(page).Doc(t).Find(testID("event-copy")).AttrOr("href", ""); href != page+"/copy" {
		t.Fatalf("the organizer's copy link: %q", href)
	}
	if res := ann.Get(page + "/copy"); res.StatusCode != http.StatusForbidden {
		t.Errorf("a member copies: %d", res.StatusCode)
	}
	res = boss.Get(page + "/copy")
	if res.StatusCode != http.StatusOK || res.Writes(t) != 0 {
		t.Fatalf("the copy form: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	doc := res.Doc(t)
	f := doc.Find(testID("event-form"))
	got := formValues(f)
	want := map[string]string{"title": "Harbour walk", "category": "yachting", "start": "2030-06-11T19:00", "end": "2030-06-11T21:30",
		"capacity": "12", "place": "Pier 3", "description": "Bring a *jacket*.", "approval": "on", "timezone": "Europe/Berlin", "coHosts": ""}
	for k, w := range want {
		if got.Get(k) != w {
			t.Errorf("the copy's %s: %q, want %q", k, got.Get(k), w)
		}
	}
	if f.AttrOr("action", "") != "/events" || f.Find(".form-thumb").Length() != 0 || !strings.Contains(doc.Find("h1").Text(), "New event from a copy") {
		t.Errorf("the copy form posts to %q, shows a picture (%d) or is headed %q", f.AttrOr("action", ""), f.Find(".form-thumb").Length(), doc.Find("h1").Text())
	}
	if back := f.Find(`a[href="` + page + `"]`).Length(); back != 1 {
		t.Error("the copy form's cancel does not lead back to the original")
	}

	bad := formValues(f)
	bad.Set("timezone", "Mars/Olympus")
	if res := boss.PostForm("/events", boss.WithCSRF("/", bad)); res.StatusCode != http.StatusUnprocessableEntity || res.Writes(t) != 0 {
		t.Errorf("a made-up zone: %d, %d writes", res.StatusCode, res.Writes(t))
	}
	res = boss.PostForm("/events", boss.WithCSRF("/", got))
	copied := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || copied == page {
		t.Fatalf("submit the copy: %d %s", res.StatusCode, copied)
	}
	if res := ann.Get(copied); res.StatusCode != http.StatusNotFound {
		t.Errorf("the copy is not a draft: %d", res.StatusCode)
	}
	cdoc := boss.Get(copied).Doc(t)
	if cdoc.Find(testID("event-draft")).Length() != 1 || cdoc.Find(testID("event-image")).Length() != 0 || !strings.Contains(cdoc.Find(testID("event-seats")).Text(), "0 of 12") {
		t.Errorf("the copy's page: draft %d, picture %d, seats %q", cdoc.Find(testID("event-draft")).Length(), cdoc.Find(testID("event-image")).Length(), cdoc.Find(testID("event-seats")).Text())
	}
	// The copy keeps Berlin's zone: its edit form (boss's zone is UTC)
	// shows 19:00 there, and carries the zone back.
	edit := formValues(boss.Get(copied + "/edit").Doc(t).Find(testID("event-form")))
	if edit.Get("start") != "2030-06-11T19:00" || edit.Get("timezone") != "Europe/Berlin" || edit.Get("approval") != "on" || edit.Get("coHosts") != "" {
		t.Errorf("the copy as saved: start %s, approval %q, co-organizers %q", edit.Get("start"), edit.Get("approval"), edit.Get("coHosts"))
	}
	if boss.Get(copied+"/check-in").Doc(t).Find(testID("request")).Length() != 0 || org.Get(page+"/check-in").Doc(t).Find(testID("request")).Length() != 1 {
		t.Error("the copy took the original's requests, or the original lost them")
	}
}

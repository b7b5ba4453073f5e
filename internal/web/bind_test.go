package web_test

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/web"
)

type repeatForm struct {
	Freq     string   `form:"repeat"`
	Weekdays []string `form:"repeatWeekday"`
}

type sampleForm struct {
	Title   string   `form:"title"`
	Missing string   `form:"missing"`
	AllDay  bool     `form:"allDay"`
	Off     bool     `form:"off"`
	Absent  bool     `form:"absent"`
	People  []string `form:"participant"`
	Repeat  repeatForm
	Kept    string // untagged: left alone
}

func bindRequest(t *testing.T, req *http.Request) (sampleForm, error) {
	t.Helper()
	in := sampleForm{Kept: "kept", Missing: "before"}
	err := web.BindForm(echo.New().NewContext(req, httptest.NewRecorder()), &in)
	return in, err
}

// BindForm fills tagged strings, ticked boxes, lists and nested parts
// from a form however it is sent, and leaves everything else alone.
func TestBindForm(t *testing.T) {
	const body = "title=Picnic+%D0%B2+%D0%BF%D0%B0%D1%80%D0%BA%D0%B5&allDay=on&off=false&participant=a&participant=b&repeat=weekly&repeatWeekday=MO&repeatWeekday=FR&Kept=sent"
	want := sampleForm{Title: "Picnic в парке", Missing: "before", AllDay: true, People: []string{"a", "b"},
		Repeat: repeatForm{Freq: "weekly", Weekdays: []string{"MO", "FR"}}, Kept: "kept"}
	check := func(name string, got sampleForm, err error) {
		t.Helper()
		if err != nil || got.Title != want.Title || got.Missing != want.Missing || got.AllDay != want.AllDay || got.Off || got.Absent ||
			!slices.Equal(got.People, want.People) || got.Repeat.Freq != want.Repeat.Freq || !slices.Equal(got.Repeat.Weekdays, want.Repeat.Weekdays) || got.Kept != "kept" {
			t.Errorf("%s: %+v, %v\nwant %+v", name, got, err, want)
		}
	}

	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	got, err := bindRequest(t, req)
	check("urlencoded", got, err)

	got, err = bindRequest(t, httptest.NewRequest(http.MethodGet, "/?"+body, nil))
	check("query", got, err)

	var mp bytes.Buffer
	w := multipart.NewWriter(&mp)
	for _, kv := range strings.Split(body, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "title" {
			v = want.Title
		}
		w.WriteField(k, v)
	}
	w.Close()
	req = httptest.NewRequest(http.MethodPost, "/", &mp)
	req.Header.Set("Content-Type", w.FormDataContentType())
	got, err = bindRequest(t, req)
	check("multipart", got, err)

	// A body that cannot be read is the client's fault: 400.
	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader("--x\r\nbroken"))
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	var he *web.Error
	if _, err := bindRequest(t, req); !errors.As(err, &he) || he.Status != http.StatusBadRequest {
		t.Errorf("broken multipart: %v, want a 400", err)
	}
}

// FormChoice takes a listed value and refuses any other with a 400.
func TestFormChoice(t *testing.T) {
	choices := map[string]int{"up": -1, "down": 1}
	ctx := func(q string) echo.Context {
		return echo.New().NewContext(httptest.NewRequest(http.MethodGet, "/?"+q, nil), httptest.NewRecorder())
	}
	if v, err := web.FormChoice(ctx("direction=down"), "direction", choices, "admin.tags.error.direction"); err != nil || v != 1 {
		t.Errorf("down: %d, %v", v, err)
	}
	for _, q := range []string{"direction=sideways", "direction=", ""} {
		var he *web.Error
		if _, err := web.FormChoice(ctx(q), "direction", choices, "admin.tags.error.direction"); !errors.As(err, &he) || he.Status != http.StatusBadRequest || he.Message == "" {
			t.Errorf("%q: %v, want a 400 with a message", q, err)
		}
	}
}

package web_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/web"
)

// A script that posts form after form and never loads the page they
// redirect to: the flash messages do not pile up in the session cookie, so
// the hundredth answer is still a redirect (it was a 500, "securecookie:
// the value is too long", after about 45).
func TestFlashMessagesDoNotPileUp(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	srv.Echo().GET("/test/saved", func(c echo.Context) error {
		return web.FlashRedirect(c, "account.flash.settings_saved", "/")
	})
	size := 0
	for i := 0; i < 100; i++ {
		res := srv.client.Get("/test/saved")
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("save %d: %d", i+1, res.StatusCode)
		}
		u, _ := url.Parse(srv.client.URL)
		n := 0
		for _, c := range srv.client.HTTP.Jar.Cookies(u) {
			n += len(c.Value)
		}
		if i == 0 {
			size = n
		} else if n > size+8 {
			t.Fatalf("the cookie grows: %d bytes after one save, %d after %d", size, n, i+1)
		}
	}
}

// AnswerForm: success flashes and redirects; field errors and a listed
// refusal show the form again with their status and messages; anything
// else is the error handler's.
func TestAnswerForm(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	taken := errors.New("taken")
	full := fault.New(http.StatusTooManyRequests, "form.error.full", "full")
	gone := fault.NotFound("no such section", nil)
	answers := map[string]error{
		"ok":     nil,
		"fields": formrule.FieldErrors{"name": "form.error.name"},
		"taken":  fmt.Errorf("create: %w", taken),
		"full":   fmt.Errorf("create: %w", full),
		"gone":   gone,
		"broken": errors.New("disk on fire"),
	}
	srv.Echo().GET("/test/form/:case", func(c echo.Context) error {
		again := func(status int, errs formrule.FieldErrors) error {
			var shown []string
			for field, key := range errs {
				shown = append(shown, field+"="+key)
			}
			return c.String(status, strings.Join(shown, " "))
		}
		return web.AnswerForm(c, answers[c.Param("case")], "account.flash.settings_saved", "/?saved", again,
			web.Refusal{Err: taken, Field: "slug", Status: http.StatusConflict, Key: "form.error.taken"},
			web.Refusal{Err: full, Field: "body"}, // its own status and message
			web.Refusal{Err: gone, Field: "section", Status: http.StatusUnprocessableEntity, Key: "form.error.section"})
	})
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"fields", http.StatusUnprocessableEntity, "name=form.error.name"},
		{"taken", http.StatusConflict, "slug=form.error.taken"},
		{"full", http.StatusTooManyRequests, "body=form.error.full"},
		{"gone", http.StatusUnprocessableEntity, "section=form.error.section"},
		{"broken", http.StatusInternalServerError, ""},
		{"ok", http.StatusSeeOther, ""},
	} {
		res := srv.client.Get("/test/form/" + tc.name)
		if res.StatusCode != tc.status || tc.body != "" && res.Body != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, res.StatusCode, res.Body, tc.status, tc.body)
		}
		if tc.name == "ok" && res.Header.Get("Location") != "/?saved" {
			t.Errorf("ok: Location %q", res.Header.Get("Location"))
		}
	}
	if doc := srv.client.Get("/?saved").Doc(t); doc.Find(`[data-testid="flash"]`).Length() == 0 {
		t.Error("no flash message after the redirect")
	}
}

// AnswerAction: success flashes and redirects; field errors are a 400
// with the action's own message; anything else is the error handler's.
func TestAnswerAction(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	answers := map[string]error{
		"ok":     nil,
		"fields": formrule.FieldErrors{"timezone": "groups.timezone.error"},
		"broken": errors.New("disk on fire"),
	}
	srv.Echo().GET("/test/action/:case", func(c echo.Context) error {
		return web.AnswerAction(c, answers[c.Param("case")], "groups.timezone.error", "groups.timezone.flash", "/?moved")
	})
	for _, tc := range []struct {
		name   string
		status int
	}{{"fields", http.StatusBadRequest}, {"broken", http.StatusInternalServerError}, {"ok", http.StatusSeeOther}} {
		name, status := tc.name, tc.status
		res := srv.client.Get("/test/action/" + name)
		if res.StatusCode != status {
			t.Errorf("%s: %d, want %d", name, res.StatusCode, status)
		}
		if name == "fields" && !strings.Contains(res.Body, "time zone") {
			t.Errorf("fields: the page does not say what is wrong: %.300q", res.Body)
		}
		if name == "broken" && strings.Contains(res.Body, "disk on fire") {
			t.Error("broken: the page shows the internal error")
		}
	}
	if doc := srv.client.Get("/?moved").Doc(t); doc.Find(`[data-testid="flash"]`).Length() == 0 {
		t.Error("no flash message after the redirect")
	}
}

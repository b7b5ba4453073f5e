package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	tests := []struct {
		name     string
		headers  []string
		fragment bool
	}{
		{"browser", nil, false},
		{"htmx partial", []string{"HX-Request", "true", "HX-Request-Type", "partial"}, true},
		{"htmx full (history restore)", []string{"HX-Request", "true", "HX-Request-Type", "full"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := s.client.Get("/no/such/page", tt.headers...)
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d", res.StatusCode)
			}
			doc := res.Doc(t)
			hasHTML := strings.Contains(strings.ToLower(res.Body), "<html")
			if tt.fragment {
				if hasHTML || doc.Find(`[data-testid="error-fragment"][data-status="404"]`).Length() != 1 {
					t.Errorf("want a bare 404 fragment, got:\n%s", res.Body)
				}
				return
			}
			if !hasHTML || doc.Find(`[data-testid="error-page"][data-status="404"]`).Length() != 1 || doc.Find("[data-testid=site-nav]").Length() != 1 {
				t.Errorf("want a full 404 page in the layout, got:\n%s", res.Body)
			}
			if got := doc.Find("h1").Text(); got != "Page not found" {
				t.Errorf("heading %q", got)
			}
		})
	}
}

func TestNotFoundInRussian(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	doc := s.client.Get("/nope", "Cookie", "lang=ru").Doc(t)
	if got := doc.Find("h1").Text(); got != "Страница не найдена" {
		t.Errorf("heading %q", got)
	}
}

func TestAPINotFoundIsJSON(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	res := s.client.Get("/api/nope")
	var body map[string]string
	if res.StatusCode != http.StatusNotFound || json.Unmarshal([]byte(res.Body), &body) != nil || body["error"] == "" {
		t.Errorf("status %d body %q", res.StatusCode, res.Body)
	}
}

func TestPanicBecomesFriendly500(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	s.Echo().GET("/boom", func(echo.Context) error { panic("secret internal detail") })
	res := s.client.Get("/boom")
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d", res.StatusCode)
	}
	doc := res.Doc(t)
	if doc.Find(`[data-testid="error-page"][data-status="500"]`).Length() != 1 {
		t.Error("no friendly 500 page")
	}
	for _, leak := range []string{"secret internal detail", "goroutine", "panic"} {
		if strings.Contains(res.Body, leak) {
			t.Errorf("page leaks %q", leak)
		}
	}
	rid := res.Header.Get("X-Request-ID")
	if rid == "" || !strings.Contains(doc.Find(`[data-testid="error-reference"]`).Text(), rid) {
		t.Errorf("page does not show the request id %q", rid)
	}
	var logged bool
	for _, line := range strings.Split(s.logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		if rec["level"] == "ERROR" && rec["request_id"] == rid && strings.Contains(fmt.Sprint(rec["err"]), "secret internal detail") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no ERROR log with request_id %s and the panic; logs:\n%s", rid, s.logs.String())
	}
}

// A component that fails halfway must not produce a truncated 200.
func TestRenderErrorIsClean500(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	halfway := templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		io.WriteString(w, `<p id="half-rendered">partial output</p>`)
		return errors.New("template exploded")
	})
	s.Echo().GET("/half", func(c echo.Context) error {
		return web.Render(c, http.StatusOK, web.Page{Title: "Half", Content: halfway})
	})
	res := s.client.Get("/half")
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", res.StatusCode)
	}
	if strings.Contains(res.Body, "partial output") || strings.Contains(res.Body, "template exploded") {
		t.Errorf("body carries the failed render:\n%s", res.Body)
	}
	if res.Doc(t).Find(`[data-testid="error-page"][data-status="500"]`).Length() != 1 {
		t.Error("no 500 page")
	}
}

func TestErrorMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err     error
		status  int
		message string
	}{
		{fmt.Errorf("load topic: %w", storage.ErrNotFound), 404, "The page you are looking for doesn't exist or has moved."},
		{fmt.Errorf("page: %w", storage.ErrBadCursor), 400, "This list link is broken or out of date. Start again from the first page."},
		{fmt.Errorf("vote: %w", storage.ErrPrecondition), 409, ""},
		{fmt.Errorf("read: %w", storage.ErrTransient), 503, ""},
		{web.NewError(http.StatusForbidden, "Only members can see this group.", errors.New("not a member")), 403, "Only members can see this group."},
		{web.NotFound(errors.New("no row")), 404, ""},
		{echo.ErrMethodNotAllowed, 405, ""},
		{errors.New("db password is hunter2"), 500, "It's our fault, not yours"},
	}
	s := newServer(t, nil)
	for i, tt := range tests {
		path := fmt.Sprintf("/err%d", i)
		s.Echo().GET(path, func(echo.Context) error { return tt.err })
		res := s.client.Get(path)
		if res.StatusCode != tt.status {
			t.Errorf("%v: status %d, want %d", tt.err, res.StatusCode, tt.status)
		}
		if text := res.Doc(t).Find("main").Text(); !strings.Contains(text, tt.message) {
			t.Errorf("%v: page lacks %q", tt.err, tt.message)
		}
		if strings.Contains(res.Body, "hunter2") || strings.Contains(res.Body, "not a member") || strings.Contains(res.Body, "storage:") {
			t.Errorf("%v: body leaks the cause", tt.err)
		}
	}
}

// Refused gives a form the status and words of an error a person can act
// on, wherever it is wrapped, with its arguments filled in and in the
// viewer's language; any other error is left to the error handler.
func TestRefused(t *testing.T) {
	t.Parallel()
	cooldown := fault.New(http.StatusTooManyRequests, "groups.error.cooldown", "cooldown", "minutes", 5)
	errs := []error{
		fmt.Errorf("invite: %w", cooldown),
		fault.NotFound("no such topic", storage.ErrNotFound),
		fault.New(http.StatusOK, "groups.error.cooldown", "not a refusal"),
		fmt.Errorf("vote: %w", storage.ErrPrecondition),
		nil,
	}
	s := newServer(t, nil)
	s.Echo().GET("/refused/:i", func(c echo.Context) error {
		i, _ := strconv.Atoi(c.Param("i"))
		status, msg, ok := web.Refused(c.Request().Context(), errs[i])
		return c.String(http.StatusOK, fmt.Sprintf("%d|%s|%v", status, msg, ok))
	})
	for i, want := range []string{
		"429|The invitation was sent a moment ago. You can resend it after 5 minutes.|true",
		"404|The page you are looking for doesn't exist or has moved.|true",
		"500|We couldn't complete your request.",
		"0||false",
		"0||false",
	} {
		if got := s.client.Get(fmt.Sprintf("/refused/%d", i)).Body; !strings.HasPrefix(got, want) {
			t.Errorf("%v: %q, want %q", errs[i], got, want)
		}
	}
	ru := s.client.Get("/refused/0", "Accept-Language", "ru").Body
	if !strings.Contains(ru, "через 5 мин") {
		t.Errorf("in Russian: %q", ru)
	}
}

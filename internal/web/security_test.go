package web_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

const wantCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

var prodEnv = map[string]string{"BASE_URL": "https://harmony.example"}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/", "/nope", "/api/health"} {
		res := newServer(t, nil).client.Get(path)
		for name, want := range map[string]string{
			"Content-Security-Policy": wantCSP,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "strict-origin-when-cross-origin",
			"X-Frame-Options":         "DENY",
		} {
			if got := res.Header.Get(name); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, name, got, want)
			}
		}
		if res.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("GET %s: HSTS sent over http", path)
		}
		if !strings.Contains(res.Header.Get("Vary"), "HX-Request") {
			t.Errorf("GET %s: Vary %q lacks HX-Request", path, res.Header.Get("Vary"))
		}
	}
}

func TestHTTPSTurnsOnHSTSAndHostCookie(t *testing.T) {
	t.Parallel()
	res := newServer(t, prodEnv).client.Get("/")
	if !strings.HasPrefix(res.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Errorf("HSTS %q", res.Header.Get("Strict-Transport-Security"))
	}
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if strings.Contains(ck.Name, "harmony_session") {
			session = ck
		}
	}
	if session == nil || session.Name != "__Host-harmony_session" || !session.Secure || !session.HttpOnly ||
		session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.Domain != "" {
		t.Errorf("session cookie %+v", session)
	}
}

func TestDevSessionCookie(t *testing.T) {
	t.Parallel()
	res := newServer(t, nil).client.Get("/")
	var session *http.Cookie
	for _, ck := range res.Cookies() {
		if ck.Name == "harmony_session" {
			session = ck
		}
	}
	if session == nil || session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode {
		t.Errorf("session cookie %+v", session)
	}
}

func TestStorageOpsHeader(t *testing.T) {
	t.Parallel()
	dev := newServer(t, nil).client.Get("/")
	if got := dev.Header.Get("X-Storage-Ops"); !strings.HasPrefix(got, "total=0 ") {
		t.Errorf("development: X-Storage-Ops %q", got)
	}
	notFound := newServer(t, nil).client.Get("/nope")
	if notFound.Header.Get("X-Storage-Ops") == "" {
		t.Error("development: error pages lack X-Storage-Ops")
	}
	for name, env := range map[string]map[string]string{
		"ENV=production": {"ENV": "production", "BASE_URL": "https://harmony.example"},
		"https":          prodEnv,
	} {
		if got := newServer(t, env).client.Get("/").Header.Get("X-Storage-Ops"); got != "" {
			t.Errorf("%s: X-Storage-Ops %q sent in production", name, got)
		}
	}
}

func TestCSRFRouteMatrix(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	// A route of every unsafe method, as modules will add them.
	ok := func(c echo.Context) error { return c.NoContent(http.StatusNoContent) }
	s.Echo().PUT("/probe/:id", ok)
	s.Echo().PATCH("/probe/:id", ok)
	s.Echo().DELETE("/probe/:id/*", ok)
	webtest.AssertUnsafeRoutesNeedCSRF(t, s.Echo())
}

func TestCSRFAcceptsHeaderAndField(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	s.Echo().DELETE("/probe", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	token := s.client.CSRFToken("/")
	res := s.client.Do(webtest.NewRequest(t, http.MethodDelete, "/probe", nil, "X-CSRF-Token", token))
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("token in header: status %d", res.StatusCode)
	}
	res = s.client.PostForm("/lang", url.Values{"lang": {"en"}, "_csrf": {token}})
	if res.StatusCode != http.StatusSeeOther {
		t.Errorf("token in form: status %d", res.StatusCode)
	}
}

func TestCSRFRefusesCrossOrigin(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	s.Echo().POST("/probe", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	for _, path := range []string{"/probe", "/lang"} {
		form := s.client.WithCSRF("/", url.Values{"lang": {"ru"}})
		res := s.client.PostForm(path, form, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: cross-site post with a valid token: status %d, want 403", path, res.StatusCode)
		}
	}
	if s.client.Cookie("lang") != nil {
		t.Error("lang cookie set by a refused post")
	}
}

// A cookie signed with a key that was rotated to second place still works;
// one whose key was dropped does not.
func TestSessionKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := testSessionKey, strings.Repeat("33", 32)
	before := newServer(t, map[string]string{"SESSION_KEYS": oldKey})
	token := before.client.CSRFToken("/")

	// The probe needs the session's token, so it answers 204 only when the
	// session cookie still decodes.
	post := func(s *testServer) int {
		s.Echo().DELETE("/probe", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
		req := webtest.NewRequest(t, http.MethodDelete, s.client.URL+"/probe", nil, "X-CSRF-Token", token)
		return before.client.Do(req).StatusCode // the same browser, cookies and all
	}
	if got := post(newServer(t, map[string]string{"SESSION_KEYS": newKey + "," + oldKey})); got != http.StatusNoContent {
		t.Errorf("old key still listed: status %d, want 204", got)
	}
	if got := post(newServer(t, map[string]string{"SESSION_KEYS": newKey})); got != http.StatusForbidden {
		t.Errorf("old key dropped: status %d, want 403", got)
	}
}

func TestRealIPTrustsOnlyConfiguredProxies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trusted string
		want    string
	}{
		{"no proxies: the connection", "", "127.0.0.1"},
		{"trusted proxy: the forwarded client", "127.0.0.1", "203.0.113.9"},
		{"other proxy trusted: the connection", "10.0.0.0/8", "127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, map[string]string{"TRUSTED_PROXIES": tt.trusted})
			s.Echo().GET("/ip", func(c echo.Context) error { return c.String(http.StatusOK, c.RealIP()) })
			if got := s.client.Get("/ip", "X-Forwarded-For", "203.0.113.9").Body; got != tt.want {
				t.Errorf("RealIP %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	s := newServer(t, map[string]string{"BODY_LIMIT": "1KiB"})
	form := s.client.WithCSRF("/", url.Values{"lang": {"en"}, "pad": {strings.Repeat("x", 4096)}})
	if res := s.client.PostForm("/lang", form); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", res.StatusCode)
	}
}

// TestABodyMustArriveInTime: a body trickled slower than BodyTime does
// not hold its connection open: the server answers 408, saying why, and
// closes it, while a body sent at once is served as ever, however long
// its answer takes.
func TestABodyMustArriveInTime(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil, func(d *web.Deps) { d.BodyTime = 200 * time.Millisecond })
	// A slow answer to a body that came at once: its request lives on
	// past the body's deadline.
	s.Echo().GET("/slow", func(c echo.Context) error {
		if _, err := io.ReadAll(c.Request().Body); err != nil {
			return err
		}
		time.Sleep(400 * time.Millisecond)
		return c.String(http.StatusOK, fmt.Sprint("answered, ", c.Request().Context().Err()))
	})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	sendTo := func(method, path, body string, length int) (string, error) {
		t.Helper()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", method, path, length, body)
		// Whatever the server does, it does within seconds; a test
		// timeout is the failure.
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, err := io.ReadAll(conn)
		return string(got), err
	}
	send := func(body string, length int) (string, error) { return sendTo("POST", "/lang", body, length) }
	got, err := send("lang=e", 1000)
	if err != nil {
		t.Fatalf("a trickled body held the connection: %v (%q)", err, got)
	}
	if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, "did not arrive in time") {
		t.Errorf("a trickled body: %.300q, want a 408 that says why", got)
	}
	body := "lang=en&next=%2F"
	if got, _ := send(body, len(body)); !strings.HasPrefix(got, "HTTP/1.1 303") {
		t.Errorf("a body sent at once: %.80q", got)
	}
	if got, _ := sendTo("GET", "/slow", "ok", 2); !strings.HasPrefix(got, "HTTP/1.1 200") || !strings.HasSuffix(got, "answered, <nil>") {
		t.Errorf("a slow answer: %q", got)
	}
}

func TestGzipForPagesOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	page := s.client.Get("/", "Accept-Encoding", "gzip")
	if page.Header.Get("Content-Encoding") != "gzip" {
		t.Error("home page not gzipped")
	}
	health := s.client.Get("/api/health", "Accept-Encoding", "gzip")
	if health.Header.Get("Content-Encoding") != "" {
		t.Error("tiny health response gzipped")
	}
	s.Echo().GET("/events/stream", func(c echo.Context) error {
		c.Response().Header().Set("Content-Type", "text/event-stream")
		return c.String(http.StatusOK, strings.Repeat("data: x\n\n", 500))
	})
	stream := s.client.Get("/events/stream", "Accept-Encoding", "gzip", "Accept", "text/event-stream")
	if stream.Header.Get("Content-Encoding") != "" {
		t.Error("event stream gzipped")
	}
}

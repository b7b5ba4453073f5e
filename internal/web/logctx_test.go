package web_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/logctx"
	"github.com/harmony/harmony/internal/web"
)

// A line a handler (or any service it calls) logs with the request's
// context carries the request id the response sends in X-Request-ID.
func TestLinesLoggedWithTheRequestCarryItsID(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil, func(d *web.Deps) {
		d.Logger = slog.New(logctx.NewHandler(d.Logger.Handler()))
	})
	srv.Echo().GET("/test/log", func(c echo.Context) error {
		slog.New(logctx.NewHandler(slog.NewJSONHandler(srv.logs, nil))).InfoContext(c.Request().Context(), "service says hello")
		return c.String(http.StatusOK, "ok")
	})
	res := srv.client.Get("/test/log")
	id := res.Header.Get("X-Request-ID")
	if id == "" {
		t.Fatal("no request id")
	}
	for _, line := range strings.Split(srv.logs.String(), "\n") {
		if strings.Contains(line, "service says hello") && !strings.Contains(line, `"request_id":"`+id+`"`) {
			t.Fatalf("the service's line lacks the request id %s: %s", id, line)
		}
		if strings.Contains(line, "service says hello") {
			return
		}
	}
	t.Fatalf("no line from the service:\n%s", srv.logs.String())
}

// The access log leaves out the secrets some paths carry (a join link's
// session, a feed's token, a picture's name), and keeps the rest.
func TestTheAccessLogLeavesOutSecrets(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	srv.Echo().GET("/test/join/:id/:session", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	srv.Echo().GET("/test/open/:id", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	srv.client.Get("/test/join/g42/s3cr3t-link")
	srv.client.Get("/test/open/o7")
	logs := srv.logs.String()
	if strings.Contains(logs, "s3cr3t-link") {
		t.Fatalf("the log shows the link's secret:\n%s", logs)
	}
	for _, want := range []string{"/test/join/g42/…", "/test/open/o7"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

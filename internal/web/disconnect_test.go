package web_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
)

// A request the client abandoned is not a server error, whatever the
// failure it caused looks like: it is logged at info as "client went
// away", recorded as 499 in the access log, and no 5xx is logged.
func TestClientDisconnectIsNotAServerError(t *testing.T) {
	t.Parallel()
	for name, failure := range map[string]error{
		"cancelled storage call":         fmt.Errorf("read: %w", context.Canceled),
		"transport error after a cancel": fmt.Errorf("azure query: %w", storage.ErrTransient),
		"plain error":                    errors.New("write: broken pipe"),
	} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, nil)
			srv.Echo().GET("/test/slow", func(c echo.Context) error { return failure })
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // the client is gone before the handler answers
			req := httptest.NewRequest(http.MethodGet, "/test/slow", nil).WithContext(ctx)
			srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
			logs := srv.logs.String()
			if strings.Contains(logs, `"level":"ERROR"`) || strings.Contains(logs, `"status":5`) {
				t.Errorf("logged as a server error:\n%s", logs)
			}
			if !strings.Contains(logs, `"msg":"client went away"`) || !strings.Contains(logs, `"status":499`) {
				t.Errorf("no 499 and no client-went-away line:\n%s", logs)
			}
		})
	}
	// The same failure with the client still there is a 5xx.
	srv := newServer(t, nil)
	srv.Echo().GET("/test/slow", func(c echo.Context) error { return fmt.Errorf("azure query: %w", storage.ErrTransient) })
	if res := srv.client.Get("/test/slow"); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(srv.logs.String(), `"level":"ERROR"`) {
		t.Errorf("a real failure: %d", res.StatusCode)
	}
}

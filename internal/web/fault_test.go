package web_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/storage"
)

// A module's error carries its status and message; the central handler
// answers it, wrapped or not, with no adapter in the module.
func TestFaultErrorsCarryStatusAndMessage(t *testing.T) {
	t.Parallel()
	srv := newServer(t, nil)
	for path, err := range map[string]error{
		"/test/conflict": fmt.Errorf("leave: %w", fault.New(http.StatusConflict, "groups.error.last_owner", "last owner")),
		"/test/cooldown": fault.New(http.StatusTooManyRequests, "groups.error.cooldown", "cooldown", "minutes", 5),
		"/test/missing":  fault.NotFound("no such thing", storage.ErrNotFound),
	} {
		srv.Echo().GET(path, func(c echo.Context) error { return err })
	}
	for path, want := range map[string]struct {
		status int
		text   string
	}{
		"/test/conflict": {http.StatusConflict, "only owner"},
		"/test/cooldown": {http.StatusTooManyRequests, "after 5 minutes"},
		"/test/missing":  {http.StatusNotFound, ""},
	} {
		res := srv.client.Get(path)
		if res.StatusCode != want.status || !strings.Contains(res.Doc(t).Find("main").Text(), want.text) {
			t.Errorf("%s: %d, want %d with %q", path, res.StatusCode, want.status, want.text)
		}
	}
	if !errors.Is(fault.NotFound("x", storage.ErrNotFound), storage.ErrNotFound) {
		t.Error("a fault does not reach its cause")
	}
}

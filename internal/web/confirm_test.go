package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
	"github.com/harmony/harmony/views/components"
)

// "Go back" on a confirmation page leads to the page the form was on,
// and only ever to a page of this site, whatever the Referer says.
func TestConfirmGoesBackOnlyWithinTheSite(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	s.Echo().POST("/probe", func(c echo.Context) error {
		return web.AskConfirm(c, components.ConfirmProps{Label: "Delete", Question: "Sure?", Yes: "Delete"})
	})
	us := s.client.URL // http://127.0.0.1:port
	for referer, want := range map[string]string{
		us + "/groups/1?tab=x":          "/groups/1?tab=x",
		us + "//evil.example/path":      "/",
		us + "/\\evil.example":          "/%5Cevil.example", // escaped: a path
		"http://other.example/groups/1": "/",
		"":                              "/",
		"javascript:alert(1)":           "/",
		us + "/%2F%2Fevil.example/xx":   "/%2F%2Fevil.example/xx",
	} {
		form := s.client.WithCSRF("/", url.Values{})
		req := webtest.NewRequest(t, http.MethodPost, "/probe", strings.NewReader(form.Encode()),
			"Content-Type", "application/x-www-form-urlencoded", "Referer", referer)
		res := s.client.Do(req)
		back, ok := res.Doc(t).Find(`[data-testid="confirm-back"]`).Attr("href")
		if res.StatusCode != http.StatusOK || !ok || back != want {
			t.Errorf("Referer %q: %d, back to %q, want %q", referer, res.StatusCode, back, want)
		}
	}
}

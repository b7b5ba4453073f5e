package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/labstack/echo/v4"

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

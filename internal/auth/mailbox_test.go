package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The development mailbox shows everyone's sign-in codes: only a request
// straight from this machine may read it, never one from the network or
// one a local proxy forwards.
func TestDevMailboxOnlyForLoopback(t *testing.T) {
	t.Parallel()
	dev := newHarness(t, harnessOptions{})
	c := dev.client()
	dev.requestCode(c, "anna@example.org")
	if res := c.Get("/dev/mailbox"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, dev.lastCode("anna@example.org")) {
		t.Fatalf("loopback client: %d", res.StatusCode)
	}
	for name, req := range map[string]func(*http.Request){
		"another host":      func(r *http.Request) { r.RemoteAddr = "203.0.113.7:51000" },
		"a private network": func(r *http.Request) { r.RemoteAddr = "192.168.1.20:51000" },
		"forwarded by proxy": func(r *http.Request) {
			r.RemoteAddr = "127.0.0.1:51000"
			r.Header.Set("X-Forwarded-For", "203.0.113.7")
		},
		"Forwarded header": func(r *http.Request) { r.RemoteAddr = "[::1]:51000"; r.Header.Set("Forwarded", "for=203.0.113.7") },
	} {
		r := httptest.NewRequest(http.MethodGet, "/dev/mailbox", nil)
		req(r)
		w := httptest.NewRecorder()
		dev.handler.ServeHTTP(w, r)
		if w.Code != http.StatusNotFound || strings.Contains(w.Body.String(), dev.lastCode("anna@example.org")) {
			t.Errorf("%s: %d", name, w.Code)
		}
	}
}

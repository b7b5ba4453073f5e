// Package webtest drives a Harmony web server over real HTTP in tests, the
// way a browser does: a client with a cookie jar that scrapes the CSRF token
// from pages, and route matrices over every registered route.
package webtest

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/csrf"
)

// Client is a browser-like client of one test server. It keeps cookies and
// does not follow redirects, so tests can assert them.
type Client struct {
	t    testing.TB
	URL  string // the server's base URL
	HTTP *http.Client
}

// NewClient starts h on a test server, closed when the test ends.
func NewClient(t testing.TB, h http.Handler) *Client {
	t.Helper()
	return newClient(t, httptest.NewServer(h))
}

// NewTLSClient is NewClient over https, with httptest's certificate
// trusted: Secure and __Host- cookies only travel over https.
func NewTLSClient(t testing.TB, h http.Handler) *Client {
	t.Helper()
	return newClient(t, httptest.NewTLSServer(h))
}

// newClient is a client of srv (closed when the test ends) that trusts
// its certificate, if any, keeps cookies and follows no redirect.
func newClient(t testing.TB, srv *httptest.Server) *Client {
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := srv.Client()
	hc.Jar = jar
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{t: t, URL: srv.URL, HTTP: hc}
}

// Do sends req (a path is resolved against the server) and returns the
// response with its body read into Body.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	if req.URL.Host == "" {
		u, err := url.Parse(c.URL + req.URL.String())
		if err != nil {
			c.t.Fatal(err)
		}
		req.URL = u
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return &Response{Response: res, Body: string(body)}
}

// Get fetches path with optional header name, value pairs.
func (c *Client) Get(path string, headers ...string) *Response {
	c.t.Helper()
	req := NewRequest(c.t, http.MethodGet, path, nil, headers...)
	return c.Do(req)
}

// PostForm posts form to path with optional header name, value pairs. It
// adds no token; use WithCSRF for that.
func (c *Client) PostForm(path string, form url.Values, headers ...string) *Response {
	c.t.Helper()
	req := NewRequest(c.t, http.MethodPost, path, strings.NewReader(form.Encode()), headers...)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// PostFile posts form to path as multipart, as a browser posts a form
// with a file: the fields, and data as the file part field (named
// filename); no file part when data is nil; then optional header name,
// value pairs. It adds no token; use WithCSRF for that.
func (c *Client) PostFile(path string, form url.Values, field, filename string, data []byte, headers ...string) *Response {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range form {
		for _, v := range vs {
			w.WriteField(k, v)
		}
	}
	if data != nil {
		f, err := w.CreateFormFile(field, filename)
		if err != nil {
			c.t.Fatal(err)
		}
		f.Write(data)
	}
	w.Close()
	return c.Do(NewRequest(c.t, http.MethodPost, path, &body, append([]string{"Content-Type", w.FormDataContentType()}, headers...)...))
}

// CSRFToken loads path and returns the token its forms carry, as a browser
// would submit it.
func (c *Client) CSRFToken(path string) string {
	c.t.Helper()
	res := c.Get(path)
	token, ok := res.Doc(c.t).Find(`input[name="` + csrf.Field + `"]`).First().Attr("value")
	if !ok || token == "" {
		c.t.Fatalf("GET %s: no CSRF field in the page", path)
	}
	return token
}

// WithCSRF returns form plus the token scraped from path.
func (c *Client) WithCSRF(path string, form url.Values) url.Values {
	c.t.Helper()
	out := url.Values{}
	for k, v := range form {
		out[k] = v
	}
	out.Set(csrf.Field, c.CSRFToken(path))
	return out
}

// Cookie returns the named cookie the jar holds for the server, or nil.
func (c *Client) Cookie(name string) *http.Cookie {
	u, _ := url.Parse(c.URL)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

// Response is an HTTP response with its body already read.
type Response struct {
	*http.Response
	Body string
}

// StorageOps reads the X-Storage-Ops header (development only) into its
// counts: "queries", "reads", "writes" and so on. A missing or malformed
// header fails the test.
func (r *Response) StorageOps(t testing.TB) map[string]int64 {
	t.Helper()
	header := r.Header.Get("X-Storage-Ops")
	out := map[string]int64{}
	for _, f := range strings.Fields(header) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("X-Storage-Ops %q", header)
		}
		out[k] = n
	}
	if len(out) == 0 {
		t.Fatal("no X-Storage-Ops header")
	}
	return out
}

// Writes is how many writes the request made (StorageOps): rows,
// transactions and blobs. A refusal must make none.
func (r *Response) Writes(t testing.TB) int64 {
	t.Helper()
	ops := r.StorageOps(t)
	return ops["writes"] + ops["txs"] + ops["blob_writes"]
}

// Doc parses the body as HTML.
func (r *Response) Doc(t testing.TB) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// NewRequest builds a request for path with header name, value pairs.
func NewRequest(t testing.TB, method, path string, body io.Reader, headers ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// unsafeMethods are the methods CSRF protection must cover.
var unsafeMethods = map[string]bool{
	http.MethodPost: true, http.MethodPut: true, http.MethodPatch: true, http.MethodDelete: true,
}

// AssertUnsafeRoutesNeedCSRF sends every POST, PUT, PATCH and DELETE route
// of e a request without a token and one with a wrong token, from a client
// that holds a valid session, and fails unless each answers 403. A route
// that needs no token from an anonymous visitor (web.AnonymousTokenFree)
// must refuse a post from another site instead. Path parameters are filled
// with "x".
func AssertUnsafeRoutesNeedCSRF(t *testing.T, e *echo.Echo) {
	t.Helper()
	c := NewClient(t, e)
	// Holding a session with a token makes the 403 the missing token's
	// doing, not a missing session's.
	c.CSRFToken("/")
	checked := 0
	for _, r := range e.Routes() {
		if !unsafeMethods[r.Method] {
			continue
		}
		path := fillParams(r.Path)
		if web.AnonymousTokenFree(r.Path) {
			// No token needed from this anonymous client, but our origin is.
			req := NewRequest(t, r.Method, path, strings.NewReader("probe=1"),
				"Content-Type", "application/x-www-form-urlencoded",
				"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
			if res := c.Do(req); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s from another site: status %d, want 403", r.Method, r.Path, res.StatusCode)
			}
			checked++
			continue
		}
		for _, tc := range []struct{ name, token string }{{"no token", ""}, {"wrong token", "forged"}} {
			form := url.Values{"probe": {"1"}}
			if tc.token != "" {
				form.Set(csrf.Field, tc.token)
			}
			req := NewRequest(t, r.Method, path, strings.NewReader(form.Encode()),
				"Content-Type", "application/x-www-form-urlencoded")
			if res := c.Do(req); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s with %s: status %d, want 403", r.Method, r.Path, tc.name, res.StatusCode)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no unsafe routes registered; the matrix checked nothing")
	}
}

// fillParams turns a route pattern into a concrete path: /g/:id/*
// becomes /g/x/x.
func fillParams(pattern string) string {
	parts := strings.Split(pattern, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || p == "*" {
			parts[i] = "x"
		}
	}
	return strings.Join(parts, "/")
}

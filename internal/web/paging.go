package web

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/storage"
)

// CursorParam is the query parameter that carries a paging token, so every
// "load more" link reads ?cursor=TOKEN.
const CursorParam = "cursor"

// ReadCursor decodes the request's paging token for the listing named by
// query (see storage.Cursors.Encode). No token means the first page (nil).
// A tampered, truncated or foreign token is an error wrapping
// storage.ErrBadCursor, which the error handler answers with a 400 page.
func ReadCursor(c echo.Context, cursors *storage.Cursors, query string) (*storage.Cursor, error) {
	token := c.QueryParam(CursorParam)
	if token == "" {
		return nil, nil
	}
	cur, err := cursors.Decode(query, token)
	if err != nil {
		return nil, err
	}
	return &cur, nil
}

// NextURL is the "load more" link of a list at path (which may carry
// the list's filters): path with the next page's token, or "" on the
// last page (token "").
func NextURL(path, token string) string {
	if token == "" {
		return ""
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return path + sep + CursorParam + "=" + url.QueryEscape(token)
}

// Pager is a list paged by cursor at an address: the listings' one way to
// read the request's token and make the link to the next page.
type Pager struct {
	Cursors *storage.Cursors
	// Query names the list and its filters; a token is bound to it, so
	// one list's token does not open another.
	Query string
	// URL is the list's address with its filters, without a token.
	URL string
}

// Start is where the request's page starts: nil on the first page. A
// token that does not open is an error wrapping storage.ErrBadCursor (a
// 400).
func (p Pager) Start(c echo.Context) (*storage.Continuation, error) {
	cur, err := ReadCursor(c, p.Cursors, p.Query)
	if cur == nil || err != nil {
		return nil, err
	}
	return cur.Next, nil
}

// NextURL is the link to the page after one that ended at next: "" on
// the last page (next nil).
func (p Pager) NextURL(next *storage.Continuation) string {
	if next == nil {
		return ""
	}
	return NextURL(p.URL, p.Cursors.Encode(p.Query, storage.Cursor{Next: next}))
}

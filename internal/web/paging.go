package web

import (
	"net/url"

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

// NextURL is the "load more" link of a list at path: path with the next
// page's token, or "" on the last page (token "").
func NextURL(path, token string) string {
	if token == "" {
		return ""
	}
	return path + "?" + CursorParam + "=" + url.QueryEscape(token)
}

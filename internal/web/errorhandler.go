package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/static"
	errorviews "github.com/harmony/harmony/views/errors"
)

// StatusClientClosedRequest is what the access log records for a request
// the client abandoned (nginx's 499); it is never sent.
const StatusClientClosedRequest = 499

// ClientGone reports whether the client abandoned the request: its
// context was cancelled by the server when the connection closed.
func ClientGone(c echo.Context) bool {
	return errors.Is(c.Request().Context().Err(), context.Canceled)
}

// handleError is echo's HTTPErrorHandler: the one place an error becomes a
// response. It logs every 5xx with its request id and cause, and answers
// with a page, an htmx fragment, or JSON under /api/, never with the cause.
func (s *Server) handleError(err error, c echo.Context) {
	req := c.Request()
	ctx := req.Context()
	if errors.Is(err, errBodyLate) {
		// The connection's failed read ended the request's context, but
		// the answer can still be written, and read.
		ctx = context.WithoutCancel(ctx)
		req = req.WithContext(ctx)
		c.SetRequest(req)
	}
	if ClientGone(c) {
		// Whatever failed (a cancelled storage call, a transport error the
		// backend calls transient, a broken pipe), nobody is waiting: it is
		// not a server error. The access log records 499 (nginx's "client
		// closed request"), and no 5xx is counted or logged as an error.
		s.log.InfoContext(ctx, "client went away", "request_id", RequestID(c), "path", req.URL.Path, "err", err)
		if !c.Response().Committed {
			c.Response().Status = StatusClientClosedRequest
		}
		return
	}
	status, message := classify(ctx, err)
	attrs := []any{"request_id", RequestID(c), "method", req.Method, "path", req.URL.Path, "status", status, "err", err}
	if status >= 500 {
		s.log.ErrorContext(ctx, "request failed", attrs...)
	} else {
		s.log.DebugContext(ctx, "request refused", attrs...)
	}
	if c.Response().Committed {
		return // the status is on the wire; nothing more can be said
	}

	props := errorviews.Props{
		Status:  status,
		Title:   i18n.T(ctx, messageKey(status, "title")),
		Message: message,
	}
	if props.Message == "" {
		props.Message = i18n.T(ctx, messageKey(status, "body"))
	}
	if status >= 500 {
		props.RequestID = RequestID(c)
	}

	var werr error
	switch {
	case strings.HasPrefix(req.URL.Path, "/api/"):
		werr = c.JSON(status, apiError{Error: props.Message, RequestID: props.RequestID})
	case strings.HasPrefix(req.URL.Path, static.Prefix):
		// Asset misses get no page: it would be wasted on an <img> or <link>.
		werr = c.String(status, props.Title)
	case HTMXFrom(c).Partial:
		werr = RenderFragment(c, status, errorviews.Fragment(props))
	default:
		werr = Render(c, status, Page{Title: props.Title, Content: errorviews.Page(props)})
	}
	if werr != nil {
		s.log.ErrorContext(ctx, "error response failed", "request_id", RequestID(c), "err", werr)
		if !c.Response().Committed {
			_ = c.String(status, props.Title)
		}
	}
}

type apiError struct {
	Error     string `json:"error"`
	RequestID string `json:"request_id,omitempty"`
}

// classify maps any error to a status and, when the error carries one, a
// user-safe message ("" means the standard text for the status).
func classify(ctx context.Context, err error) (int, string) {
	var webErr *Error
	var faultErr *fault.Error
	var httpErr *echo.HTTPError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &faultErr):
		return explain(ctx, faultErr)
	case errors.As(err, &webErr):
		if webErr.Status < 400 || webErr.Status > 599 {
			return http.StatusInternalServerError, ""
		}
		return webErr.Status, webErr.Message
	case errors.As(err, &httpErr):
		// echo's own errors (404, 405, 413): its messages are English
		// one-liners, so the user gets our translated text instead.
		if httpErr.Code < 400 || httpErr.Code > 599 {
			return http.StatusInternalServerError, ""
		}
		return httpErr.Code, ""
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, ""
	case errors.Is(err, storage.ErrBadCursor):
		return http.StatusBadRequest, i18n.T(ctx, "error.bad_cursor")
	case errors.Is(err, storage.ErrNotFound):
		return http.StatusNotFound, ""
	case errors.Is(err, storage.ErrInvalidKey):
		return http.StatusBadRequest, ""
	case errors.Is(err, storage.ErrPrecondition), errors.Is(err, storage.ErrExists):
		return http.StatusConflict, ""
	case errors.Is(err, storage.ErrTooLarge):
		return http.StatusRequestEntityTooLarge, ""
	case errors.Is(err, storage.ErrTransient):
		return http.StatusServiceUnavailable, ""
	}
	return http.StatusInternalServerError, ""
}

// Refused is the status and message of an error a person can act on (a
// fault.Error in err's chain), for a handler that shows it on the page it
// renders again, a form beside what was typed, instead of on an error
// page. ok is false for any other error, which the handler returns for
// the error handler.
func Refused(ctx context.Context, err error) (status int, message string, ok bool) {
	f, ok := errors.AsType[*fault.Error](err)
	if !ok {
		return 0, "", false
	}
	status, message = explain(ctx, f)
	if message == "" {
		message = i18n.T(ctx, messageKey(status, "body"))
	}
	return status, message, true
}

// explain is a fault's status and translated message ("" for the status's
// standard text); a status outside 4xx and 5xx is a 500.
func explain(ctx context.Context, f *fault.Error) (int, string) {
	if f.Status() < 400 || f.Status() > 599 {
		return http.StatusInternalServerError, ""
	}
	key, args := f.Message()
	if key == "" {
		return f.Status(), ""
	}
	return f.Status(), i18n.T(ctx, key, args...)
}

// messageKey names the catalog entry for a status; statuses without their
// own text share the generic 400 or 500 one.
func messageKey(status int, part string) string {
	switch status {
	case 400, 401, 403, 404, 405, 408, 409, 413, 429, 500, 503:
	default:
		if status < 500 {
			status = 400
		} else {
			status = 500
		}
	}
	return "error." + strconv.Itoa(status) + "." + part
}

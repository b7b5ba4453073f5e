package web

import (
	"fmt"
	"net/http"
)

// Error is what a handler returns to choose its error response: an HTTP
// status, a message safe to show the user, and the internal cause, which
// only the log sees. Any other error a handler returns is classified by the
// error handler (storage.ErrNotFound → 404, ...) or becomes a 500.
type Error struct {
	Status int
	// Message is shown as is, so it must be translated (i18n.T) and free of
	// internals. Empty means the standard text for Status in the user's
	// language.
	Message string
	Cause   error
}

func (e *Error) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("%d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("%d %s: %v", e.Status, http.StatusText(e.Status), e.Cause)
}

func (e *Error) Unwrap() error { return e.Cause }

// NewError builds an Error with a user-safe message.
func NewError(status int, message string, cause error) *Error {
	return &Error{Status: status, Message: message, Cause: cause}
}

// WithCode wraps cause with a status and the standard message for it.
func WithCode(status int, cause error) *Error {
	return &Error{Status: status, Cause: cause}
}

// NotFound is a 404 with the standard message.
func NotFound(cause error) *Error { return WithCode(http.StatusNotFound, cause) }

// BadRequest is a 400; message may be "" for the standard one.
func BadRequest(message string, cause error) *Error {
	return NewError(http.StatusBadRequest, message, cause)
}

// Forbidden is a 403; message may be "" for the standard one.
func Forbidden(message string, cause error) *Error {
	return NewError(http.StatusForbidden, message, cause)
}

// Internal is a 500 whose cause is logged and never shown.
func Internal(cause error) *Error { return WithCode(http.StatusInternalServerError, cause) }

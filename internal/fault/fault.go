// Package fault gives a module's errors the HTTP status and the message a
// person sees, so that the one central error handler answers every
// module's errors and no module keeps its own error-to-response adapter.
// It knows nothing of HTTP handlers or of the modules.
package fault

import "net/http"

// Error is a domain error a person can act on: a status, the i18n key of
// its message (with its arguments), and the text for logs. It may wrap a
// cause, which errors.Is and errors.As reach.
type Error struct {
	status int
	key    string
	args   []any
	text   string
	cause  error
}

// New makes an error with status and message key (arguments as name,
// value pairs). An empty key gives the status's standard text, which suits
// 404: "not found" must not say more.
func New(status int, key, text string, args ...any) *Error {
	return &Error{status: status, key: key, args: args, text: text}
}

// NotFound is a 404 with the standard text, wrapping cause (for example
// storage.ErrNotFound, so callers can test either).
func NotFound(text string, cause error) *Error {
	return &Error{status: http.StatusNotFound, text: text, cause: cause}
}

// Wrap gives cause a status and message key: a failure whose cause only
// the log should see (an OIDC answer that did not verify, say) but which
// the person is told of in their own words.
func Wrap(status int, key string, cause error) *Error {
	return &Error{status: status, key: key, text: cause.Error(), cause: cause}
}

func (e *Error) Error() string { return e.text }
func (e *Error) Unwrap() error { return e.cause }

// Status is the HTTP status to answer with.
func (e *Error) Status() int { return e.status }

// Message is the i18n key of the message and its arguments; an empty key
// means the status's standard text.
func (e *Error) Message() (key string, args []any) { return e.key, e.args }

package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/views/components"
)

// The flash is a message key kept in the session cookie across the
// POST-redirect-GET of a successful save, and shown once.
const flashKey = "flash"

// SetFlash remembers a success message (an i18n key) for the next page;
// call it before redirecting. Only the newest message is kept (the page
// shows one), so messages never pile up in the cookie when the page a form
// redirects to is not loaded (a script, a closed tab). The write it reports
// on is saved already: a session that cannot be saved loses the message,
// with a warning, and never fails the request.
func SetFlash(c echo.Context, messageKey string) {
	sess, err := Session(c)
	if err == nil {
		sess.Values[flashKey] = []any{messageKey}
		err = SaveSession(c, sess)
	}
	if err != nil {
		slog.WarnContext(c.Request().Context(), "flash message not saved", "request_id", RequestID(c), "err", err)
	}
}

// FlashRedirect is the end of a successful POST: remember the message
// (an i18n key) and redirect, 303 or HX-Redirect for htmx (Redirect).
func FlashRedirect(c echo.Context, messageKey, target string) error {
	SetFlash(c, messageKey)
	return Redirect(c, target)
}

// flashWaiting reports whether the session holds a message for the next
// page, without taking it.
func flashWaiting(c echo.Context) bool {
	sess, err := Session(c)
	return err == nil && sess.Values[flashKey] != nil
}

// TakeFlash returns the pending message, translated, and forgets it.
func TakeFlash(c echo.Context) (components.FlashProps, error) {
	sess, err := Session(c)
	if err != nil {
		return components.FlashProps{}, err
	}
	flashes := sess.Flashes(flashKey)
	if len(flashes) == 0 {
		return components.FlashProps{}, nil
	}
	if err := SaveSession(c, sess); err != nil {
		return components.FlashProps{}, err
	}
	key, _ := flashes[len(flashes)-1].(string)
	if key == "" {
		return components.FlashProps{}, nil
	}
	return components.FlashProps{Message: i18n.T(c.Request().Context(), key)}, nil
}

// Refusal is a service error that a form shows on one of its fields. Err
// is matched with errors.Is; the status and message key are the
// error's own (a fault.Error's), unless Status and Key say otherwise, as
// for an error that is a 404 on a page of its own but a field's mistake
// in a form. A field's message is a key alone: a fault whose message
// takes arguments belongs on the form's problem line (Refused) instead.
type Refusal struct {
	Err    error
	Field  string
	Status int
	Key    string
}

// answer is the status and message key r gives its error.
func (r Refusal) answer() (int, string) {
	status, key := r.Status, r.Key
	if f, ok := errors.AsType[*fault.Error](r.Err); ok {
		if status == 0 {
			status = f.Status()
		}
		if key == "" {
			key, _ = f.Message()
		}
	}
	if status == 0 {
		status = http.StatusUnprocessableEntity
	}
	return status, key
}

// AnswerAction finishes the post of a small form that a page holds (a
// select, a number, a choice) and shows no form of its own: nil leaves
// the flash message and redirects to to; field errors
// (formrule.FieldErrors) are a 400 with the message of key bad; any other
// error goes to the error handler.
func AnswerAction(c echo.Context, err error, bad, flash, to string) error {
	var fe formrule.FieldErrors
	switch {
	case err == nil:
		return FlashRedirect(c, flash, to)
	case errors.As(err, &fe):
		return BadRequest(i18n.T(c.Request().Context(), bad), err)
	}
	return err
}

// AnswerForm finishes a form's post from the service's answer err: nil
// leaves the flash message (none when flash is "") and redirects to to;
// field errors (formrule.FieldErrors) show the form again through again
// with 422, and an error in refusals with its status and message on its
// field; any other error goes to the error handler. The form's values are
// again's to keep, so nothing typed is lost.
func AnswerForm(c echo.Context, err error, flash, to string, again func(status int, errs formrule.FieldErrors) error, refusals ...Refusal) error {
	var fe formrule.FieldErrors
	switch {
	case err == nil && flash == "":
		return Redirect(c, to)
	case err == nil:
		return FlashRedirect(c, flash, to)
	case errors.As(err, &fe):
		return again(http.StatusUnprocessableEntity, fe)
	}
	for _, r := range refusals {
		if errors.Is(err, r.Err) {
			status, key := r.answer()
			return again(status, formrule.FieldErrors{r.Field: key})
		}
	}
	return err
}

package web

import (
	"log/slog"

	"github.com/labstack/echo/v4"

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

package web

import (
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/views/components"
)

// The flash is a message key kept in the session cookie across the
// POST-redirect-GET of a successful save, and shown once.
const flashKey = "flash"

// SetFlash remembers a success message (an i18n key) for the next page;
// call it before redirecting.
func SetFlash(c echo.Context, messageKey string) error {
	sess, err := Session(c)
	if err != nil {
		return err
	}
	sess.AddFlash(messageKey, flashKey)
	return SaveSession(c, sess)
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

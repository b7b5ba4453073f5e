package account

import (
	"context"

	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/account"
)

// showSettings is GET /account/settings.
func (h *handlers) showSettings(c echo.Context) error {
	row, err := h.svc.Settings(c.Request().Context(), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	return renderSettings(c, http.StatusOK, SettingsInput{
		ProfileVisibility:    row.ProfileVisibility,
		AnonymousLikes:       row.AnonymousLikes,
		Language:             row.Language,
		NotificationsEnabled: row.NotificationsEnabled,
		EmailNotifications:   row.EmailNotifications,
	}, nil)
}

// saveSettings is POST /account/settings.
func (h *handlers) saveSettings(c echo.Context) error {
	return submit(c, h.svc.UpdateSettings, renderSettings, "account.flash.settings_saved", "/account/settings")
}

// submit saves one of the account's forms, read into an In (its form
// tags, web.BindForm): field errors show the form again with 422 (and
// nothing was written); success returns to target with a flash.
func submit[In any](c echo.Context,
	save func(ctx context.Context, memberKey string, in In) (FieldErrors, error),
	render func(c echo.Context, status int, in In, errs FieldErrors) error,
	flashKey, target string) error {
	var in In
	if err := web.BindForm(c, &in); err != nil {
		return err
	}
	errs, err := save(c.Request().Context(), auth.From(c).MemberKey, in)
	if err == nil && len(errs) > 0 {
		err = errs
	}
	return web.AnswerForm(c, err, flashKey, target, func(status int, errs FieldErrors) error {
		return render(c, status, in, errs)
	})
}

func renderSettings(c echo.Context, status int, in SettingsInput, errs FieldErrors) error {
	return web.Render(c, status, web.Page{
		Title: i18n.T(c.Request().Context(), "account.tab.settings"),
		Content: views.Settings(views.SettingsProps{
			Form:         views.SettingsForm(in),
			Errors:       views.FieldErrors(errs),
			Visibilities: Visibilities,
			Languages:    Languages,
			Email:        auth.From(c).Email,
		}),
	})
}

// showPreferences is GET /account/preferences.
func (h *handlers) showPreferences(c echo.Context) error {
	row, err := h.svc.Preferences(c.Request().Context(), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	return renderPreferences(c, http.StatusOK, PreferencesInput{
		AgeRangeMin:   strconv.Itoa(row.AgeRangeMin),
		AgeRangeMax:   strconv.Itoa(row.AgeRangeMax),
		MaxDistanceKm: strconv.Itoa(row.MaxDistanceKm),
		ShowMe:        row.ShowMe,
	}, nil)
}

// savePreferences is POST /account/preferences.
func (h *handlers) savePreferences(c echo.Context) error {
	return submit(c, h.svc.UpdatePreferences, renderPreferences, "account.flash.preferences_saved", "/account/preferences")
}

func renderPreferences(c echo.Context, status int, in PreferencesInput, errs FieldErrors) error {
	return web.Render(c, status, web.Page{
		Title: i18n.T(c.Request().Context(), "account.tab.preferences"),
		Content: views.Preferences(views.PreferencesProps{
			Form:    views.PreferencesForm(in),
			Errors:  views.FieldErrors(errs),
			ShowMe:  ShowMeOptions,
			MinAge:  MinAge,
			MaxAge:  MaxAge,
			MinDist: MinDistanceKm,
			MaxDist: MaxDistanceKm,
		}),
	})
}

// adoptTimezone is POST /account/timezone (static/js/zone.js): the
// browser's zone for a profile that names none. 204: nothing to show.
func (h *handlers) adoptTimezone(c echo.Context) error {
	if _, err := h.svc.AdoptTimezone(c.Request().Context(), auth.From(c).MemberKey, c.FormValue("timezone")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

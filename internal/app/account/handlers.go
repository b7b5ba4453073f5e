package account

// The account pages: the profile with its photo, the settings, the
// preferences and the devices signed in.

import (
	"context"
	"net/http"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/account"
)

// showProfile is GET /account.
func (h *handlers) showProfile(c echo.Context) error {
	id := auth.From(c)
	p, err := h.svc.Profile(c.Request().Context(), id.MemberKey)
	if err != nil {
		return err
	}
	props := h.profileProps(c.Request().Context(), p, formOf(p), nil)
	return h.renderProfile(c, http.StatusOK, props)
}

// saveProfile is POST /account/profile: 303 back with a flash, or the form
// again with its errors (422) and nothing saved.
func (h *handlers) saveProfile(c echo.Context) error {
	return submit(c, h.svc.UpdateProfile, h.refusedProfile, "account.flash.profile_saved", "/account")
}

// refusedProfile shows the profile form again with what was typed and
// its errors.
func (h *handlers) refusedProfile(c echo.Context, status int, in ProfileInput, errs FieldErrors) error {
	p, err := h.svc.Profile(c.Request().Context(), auth.From(c).MemberKey)
	if err != nil {
		return err
	}
	return h.renderProfile(c, status, h.profileProps(c.Request().Context(), p, views.ProfileForm(in), errs))
}

// uploadPhoto is POST /account/photo (multipart field "photo").
func (h *handlers) uploadPhoto(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	data, err := h.svc.uploads.Read(c, "photo", MaxPhotoBytes)
	if err == nil {
		_, err = h.svc.UploadPhoto(ctx, id.MemberKey, data)
	}
	if err == nil {
		return web.FlashRedirect(c, "account.flash.photo_saved", "/account")
	}
	status, message, ok := web.UploadRefusal(err)
	if !ok {
		return err
	}
	p, perr := h.svc.Profile(ctx, id.MemberKey)
	if perr != nil {
		return perr
	}
	props := h.profileProps(c.Request().Context(), p, formOf(p), nil)
	props.PhotoError = i18n.T(ctx, message, "mb", MaxPhotoBytes>>20)
	return h.renderProfile(c, status, props)
}

func formOf(p ProfileRow) views.ProfileForm {
	return views.ProfileForm{
		DisplayName: p.DisplayName,
		Bio:         p.Bio,
		Location:    p.Location,
		Gender:      p.Gender,
		BirthDate:   p.BirthDate,
		Timezone:    p.Timezone,
	}
}

func (h *handlers) profileProps(ctx context.Context, p ProfileRow, form views.ProfileForm, errs FieldErrors) views.ProfileProps {
	age, hasAge := AgeOn(p.BirthDate, h.svc.now().UTC())
	return views.ProfileProps{
		Form:           form,
		Errors:         views.FieldErrors(errs),
		SavedName:      p.DisplayName,
		Email:          p.Email,
		PhotoURL:       PhotoURL(p.PartitionKey, p.PhotoKey),
		PersonURL:      auth.ProfileURL(p.PartitionKey),
		Age:            age,
		HasAge:         hasAge,
		Genders:        Genders,
		Timezones:      ZoneChoices(ctx, p.Timezone, h.svc.now()),
		MaxDisplayName: MaxDisplayName,
		MaxBio:         MaxBio,
		MaxLocation:    MaxLocation,
		MaxPhotoMB:     MaxPhotoBytes >> 20,
	}
}

func (h *handlers) renderProfile(c echo.Context, status int, props views.ProfileProps) error {
	usage, show, err := h.svc.AIUsage(c.Request().Context(), auth.From(c).UserKey)
	if err != nil {
		return err
	}
	if show {
		p := views.AIUsageProps{Days: usage.Days, Calls: usage.Calls, TokensIn: usage.TokensIn, TokensOut: usage.TokensOut, Errors: usage.Errors}
		props.AIUsage = &p
	}
	return renderTab(c, status, "profile", views.Profile(props))
}

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
		EmailAbout:           row.EmailAbout(),
		EmailAreasShown:      true,
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
	return renderTab(c, status, "settings", views.Settings(views.SettingsProps{
		Form:         views.SettingsForm(in),
		Errors:       views.FieldErrors(errs),
		Visibilities: Visibilities,
		Languages:    Languages,
		EmailAreas:   EmailAreasFor(auth.From(c).Admin),
		Email:        auth.From(c).Email,
	}))
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
	return renderTab(c, status, "preferences", views.Preferences(views.PreferencesProps{
		Form:    views.PreferencesForm(in),
		Errors:  views.FieldErrors(errs),
		ShowMe:  ShowMeOptions,
		MinAge:  MinAge,
		MaxAge:  MaxAge,
		MinDist: MinDistanceKm,
		MaxDist: MaxDistanceKm,
	}))
}

// adoptTimezone is POST /account/timezone (static/js/zone.js): the
// browser's zone for a profile that names none. 204: nothing to show.
func (h *handlers) adoptTimezone(c echo.Context) error {
	if _, err := h.svc.AdoptTimezone(c.Request().Context(), auth.From(c).MemberKey, c.FormValue("timezone")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// showSessions is GET /account/sessions: the devices signed in to the
// account, with the one in hand marked.
func (h *handlers) showSessions(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	list, err := h.svc.ListSessions(ctx, id.MemberKey, id.SessionID)
	if err != nil {
		return err
	}
	rows := make([]views.SessionRow, 0, len(list.Sessions))
	for _, s := range list.Sessions {
		d := ParseUserAgent(s.UserAgent)
		rows = append(rows, views.SessionRow{
			ID:       s.ID,
			Browser:  d.Browser,
			OS:       d.OS,
			SignedIn: i18n.DateTime(ctx, s.CreatedAt.In(list.Zone)),
			LastSeen: i18n.DateTime(ctx, s.LastSeenAt.In(list.Zone)),
			Current:  s.Current,
		})
	}
	return renderTab(c, http.StatusOK, "sessions", views.Sessions(views.SessionsProps{Sessions: rows, Zone: i18n.ZoneName(ctx, list.Zone.String(), h.svc.now())}))
}

// revokeSession is POST /account/sessions/:id/revoke. Ending the session
// in hand is signing out here.
func (h *handlers) revokeSession(c echo.Context) error {
	id := auth.From(c)
	sessionID := c.Param("id")
	if err := h.svc.RevokeSession(c.Request().Context(), id.MemberKey, sessionID); err != nil {
		return err
	}
	if sessionID == id.SessionID {
		return web.Redirect(c, "/")
	}
	return web.FlashRedirect(c, "account.flash.session_revoked", "/account/sessions")
}

// revokeAllSessions is POST /account/sessions/revoke-all: sign out
// everywhere, this device included.
func (h *handlers) revokeAllSessions(c echo.Context) error {
	if err := h.svc.RevokeAllSessions(c.Request().Context(), auth.From(c).MemberKey); err != nil {
		return err
	}
	return web.Redirect(c, "/")
}

// servePhoto is GET /media/profile/:member/:file. The name is unique per
// upload, so the photo may be cached for a year.
func (h *handlers) servePhoto(c echo.Context) error {
	blob, err := h.svc.PhotoBlob(c.Request().Context(), c.Param("member"), c.Param("file"))
	if err != nil {
		return err
	}
	return web.ServeImage(c, blob.Data)
}

// renderTab shows one of the account's tabs (account.tab.{tab} names it)
// with its content.
func renderTab(c echo.Context, status int, tab string, content templ.Component) error {
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), "account.tab."+tab), Content: content})
}

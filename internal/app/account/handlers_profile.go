package account

import (
	"net/http"

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
	props := h.profileProps(p, formOf(p), nil)
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
	return h.renderProfile(c, status, h.profileProps(p, views.ProfileForm(in), errs))
}

// uploadPhoto is POST /account/photo (multipart field "photo").
func (h *handlers) uploadPhoto(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	data, err := web.ReadUpload(c, "photo", MaxPhotoBytes)
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
	props := h.profileProps(p, formOf(p), nil)
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

func (h *handlers) profileProps(p ProfileRow, form views.ProfileForm, errs FieldErrors) views.ProfileProps {
	age, hasAge := AgeOn(p.BirthDate, h.svc.now().UTC())
	zones := CommonTimezones
	if p.Timezone != "" && !contains(zones, p.Timezone) {
		zones = append([]string{p.Timezone}, zones...)
	}
	return views.ProfileProps{
		Form:           form,
		Errors:         views.FieldErrors(errs),
		SavedName:      p.DisplayName,
		Email:          p.Email,
		PhotoURL:       PhotoURL(p.PartitionKey, p.PhotoKey),
		Age:            age,
		HasAge:         hasAge,
		Genders:        Genders,
		Timezones:      zones,
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
		p := views.AIUsageProps(usage)
		props.AIUsage = &p
	}
	return web.Render(c, status, web.Page{
		Title:   i18n.T(c.Request().Context(), "account.tab.profile"),
		Content: views.Profile(props),
	})
}

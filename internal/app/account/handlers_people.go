package account

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/account"
)

// A person's page, /people/{memberKey}: what others see of a profile
// (name, photo, location, about, since when), for anyone signed in, with
// "Message" when chat is wired (UseMessaging). A profile whose settings
// say "Only me" shows others its name alone. The people module will add
// to it; disabled, deleted and unknown accounts are the same 404.

// UseMessaging offers "Message" on people's pages: a form posting their
// memberKey as "member" to action (chat's private chats).
func (s *Service) UseMessaging(action string) { s.messageAction = action }

// showPerson is GET /people/:member.
func (h *handlers) showPerson(c echo.Context) error {
	ctx := c.Request().Context()
	key := c.Param("member")
	if !auth.IsAuthMemberKey(key) {
		return web.NotFound(ErrNoAccount)
	}
	p, err := h.svc.Profile(ctx, key)
	if errors.Is(err, ErrNoAccount) || err == nil && (!p.Enabled || p.DeletedAt != nil) {
		return web.NotFound(ErrNoAccount)
	}
	if err != nil {
		return err
	}
	settings, err := h.svc.Settings(ctx, key)
	if err != nil {
		return err
	}
	me := auth.From(c)
	v := views.PersonProps{Key: key, Name: p.DisplayName, Self: me.MemberKey == key}
	if v.Self || settings.ProfileVisibility != VisibilityPrivate {
		v.PhotoURL, v.Location, v.Bio, v.Since = PhotoURL(key, p.PhotoKey), p.Location, p.Bio, i18n.MonthYear(ctx, p.CreatedAt)
	} else {
		v.Private = true
	}
	if !v.Self {
		v.MessageAction = h.svc.messageAction
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.DisplayName, Section: "people", Content: views.Person(v)})
}

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
// (name, photo, location, about, since when), as its settings say: to
// everyone ("Everyone"), to people signed in to an account ("Signed-in
// members"), its name alone to others ("Only me"); with "Message" for
// accounts when chat is wired (UseMessaging). A visitor who may not see
// it is sent to sign in, whether or not the account exists; to accounts,
// disabled, deleted and unknown ones are the same 404. The people module
// will add to it.

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
	me := auth.From(c)
	member := me.HasAccount()
	p, err := h.svc.Profile(ctx, key)
	if errors.Is(err, ErrNoAccount) || err == nil && (!p.Enabled || p.DeletedAt != nil) {
		if !member {
			return auth.ToSignIn(c)
		}
		return web.NotFound(ErrNoAccount)
	}
	if err != nil {
		return err
	}
	settings, err := h.svc.Settings(ctx, key)
	if err != nil {
		return err
	}
	if !member && settings.ProfileVisibility != VisibilityPublic {
		return auth.ToSignIn(c)
	}
	v := views.PersonProps{Key: key, Name: p.DisplayName, Self: member && me.MemberKey == key}
	if v.Self || settings.ProfileVisibility != VisibilityPrivate {
		v.PhotoURL, v.Location, v.Bio, v.Since = PhotoURL(key, p.PhotoKey), p.Location, p.Bio, i18n.MonthYear(ctx, p.CreatedAt)
	} else {
		v.Private = true
	}
	if member && !v.Self {
		v.MessageAction = h.svc.messageAction
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.DisplayName, Section: "people", Content: views.Person(v)})
}

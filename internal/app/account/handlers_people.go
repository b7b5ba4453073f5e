package account

import (
	"context"
	"errors"
	"net/http"

	"github.com/a-h/templ"
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

// PersonExtra adds another module's part to a person's page, as the
// viewer (an account, not the person) sees it: the people module's like.
// A nil component adds nothing.
type PersonExtra interface {
	Extra(ctx context.Context, viewer, member string) (templ.Component, error)
}

// UsePersonExtra adds x's part to people's pages. Call it while wiring.
func (s *Service) UsePersonExtra(x PersonExtra) { s.personExtra = x }

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
		v.PhotoURL, v.Location, v.Bio, v.Since = PhotoURL(key, p.PhotoKey), p.Location, p.Bio, i18n.SinceMonth(ctx, p.CreatedAt)
	} else {
		v.Private = true
	}
	if member && !v.Self {
		v.MessageAction = h.svc.messageAction
		if h.svc.personExtra != nil {
			if v.Extra, err = h.svc.personExtra.Extra(ctx, me.MemberKey, key); err != nil {
				return err
			}
		}
	}
	return web.Render(c, http.StatusOK, web.Page{Title: p.DisplayName, Section: "people", Content: views.Person(v)})
}

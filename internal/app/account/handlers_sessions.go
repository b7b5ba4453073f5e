package account

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/account"
)

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
	return web.Render(c, http.StatusOK, web.Page{
		Title:   i18n.T(ctx, "account.tab.sessions"),
		Content: views.Sessions(views.SessionsProps{Sessions: rows, Zone: list.Zone.String()}),
	})
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

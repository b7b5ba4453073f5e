package groups

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/views/components"
	views "github.com/harmony/harmony/views/groups"
)

// joinSessionURL is the owner's page of a join session.
func joinSessionURL(groupID, sessionID string) string {
	return groupURL(groupID) + "/join-sessions/" + url.PathEscape(sessionID)
}

// openJoinSession is POST /groups/:id/join-sessions (owners). A note
// that breaks the text rules shows the group page again with its error.
func (h *handlers) openJoinSession(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, g := Opened(c)
	meta := c.FormValue("meta")
	js, err := h.svc.OpenJoinSession(ctx, m, id, meta)
	return web.AnswerForm(c, err, "", joinSessionURL(m.GroupID, js.RowKey), func(status int, fe FieldErrors) error {
		p := views.GroupProps{RenameValue: g.GroupName, JoinMeta: strings.ToValidUTF8(meta, "\uFFFD"), JoinMetaError: fe["meta"]}
		return h.renderGroup(c, status, p, m, g)
	})
}

// joinSessionPage is GET /groups/:id/join-sessions/:session (owners): the
// link, its QR code and who joined; htmx polling gets the list alone.
func (h *handlers) joinSessionPage(c echo.Context) error {
	return h.renderJoinSession(c, http.StatusOK, views.JoinSessionProps{})
}

func (h *handlers) renderJoinSession(c echo.Context, status int, p views.JoinSessionProps) error {
	ctx := c.Request().Context()
	m, g := Opened(c)
	js, err := h.svc.JoinSession(ctx, m, c.Param("session"))
	if err != nil {
		return err
	}
	joined, err := h.svc.Joined(ctx, m, js.RowKey)
	if err != nil {
		return err
	}
	p.GroupName, p.GroupURL = g.GroupName, groupURL(g.GroupID)
	p.PageURL = joinSessionURL(g.GroupID, js.RowKey)
	p.CloseURL, p.SpinOffURL = p.PageURL+"/close", p.PageURL+"/spinoff"
	p.Meta, p.Open = js.Meta, js.Usable(h.svc.now())
	made, err := h.svc.spunOff(ctx, js)
	if err != nil {
		return err
	}
	if made != "" {
		p.SpunOffURL = groupURL(made)
	}
	p.ExpiresAt = js.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
	for _, r := range joined {
		p.Joined = append(p.Joined, views.JoinedPerson{
			Name: r.DisplayName, AvatarURL: account.AvatarURL(r.MemberKey, ""),
			Guest: auth.IsGuestKey(r.RowKey), Date: formatDate(c.Request().Context(), r.JoinedAt),
		})
	}
	if p.Open {
		p.JoinURL = h.svc.JoinURL(g.GroupID, js.RowKey)
		if p.QR, err = components.EncodeQR(p.JoinURL); err != nil {
			return err
		}
	}
	return web.Render(c, status, web.Page{
		Title:    i18n.T(ctx, "groups.join.session_heading"),
		Section:  "groups",
		Content:  views.JoinSession(p),
		Fragment: views.JoinedList(p.PageURL, p.Open, p.Joined),
	})
}

// closeJoinSession is POST /groups/:id/join-sessions/:session/close.
func (h *handlers) closeJoinSession(c echo.Context) error {
	ctx := c.Request().Context()
	m, _ := Opened(c)
	if err := h.svc.CloseJoinSession(ctx, m, c.Param("session")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.join_closed", joinSessionURL(m.GroupID, c.Param("session")))
}

// spinOff is POST /groups/:id/join-sessions/:session/spinoff: a new group
// of the people who joined, owned by the owner asking.
func (h *handlers) spinOff(c echo.Context) error {
	ctx := c.Request().Context()
	id := auth.From(c)
	m, _ := Opened(c)
	name := c.FormValue("name")
	g, err := h.svc.SpinOff(ctx, m, id, c.Param("session"), name)
	if errors.Is(err, ErrName) {
		return h.renderJoinSession(c, http.StatusUnprocessableEntity, views.JoinSessionProps{SpinOffName: name, SpinOffError: nameErrorKey(err, "groups.error.name")})
	}
	if err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.spun_off", groupURL(g.GroupID))
}

// requireLink is the route middleware of a join link's pages: it reads
// the link (:id, :session) once for the handler (openedLink), and answers
// a closed or expired link, found then or by the handler, with its own
// page (refuseLink).
func (h *handlers) requireLink() echo.MiddlewareFunc {
	require := linkScope.Require(func(c echo.Context) (JoinLink, error) {
		return h.svc.OpenLink(c.Request().Context(), c.Param("id"), c.Param("session"))
	})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		handle := require(next)
		return func(c echo.Context) error { return refuseLink(c, handle(c)) }
	}
}

var linkScope = web.NewScope[JoinLink]("groups.link")

// openedLink is the join link requireLink read.
func openedLink(c echo.Context) JoinLink { return linkScope.From(c) }

// refuseLink answers a closed or expired link with its own page (410);
// every other error goes to the central handler.
func refuseLink(c echo.Context, err error) error {
	if errors.Is(err, ErrJoinClosed) {
		return web.Render(c, http.StatusGone, web.Page{
			Title: i18n.T(c.Request().Context(), "groups.join.closed_heading"), Section: "groups", Content: views.JoinClosed(),
		})
	}
	return err
}

// joinPage is GET /join/:id/:session, for anyone holding the link.
func (h *handlers) joinPage(c echo.Context) error {
	ctx := c.Request().Context()
	link, id := openedLink(c), auth.From(c)
	if id != nil {
		// Already in: straight to the group (one point read).
		if _, err := h.svc.authorize(ctx, link.Group.GroupID, id, AccessMember); err == nil {
			return web.Redirect(c, groupURL(link.Group.GroupID))
		}
	}
	return h.renderJoinPage(c, http.StatusOK, link, id, joinForm{})
}

// joinForm is what a visitor typed into the join form and what is wrong
// with it (i18n keys).
type joinForm struct {
	Name, NameError, PhotoError string
}

func (h *handlers) renderJoinPage(c echo.Context, status int, link JoinLink, id *auth.Identity, f joinForm) error {
	p := views.JoinPageProps{
		GroupName: link.Group.GroupName, Meta: link.Session.Meta,
		ActionURL: joinPath(link.Group.GroupID, link.Session.RowKey),
		Name:      f.Name, NameError: f.NameError, PhotoError: f.PhotoError,
	}
	if id != nil {
		p.SignedInAs = id.DisplayName
	} else {
		p.PhotoField = h.svc.guests != nil && h.svc.guestPhotos != nil
		p.PhotoMB = account.MaxPhotoBytes >> 20
	}
	return web.Render(c, status, web.Page{Title: link.Group.GroupName, Section: "groups", Content: views.JoinPage(p)})
}

// join is POST /join/:id/:session: a signed-in person (account or guest)
// joins as themselves; a visitor gives a display name and becomes a
// guest.
func (h *handlers) join(c echo.Context) error {
	link, id := openedLink(c), auth.From(c)
	if id == nil {
		return h.joinAsGuest(c, link)
	}
	if _, err := h.svc.Join(c.Request().Context(), link, id); err != nil {
		return err
	}
	return web.FlashRedirect(c, "groups.flash.joined", groupURL(link.Group.GroupID))
}

// joinAsGuest makes a visitor a guest of the link's group. The name and
// the photo's size are checked before anything is written: a bad name
// (422) or a photo over account.MaxPhotoBytes (413, as the account's
// photo upload answers) shows the form again with what they typed. A
// photo that turns out unusable later does not undo the join; it is a
// notice.
func (h *handlers) joinAsGuest(c echo.Context, link JoinLink) error {
	ctx := c.Request().Context()
	f := joinForm{Name: c.FormValue("name")}
	clean, err := CleanName(f.Name)
	if err != nil {
		f.NameError = nameErrorKey(err, "groups.join.error.name")
	}
	photo, photoErr := h.joinPhoto(c)
	if errors.Is(photoErr, errJoinPhotoTooLarge) {
		f.PhotoError = "groups.join.error.photo_too_large"
		return h.renderJoinPage(c, http.StatusRequestEntityTooLarge, link, nil, f)
	}
	if f.NameError != "" {
		return h.renderJoinPage(c, http.StatusUnprocessableEntity, link, nil, f)
	}
	if !h.svc.guestJoins.Allow(c.RealIP(), h.svc.now()) {
		f.NameError = "groups.join.error.too_many"
		return h.renderJoinPage(c, http.StatusTooManyRequests, link, nil, f)
	}
	if h.svc.guests == nil {
		// No guests wired: joining needs an account.
		return web.Redirect(c, auth.SignInPath(joinPath(link.Group.GroupID, link.Session.RowKey)))
	}
	id, err := h.svc.guests.SignInGuest(c, clean)
	if err != nil {
		return err
	}
	if _, err := h.svc.Join(ctx, link, id); err != nil {
		return err
	}
	if photoErr != nil {
		h.svc.log.WarnContext(ctx, "guest photo unreadable", "member", id.MemberKey, "err", photoErr)
	}
	flash := "groups.flash.joined"
	if photoErr != nil {
		flash = "groups.join.photo_failed"
	} else if photo != nil {
		if notice := h.storeGuestPhoto(c, id, photo); notice != "" {
			flash = notice
		}
	}
	return web.FlashRedirect(c, flash, groupURL(link.Group.GroupID))
}

// Guest joins from one address: a family on one network joins together,
// and a script that makes members without end is held to one a minute
// (each guest is a member row for good, and may bring a photo to decode).
const (
	guestJoinBurst = 20
	guestJoinEvery = time.Minute
)

// errJoinPhotoTooLarge is a join form photo over account.MaxPhotoBytes.
var errJoinPhotoTooLarge = errors.New("groups: join photo too large")

// joinPhoto reads the photo a visitor sent with the join form: nil when
// there is none (or guest photos are not wired), errJoinPhotoTooLarge
// when it is over account.MaxPhotoBytes (read no further than that),
// and any other error when it cannot be read at all.
func (h *handlers) joinPhoto(c echo.Context) ([]byte, error) {
	if h.svc.guestPhotos == nil {
		return nil, nil
	}
	data, err := web.ReadUpload(c, "photo", account.MaxPhotoBytes)
	switch {
	case errors.Is(err, web.ErrNoUpload):
		return nil, nil // no photo: nothing to do
	case errors.Is(err, media.ErrTooLarge):
		return nil, errJoinPhotoTooLarge
	}
	return data, err
}

// storeGuestPhoto stores a new guest's photo. The guest has joined
// already, so a photo that cannot be used is reported as a notice (the
// flash's i18n key, "" when the photo is stored), never as an error.
func (h *handlers) storeGuestPhoto(c echo.Context, id *auth.Identity, data []byte) string {
	ctx := c.Request().Context()
	err := h.svc.guestPhotos.GuestPhoto(ctx, id.MemberKey, id.DisplayName, data)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, media.ErrTooManyPixels), errors.Is(err, media.ErrTooMuchMemory):
		return "groups.join.photo_too_big"
	case errors.Is(err, media.ErrUnsupported), errors.Is(err, media.ErrTooLarge), errors.Is(err, media.ErrDamaged):
		return "groups.join.photo_failed"
	default:
		// The join stands; the photo is a nicety, so log and tell them.
		h.svc.log.ErrorContext(ctx, "guest photo not stored", "member", id.MemberKey, "err", err)
		return "groups.join.photo_failed"
	}
}

package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web/csrf"
	"github.com/harmony/harmony/views/layout"
)

// Page is what a handler renders: the content of <main> in the layout for a
// full request, or just a fragment for an htmx partial request.
type Page struct {
	// Title is the translated page title, without the site name. Empty
	// means the site's own title.
	Title string
	// Section is the module slug marked current in the navigation, or "".
	Section string
	// Content fills <main>.
	Content templ.Component
	// Fragment answers htmx partial requests; nil means Content.
	Fragment templ.Component
}

// RenderLive is Render for a page that follows changes: its fetch of
// itself on a change (LiveRefresh) gets the page's content alone, without
// the layout, whose region is all the page uses.
func RenderLive(c echo.Context, status int, p Page) error {
	if LiveRefresh(c) {
		return RenderFragment(c, status, p.Content)
	}
	return Render(c, status, p)
}

// Render writes p with status: the full page, or the fragment when htmx
// asks for a partial. Nothing is written if rendering fails, so the error
// handler can still answer with a clean 500.
func Render(c echo.Context, status int, p Page) error {
	if HTMXFrom(c).Partial {
		frag := p.Fragment
		if frag == nil {
			frag = p.Content
		}
		return RenderFragment(c, status, frag)
	}
	props := layout.Props{
		Title:      p.Title,
		Nav:        navItems(p.Section),
		CurrentURL: c.Request().URL.RequestURI(),
		Unread:     unreadBadge(c),
		AdminOpen:  adminBadge(c),
		Banner:     banner(c),
	}
	if props.Banner != nil {
		c.Set(sharedKey, nil) // the banner's form needs the visitor's token
	}
	if sharedFrom(c) == nil {
		// The layout shows the message a redirect left, once: a full
		// page takes it; a fragment leaves it for the page that follows.
		// A shared page is only for visitors with no message waiting
		// (sharedKeyOf).
		flash, err := TakeFlash(c)
		if err != nil && !errors.Is(err, errNoSessions) {
			return err
		}
		props.Flash = flash
	}
	return RenderFragment(c, status, layout.Page(props, p.Content))
}

// RenderFragment writes one component as the whole response body. It
// renders into a buffer with the request's context (cancellation, language,
// CSRF token) before writing status and body. A shared page (see Shared)
// renders with no session and no token, and a full one is kept.
func RenderFragment(c echo.Context, status int, comp templ.Component) error {
	shared := sharedFrom(c)
	ctx := c.Request().Context()
	if shared == nil {
		token, err := CSRFToken(c)
		if err != nil && !errors.Is(err, errNoSessions) {
			return err // a bare echo (a view test) renders without a token
		}
		ctx = csrf.WithToken(ctx, token)
	}
	var buf bytes.Buffer
	if err := comp.Render(ctx, &buf); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	h := c.Response().Header()
	lang := string(i18n.LangOf(ctx))
	h.Set("Content-Language", lang)
	if shared == nil {
		// Pages carry a per-session CSRF token: no shared caches.
		h.Set("Cache-Control", "private, no-cache")
	} else {
		sharedCacheHeaders(h)
		if shared.keep && status == http.StatusOK {
			shared.store.put(shared.key, lang, buf.Bytes(), shared.gen)
		}
	}
	return c.HTMLBlob(status, buf.Bytes())
}

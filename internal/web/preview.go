package web

import (
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/ratelimit"
	"github.com/harmony/harmony/internal/richtext"
	"github.com/harmony/harmony/views/components"
)

// Preview is a Markdown field's preview, every form's that has one (a
// forum post, a blog post): the text rendered on the rich-text rules as
// it would show once saved, nothing written. A text the form would
// refuse (Rule; Message says why) is never rendered (Markdown's cost
// grows faster than its length); each client address has Pace's
// allowance of renders.
type Preview struct {
	Pace    *ratelimit.PerIP
	Rule    formrule.Text
	Message string
	Now     func() time.Time
	// Renderer renders as the saved text is (the blog's shows its
	// pictures); nil is members' Markdown (richtext.Render).
	Renderer *richtext.Renderer
}

// A client's previews: previewBurst, then one every previewEvery.
const (
	previewBurst = 30
	previewEvery = 2 * time.Second
)

// NewPreview is the preview of a field kept on rule, refused with
// message, at the usual pace.
func NewPreview(rule formrule.Text, message string, now func() time.Time) Preview {
	return Preview{Pace: ratelimit.New(previewBurst, previewEvery), Rule: rule, Message: message, Now: now}
}

// PreviewAsked reports whether a form's post asked for a preview (its
// PreviewButton) instead of saving.
func PreviewAsked(c echo.Context) bool { return c.FormValue("preview") != "" }

// Render is the preview of body: 200 and the rendered text, or a
// refusal and the i18n key of why (422 for a text the form would
// refuse, 429 past the client's allowance).
func (p Preview) Render(c echo.Context, body string) (status int, rendered templ.Component, refusal string) {
	if !p.Pace.Allow(c.RealIP(), p.Now()) {
		return http.StatusTooManyRequests, nil, "preview.error.too_many"
	}
	body, problem := p.Rule.Check(body)
	if problem != formrule.OK {
		return http.StatusUnprocessableEntity, nil, problem.Message(p.Message, p.Message)
	}
	html := richtext.Render
	if p.Renderer != nil {
		html = p.Renderer.Render
	}
	return http.StatusOK, templ.Raw(string(html(body))), ""
}

// Serve is POST of a preview alone (body), htmx's: the box that replaces
// the slot, with the text or why it is refused.
func (p Preview) Serve(c echo.Context) error {
	status, rendered, refusal := p.Render(c, c.FormValue("body"))
	if refusal != "" {
		return RenderFragment(c, status, components.PreviewRefused(i18n.T(c.Request().Context(), refusal)))
	}
	return RenderFragment(c, status, components.Preview(rendered))
}

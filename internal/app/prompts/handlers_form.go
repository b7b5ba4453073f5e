package prompts

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/prompts"
)

// inputOf reads the create and edit form.
func inputOf(c echo.Context) Input {
	form, _ := c.FormParams()
	return Input{Title: c.FormValue("title"), Text: c.FormValue("text"), Tags: form["tag"], Visibility: c.FormValue("visibility")}
}

// tagChoices are the form's tag checkboxes: the active tags, plus the
// retired ones in kept (an edited prompt may keep its tags), with checked
// ticked.
func (h *handlers) tagChoices(ctx context.Context, kept, checked []string) ([]views.TagChoice, error) {
	tags, err := h.svc.AllTags(ctx)
	if err != nil {
		return nil, err
	}
	lang := string(i18n.LangOf(ctx))
	var out []views.TagChoice
	for _, t := range tags {
		if !t.IsActive && !slices.Contains(kept, t.Tag) {
			continue
		}
		out = append(out, views.TagChoice{Tag: t.Tag, Name: t.Name(lang), Checked: slices.Contains(checked, t.Tag), Inactive: !t.IsActive})
	}
	return out, nil
}

func renderForm(c echo.Context, status int, p views.FormProps) error {
	return web.Render(c, status, web.Page{Title: i18n.T(c.Request().Context(), p.Heading), Section: "prompts", Content: views.Form(p)})
}

// newPrompt is GET /prompts/new.
func (h *handlers) newPrompt(c echo.Context) error {
	choices, err := h.tagChoices(c.Request().Context(), nil, nil)
	if err != nil {
		return err
	}
	return renderForm(c, http.StatusOK, views.FormProps{
		Heading: "prompts.new.heading", Action: "/prompts", CancelURL: "/prompts/mine",
		Tags: choices, Visibility: Public,
	})
}

// create is POST /prompts.
func (h *handlers) create(c echo.Context) error {
	in := inputOf(c)
	p, err := h.svc.Create(c.Request().Context(), auth.From(c).MemberKey, in)
	if err != nil {
		form := views.FormProps{Heading: "prompts.new.heading", Action: "/prompts", CancelURL: "/prompts/mine"}
		return h.formFailed(c, err, in, form, nil)
	}
	return web.FlashRedirect(c, "prompts.flash.created", promptURL(p.PromptID))
}

// edit is GET /prompts/:id/edit (the author's own prompts only).
func (h *handlers) edit(c echo.Context) error {
	ctx := c.Request().Context()
	p, err := h.svc.Mine(ctx, auth.From(c).MemberKey, c.Param("id"))
	if err != nil {
		return err
	}
	tags := splitTags(p.Tags)
	choices, err := h.tagChoices(ctx, tags, tags)
	if err != nil {
		return err
	}
	u := promptURL(p.PromptID)
	return renderForm(c, http.StatusOK, views.FormProps{
		Heading: "prompts.edit.heading", Action: u, CancelURL: u,
		Title: p.Title, Text: p.PromptText, Tags: choices, Visibility: p.Visibility, Revision: p.Revision,
	})
}

// update is POST /prompts/:id. The form carries the revision it was
// opened on; an edit made on an older one is refused and shown again.
func (h *handlers) update(c echo.Context) error {
	ctx := c.Request().Context()
	me, promptID := auth.From(c).MemberKey, c.Param("id")
	revision, err := strconv.ParseInt(c.FormValue("revision"), 10, 64)
	if err != nil || revision < 1 {
		return web.BadRequest(i18n.T(ctx, "prompts.error.revision"), errors.New("prompts: edit without a revision"))
	}
	in := inputOf(c)
	p, err := h.svc.Update(ctx, me, promptID, revision, in)
	if err != nil {
		// The prompt's own tags stay on offer even when retired.
		old, oerr := h.svc.Mine(ctx, me, promptID)
		if oerr != nil {
			return oerr
		}
		u := promptURL(old.PromptID)
		form := views.FormProps{Heading: "prompts.edit.heading", Action: u, CancelURL: u, Revision: revision}
		return h.formFailed(c, err, in, form, splitTags(old.Tags))
	}
	return web.FlashRedirect(c, "prompts.flash.updated", promptURL(p.PromptID))
}

// formFailed shows the form again with the person's input and what went
// wrong, or hands on an error that is not about the input.
func (h *handlers) formFailed(c echo.Context, err error, in Input, form views.FormProps, kept []string) error {
	ctx := c.Request().Context()
	var invalid *InvalidError
	var tooSoon *TooSoonError
	var status int
	switch {
	case errors.As(err, &invalid):
		status, form.Errors = http.StatusUnprocessableEntity, views.FormErrors(invalid.Fields)
	case errors.Is(err, ErrDuplicateTitle):
		status, form.Errors.Title = http.StatusConflict, "prompts.error.title_taken"
	case errors.Is(err, ErrStale):
		status, form.Problem, form.ReloadURL = http.StatusConflict, i18n.T(ctx, "prompts.error.stale"), form.Action+"/edit"
	case errors.As(err, &tooSoon):
		seconds := int(math.Ceil(tooSoon.Wait.Seconds()))
		c.Response().Header().Set("Retry-After", strconv.Itoa(seconds))
		status, form.Problem = http.StatusTooManyRequests, i18n.N(ctx, "prompts.error.too_soon", seconds)
	default:
		return err
	}
	choices, err := h.tagChoices(ctx, kept, in.Tags)
	if err != nil {
		return err
	}
	form.Title, form.Text, form.Tags, form.Visibility = in.Title, in.Text, choices, in.Visibility
	return renderForm(c, status, form)
}

// delete is POST /prompts/:id/delete (the author's own prompts only).
func (h *handlers) delete(c echo.Context) error {
	if err := h.svc.Delete(c.Request().Context(), auth.From(c).MemberKey, c.Param("id")); err != nil {
		return err
	}
	return web.FlashRedirect(c, "prompts.flash.deleted", "/prompts/mine")
}

package prompts

import (
	"context"
	"errors"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
)

// Reports: a member reports a public prompt to the admins' moderation
// queue. Taking it down hides it (HiddenAt): it leaves every index at
// once (listed), and only its author, who is told on its page, and the
// admins still open it; an admin may show it again. The author may edit
// or delete it meanwhile, but not list it again. Both changes are
// written to the ModerationLog.

// promptKind is a prompt's kind in reports; its key is the promptId.
const promptKind = "prompts.prompt"

// ModerationLog records the admins' changes to prompts (the admin
// section's log).
type ModerationLog interface {
	LogAction(ctx context.Context, actorKey, actorName, action, targetType, targetKey, targetName, reason string) error
}

// UseModerationLog records taking prompts down and showing them again in
// l. Call it while wiring.
func (s *Service) UseModerationLog(l ModerationLog) { s.modlog = l }

// ReportKinds are what the catalog takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{promptKind} }

// TakeDown hides the reported prompt, as the admin by (moderation.Source).
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, by moderation.Moderator, reason string) error {
	return s.SetHidden(ctx, by, t.Key, true, reason)
}

// SetHidden takes promptID down (hidden) or shows it again, as the admin
// by, and logs it with reason. Doing what is done writes nothing.
func (s *Service) SetHidden(ctx context.Context, by moderation.Moderator, promptID string, hidden bool, reason string) error {
	authorID, err := s.authorOf(ctx, promptID)
	if err != nil {
		return err
	}
	var p PromptRow
	err = storage.Optimistic(ctx, editAttempts, func(ctx context.Context) error {
		old, err := s.Mine(ctx, authorID, promptID)
		if err != nil {
			return err
		}
		if (old.HiddenAt != nil) == hidden {
			return storage.ErrNoChange
		}
		p = old
		p.ETag, p.HiddenAt = "", nil
		if hidden {
			now := s.now().UTC()
			p.HiddenAt = &now
		}
		_, err = storage.Update(ctx, s.prompts, p, old.ETag)
		return err
	})
	if errors.Is(err, storage.ErrNoChange) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.modlog != nil {
		action := map[bool]string{true: "prompts.hide", false: "prompts.show"}[hidden]
		if err := s.modlog.LogAction(context.WithoutCancel(ctx), by.MemberKey, by.Name, action, "prompt", promptID, p.Title, reason); err != nil {
			s.log.ErrorContext(ctx, "prompts: moderation not logged", "prompt", promptID, "err", err)
		}
	}
	return s.reconcile(ctx, authorID, promptID)
}

// authorOf is promptID's author, from its lookup row (ErrNoPrompt).
func (s *Service) authorOf(ctx context.Context, promptID string) (string, error) {
	if !storage.IsID(promptID) {
		return "", ErrNoPrompt
	}
	lpk, lrk := promptLookupKey(promptID)
	l, err := storage.Find[PromptLookupRow](ctx, s.prompts, lpk, lrk, ErrNoPrompt)
	return l.AuthorID, err
}

// mayReport says whether the viewer id may report p: someone signed in,
// not its author, of a prompt in the catalog.
func (s *Service) mayReport(id *auth.Identity, p PromptRow) bool {
	return s.Reports != nil && id.HasAccount() && p.AuthorID != id.MemberKey && listed(&p)
}

// promptReport is the report of the request's prompt, and its page.
func (h *handlers) promptReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	ctx := c.Request().Context()
	id := auth.From(c)
	p, err := h.svc.Open(ctx, id.MemberKey, c.Param("id"), false)
	if err != nil {
		return moderation.Report{}, moderation.Form{}, err
	}
	if !h.svc.mayReport(id, p) {
		return moderation.Report{}, moderation.Form{}, ErrNoPrompt
	}
	author := h.svc.AuthorName(ctx, p.AuthorID)
	u := promptURL(p.PromptID)
	excerpt := p.Title + "\n\n" + p.PromptText
	if n := []rune(excerpt); len(n) > reportExcerpt {
		excerpt = string(n[:reportExcerpt]) + "…"
	}
	r := moderation.Report{
		Target: moderation.Target{Kind: promptKind, Key: p.PromptID}, Link: u, Excerpt: excerpt,
		Author: p.AuthorID, AuthorName: author, By: id.MemberKey, ByName: id.DisplayName,
	}
	return r, moderation.Form{Heading: "prompts.report.heading", BackLabel: p.Title, Action: u + "/report"}, nil
}

// reportExcerpt is how much of a prompt its report quotes.
const reportExcerpt = 500

// setHidden is POST /prompts/:id/hide (hidden=true|false) for admins:
// take the prompt down or show it again, then back to its page.
func (h *handlers) setHidden(c echo.Context) error {
	hidden, err := web.FormChoice(c, "hidden", map[string]bool{"true": true, "false": false}, "prompts.error.hidden")
	if err != nil {
		return err
	}
	id := auth.From(c)
	by := moderation.Moderator{MemberKey: id.MemberKey, Name: id.DisplayName}
	if err := h.svc.SetHidden(c.Request().Context(), by, c.Param("id"), hidden, ""); err != nil {
		return err
	}
	key := map[bool]string{true: "prompts.flash.hidden", false: "prompts.flash.shown"}[hidden]
	return web.FlashRedirect(c, key, promptURL(c.Param("id")))
}

// hiddenSince is when a hidden prompt was taken down, as its page says.
func hiddenSince(c echo.Context, at *time.Time) string {
	if at == nil {
		return ""
	}
	return i18n.DateTime(c.Request().Context(), at.In(auth.From(c).Location()))
}

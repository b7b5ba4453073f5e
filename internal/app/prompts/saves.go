package prompts

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/web"
	views "github.com/harmony/harmony/views/prompts"
)

// Saved prompts: someone signed in keeps the prompts they come back to,
// as a prompt library's "Save" does: a button on a prompt's page, and
// "Saved" (/prompts/saved), newest saved first. A save is theirs alone
// (nobody is told, nothing is counted), and may be taken back from
// either place. A prompt saved and later made private, taken down or
// deleted stays on the list as "no longer available", so it can be
// taken off it.
//
// A save is two rows of the saver's partition in PromptSaves, written
// and deleted together in one transaction: `p|{promptId}` (is it saved:
// one point read on the prompt's page) and `t|{rt(savedAt)}|{promptId}`
// (the list, newest first, paged by the store). Both carry the prompt's
// author, so the list reads each prompt with one point read.

// savesTable holds the saves.
const savesTable = "PromptSaves"

// SavedURL lists the viewer's saved prompts.
const SavedURL = "/prompts/saved"

// maxSaved bounds the prompts one person saves.
const maxSaved = 1000

// ErrTooManySaved refuses a save past maxSaved (409).
var ErrTooManySaved = fault.New(http.StatusConflict, "prompts.error.saved_full", "prompts: too many saved prompts", "max", maxSaved)

// The two rows of a save.
const (
	savedKeyPrefix  = "p|"
	savedListPrefix = "t|"
)

// SaveRow is one of a save's rows (PK the saver's memberKey).
type SaveRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	PromptID     string    `table:"promptId"`
	AuthorID     string    `table:"authorId"`
	SavedAt      time.Time `table:"savedAt"`
}

// listKey is the RowKey of a save's list row.
func (r SaveRow) listKey() string {
	return savedListPrefix + storage.ReverseTicks(r.SavedAt) + "|" + r.PromptID
}

// Saved reports whether me saved promptID: one point read.
func (s *Service) Saved(ctx context.Context, me, promptID string) (bool, error) {
	_, err := storage.Get[SaveRow](ctx, s.saves, me, savedKeyPrefix+promptID)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// SetSaved saves promptID for me, or takes the save back. Saving needs a
// prompt me may open; saving it again, or taking back a save there is
// not, changes nothing. A prompt that is gone may still be taken off the
// list.
func (s *Service) SetSaved(ctx context.Context, me, promptID string, saved bool) error {
	if !storage.IsID(promptID) {
		return ErrNoPrompt
	}
	key, err := storage.Get[SaveRow](ctx, s.saves, me, savedKeyPrefix+promptID)
	exists := err == nil
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if !saved {
		if !exists {
			return nil
		}
		err := s.saves.Transact(ctx, []storage.TxOp{
			{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: me, RowKey: key.RowKey}, IfMatch: key.ETag},
			{Kind: storage.TxDelete, Entity: storage.Entity{PartitionKey: me, RowKey: key.listKey()}, IfMatch: storage.AnyETag},
		})
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrPrecondition) {
			return nil // taken back at once elsewhere (a double click)
		}
		return err
	}
	p, err := s.Open(ctx, me, promptID, false)
	if err != nil {
		return err
	}
	if exists {
		return nil
	}
	n, err := s.savedCount(ctx, me)
	if err != nil {
		return err
	}
	if n >= s.saveCap {
		return ErrTooManySaved
	}
	row := SaveRow{PartitionKey: me, RowKey: savedKeyPrefix + p.PromptID, PromptID: p.PromptID, AuthorID: p.AuthorID, SavedAt: s.now().UTC()}
	list := row
	list.RowKey = row.listKey()
	var ops []storage.TxOp
	for _, r := range []SaveRow{row, list} {
		e, err := storage.Marshal(r)
		if err != nil {
			return err
		}
		ops = append(ops, storage.TxOp{Kind: storage.TxInsert, Entity: e})
	}
	if err := s.saves.Transact(ctx, ops); errors.Is(err, storage.ErrExists) {
		return nil // saved at once elsewhere (a double click)
	} else if err != nil {
		return err
	}
	return nil
}

// savedCount is how many prompts me saved: one query of keys.
func (s *Service) savedCount(ctx context.Context, me string) (int, error) {
	n := 0
	err := s.saves.QueryAll(ctx, storage.Query{PartitionKey: me, RowKeyFrom: savedKeyPrefix, RowKeyTo: storage.PrefixEnd(savedKeyPrefix), Select: []string{"RowKey"}}, func(storage.Entity) error {
		n++
		return nil
	})
	return n, err
}

// SavedQuery binds a saved list's cursors to its owner.
func SavedQuery(me string) string { return "saved|" + me }

// SavedPrompt is one save as the list shows it: the prompt, or nil when
// me may no longer open it.
type SavedPrompt struct {
	PromptID string
	Prompt   *PromptRow
}

// SavedPage is a page of me's saves, newest first.
type SavedPage struct {
	Prompts []SavedPrompt
	Next    string
}

// ListSaved is a page of me's saved prompts, newest saved first: one
// query, and a point read per prompt (eight at once).
func (s *Service) ListSaved(ctx context.Context, me string, cursor *storage.Cursor) (SavedPage, error) {
	q := storage.Query{PartitionKey: me, RowKeyFrom: savedListPrefix, RowKeyTo: storage.PrefixEnd(savedListPrefix), Limit: s.pageSize}
	if cursor != nil {
		q.Continuation = cursor.Next
	}
	rows, next, err := storage.TakePage[SaveRow](ctx, s.saves, q, s.pageSize)
	if err != nil {
		return SavedPage{}, err
	}
	out := SavedPage{Prompts: make([]SavedPrompt, len(rows))}
	err = storage.Each(ctx, len(rows), 8, func(ctx context.Context, i int) error {
		out.Prompts[i].PromptID = rows[i].PromptID
		p, err := s.Mine(ctx, rows[i].AuthorID, rows[i].PromptID)
		switch {
		case errors.Is(err, storage.ErrNotFound) || errors.Is(err, ErrNoPrompt):
			return nil
		case err != nil:
			return err
		}
		if p.IsDeleted || (p.AuthorID != me && !listed(&p)) {
			return nil
		}
		out.Prompts[i].Prompt = &p
		return nil
	})
	if err != nil {
		return SavedPage{}, err
	}
	if next != nil {
		out.Next = s.cursors.Encode(SavedQuery(me), storage.Cursor{Next: next})
	}
	return out, nil
}

// saveValues are the save form's values.
var saveValues = map[string]bool{"true": true, "false": false}

// save is POST /prompts/:id/save (saved=true|false): htmx gets the
// button as it now stands, a plain form goes back (to the prompt, or
// where next says: the saved list).
func (h *handlers) save(c echo.Context) error {
	ctx := c.Request().Context()
	saved, err := web.FormChoice(c, "saved", saveValues, "prompts.error.saved_value")
	if err != nil {
		return err
	}
	id := c.Param("id")
	if err := h.svc.SetSaved(ctx, auth.From(c).MemberKey, id, saved); err != nil {
		return err
	}
	if web.HTMXFrom(c).Partial && !strings.HasPrefix(web.NextOr(c, ""), SavedURL) {
		return web.RenderFragment(c, http.StatusOK, views.SaveButton(views.SaveProps{URL: promptURL(id) + "/save", Saved: saved}))
	}
	flash := "prompts.flash.saved"
	if !saved {
		flash = "prompts.flash.unsaved"
	}
	return web.FlashRedirect(c, flash, web.NextOr(c, promptURL(id)))
}

// saved is GET /prompts/saved[?cursor=…]: the viewer's saved prompts.
func (h *handlers) saved(c echo.Context) error {
	ctx := c.Request().Context()
	page, _, book, err := ownList(h, c, SavedQuery, h.svc.ListSaved)
	if err != nil {
		return err
	}
	cards := make([]views.Card, 0, len(page.Prompts))
	for _, sp := range page.Prompts {
		card := views.Card{ID: sp.PromptID, Gone: true}
		if sp.Prompt != nil {
			card = promptCard(ctx, book, *sp.Prompt)
		}
		card.UnsaveURL = promptURL(sp.PromptID) + "/save"
		cards = append(cards, card)
	}
	next := web.NextURL(SavedURL, page.Next)
	return web.Render(c, http.StatusOK, web.Page{
		Title:    i18n.T(ctx, "prompts.saved.heading"),
		Section:  "prompts",
		Content:  views.Saved(views.SavedProps{Cards: cards, NextURL: next}),
		Fragment: views.Chunk(cards, next),
	})
}
